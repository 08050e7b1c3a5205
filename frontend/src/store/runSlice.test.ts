import { describe, expect, it } from 'vitest';
import { fixtureOpen } from '../test/fixtures';
import { escalation, finished, summary } from '../components/run/runFixtures';
import type { RunEvent, RunRecord } from '../types';
import { createAppStore } from './index';
import { isStale, logEntryFor, MAX_LOG, nodeStateFor, visibleLog } from './runSlice';

let seq = 0;
function ev(type: RunEvent['type'], over: Partial<RunEvent> = {}): RunEvent {
  seq++;
  return { seq, time: '2026-01-02T03:04:05.678Z', type, run_id: 'r1', ...over };
}

const node = (id: string, name = id) => ({ node_id: id, node_key: id, node_name: name });

describe('node status from run events', () => {
  it('follows a step through running, a retry, an escalation and a skip', () => {
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    expect(store.getState().runPhase).toBe('starting');
    store.getState().applyRunEvents([
      ev('run_started', { message: 'Fixture: 6 nodes, 7 edges' }),
      ev('node_started', { ...node('n1'), status: 'running', tool: 'run_command', max_attempts: 3 }),
      ev('attempt', { ...node('n1'), status: 'running', attempt: 1, max_attempts: 3 }),
    ]);
    let s = store.getState();
    expect(s.runPhase).toBe('running');
    expect(s.runId).toBe('r1');
    expect(s.nodeRun.n1).toMatchObject({ status: 'running', attempt: 1, maxAttempts: 3 });

    store.getState().applyRunEvents([
      ev('failure', { ...node('n1'), status: 'failed', attempt: 1, max_attempts: 3, failure: escalation().escalation.failures![0] }),
      ev('retry', { ...node('n1'), status: 'retrying', attempt: 2, max_attempts: 3, delay_ms: 500, message: 'exit 3' }),
    ]);
    expect(store.getState().nodeRun.n1).toMatchObject({ status: 'retrying', attempt: 2, maxAttempts: 3, message: 'exit 3' });

    store.getState().applyRunEvents([ev('escalated', { ...node('n1'), status: 'escalated', attempt: 3, max_attempts: 3 })]);
    expect(store.getState().nodeRun.n1.status).toBe('escalated');

    store.getState().applyRunEvents([
      ev('user_response', { ...node('n1'), response: { action: 'skip' } }),
      ev('resolved', { ...node('n1'), status: 'skipped', attempt: 3, message: 'skipped' }),
      ev('node_skipped', { ...node('n1'), status: 'skipped', message: 'skipped after escalation' }),
      ev('node_started', { ...node('n5'), status: 'running', max_attempts: 1 }),
      ev('node_finished', { ...node('n5'), status: 'ok', attempt: 1, duration_ms: 12 }),
      ev('branch_evaluated', { ...node('n3'), branch: 'IfFalse', condition: 'list.count > 2' }),
      ev('loop_iteration', { ...node('n2'), iteration: 2 }),
    ]);
    s = store.getState();
    expect(s.nodeRun.n1.status).toBe('skipped');
    expect(s.nodeRun.n5).toMatchObject({ status: 'ok', attempt: 1 });
    expect(s.nodeRun.n3).toMatchObject({ status: 'ok', message: 'took IfFalse' });
    expect(s.nodeRun.n2).toMatchObject({ status: 'running', iteration: 2 });

    // The end settles what was left running.
    store.getState().applyRunEvents([ev('run_finished', { outcome: 'succeeded', summary: summary(), duration_ms: 1234 })]);
    expect(store.getState().nodeRun.n2.status).toBe('ok');
  });

  it('leaves nodes of a stopped run canceled, and ignores tool calls and other runs', () => {
    expect(nodeStateFor(undefined, ev('tool_call', { ...node('n4'), tool: 'read_file', status: 'ok' }))).toBeNull();
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    store.getState().applyRunEvents([
      ev('run_started'),
      ev('node_started', { ...node('n1'), status: 'running' }),
      ev('node_started', { ...node('n9'), status: 'running', run_id: 'other' }),
    ]);
    expect(store.getState().nodeRun.n9).toBeUndefined();
    store.getState().runFinished(finished({ outcome: 'canceled', error: 'canceled during List files' }));
    const s = store.getState();
    expect(s.runPhase).toBe('finished');
    expect(s.nodeRun.n1.status).toBe('canceled');
    expect(s.runResult?.outcome).toBe('canceled');
  });
});

describe('escalation state', () => {
  it('holds the escalation until answered or the run ends', () => {
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    store.getState().setRunEscalation(escalation());
    expect(store.getState().runEscalation?.id).toBe('r1#1');
    store.getState().setEscalationSending(true);
    expect(store.getState().escalationSending).toBe(true);
    store.getState().setEscalationSending(false, 'escalation r1#1 is not waiting');
    expect(store.getState().escalationError).toMatch(/not waiting/);
    store.getState().setRunReplanning(true);
    store.getState().setRunEscalation(escalation({ notice: 'try again' }));
    expect(store.getState().runReplanning).toBe(false);
    expect(store.getState().escalationError).toBeNull();
    store.getState().runFinished(finished({ outcome: 'aborted' }));
    expect(store.getState().runEscalation).toBeNull();
  });

  it('starts a new run from a clean slate', () => {
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    store.getState().applyRunEvents([ev('run_started'), ev('node_started', { ...node('n1'), status: 'running' })]);
    store.getState().runFinished(finished());
    store.getState().runStarting('wf-1');
    const s = store.getState();
    expect(s.nodeRun).toEqual({});
    expect(s.runLog).toEqual([]);
    expect(s.runResult).toBeNull();
    store.getState().runStartFailed('the workflow is not valid', [{ code: 'x', severity: 'error', message: 'bad', node_ids: ['n1'], edges: null }]);
    expect(store.getState().runPhase).toBe('idle');
    expect(store.getState().runProblems).toHaveLength(1);
  });

  it('forgets the last run when asked, but not while one goes', () => {
    const store = createAppStore();
    store.getState().loadDocument(fixtureOpen());
    store.getState().runStarting('wf-1');
    store.getState().applyRunEvents([ev('run_started'), ev('node_started', { ...node('n1'), status: 'running' })]);
    store.getState().clearRunStatus();
    expect(store.getState().nodeRun.n1).toBeDefined();
    store.getState().runFinished(finished());
    store.getState().clearRunStatus();
    expect(store.getState().nodeRun).toEqual({});
    expect(store.getState().runPhase).toBe('idle');
  });
});

describe('event log', () => {
  it('says what happened, newest last, and filters', () => {
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    store.getState().applyRunEvents([
      ev('run_started', { message: 'Fixture: 6 nodes' }),
      ev('node_started', { ...node('n1', 'List files'), tool: 'run_command' }),
      ev('attempt', { ...node('n1', 'List files'), attempt: 1, max_attempts: 2 }),
      ev('failure', { ...node('n1', 'List files'), attempt: 1, max_attempts: 2, failure: escalation().escalation.failures![0] }),
      ev('variable_set', { ...node('n1'), outputs: { exit_code: 3, stdout: '' } }),
      ev('warning', { message: 'List files was skipped; "Is big" reads its outputs' }),
    ]);
    const log = store.getState().runLog;
    expect(log.map((l) => l.type)).toEqual(['run_started', 'node_started', 'attempt', 'failure', 'variable_set', 'warning']);
    expect(log[1]).toMatchObject({ node: 'List files', text: 'Started (run_command)', group: 'step' });
    expect(log[3]).toMatchObject({ level: 'error', group: 'problem' });
    expect(log[3].text).toContain('Attempt 1/2 failed: verify `list.exit_code == 0` is false [verification_failed, logic, MEDIUM]');
    expect(visibleLog(log, 'all', '').length).toBe(6);
    expect(visibleLog(log, 'steps', '').map((l) => l.type)).toEqual(['run_started', 'node_started', 'failure', 'warning']);
    expect(visibleLog(log, 'problems', '').map((l) => l.type)).toEqual(['run_started', 'failure', 'warning']);
    expect(visibleLog(log, 'all', 'list files').map((l) => l.type)).toEqual(['node_started', 'attempt', 'failure', 'warning']);
  });

  it('describes the end of a run and answers', () => {
    expect(logEntryFor(ev('run_finished', { outcome: 'failed', message: 'Broken failed', duration_ms: 2500 })).text).toBe('Run failed in 2.50s: Broken failed');
    expect(logEntryFor(ev('user_response', { response: { action: 'fix', arguments: { path: 'a.txt' } } })).text).toBe('You answered fix {"path":"a.txt"}');
    expect(logEntryFor(ev('retry', { attempt: 3, max_attempts: 4, message: 'after retry' })).text).toBe('Retrying: attempt 3/4 — after retry');
  });

  it('keeps the latest entries only', () => {
    const store = createAppStore();
    store.getState().runStarting('wf-1');
    const many = [ev('run_started'), ...Array.from({ length: MAX_LOG + 50 }, (_, i) => ev('log', { ...node('n1'), message: `line ${i}` }))];
    store.getState().applyRunEvents(many);
    const s = store.getState();
    expect(s.runLog).toHaveLength(MAX_LOG);
    expect(s.runLogDropped).toBe(51);
    expect(s.runLog[s.runLog.length - 1].text).toBe(`line ${MAX_LOG + 49}`);
  });
});

describe('history', () => {
  const rec = (id: string): RunRecord => ({
    run_id: id,
    dir: `/tmp/.weft/runs/${id}`,
    workflow_id: 'wf-1',
    workflow_name: 'Fixture',
    outcome: 'succeeded',
    summary: summary(),
    warnings: [],
    replanned: false,
    started: '2026-01-02T03:04:05Z',
    finished: '2026-01-02T03:04:07Z',
    complete: true,
  });

  it('takes the answer for the workflow asked about only', () => {
    const store = createAppStore();
    store.getState().setRunHistoryLoading('/a.json|wf-1');
    expect(store.getState().runHistoryLoading).toBe(true);
    store.getState().setRunHistoryLoading('/b.json|wf-2');
    store.getState().setRunHistory('/a.json|wf-1', [rec('x')]);
    expect(store.getState().runHistory).toEqual([]);
    store.getState().setRunHistory('/b.json|wf-2', [rec('y'), rec('z')]);
    expect(store.getState().runHistory.map((r) => r.run_id)).toEqual(['y', 'z']);
    expect(store.getState().runHistoryLoading).toBe(false);
  });
});

describe('stale steps', () => {
  it('marks a step that ran and changed since (not for a rename or a move)', () => {
    const store = createAppStore();
    store.getState().loadDocument(fixtureOpen());
    store.getState().runStarting('wf-1');
    store.getState().applyRunEvents([ev('run_started'), ev('node_finished', { ...node('n1'), status: 'ok' })]);
    const n1 = () => store.getState().doc!.nodes.find((n) => n.id === 'n1')!;
    expect(isStale(store.getState(), n1())).toBe(false);
    store.getState().edit((w) => ({ ...w, nodes: w.nodes.map((n) => (n.id === 'n1' ? { ...n, name: 'Renamed', position: { x: 5, y: 5 } } : n)) }));
    expect(isStale(store.getState(), n1())).toBe(false);
    store.getState().edit((w) => ({ ...w, nodes: w.nodes.map((n) => (n.id === 'n1' ? { ...n, params: { ...n.params, arguments: { path: '/tmp' } } } : n)) }));
    expect(isStale(store.getState(), n1())).toBe(true);
    // A step that did not run is not stale, and a new run starts clean.
    const n2 = store.getState().doc!.nodes.find((n) => n.id === 'n2')!;
    expect(isStale(store.getState(), n2)).toBe(false);
    store.getState().runStarting('wf-1');
    expect(isStale(store.getState(), n1())).toBe(false);
  });
});
