import { fireEvent, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../../test/fixtures';

vi.mock('../../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../../store';
import { PinnedData, parsePin } from './PinnedData';

const initial = useStore.getState();
const s = () => useStore.getState();
const node = () => s().doc!.nodes.find((n) => n.id === 'n1')!;
const run = { pinFromRun: vi.fn(async () => true), unpin: vi.fn() };

beforeEach(() => {
  vi.clearAllMocks();
  useStore.setState(initial, true);
  s().loadDocument(fixtureOpen());
  useStore.setState({ tools: [{ name: 'fs.list', description: '', input_schema: {}, outputs: [{ name: 'entries', type: 'array', description: '' }], side_effects: false }] as never });
});

describe('parsePin', () => {
  it('takes a JSON object only, and says why not', () => {
    expect(parsePin('{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(parsePin('{"a": ').error).toMatch(/^Not JSON/);
    expect(parsePin('[1]').error).toMatch(/must be a JSON object/);
    expect(parsePin('"text"').error).toMatch(/must be a JSON object/);
    expect(parsePin('null').error).toMatch(/must be a JSON object/);
  });
});

describe('PinnedData', () => {
  it('types data: refuses what is not an object, pins an object as one undo step', () => {
    const { rerender } = render(<PinnedData node={node()} run={run} />);
    fireEvent.click(screen.getByTestId('pinned-type'));
    const editor = screen.getByTestId<HTMLTextAreaElement>('pinned-editor');
    expect(JSON.parse(editor.value)).toEqual({ entries: '' }); // the tool's outputs, to fill in
    fireEvent.change(editor, { target: { value: '[1, 2]' } });
    fireEvent.click(screen.getByTestId('pinned-save'));
    expect(screen.getByTestId('pinned-error')).toHaveTextContent('must be a JSON object');
    expect(s().doc!.pinned).toBeUndefined();
    fireEvent.change(editor, { target: { value: '{"entries": ["a.txt"]}' } });
    expect(screen.queryByTestId('pinned-error')).toBeNull();
    fireEvent.click(screen.getByTestId('pinned-save'));
    expect(s().doc!.pinned).toEqual({ n1: { entries: ['a.txt'] } });
    rerender(<PinnedData node={node()} run={run} />);
    expect(screen.getByTestId('pinned-json')).toHaveTextContent('a.txt');
    fireEvent.click(screen.getByTestId('pinned-unpin'));
    expect(run.unpin).toHaveBeenCalledWith('n1');
    s().undo();
    expect(s().doc!.pinned).toBeUndefined();
  });

  it('shows what validation says of the pin beside it', () => {
    s().edit((w) => ({ ...w, pinned: { n1: { entriez: [] } } }));
    s().setValidation({
      valid: true,
      problems: [
        { code: 'pinned_fields', severity: 'warning', message: "The pinned data of 'List files' has 'entriez', which the step does not output", node_ids: ['n1'], edges: [] },
        { code: 'unknown_tool', severity: 'warning', message: 'not about the pin', node_ids: ['n1'], edges: [] },
      ],
    });
    render(<PinnedData node={node()} run={run} />);
    const list = screen.getByTestId('pinned-problems');
    expect(list).toHaveTextContent("has 'entriez'");
    expect(list).not.toHaveTextContent('not about the pin');
  });

  it('pins the last run output through the run actions', () => {
    render(<PinnedData node={node()} run={run} />);
    fireEvent.click(screen.getByTestId('pinned-from-run'));
    expect(run.pinFromRun).toHaveBeenCalledWith('n1');
  });

  it('a deleted node takes its pin with it; undo brings both back', () => {
    s().edit((w) => ({ ...w, pinned: { n1: { entries: [] }, n2: { iteration: 1 } } }));
    s().selectNodes(['n1']);
    s().deleteSelection();
    expect(s().doc!.pinned).toEqual({ n2: { iteration: 1 } });
    s().undo();
    expect(s().doc!.pinned).toEqual({ n1: { entries: [] }, n2: { iteration: 1 } });
  });
});
