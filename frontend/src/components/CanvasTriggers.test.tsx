import { act, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { useStore } from '../store';
import { Canvas } from './Canvas';

const initial = useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
});

// The canvas draws a workflow's triggers before its start; they are no
// steps: selecting all, or a change React Flow reports for them, leaves the
// document's nodes as they were.
describe('Canvas triggers', () => {
  it('draws the triggers the file declares, and nothing of them reaches the document', async () => {
    const w = { ...fixtureWorkflow(), triggers: [{ type: 'webhook' as const, path: '/hooks/deploy', secret: '{{secrets.H}}', scheme: 'github' }] };
    useStore.getState().loadDocument(fixtureOpen({ workflow: w }));
    render(<Canvas />);
    const t = await screen.findByTestId('trigger-node');
    expect(t.textContent).toContain('/hooks/deploy');
    const before = useStore.getState().doc!.nodes;
    act(() => useStore.getState().selectAll());
    expect(useStore.getState().selectedNodeIds.some((id) => id.startsWith('trigger:'))).toBe(false);
    expect(useStore.getState().doc!.nodes).toBe(before);
  });

  it('draws none for a workflow without triggers', async () => {
    useStore.getState().loadDocument(fixtureOpen({ workflow: fixtureWorkflow() }));
    render(<Canvas />);
    await screen.findByTestId('node-n1');
    expect(screen.queryByTestId('trigger-node')).toBeNull();
  });
});
