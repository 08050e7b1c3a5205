import { act, render, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen } from '../test/fixtures';

vi.mock('../api', () => ({ api: {}, errorMessage: String }));

import { edgeTip } from '../graph/runEdges';
import { makeRunActions, type RunApi } from './run/runActions';
import { useStore } from '../store';
import type { RunEvent, RunRecord } from '../types';
import { Canvas } from './Canvas';

const initial = useStore.getState();

beforeEach(() => {
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen());
});

const ev = (seq: number, e: Partial<RunEvent>): RunEvent => ({ seq, time: '2026-01-01T00:00:00Z', type: 'log', run_id: 'r1', ...e });

/** A run of the fixture: the loop's body three times, the If false each time. */
function finishRun() {
  useStore.getState().applyRunEvents([
    ev(1, { type: 'run_started' }),
    ev(2, { type: 'attempt', node_id: 'n1', attempt: 1, arguments: { path: '.' } }),
    ev(3, { type: 'variable_set', node_id: 'n1', outputs: { count: 3 } }),
    ev(4, {
      type: 'run_finished',
      outcome: 'succeeded',
      summary: {
        edges: [
          { from: 'n1', to: 'n2', taken: 1 },
          { from: 'n2', to: 'n3', output: { type: 'LoopBody' }, taken: 3 },
          { from: 'n3', to: 'n5', output: { type: 'IfFalse' }, taken: 3 },
          { from: 'n5', to: 'n6', output: { type: 'SwitchCase', name: 'small' }, taken: 3 },
          { from: 'n6', to: 'n2', taken: 3 },
        ],
      } as RunEvent['summary'],
    }),
  ]);
}

function edge(container: HTMLElement, label: RegExp): Element {
  const found = [...container.querySelectorAll('.react-flow__edge')].filter((e) => label.test(e.getAttribute('aria-label') ?? ''));
  expect(found).toHaveLength(1);
  return found[0];
}

describe('edge counts after a run', () => {
  it('shows each edge’s count, dims the branches not taken and tells on hover what crossed', async () => {
    const { container } = render(<Canvas />);
    await screen.findByTestId('node-n1');
    expect(container.querySelector('.edge-taken, .edge-untaken')).toBeNull(); // no run yet
    await act(async () => finishRun());

    const body = edge(container, /^Edge \(body\): taken 3×/);
    expect(body).toHaveClass('edge-taken');
    expect(body.querySelector('.react-flow__edge-text')?.textContent).toContain('body · 3×');

    const untaken = edge(container, /^Edge \(true\): not taken/);
    expect(untaken).toHaveClass('edge-untaken');
    expect(untaken.querySelector('.react-flow__edge-text')?.textContent).not.toMatch(/×/);

    // The first edge has no label of its own: its count is its label, its
    // hover the outputs of the step it leaves.
    const first = edge(container, /^Edge: taken 1×/);
    expect(first.querySelector('.react-flow__edge-text')?.textContent).toContain('1×');
    const tip = first.querySelector('title')?.textContent ?? '';
    expect(tip).toContain('Taken 1 time');
    expect(tip).toContain('"count": 3');
  });

  it('draws no counts while a new run goes', async () => {
    const { container } = render(<Canvas />);
    await screen.findByTestId('node-n1');
    await act(async () => finishRun());
    expect(container.querySelector('.edge-taken')).not.toBeNull();
    await act(async () => useStore.getState().applyRunEvents([ev(1, { type: 'run_started', run_id: 'r2' })]));
    expect(container.querySelector('.edge-taken, .edge-untaken')).toBeNull();
  });
});

describe('edge counts of a past run opened from the history', () => {
  /** A past run as the history lists it: Go's summary with its edge counts. */
  function pastRun(over: Partial<RunRecord> = {}): RunRecord {
    return {
      run_id: 'old',
      dir: '/tmp/.weft/runs/old',
      outcome: 'succeeded',
      complete: true,
      summary: {
        edges: [
          { from: 'n1', to: 'n2', taken: 1 },
          { from: 'n2', to: 'n3', output: { type: 'LoopBody' }, taken: 2 },
          { from: 'n3', to: 'n4', output: { type: 'IfTrue' }, taken: 2 },
        ],
      },
      ...over,
    } as unknown as RunRecord;
  }
  const events = [ev(1, { type: 'run_started', run_id: 'old' }), ev(2, { type: 'variable_set', node_id: 'n1', run_id: 'old', outputs: { count: 7 } })];
  const fakeApi = () => ({ runEvents: vi.fn(async () => ({ events, total: events.length, truncated: false, warnings: [] })), log: vi.fn() }) as unknown as RunApi;

  it('shows that run’s counts and dims its untaken branches, with its outputs on hover; closing it brings back the last run’s', async () => {
    const { container } = render(<Canvas />);
    await screen.findByTestId('node-n1');
    await act(async () => finishRun());
    const actions = makeRunActions(useStore, fakeApi());
    await act(async () => actions.viewRun(pastRun()));

    const body = edge(container, /^Edge \(body\): taken 2× in this run/);
    expect(body).toHaveClass('edge-taken');
    expect(edge(container, /^Edge \(true\): taken 2×/)).toHaveClass('edge-taken');
    expect(edge(container, /^Edge \(false\): not taken in this run/)).toHaveClass('edge-untaken');
    const tip = edge(container, /^Edge: taken 1×/).querySelector('title')?.textContent ?? '';
    expect(tip).toContain('Taken 1 time in this run');
    expect(tip).toContain('"count": 7'); // the past run's outputs, not the live run's 3

    await act(async () => actions.viewRun(null));
    expect(edge(container, /^Edge \(body\): taken 3× in the last run/)).toHaveClass('edge-taken');
  });

  it('draws plain edges for a past run that did not end (no summary), not the live run’s counts', async () => {
    const { container } = render(<Canvas />);
    await screen.findByTestId('node-n1');
    await act(async () => finishRun());
    await act(async () => makeRunActions(useStore, fakeApi()).viewRun(pastRun({ complete: false, summary: undefined })));
    expect(container.querySelector('.edge-taken, .edge-untaken')).toBeNull();
  });
});

describe('edgeTip', () => {
  it('says the count and the last outputs, cut at a bound', () => {
    expect(edgeTip(0, undefined)).toBe('Not taken in the last run');
    const big = { text: 'x'.repeat(5000) };
    const tip = edgeTip(2, [
      { seq: 1, attempt: 1, status: 'ok', outputs: { old: true } },
      { seq: 2, attempt: 1, status: 'ok', iteration: 2, outputs: big },
      { seq: 3, attempt: 1, status: 'failed' },
    ]);
    expect(tip).toMatch(/^Taken 2 times in the last run\nLast outputs that crossed it \(iteration 2\):/);
    expect(tip).not.toContain('old');
    expect(tip.length).toBeLessThan(1000);
  });
});
