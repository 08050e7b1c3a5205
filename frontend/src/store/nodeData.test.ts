import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../types';
import { emptyNodeData, foldNodeData, MAX_RECORDS_PER_NODE } from './nodeData';

let seq = 0;
const ev = (type: RunEvent['type'], more: Partial<RunEvent> = {}): RunEvent => ({ seq: ++seq, time: '2026-11-25T10:00:00Z', type, run_id: 'r1', ...more });

describe('per-node run data', () => {
  it('keeps each attempt with its arguments, outputs and failure, per loop iteration', () => {
    const events = [
      ev('run_started'),
      ev('loop_iteration', { node_id: 'loop', iteration: 1 }),
      ev('attempt', { node_id: 'cmd', attempt: 1, arguments: { command: 'echo 1' } }),
      ev('failure', { node_id: 'cmd', attempt: 1, failure: { attempt: 1, time: '', failure_type: 'execution_error', error: 'exit 1', duration_ms: 3, severity: 'MEDIUM', category: 'unknown', retryable: true } as never }),
      ev('attempt', { node_id: 'cmd', attempt: 2, arguments: { command: 'echo 1' } }),
      ev('variable_set', { node_id: 'cmd', outputs: { stdout: '1', exit_code: 0 } }),
      ev('loop_iteration', { node_id: 'loop', iteration: 2 }),
      ev('attempt', { node_id: 'cmd', attempt: 1, arguments: { command: 'echo 2' } }),
      ev('variable_set', { node_id: 'cmd', outputs: { stdout: '2', exit_code: 0 } }),
      ev('branch_evaluated', { node_id: 'loop', branch: 'LoopDone', iteration: 2 }),
      ev('attempt', { node_id: 'after', attempt: 1, arguments: { message: 'done' } }),
      ev('node_skipped', { node_id: 'later', message: 'after a failure' }),
    ];
    const d = foldNodeData(emptyNodeData(), events);
    const cmd = d.records.cmd;
    expect(cmd.map((r) => [r.iteration, r.attempt, r.status])).toEqual([
      [1, 1, 'failed'],
      [1, 2, 'ok'],
      [2, 1, 'ok'],
    ]);
    expect(cmd[0].failure?.error).toBe('exit 1');
    expect(cmd[1].arguments).toEqual({ command: 'echo 1' });
    expect(cmd[2].outputs).toEqual({ stdout: '2', exit_code: 0 });
    expect(d.records.after[0].iteration).toBeUndefined(); // after the loop
    expect(d.records.after[0].status).toBe('running');
    expect(d.records.later[0]).toMatchObject({ status: 'skipped', message: 'after a failure' });
  });

  it('bounds the records per node and counts what it dropped', () => {
    const events = [ev('run_started')];
    for (let i = 1; i <= MAX_RECORDS_PER_NODE + 7; i++) {
      events.push(ev('loop_iteration', { node_id: 'loop', iteration: i }), ev('attempt', { node_id: 'n', attempt: 1 }));
    }
    const d = foldNodeData(emptyNodeData(), events);
    expect(d.records.n).toHaveLength(MAX_RECORDS_PER_NODE);
    expect(d.dropped.n).toBe(7);
    expect(d.records.n[0].iteration).toBe(8);
  });

  it('starts over with a new run, ignores other runs, and does not change what it was given', () => {
    const first = foldNodeData(emptyNodeData(), [ev('run_started'), ev('attempt', { node_id: 'a', attempt: 1 })]);
    const frozen = JSON.stringify(first);
    const same = foldNodeData(first, [ev('attempt', { node_id: 'a', attempt: 1, run_id: 'other' })]);
    expect(same).toBe(first);
    const second = foldNodeData(first, [ev('run_started', { run_id: 'r2' }), ev('attempt', { node_id: 'b', attempt: 1, run_id: 'r2' })]);
    expect(Object.keys(second.records)).toEqual(['b']);
    expect(JSON.stringify(first)).toBe(frozen);
  });

  it('tracks nested loops', () => {
    const d = foldNodeData(emptyNodeData(), [
      ev('run_started'),
      ev('loop_iteration', { node_id: 'outer', iteration: 1 }),
      ev('loop_iteration', { node_id: 'inner', iteration: 1 }),
      ev('loop_iteration', { node_id: 'inner', iteration: 2 }),
      ev('attempt', { node_id: 'x', attempt: 1 }),
      ev('branch_evaluated', { node_id: 'inner', branch: 'LoopDone' }),
      ev('attempt', { node_id: 'y', attempt: 1 }),
    ]);
    expect(d.records.x[0].iteration).toBe(2);
    expect(d.records.y[0].iteration).toBe(1);
  });
});
