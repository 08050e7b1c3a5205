import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { fixtureOpen, fixtureWorkflow } from '../../test/fixtures';
import type { RunEscalation, RunEvent, RunFinished, RunRecord, RunReplan, RunStart } from '../../types';

vi.mock('../../api', () => ({
  api: {},
  ASSISTANT_STOPPED: 'assistant: stopped',
  errorMessage: (e: unknown) => (e instanceof Error ? e.message : String(e)),
}));

import { useStore } from '../../store';
import { RunChip, chipText } from './RunChip';
import { makeRunActions, RUN_REPLAN_ENTRY, type RunApi } from './runActions';
import { approvalStep, escalation, finished, summary } from './runFixtures';
import { RunPanel } from './RunPanel';

const initial = useStore.getState();
type Handlers = Parameters<RunApi['onRun']>[0];
let heard: Handlers | null;
let fake: Record<keyof RunApi, ReturnType<typeof vi.fn>>;
let seq = 0;

function ev(type: RunEvent['type'], over: Partial<RunEvent> = {}): RunEvent {
  return { seq: ++seq, time: '2026-01-02T03:04:05Z', type, run_id: 'r1', ...over };
}

function started(over: Partial<RunStart> = {}): RunStart {
  return { started: true, problems: [], approval: [], warnings: [], ...over };
}

const record = (id: string, over: Partial<RunRecord> = {}): RunRecord => ({
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
  ...over,
});

beforeEach(() => {
  seq = 0;
  useStore.setState(initial, true);
  useStore.getState().loadDocument(fixtureOpen());
  heard = null;
  fake = {
    startRun: vi.fn().mockResolvedValue(started()),
    lastOutputs: vi.fn(),
    approveSteps: vi.fn().mockResolvedValue([]),
    stopRun: vi.fn().mockResolvedValue(true),
    respondEscalation: vi.fn().mockResolvedValue(undefined),
    keepFix: vi.fn(),
    runStatus: vi.fn().mockResolvedValue({ running: false, run_id: '', workflow_id: '', escalation: null, can_replan: false }),
    canReplan: vi.fn().mockResolvedValue(false),
    runHistory: vi.fn().mockResolvedValue({ dir: '/tmp/.weft/runs', runs: [], warnings: [] }),
    runEvents: vi.fn().mockResolvedValue({ events: [], total: 0, truncated: false, warnings: [] }),
    onRun: vi.fn().mockImplementation((h: Handlers) => {
      heard = h;
      return () => {};
    }),
    log: vi.fn(),
    temporalRunsGoing: vi.fn().mockResolvedValue([]),
    followTemporalRun: vi.fn().mockResolvedValue(started()),
    pendingApprovals: vi.fn().mockResolvedValue([]),
    workflowFileTrust: vi.fn().mockResolvedValue({ path: '/tmp/fixture.json', trusted: true, why: 'saved in Weft', changed: false }),
    workflowInputs: vi.fn().mockResolvedValue({ fields: [], problems: [] }),
  };
});

function setup() {
  const actions = makeRunActions(useStore, fake, { flushMs: 0 });
  render(<RunPanel actions={actions} />);
  return actions;
}

describe('run actions', () => {
  it('starts the document, follows its events and answers an escalation', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    await actions.start();
    const doc = useStore.getState().doc;
    expect(fake.startRun).toHaveBeenCalledWith(doc, '/tmp/fixture.json', undefined, undefined);
    expect(useStore.getState().runPhase).toBe('running');
    heard!.event(ev('run_started'));
    heard!.event(ev('node_started', { node_id: 'n1', status: 'running' }));
    expect(useStore.getState().nodeRun.n1.status).toBe('running');

    const esc: RunEscalation = escalation();
    heard!.escalation(esc);
    expect(useStore.getState().runEscalation).toBe(esc);
    expect(useStore.getState().sidebarTab).toBe('run');
    expect(await actions.respond({ action: 'skip' })).toBe(true);
    expect(fake.respondEscalation).toHaveBeenCalledWith('r1#1', { action: 'skip' });
    expect(useStore.getState().runEscalation).toBeNull();

    const fin: RunFinished = finished();
    heard!.finished(fin);
    expect(useStore.getState().runPhase).toBe('finished');
    expect(useStore.getState().runResult).toBe(fin);
    expect(fake.runHistory).toHaveBeenCalledWith('/tmp/fixture.json', 'wf-1');
  });

  it('says at once why a Temporal run does not go on (no worker polls its queue)', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    await actions.start();
    const text = 'no worker polls task queue weft; the run waits for one (start one: weft worker --task-queue weft)';
    heard!.notice!(text);
    expect(useStore.getState().toasts.map((t) => t.text)).toContain(text);
    expect(useStore.getState().runPhase).toBe('running');
  });

  it('gathers events before the store takes them', async () => {
    vi.useFakeTimers();
    try {
      const actions = makeRunActions(useStore, fake, { flushMs: 50 });
      actions.subscribe();
      useStore.getState().runStarting('wf-1');
      heard!.event(ev('run_started'));
      heard!.event(ev('node_started', { node_id: 'n1', status: 'running' }));
      expect(useStore.getState().runLog).toHaveLength(0);
      vi.advanceTimersByTime(60);
      expect(useStore.getState().runLog).toHaveLength(2);
      // An escalation takes what is queued first, in order.
      heard!.event(ev('escalated', { node_id: 'n1', status: 'escalated' }));
      heard!.escalation(escalation());
      expect(useStore.getState().nodeRun.n1.status).toBe('escalated');
    } finally {
      vi.useRealTimers();
    }
  });

  it('puts events delivered out of order back in order, the end after its last event', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    await actions.start();
    const e1 = ev('run_started');
    const e2 = ev('node_started', { node_id: 'n1', status: 'running' });
    const e3 = ev('escalated', { node_id: 'n1', status: 'escalated' });
    const e4 = ev('node_finished', { node_id: 'n1', status: 'ok' });
    const e5 = ev('run_finished', { outcome: 'succeeded' });
    heard!.event(e2);
    expect(useStore.getState().runLog).toHaveLength(0);
    heard!.escalation({ ...escalation(), after_seq: 3 });
    heard!.event(e1);
    expect(useStore.getState().runLog.map((l) => l.seq)).toEqual([1, 2]);
    expect(useStore.getState().runEscalation).toBeNull(); // its event has not come yet
    heard!.event(e3);
    expect(useStore.getState().runEscalation?.id).toBe('r1#1');
    expect(useStore.getState().nodeRun.n1.status).toBe('escalated');
    useStore.getState().setRunEscalation(null);
    heard!.finished({ ...finished(), after_seq: 5 });
    heard!.event(e5);
    expect(useStore.getState().runPhase).toBe('running');
    heard!.event(e4);
    const s = useStore.getState();
    expect(s.runPhase).toBe('finished');
    expect(s.runLog.map((l) => l.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(s.nodeRun.n1.status).toBe('ok');
    heard!.event(e2); // a duplicate is dropped
    expect(useStore.getState().runLog).toHaveLength(5);
  });

  it('skips a gap that lasts', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0, gapMs: 100 });
    await actions.start();
    vi.useFakeTimers();
    try {
      heard!.event(ev('run_started'));
      ev('node_started', { node_id: 'n1' }); // lost
      heard!.event(ev('node_finished', { node_id: 'n1', status: 'ok' }));
      heard!.finished({ ...finished(), after_seq: 3 });
      expect(useStore.getState().runLog).toHaveLength(1);
      vi.advanceTimersByTime(150);
      expect(useStore.getState().runLog.map((l) => l.seq)).toEqual([1, 3]);
      expect(useStore.getState().runPhase).toBe('finished');
      expect(fake.log).toHaveBeenCalledWith('warning', expect.stringContaining('seq 2–2 never came'));
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps an answer the backend refused on show, with the reason', async () => {
    fake.respondEscalation.mockRejectedValue(new Error('escalation r1#1 is not waiting for an answer'));
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    actions.subscribe();
    heard!.escalation(escalation());
    expect(await actions.respond({ action: 'retry' })).toBe(false);
    expect(useStore.getState().runEscalation?.id).toBe('r1#1');
    expect(useStore.getState().escalationError).toMatch(/not waiting/);
  });

  it('asks for approval of model-written steps, records a single step, then runs with all approved', async () => {
    const longCmd = `echo ${'x'.repeat(300)}; touch pwned`;
    const step = (id: string, fp: string) =>
      approvalStep({
        node_id: id,
        key: `k_${id}`,
        name: `Step ${id}`,
        arguments: { command: longCmd },
        content: `{"params":{"arguments":{"command":"${longCmd}"}}}`,
        fingerprint: fp,
      });
    const steps = [step('n1', 'fp1'), step('n2', 'fp2')];
    fake.startRun.mockResolvedValueOnce(started({ started: false, approval: steps, error: 'approve' }));
    fake.approveSteps.mockResolvedValueOnce([steps[1]]);
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    await actions.start();
    expect(useStore.getState().runApproval).toEqual({ steps, approved: [] });
    expect(useStore.getState().runPhase).toBe('idle');
    expect(useStore.getState().runError).toBeNull();
    render(<RunPanel actions={actions} />);
    const dialog = screen.getByTestId('approval-dialog');
    // The whole command is shown, never cut.
    expect(within(dialog).getAllByTestId('approval-args')[0].textContent).toContain('; touch pwned');
    fireEvent.click(within(dialog).getAllByTestId('approve-step')[0]);
    await waitFor(() => expect(useStore.getState().runApproval?.approved).toEqual(['fp1']));
    expect(fake.approveSteps).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1']);
    expect(screen.getByTestId('approve-run').textContent).toMatch(/other 1 step/);
    await actions.approve();
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1', 'fp2'], undefined);
    expect(useStore.getState().runApproval).toBeNull();
    expect(useStore.getState().runPhase).toBe('running');
  });

  it('runs from a node, through the approval too, and shows the reused and pinned steps', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    fake.startRun.mockResolvedValueOnce(started({ started: false, approval: [], error: 'The workflow has not run since Weft started' }));
    await actions.startFrom('n5');
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', undefined, 'n5');
    expect(useStore.getState().runError).toMatch(/has not run/);
    fake.startRun.mockResolvedValueOnce(started({ started: false, approval: [{ fingerprint: 'fp1' } as never], error: 'approve' }));
    await actions.startFrom('n5');
    expect(useStore.getState().runApproval?.from).toBe('n5');
    await actions.approve();
    expect(fake.startRun).toHaveBeenLastCalledWith(useStore.getState().doc, '/tmp/fixture.json', ['fp1'], 'n5');
    heard!.event(ev('run_started'));
    heard!.event(ev('node_finished', { node_id: 'n1', status: 'ok', source: 'reused', message: 'outputs reused from run r0: the step did not run again' }));
    heard!.event(ev('node_finished', { node_id: 'n2', status: 'ok', source: 'pinned', message: 'pinned data used: the step did not run' }));
    expect(useStore.getState().nodeRun.n1).toMatchObject({ status: 'ok', source: 'reused' });
    expect(useStore.getState().nodeRun.n2).toMatchObject({ status: 'ok', source: 'pinned' });
    expect(useStore.getState().runLog.map((l) => l.text)).toContain('pinned data used: the step did not run');
  });

  it('says where a run from a node started and that pinned data stood in', async () => {
    const actions = setup();
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    act(() =>
      heard!.finished(
        finished({ summary: summary({ from: { id: 'n5', key: 'done', name: 'Done' }, reused: 2, reused_from: 'r0', pinned: 1 }) }),
      ),
    );
    const sum = screen.getByTestId('run-summary');
    expect(within(sum).getByTestId('summary-from')).toHaveTextContent("Ran from Done; 2 steps before it reused run r0's outputs.");
    expect(within(sum).getByTestId('summary-pinned')).toHaveTextContent('Pinned data stood in for 1 step execution: that step did not run.');
    expect(actions).toBeTruthy();
  });

  it('pins the last run\'s output as one undo step, and unpins', async () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    fake.lastOutputs.mockResolvedValueOnce({ outputs: { stdout: 'hi' }, run_id: 'r1' });
    expect(await actions.pinFromRun('n1')).toBe(true);
    expect(fake.lastOutputs).toHaveBeenCalledWith('wf-1', 'n1');
    expect(useStore.getState().doc!.pinned).toEqual({ n1: { stdout: 'hi' } });
    actions.unpin('n1');
    expect(useStore.getState().doc!.pinned).toBeUndefined();
    useStore.getState().undo();
    expect(useStore.getState().doc!.pinned).toEqual({ n1: { stdout: 'hi' } });
    fake.lastOutputs.mockRejectedValueOnce(new Error('"List" did not complete in run r1'));
    expect(await actions.pinFromRun('n2')).toBe(false);
    expect(useStore.getState().doc!.pinned).toEqual({ n1: { stdout: 'hi' } });
  });

  it('shows a replanned version as a change to review', () => {
    const actions = makeRunActions(useStore, fake, { flushMs: 0 });
    actions.subscribe();
    const w = fixtureWorkflow();
    const added = { id: 'n9', key: 'fix', name: 'Fix', type: 'Tool' as const, params: { tool: 'log', arguments: { message: 'x' } } };
    const rp: RunReplan = {
      run_id: 'r1',
      message: 'List files failed; a new plan was made',
      changes: '1 step added (fix)',
      patch: { added_nodes: [added], removed_node_ids: [], updated_nodes: [], added_edges: [], removed_edges: [], warnings: [] },
      workflow: { ...w, nodes: [...w.nodes, added] },
      diff: { added_node_ids: ['n9'], removed_node_ids: [], modified_node_ids: [], added_edges: [], removed_edges: [] },
      warnings: [],
      valid: true,
      problems: [],
      side_effects: [],
      review: { added_nodes: [], removed_nodes: [], updated_nodes: [], added_edges: [], removed_edges: [] },
      after_seq: 0,
      tests: { line: 'tests: 1 of 2 pass', passed: 1, total: 2, cases: [{ name: 'empty', errored: false, differences: ['x'] }] },
    };
    heard!.replanned(rp);
    const s = useStore.getState();
    expect(s.runReplan).toBe(rp);
    expect(s.proposal?.entryId).toBe(RUN_REPLAN_ENTRY);
    // The workflow's tests played against the new version go to its review.
    expect(s.proposal?.tests?.line).toBe('tests: 1 of 2 pass');
    expect(s.previewStatus).toEqual({ n9: 'added' });
    // Applied (or discarded) in the review, it is done with.
    useStore.getState().endProposal('applied');
    expect(useStore.getState().runReplan).toBeNull();
  });
});

describe('RunPanel', () => {
  it('offers to follow a run of this workflow going on Temporal, and follows it as if it had started here', async () => {
    fake.temporalRunsGoing.mockResolvedValueOnce([{ run_id: 'weft-wf-1-17', started: '2026-11-26T07:00:00Z' }]);
    setup();
    const note = await screen.findByTestId('runs-going');
    expect(fake.temporalRunsGoing).toHaveBeenCalledWith('/tmp/fixture.json');
    expect(note.textContent).toContain('A run of this workflow is going on the Temporal service');
    fireEvent.click(within(note).getByTestId('follow-run'));
    await waitFor(() => expect(useStore.getState().runPhase).toBe('running'));
    expect(fake.followTemporalRun).toHaveBeenCalledWith('weft-wf-1-17');
    expect(screen.queryByTestId('runs-going')).toBeNull();
    act(() => heard!.event(ev('run_started')));
    act(() => heard!.event(ev('node_started', { node_id: 'n1', status: 'running' })));
    expect(useStore.getState().nodeRun.n1.status).toBe('running');
    act(() => heard!.finished(finished()));
    // Asked again once the run ended.
    await waitFor(() => expect(fake.temporalRunsGoing).toHaveBeenCalledTimes(2));
  });

  it('shows what a replan needed: the replies asked again and the local fixes', async () => {
    setup();
    const w = fixtureWorkflow();
    const rp: RunReplan = {
      run_id: 'r1',
      message: 'a new plan',
      changes: '',
      patch: { added_nodes: [], removed_node_ids: [], updated_nodes: [], added_edges: [], removed_edges: [], warnings: [] },
      workflow: w,
      diff: { added_node_ids: [], removed_node_ids: [], modified_node_ids: [], added_edges: [], removed_edges: [] },
      warnings: [{ stage: 'repair', message: 'closed 1 bracket' }, { stage: 'validate', message: 'a problem' }],
      valid: true,
      problems: [],
      side_effects: [],
      review: { added_nodes: [], removed_nodes: [], updated_nodes: [], added_edges: [], removed_edges: [] },
      after_seq: 0,
      tries: [{ attempt: 1, why: ['no JSON object in the reply'] }],
    };
    act(() => heard!.replanned(rp));
    const d = await screen.findByTestId('replan-repair');
    expect(d).toHaveTextContent('Needed 2 attempts');
    expect(within(d).getByTestId('chat-repair-try')).toHaveTextContent('Attempt 1 was asked again: no JSON object in the reply');
    expect(within(d).getByTestId('chat-repair-final')).toHaveTextContent('Attempt 2, used: fixed locally: closed 1 bracket');
  });

  it('runs, shows statuses, the escalation dialog and the summary', async () => {
    setup();
    await waitFor(() => expect(fake.runHistory).toHaveBeenCalled());
    expect(screen.getByTestId('run-status')).toHaveTextContent('not run in this session');
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    await waitFor(() => expect(screen.getByTestId('stop-button')).toBeInTheDocument());

    act(() => {
      heard!.event(ev('run_started', { message: 'Fixture' }));
      heard!.event(ev('node_started', { node_id: 'n1', node_name: 'List files', status: 'running', tool: 'fs.list' }));
      heard!.event(ev('node_finished', { node_id: 'n1', node_name: 'List files', status: 'ok', attempt: 1, duration_ms: 8 }));
    });
    expect(screen.getByTestId('run-status')).toHaveTextContent('Running · 1/1 steps');
    const entries = screen.getAllByTestId('log-entry');
    expect(entries.map((e) => e.getAttribute('data-type'))).toEqual(['run_started', 'node_started', 'node_finished']);

    act(() => heard!.escalation(escalation()));
    const dialog = screen.getByTestId('escalation-dialog');
    expect(within(dialog).getAllByTestId('attempt-row')).toHaveLength(2);
    expect(screen.getByTestId('run-status')).toHaveTextContent('Waiting for you at List files');
    fireEvent.click(within(dialog).getByTestId('esc-skip'));
    await waitFor(() => expect(fake.respondEscalation).toHaveBeenCalledWith('r1#1', { action: 'skip' }));
    await waitFor(() => expect(screen.queryByTestId('escalation-dialog')).toBeNull());

    act(() => heard!.finished(finished({ outcome: 'partial', summary: summary({ ran: 3, nodes: 2, first_attempt_successes: 1 }) })));
    const sum = screen.getByTestId('run-summary');
    // A skipped step is not a success: amber, and it says what happened.
    expect(within(sum).getByTestId('run-outcome')).toHaveTextContent('Completed with 1 skipped');
    expect(within(sum).getByTestId('run-outcome')).toHaveClass('partial');
    // Three nodes ran (two steps and an If): the status and the summary say
    // Go's count of what ran, not the two step executions.
    expect(screen.getByTestId('run-status')).toHaveTextContent('Completed with 1 skipped · 3 nodes ran');
    expect(within(sum).getByTestId('summary-ran')).toHaveAttribute('data-value', '3');
    expect(within(sum).getByTestId('summary-first_attempt_successes')).toHaveAttribute('data-value', '1');
    expect(within(sum).getByTestId('summary-escalations')).toHaveAttribute('data-value', '1');
    expect(within(sum).getByTestId('summary-skipped')).toHaveAttribute('data-value', '1');
    expect(within(sum).getByTestId('summary-failure-types')).toHaveTextContent('verification_failed ×1');
    expect(screen.getByTestId('run-button')).toBeEnabled();
  });

  it('lists the problems of a workflow that cannot run', async () => {
    fake.startRun.mockResolvedValue(
      started({
        started: false,
        error: 'the workflow is not valid, so it cannot run',
        problems: [{ code: 'if_missing_branch', severity: 'error', message: 'If "Is big" has no IfFalse edge', node_ids: ['n3'], edges: null }],
      }),
    );
    setup();
    fireEvent.click(screen.getByTestId('run-button'));
    const err = await screen.findByTestId('run-error');
    expect(err).toHaveTextContent('not valid');
    fireEvent.click(within(err).getByText('If "Is big" has no IfFalse edge'));
    expect(useStore.getState().selectedNodeIds).toEqual(['n3']);
  });

  it('disables Run while the workflow has errors, says why and points at them', () => {
    setup();
    expect(screen.getByTestId('run-button')).toBeEnabled();
    act(() =>
      useStore.getState().setValidation({
        valid: false,
        problems: [
          { code: 'unknown_output', severity: 'warning', message: 'just a warning', node_ids: ['n1'], edges: null },
          { code: 'if_missing_branch', severity: 'error', message: 'If "Is big" has no IfFalse edge', node_ids: ['n3'], edges: null },
        ],
      }),
    );
    const run = screen.getByTestId('run-button');
    expect(run).toBeDisabled();
    expect(run).toHaveAttribute('title', 'Fix 1 problem first: If "Is big" has no IfFalse edge');
    const why = screen.getByTestId('run-blocked');
    expect(why).toHaveTextContent('Cannot run: fix 1 problem first');
    fireEvent.click(why);
    expect(useStore.getState().selectedNodeIds).toEqual(['n3']);
    act(() => useStore.getState().setValidation({ valid: true, problems: [] }));
    expect(screen.getByTestId('run-button')).toBeEnabled();
    expect(screen.queryByTestId('run-blocked')).toBeNull();
  });

  it('shows past runs with their summary and opens one in the log', async () => {
    fake.runHistory.mockResolvedValue({ dir: '/tmp/.weft/runs', runs: [record('20260102-030405.000-aaaaaa'), record('20260101-030405.000-bbbbbb', { outcome: 'failed' })], warnings: [] });
    fake.runEvents.mockResolvedValue({ events: [ev('run_started', { message: 'old run' }), ev('run_finished', { outcome: 'succeeded' })], total: 2, truncated: false, warnings: [] });
    setup();
    fireEvent.click(screen.getByTestId('run-view-history'));
    const rows = await screen.findAllByTestId('history-row');
    expect(rows.map((r) => r.getAttribute('data-outcome'))).toEqual(['succeeded', 'failed']);
    fireEvent.click(within(rows[0]).getByRole('button'));
    expect(within(rows[0]).getByTestId('history-summary')).toHaveTextContent('Escalated');
    fireEvent.click(within(rows[0]).getByTestId('history-view-log'));
    await waitFor(() => expect(fake.runEvents).toHaveBeenCalledWith('/tmp/.weft/runs/20260102-030405.000-aaaaaa'));
    expect(await screen.findByTestId('viewing-past-run')).toHaveTextContent('20260102-030405.000-aaaaaa');
    expect(screen.getAllByTestId('log-entry')[0]).toHaveTextContent('Run started: old run');
  });

  it('opens a sub-workflow’s run from its caller’s, and back', async () => {
    const child = { run_id: '20260102-030406.000-cccccc', file: '/tmp/child.weft.json', dir: '/tmp/.weft/runs/20260102-030406.000-cccccc', node_key: 'sub' };
    const parent = { run_id: '20260102-030405.000-aaaaaa', file: '/tmp/fixture.json', dir: '/tmp/.weft/runs/20260102-030405.000-aaaaaa', node_key: 'sub' };
    fake.runHistory.mockImplementation(async (path: string) =>
      path === child.file
        ? { dir: '/tmp/.weft/runs', runs: [record(child.run_id, { dir: child.dir, parent })], warnings: [] }
        : { dir: '/tmp/.weft/runs', runs: [record(parent.run_id, { sub_runs: [child] })], warnings: [] },
    );
    fake.runEvents.mockImplementation(async (dir: string) => ({
      events: dir === parent.dir ? [ev('run_started'), ev('log', { node_key: 'sub', message: `runs the sub-workflow child.weft.json as run ${child.run_id}`, sub_run: child })] : [ev('run_started')],
      total: 2,
      truncated: false,
      warnings: [],
    }));
    const openFile = vi.fn(async (p: string) => {
      act(() => useStore.setState({ path: p }));
      return true;
    });
    render(<RunPanel actions={makeRunActions(useStore, fake, { flushMs: 0, openFile })} />);
    fireEvent.click(screen.getByTestId('run-view-history'));
    let rows = await screen.findAllByTestId('history-row');
    fireEvent.click(within(rows[0]).getByRole('button'));
    fireEvent.click(within(rows[0]).getByTestId('history-sub-run'));
    await waitFor(() => expect(openFile).toHaveBeenCalledWith('/tmp/child.weft.json'));
    await waitFor(() => expect(fake.runEvents).toHaveBeenCalledWith(child.dir));
    expect(await screen.findByTestId('viewing-past-run')).toHaveTextContent(child.run_id);
    fireEvent.click(screen.getByTestId('run-view-history'));
    rows = await screen.findAllByTestId('history-row');
    fireEvent.click(within(rows[0]).getByRole('button'));
    expect(within(rows[0]).getByTestId('history-parent')).toHaveTextContent('Called by fixture.json (step sub');
    fireEvent.click(within(rows[0]).getByTestId('history-parent'));
    await waitFor(() => expect(openFile).toHaveBeenCalledWith('/tmp/fixture.json'));
    await waitFor(() => expect(fake.runEvents).toHaveBeenCalledWith(parent.dir));
    // The caller's log names the child's run where the step started it, and opens it.
    fireEvent.click(await screen.findByTestId('log-open-sub-run'));
    await waitFor(() => expect(openFile).toHaveBeenCalledTimes(3));
    expect(openFile).toHaveBeenLastCalledWith('/tmp/child.weft.json');
    await waitFor(() => expect(screen.getByTestId('viewing-past-run')).toHaveTextContent(child.run_id));
  });

  it('opens a Temporal sub-workflow’s run by its Temporal id', async () => {
    // On Temporal the link names the child's Temporal run; its log folder has a name of its own.
    const child = { run_id: 'weft-parent-1.sub.5', file: '/tmp/child.weft.json', node_key: 'sub' };
    const folder = '/tmp/.weft/runs/20260102-030406.000-dddddd';
    fake.runHistory.mockImplementation(async (path: string) =>
      path === child.file
        ? { dir: '/tmp/.weft/runs', runs: [record('20260102-030406.000-dddddd', { dir: folder, engine_run_id: child.run_id })], warnings: [] }
        : { dir: '/tmp/.weft/runs', runs: [record('20260102-030405.000-aaaaaa', { sub_runs: [child] })], warnings: [] },
    );
    fake.runEvents.mockImplementation(async () => ({ events: [ev('run_started')], total: 1, truncated: false, warnings: [] }));
    const openFile = vi.fn(async (p: string) => {
      act(() => useStore.setState({ path: p }));
      return true;
    });
    render(<RunPanel actions={makeRunActions(useStore, fake, { flushMs: 0, openFile })} />);
    fireEvent.click(screen.getByTestId('run-view-history'));
    const rows = await screen.findAllByTestId('history-row');
    fireEvent.click(within(rows[0]).getByRole('button'));
    fireEvent.click(within(rows[0]).getByTestId('history-sub-run'));
    await waitFor(() => expect(fake.runEvents).toHaveBeenCalledWith(folder));
    expect(await screen.findByTestId('viewing-past-run')).toHaveTextContent('20260102-030406.000-dddddd');
  });

  it('filters the log', async () => {
    setup();
    await act(async () => {
      useStore.getState().runStarting('wf-1');
      heard ??= null;
    });
    act(() =>
      useStore.getState().applyRunEvents([
        ev('run_started'),
        ev('node_started', { node_id: 'n1', node_name: 'List files' }),
        ev('attempt', { node_id: 'n1', node_name: 'List files', attempt: 1 }),
        ev('failure', { node_id: 'n1', node_name: 'List files', attempt: 1, failure: escalation().escalation.failures![0] }),
      ]),
    );
    expect(screen.getAllByTestId('log-entry')).toHaveLength(3);
    fireEvent.click(screen.getByTestId('log-filter-all'));
    expect(screen.getAllByTestId('log-entry')).toHaveLength(4);
    fireEvent.click(screen.getByTestId('log-filter-problems'));
    expect(screen.getAllByTestId('log-entry').map((e) => e.getAttribute('data-type'))).toEqual(['run_started', 'failure']);
    fireEvent.click(screen.getByTestId('log-filter-all'));
    fireEvent.change(screen.getByTestId('log-search'), { target: { value: 'attempt 1' } });
    expect(screen.getAllByTestId('log-entry').map((e) => e.getAttribute('data-type'))).toEqual(['attempt', 'failure']);
  });
});

describe('RunPanel: outcomes, goal checks and fixes', () => {
  it('shows handled failures and an unmet goal check with its feedback', async () => {
    setup();
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    act(() =>
      heard!.finished(
        finished({
          outcome: 'partial',
          summary: summary({ skipped: 0, handled: 1, failed: 0 }),
          verdict: {
            approved: false,
            accepted: true,
            confidence: 0.8,
            checked_by: 'model',
            criteria: 'coverage is at least 80%',
            feedback: 'coverage is 62%',
            suggestions: ['add tests for parser.go'],
          },
        }),
      ),
    );
    const sum = screen.getByTestId('run-summary');
    expect(within(sum).getByTestId('run-outcome')).toHaveTextContent('Completed with 1 failure handled, goal not met');
    expect(within(sum).getByTestId('summary-handled')).toHaveAttribute('data-value', '1');
    const v = within(sum).getByTestId('run-verdict');
    expect(v).toHaveTextContent('Goal check not met (accepted) (model, 80% confident)');
    expect(v).toHaveTextContent('coverage is 62%');
    expect(within(v).getByTestId('verdict-suggestions')).toHaveTextContent('add tests for parser.go');
  });

  it('shows an aborted run as failed with its failed step counted', async () => {
    setup();
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    act(() => heard!.finished(finished({ outcome: 'aborted', error: 'aborted at List files', summary: summary({ skipped: 0, failed: 1 }) })));
    const sum = screen.getByTestId('run-summary');
    expect(within(sum).getByTestId('run-outcome')).toHaveTextContent('Aborted');
    expect(within(sum).getByTestId('run-outcome')).not.toHaveClass('succeeded');
    expect(within(sum).getByTestId('summary-failed')).toHaveAttribute('data-value', '1');
  });

  it('asks about a goal check with its own answers', async () => {
    setup();
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    act(() => heard!.escalation(escalation({ node_id: '', node_key: 'done_when', node_name: 'Goal check (done_when)', node_type: 'DoneWhen', tool: undefined, choices: ['retry', 'skip', 'abort'] })));
    const dialog = screen.getByTestId('escalation-dialog');
    expect(within(dialog).queryByTestId('esc-fix')).toBeNull();
    expect(within(dialog).getByTestId('esc-retry')).toHaveTextContent('Check again');
    expect(within(dialog).getByTestId('esc-skip')).toHaveTextContent('Accept anyway');
  });

  it('offers to keep a fix in the workflow, as one undo step', async () => {
    setup();
    const before = useStore.getState().doc!;
    const kept = structuredClone(before);
    kept.nodes[0].params.arguments = { path: 'fixed' };
    fake.keepFix.mockResolvedValue(kept);
    fireEvent.click(screen.getByTestId('run-button'));
    await waitFor(() => expect(fake.startRun).toHaveBeenCalled());
    act(() => heard!.escalation(escalation()));
    const dialog = screen.getByTestId('escalation-dialog');
    fireEvent.click(within(dialog).getByTestId('esc-fix'));
    fireEvent.change(within(dialog).getByTestId('esc-fix-text'), { target: { value: '{"path": "fixed"}' } });
    fireEvent.click(within(dialog).getByTestId('esc-fix-send'));
    await waitFor(() => expect(fake.respondEscalation).toHaveBeenCalledWith('r1#1', { action: 'fix', arguments: { path: 'fixed' } }));
    const offer = await screen.findByTestId('fix-offer');
    expect(offer).toHaveTextContent('changed this run only');
    fireEvent.click(within(offer).getByTestId('fix-keep'));
    await waitFor(() => expect(fake.keepFix).toHaveBeenCalledWith(before, 'n1', { path: 'fixed' }));
    await waitFor(() => expect(useStore.getState().doc!.nodes[0].params.arguments).toEqual({ path: 'fixed' }));
    expect(useStore.getState().dirty).toBe(true);
    expect(screen.queryByTestId('fix-offer')).toBeNull();
    act(() => useStore.getState().undo());
    expect(useStore.getState().doc!.nodes[0].params.arguments).toEqual(before.nodes[0].params.arguments);
  });
});

describe('RunChip', () => {
  it('says the status, with the attempt while retrying', () => {
    expect(chipText({ status: 'retrying', attempt: 2, maxAttempts: 3 })).toBe('retrying 2/3');
    expect(chipText({ status: 'ok', attempt: 3 })).toBe('ok · 3 attempts');
    expect(chipText({ status: 'escalated' })).toBe('needs you');
    render(<RunChip state={{ status: 'failed', message: 'exit 3' }} />);
    expect(screen.getByTestId('run-chip')).toHaveAttribute('data-status', 'failed');
    expect(screen.getByTestId('run-chip')).toHaveAttribute('title', 'failed: exit 3');
  });
});
