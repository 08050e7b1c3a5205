import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { FindBox, findNodes } from './FindBox';

const initial = useStore.getState();
const s = () => useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  s().loadDocument(fixtureOpen());
});

describe('find a node', () => {
  it('matches names and keys, any case', () => {
    expect(findNodes(fixtureWorkflow(), 'FILE')).toEqual(['n1', 'n2']); // "List files", "Each file"
    expect(findNodes(fixtureWorkflow(), 'route')).toEqual(['n5']);
    expect(findNodes(fixtureWorkflow(), '  ')).toEqual([]);
  });

  it('selects and centres matches as you type and on Enter, and closes on Escape', () => {
    s().setFindOpen(true);
    render(<FindBox />);
    const input = screen.getByTestId('find-input');
    fireEvent.change(input, { target: { value: 'file' } });
    expect(s().selectedNodeIds).toEqual(['n1']);
    expect(s().focusRequest?.nodeIds).toEqual(['n1']);
    expect(screen.getByTestId('find-count')).toHaveTextContent('1 of 2');
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(s().selectedNodeIds).toEqual(['n2']);
    expect(screen.getByTestId('find-count')).toHaveTextContent('2 of 2');
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(s().selectedNodeIds).toEqual(['n1']); // wraps around
    fireEvent.keyDown(input, { key: 'Enter', shiftKey: true });
    expect(s().selectedNodeIds).toEqual(['n2']);
    fireEvent.change(input, { target: { value: 'nothing like it' } });
    expect(screen.getByTestId('find-count')).toHaveTextContent('no match');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(s().findOpen).toBe(false);
  });
});
