// The Run panel's operations: start (with the approval a replanned version
// needs), stop, answer an escalation, and take the backend's run events
// into the store (batched, so a busy loop does not re-render per event).
// A replanned workflow is shown as a change to review with the assistant's
// preview (store/assistantSlice.ts) and applied with its Apply button.
import { api, errorMessage, type Api } from '../../api';
import type { Proposal } from '../../store/assistantSlice';
import type { AppStore, StoreState } from '../../store/index';
import { logEntryFor } from '../../store/runSlice';
import type { RunEscalation, RunEvent, RunFinished, RunRecord, RunReplan, RunResponse } from '../../types';

export type RunApi = Pick<
  Api,
  'startRun' | 'stopRun' | 'respondEscalation' | 'runStatus' | 'canReplan' | 'runHistory' | 'runEvents' | 'onRun' | 'log'
>;

/** The chat entry id a replan proposal carries: it belongs to no message. */
export const RUN_REPLAN_ENTRY = -1;

export interface RunActionsOptions {
  /** how long events are gathered before the store takes them; 0 applies each at once */
  flushMs?: number;
}

type Loose = StoreState & { setSidebarTab?: (t: 'inspector' | 'assistant' | 'run') => void };

/** historyKeyOf names the history of a document: its file and id. */
export function historyKeyOf(path: string, id: string | undefined): string {
  return `${path}|${id ?? ''}`;
}

export function makeRunActions(store: AppStore, apiImpl: RunApi = api, opts: RunActionsOptions = {}) {
  const flushMs = opts.flushMs ?? 50;
  let unsubscribe: (() => void) | null = null;
  let queue: RunEvent[] = [];
  let timer: ReturnType<typeof setTimeout> | null = null;

  function flush() {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (!queue.length) return;
    const batch = queue;
    queue = [];
    store.getState().applyRunEvents(batch);
  }

  function showRunTab() {
    const s = store.getState() as Loose;
    s.setSidebarTab?.('run');
  }

  const handlers = {
    event(e: RunEvent) {
      queue.push(e);
      if (flushMs <= 0) flush();
      else if (!timer) timer = setTimeout(flush, flushMs);
    },
    escalation(e: RunEscalation) {
      flush();
      store.getState().setRunEscalation(e);
      showRunTab();
    },
    replanned(r: RunReplan) {
      flush();
      store.getState().setRunReplan(r);
      showReplan(r);
    },
    finished(f: RunFinished) {
      flush();
      store.getState().runFinished(f);
      void loadHistory(true);
    },
  };

  /** Events are heard from the first run on, whichever tab shows. */
  function subscribe() {
    if (unsubscribe) return;
    // (An api without run events, as some tests mock it, hears nothing.)
    unsubscribe = typeof apiImpl.onRun === 'function' ? apiImpl.onRun(handlers) : () => {};
    // Another workflow: the statuses and history of this one go.
    store.subscribe((s, prev) => {
      if (s.doc?.id !== prev.doc?.id || s.path !== prev.path) {
        if (s.doc?.id !== prev.doc?.id) s.clearRunStatus();
        if (s.runReplan && s.doc?.id !== s.runReplan.workflow?.id) s.setRunReplan(null);
      }
    });
  }

  /** start runs the document; approved lists the side-effect steps the user approved. */
  async function start(approved?: string[]): Promise<void> {
    const s = store.getState();
    const doc = s.doc;
    if (!doc || s.runPhase === 'running' || s.runPhase === 'starting' || s.runPhase === 'stopping') return;
    subscribe();
    s.setRunApproval(null);
    s.runStarting(doc.id);
    try {
      const r = await apiImpl.startRun(doc, s.path, approved);
      if (r.started) {
        store.getState().runStarted(r.warnings);
        return;
      }
      if (r.approval.length) {
        store.getState().runStartFailed('');
        store.getState().setRunApproval({ steps: r.approval, changed: r.approval_changed });
        return;
      }
      store.getState().runStartFailed(r.error || 'The run did not start.', r.problems);
    } catch (e) {
      store.getState().runStartFailed(errorMessage(e));
    }
  }

  /** approve runs the replanned version whose side-effect steps the dialog listed. */
  async function approve(): Promise<void> {
    const a = store.getState().runApproval;
    if (!a) return;
    await start(a.steps.map((x) => x.id));
  }

  function cancelApproval(): void {
    store.getState().setRunApproval(null);
  }

  async function stop(): Promise<void> {
    store.getState().setRunStopping();
    try {
      await apiImpl.stopRun();
    } catch (e) {
      apiImpl.log('error', `stop run: ${errorMessage(e)}`);
    }
  }

  /** respond answers the escalation on show. */
  async function respond(resp: RunResponse): Promise<boolean> {
    const esc = store.getState().runEscalation;
    if (!esc) return false;
    store.getState().setEscalationSending(true);
    try {
      await apiImpl.respondEscalation(esc.id, resp);
      // A refused answer comes back as a new escalation; this one is done.
      if (store.getState().runEscalation?.id === esc.id) {
        store.getState().setRunEscalation(null);
        if (resp.action === 'replan') store.getState().setRunReplanning(true);
      }
      return true;
    } catch (e) {
      if (store.getState().runEscalation?.id === esc.id) store.getState().setEscalationSending(false, errorMessage(e));
      return false;
    }
  }

  async function loadHistory(force = false): Promise<void> {
    const { doc, path, runHistoryKey } = store.getState();
    if (!doc || typeof apiImpl.runHistory !== 'function') return;
    const key = historyKeyOf(path, doc.id);
    if (!force && key === runHistoryKey) return;
    store.getState().setRunHistoryLoading(key);
    try {
      const h = await apiImpl.runHistory(path, doc.id);
      store.getState().setRunHistory(key, h.runs, h.warnings.length ? h.warnings.join('; ') : null);
    } catch (e) {
      store.getState().setRunHistory(key, [], errorMessage(e));
    }
  }

  /** viewRun shows the log of a past run in place of the live one. */
  async function viewRun(record: RunRecord | null): Promise<void> {
    if (!record) {
      store.getState().setViewedRun(null);
      return;
    }
    store.getState().setViewedRun({ record, log: [], total: 0, truncated: false, loading: true, error: null });
    try {
      const r = await apiImpl.runEvents(record.dir);
      if (store.getState().viewedRun?.record !== record) return;
      store.getState().setViewedRun({
        record,
        log: r.events.map(logEntryFor),
        total: r.total,
        truncated: r.truncated,
        loading: false,
        error: r.warnings.length ? r.warnings.join('; ') : null,
      });
    } catch (e) {
      if (store.getState().viewedRun?.record !== record) return;
      store.getState().setViewedRun({ record, log: [], total: 0, truncated: false, loading: false, error: errorMessage(e) });
    }
  }

  /** sync picks up a run that was going before the window (re)loaded. */
  async function sync(): Promise<void> {
    if (typeof apiImpl.runStatus !== 'function') return;
    try {
      const [st, can] = await Promise.all([apiImpl.runStatus(), apiImpl.canReplan()]);
      store.getState().setCanReplan(can);
      if (!st.running) return;
      subscribe();
      const s = store.getState();
      if (s.runPhase !== 'running') store.setState({ runPhase: 'running', runId: st.run_id || null, runWorkflowId: st.workflow_id });
      if (st.escalation) handlers.escalation(st.escalation);
    } catch (e) {
      apiImpl.log('warning', `run status: ${errorMessage(e)}`);
    }
  }

  async function refreshCanReplan(): Promise<void> {
    try {
      store.getState().setCanReplan(await apiImpl.canReplan());
    } catch {
      store.getState().setCanReplan(false);
    }
  }

  /** showReplan previews the replanned version on the canvas for review. */
  function showReplan(r: RunReplan): boolean {
    const s = store.getState();
    const base = s.doc;
    if (!base || !r.workflow) return false;
    const p: Proposal = {
      entryId: RUN_REPLAN_ENTRY,
      kind: 'patch',
      message: r.message,
      patch: r.patch,
      workflow: r.workflow,
      diff: r.diff,
      warnings: r.warnings ?? [],
      problems: (r.problems ?? []).filter((x) => x.severity === 'error'),
      valid: r.valid,
      validated: true,
      attempts: 1,
    };
    s.showProposal(p, base);
    const changed = [...r.diff.added_node_ids, ...r.diff.modified_node_ids, ...r.diff.removed_node_ids];
    if (changed.length) store.setState((st) => ({ focusRequest: { nodeIds: changed, seq: (st.focusRequest?.seq ?? 0) + 1 } }));
    return true;
  }

  return {
    subscribe,
    start,
    approve,
    cancelApproval,
    stop,
    respond,
    loadHistory,
    viewRun,
    sync,
    refreshCanReplan,
    showReplan,
    /** for tests: the handlers the backend's events reach */
    handlers,
    flush,
  };
}

export type RunActions = ReturnType<typeof makeRunActions>;
