// The Run panel's operations: start (with the approval a replanned version
// needs), stop, answer an escalation, and take the backend's run events
// into the store (batched, so a busy loop does not re-render per event).
// A replanned workflow is shown as a change to review with the assistant's
// preview (store/assistantSlice.ts) and applied with its Apply button.
import { api, errorMessage, type Api } from '../../api';
import type { Proposal } from '../../store/assistantSlice';
import type { AppStore } from '../../store/index';
import { edgeCounts, logEntryFor } from '../../store/runSlice';
import { emptyNodeData, foldNodeData } from '../../store/nodeData';
import { refreshFileTrust } from '../../store/trustSlice';
import { setPinned } from '../../graph/edit';
import type { InputProblem, RunEscalation, RunEvent, RunFinished, RunLink, RunRecord, RunReplan, RunResponse, RunStart, Workflow } from '../../types';
import { given as givenInputs, initialValues, remember } from './inputsForm';

export type RunApi = Pick<
  Api,
  'startRun' | 'lastOutputs' | 'approveSteps' | 'stopRun' | 'respondEscalation' | 'keepFix' | 'runStatus' | 'canReplan' | 'runHistory' | 'runEvents' | 'onRun' | 'log'
> &
  Partial<Pick<Api, 'temporalRunsGoing' | 'followTemporalRun' | 'pendingApprovals' | 'workflowFileTrust' | 'workflowInputs'>>;

/** The chat entry id a replan proposal carries: it belongs to no message. */
export const RUN_REPLAN_ENTRY = -1;

export interface RunActionsOptions {
  /** how long events are gathered before the store takes them; 0 applies each at once */
  flushMs?: number;
  /** how long a missing event is waited for before it is skipped */
  gapMs?: number;
  /** openFile opens another workflow file in the editor (asking first
   * about unsaved changes); false when it did not. */
  openFile?: (path: string) => Promise<boolean>;
}

/** historyKeyOf names the history of a document: its file and id. */
export function historyKeyOf(path: string, id: string | undefined): string {
  return `${path}|${id ?? ''}`;
}

export function makeRunActions(store: AppStore, apiImpl: RunApi = api, opts: RunActionsOptions = {}) {
  const flushMs = opts.flushMs ?? 50;
  const GAP_MS = opts.gapMs ?? 1500;
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
    store.getState().setSidebarTab('run');
  }

  // The transport may deliver messages out of order (wails dev sends each
  // from its own goroutine). Events carry seq 1, 2, …; the escalation, the
  // replan and the end carry the seq of the last event before them. Events
  // wait for the ones before them; the others for their event. A gap that
  // lasts (a lost message) is skipped after GAP_MS.
  let nextSeq: number | null = 1; // null: take the first event's seq (joined a run already going)
  const pending = new Map<number, RunEvent>();
  type Later = { after: number; rank: number; apply(): void };
  let later: Later[] = [];
  let gapTimer: ReturnType<typeof setTimeout> | null = null;

  function reset(next: number | null) {
    nextSeq = next;
    pending.clear();
    later = [];
    if (gapTimer) clearTimeout(gapTimer);
    gapTimer = null;
  }

  function drain() {
    if (nextSeq === null && pending.size) nextSeq = Math.min(...pending.keys());
    while (nextSeq !== null && pending.has(nextSeq)) {
      queue.push(pending.get(nextSeq)!);
      pending.delete(nextSeq);
      nextSeq++;
    }
    const due = later.filter((l) => nextSeq === null || l.after < nextSeq).sort((a, b) => a.after - b.after || a.rank - b.rank);
    if (due.length) {
      later = later.filter((l) => !due.includes(l));
      flush();
      for (const l of due) l.apply();
    } else if (queue.length) {
      if (flushMs <= 0) flush();
      else if (!timer) timer = setTimeout(flush, flushMs);
    }
    if (gapTimer) clearTimeout(gapTimer);
    gapTimer = null;
    if (pending.size || later.length) {
      gapTimer = setTimeout(() => {
        gapTimer = null;
        const waiting = [...pending.keys(), ...later.map((l) => l.after + 1)];
        if (!waiting.length) return;
        const to = Math.min(...waiting);
        apiImpl.log('warning', `run events: seq ${nextSeq}–${to - 1} never came; going on without them`);
        nextSeq = Math.max(nextSeq ?? 0, to);
        drain();
      }, GAP_MS);
    }
  }

  function whenDue(after: number | undefined, rank: number, apply: () => void) {
    later.push({ after: after ?? 0, rank, apply });
    drain();
  }

  const handlers = {
    /** A Temporal run that does not go on says why (no worker polls its queue): the person hears it at once. */
    notice(text: string) {
      toast(text);
    },
    event(e: RunEvent) {
      if (nextSeq !== null && e.seq < nextSeq) {
        if (e.type !== 'run_started') return; // seen already, or an earlier run's
        reset(e.seq); // a run this window did not start (another window, a reload)
      }
      pending.set(e.seq, e);
      drain();
    },
    escalation(e: RunEscalation) {
      whenDue(e.after_seq, 0, () => {
        store.getState().setRunEscalation(e);
        showRunTab();
      });
    },
    replanned(r: RunReplan) {
      whenDue(r.after_seq, 1, () => {
        store.getState().setRunReplan(r);
        showReplan(r);
      });
    },
    finished(f: RunFinished) {
      whenDue(f.after_seq, 2, () => {
        store.getState().runFinished(f);
        void loadHistory(true);
      });
    },
  };

  /** Events are heard from the first run on, whichever tab shows. */
  function subscribe() {
    if (unsubscribe) return;
    // (An api without run events, as some tests mock it, hears nothing.)
    unsubscribe = typeof apiImpl.onRun === 'function' ? apiImpl.onRun(handlers) : () => {};
    // Another workflow: the statuses and history of this one go.
    // (A first save gives the same document a path: that keeps them.)
    store.subscribe((s, prev) => {
      // A replan applied or discarded in the review is done with.
      if (prev.proposal?.entryId === RUN_REPLAN_ENTRY && s.proposal !== prev.proposal && s.runReplan) s.setRunReplan(null);
      const other = s.doc?.id !== prev.doc?.id || (s.path !== prev.path && prev.path !== '');
      if (!other) return;
      s.clearRunStatus();
      if (s.runReplan) s.setRunReplan(null);
    });
  }

  // The Run form's values of the start under way, kept while steps wait for approval.
  let inputsGiven: { docId: string; values: Record<string, string>; refs: Record<string, string> } | null = null;

  /**
   * start runs the document. When steps a model wrote need approval it opens the approval
   * dialog instead; approved lists the fingerprints of the steps the person approved there
   * (approve all): exactly the content shown. A workflow that declares inputs first asks for
   * them (the Run form, runWithInputs); inputs are the form's values, refs the stored secrets
   * its secret inputs were given (by name).
   */
  async function start(approved?: string[], from?: string, inputs?: Record<string, string>, refs: Record<string, string> = {}): Promise<void> {
    const doc = store.getState().doc;
    if (inputs && doc) inputsGiven = { docId: doc.id, values: inputs, refs };
    else if (!approved) {
      inputsGiven = null;
      if (await askInputs(from)) return;
    }
    const given = inputsGiven && inputsGiven.docId === doc?.id ? inputsGiven : undefined;
    const sent = given?.values;
    await launch(
      (doc, path) => (given ? apiImpl.startRun(doc, path, approved, from, given.values, given.refs) : apiImpl.startRun(doc, path, approved, from)),
      (r) => {
        if (r.input_problems?.length) {
          // Go refused the values: the form again, each problem at its field.
          store.getState().runStartFailed('');
          void askInputs(from, r.input_problems, sent, given?.refs);
          return;
        }
        if (r.missing_secrets?.length) {
          // Secrets this computer lacks: ask for them instead of starting.
          store.getState().runStartFailed('');
          store.getState().setMissingSecrets(store.getState().doc, r.missing_secrets);
          store.getState().setSecretsAskOpen(true);
          return;
        }
        if (r.approval.length) {
          store.getState().runStartFailed('');
          store.getState().setRunApproval({ steps: r.approval, approved: [], from });
          return;
        }
        store.getState().runStartFailed(r.error || 'The run did not start.', r.problems);
      },
    );
    // Approving a file's steps trusts it; a refused run may have found it changed on disk.
    await refreshTrust();
  }

  /**
   * askInputs opens the Run form when the document declares inputs (Go says which), with the
   * values last used (or those just refused, with why); false when it declares none.
   */
  async function askInputs(from?: string, problems: InputProblem[] = [], values?: Record<string, string>, refs: Record<string, string> = {}): Promise<boolean> {
    const { doc, path } = store.getState();
    if (!doc || typeof apiImpl.workflowInputs !== 'function') return false;
    try {
      const form = await apiImpl.workflowInputs(doc);
      if (store.getState().doc !== doc) return true;
      if (!form.fields.length) return false; // none, or an unusable schema: the start says why
      const shown = { ...initialValues(path || doc.id, form.fields), ...(values ?? {}) };
      store.getState().setRunInputs({ fields: form.fields, values: shown, problems, from, secrets: form.secrets ?? [], refs });
      showRunTab();
    } catch (e) {
      store.getState().runStartFailed(errorMessage(e));
    }
    return true;
  }

  /** runWithInputs starts the run with the Run form's values (remembered for the file, except secret ones) and the stored secrets picked for secret inputs. */
  async function runWithInputs(values: Record<string, string>, refs: Record<string, string> = {}): Promise<void> {
    const { runInputs: ask, doc, path } = store.getState();
    if (!ask || !doc) return;
    remember(path || doc.id, ask.fields, values);
    store.getState().setRunInputs(null);
    const picked = Object.fromEntries(Object.entries(refs).filter(([, v]) => v));
    await start(undefined, ask.from, givenInputs(ask.fields, values), picked);
  }

  function cancelInputs(): void {
    store.getState().setRunInputs(null);
  }

  function refreshTrust(): Promise<void> {
    return refreshFileTrust(store, apiImpl.workflowFileTrust);
  }

  /**
   * review opens the approval dialog on what waits in the document without running it
   * (the editor's "Review…" of a file nobody reviewed). When nothing waits there is
   * nothing to show: that is recorded (Go then trusts the file) and said.
   */
  async function review(): Promise<void> {
    const s = store.getState();
    const doc = s.doc;
    if (!doc || typeof apiImpl.pendingApprovals !== 'function') return;
    if (s.runPhase === 'running' || s.runPhase === 'starting' || s.runPhase === 'stopping') return;
    showRunTab();
    try {
      const steps = await apiImpl.pendingApprovals(doc, s.path);
      if (store.getState().doc !== doc) return;
      if (steps.length) {
        store.getState().setRunApproval({ steps, approved: [] });
        return;
      }
      await apiImpl.approveSteps(doc, s.path, []);
      toast('Nothing in this workflow acts or decides where the run goes: there was nothing to review.');
    } catch (e) {
      toast(`Could not review the workflow: ${errorMessage(e)}`);
    }
    await refreshTrust();
  }

  /**
   * launch shows a run the backend starts (or takes up) from its first event; refused says
   * what to show when it does not start.
   */
  async function launch(call: (doc: Workflow, path: string) => Promise<RunStart>, refused: (r: RunStart) => void): Promise<void> {
    const s = store.getState();
    const doc = s.doc;
    if (!doc || s.runPhase === 'running' || s.runPhase === 'starting' || s.runPhase === 'stopping') return;
    subscribe();
    s.setRunApproval(null);
    reset(1);
    s.runStarting(doc.id);
    try {
      const r = await call(doc, s.path);
      if (r.started) store.getState().runStarted(r.warnings);
      else refused(r);
    } catch (e) {
      store.getState().runStartFailed(errorMessage(e));
    }
  }

  /**
   * loadGoing asks for the runs of the saved document going on the Temporal service that the
   * app does not follow (one followed before the app was closed, or one started elsewhere).
   */
  async function loadGoing(): Promise<void> {
    const { doc, path } = store.getState();
    if (!doc || !path || typeof apiImpl.temporalRunsGoing !== 'function') {
      store.getState().setRunsGoing([]);
      return;
    }
    try {
      const runs = await apiImpl.temporalRunsGoing(path);
      if (store.getState().path === path) store.getState().setRunsGoing(runs);
    } catch (e) {
      store.getState().setRunsGoing([]);
      apiImpl.log('warning', `runs going on Temporal: ${errorMessage(e)}`);
    }
  }

  /** follow follows a run going on the Temporal service as if it had started here. */
  async function follow(runId: string): Promise<void> {
    const followRun = apiImpl.followTemporalRun;
    if (typeof followRun !== 'function') return;
    store.getState().setRunsGoing(store.getState().runsGoing.filter((r) => r.run_id !== runId));
    await launch(
      () => followRun(runId),
      (r) => store.getState().runStartFailed(r.error || 'The run could not be followed.'),
    );
  }

  /** approve approves every step the dialog lists (their exact content) and runs. */
  async function approve(): Promise<void> {
    const a = store.getState().runApproval;
    if (!a) return;
    await start(a.steps.map((x) => x.fingerprint), a.from);
  }

  /** startFrom runs from the node, reusing the last run's outputs of the steps before it (Go decides). */
  async function startFrom(nodeId: string): Promise<void> {
    await start(undefined, nodeId);
  }

  function toast(text: string) {
    store.getState().toast(text);
  }

  /** pinFromRun pins what the step produced in the last run (secrets hidden), as one undo step. */
  async function pinFromRun(nodeId: string): Promise<boolean> {
    const { doc } = store.getState();
    if (!doc) return false;
    try {
      const r = await apiImpl.lastOutputs(doc.id, nodeId);
      store.getState().edit((w) => setPinned(w, [nodeId], r.outputs), { label: `Pin the data of ${nodeName(nodeId)}` });
      return true;
    } catch (e) {
      toast(`Could not pin: ${errorMessage(e)}`);
      return false;
    }
  }

  /** unpin removes the node's pinned data, as one undo step. */
  function unpin(nodeId: string): void {
    const { doc } = store.getState();
    if (!doc?.pinned || !(nodeId in doc.pinned)) return;
    store.getState().edit((w) => setPinned(w, [nodeId], undefined), { label: `Unpin ${nodeName(nodeId)}` });
  }

  function nodeName(id: string): string {
    return store.getState().doc?.nodes.find((n) => n.id === id)?.name || id;
  }

  /** approveStep records the approval of one step's exact content; the run starts once none is left. */
  async function approveStep(fingerprint: string): Promise<void> {
    await record([fingerprint]);
  }

  /** approveOnly approves every step the dialog lists that waits, without running; the dialog closes when none is left. */
  async function approveOnly(): Promise<void> {
    const a = store.getState().runApproval;
    if (!a) return;
    const done = new Set(a.approved);
    if (await record(a.steps.map((x) => x.fingerprint).filter((fp) => !done.has(fp)))) {
      const cur = store.getState().runApproval;
      if (cur && cur.approved.length === cur.steps.length) {
        store.getState().setRunApproval(null);
        toast('Approved: it runs without asking while it stays as you approved it.');
      }
    }
  }

  /** record records the approval of these steps' exact content (the dialog shows which are approved); false when it failed. */
  async function record(fingerprints: string[]): Promise<boolean> {
    const s = store.getState();
    const a = s.runApproval;
    if (!a || !s.doc) return false;
    try {
      const left = await apiImpl.approveSteps(s.doc, s.path, fingerprints);
      const cur = store.getState().runApproval;
      if (!cur) return false;
      const waiting = new Set(left.map((x) => x.fingerprint));
      const approved = cur.steps.map((x) => x.fingerprint).filter((fp) => !waiting.has(fp));
      store.getState().setRunApproval({ ...cur, approved, error: undefined });
      await refreshTrust(); // the last of a file's steps trusts it
      return true;
    } catch (e) {
      const cur = store.getState().runApproval;
      if (cur) store.getState().setRunApproval({ ...cur, error: errorMessage(e) });
      return false;
    }
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
      // Edited arguments change this run's copy only: offer to keep them.
      const e = esc.escalation;
      if (resp.action === 'fix' && resp.arguments && e.node_type === 'Tool' && e.node_id) {
        store.getState().setRunFixOffer({ nodeId: e.node_id, node: e.node_name || e.node_key, arguments: resp.arguments });
      }
      return true;
    } catch (e) {
      if (store.getState().runEscalation?.id === esc.id) store.getState().setEscalationSending(false, errorMessage(e));
      return false;
    }
  }

  /** keepFix keeps the offered fix in the document as one undo step (the
   * merge is Go's: what is saved is what the retry ran). */
  async function keepFix(): Promise<boolean> {
    const { runFixOffer: offer, doc } = store.getState();
    if (!offer || !doc) return false;
    try {
      const next = await apiImpl.keepFix(doc, offer.nodeId, offer.arguments);
      store.getState().edit(() => next, { label: `Keep the fix of ${offer.node}` });
      store.getState().setRunFixOffer(null);
      return true;
    } catch (e) {
      apiImpl.log('warning', `keep fix: ${errorMessage(e)}`);
      store.getState().toast(`Could not keep the fix: ${errorMessage(e)}`);
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
    // The edges show the counts Go's walk kept in that run's summary.json
    // (a run that did not end has none: its edges are drawn plain).
    const edges = record.summary ? edgeCounts(record.summary.edges) : null;
    store.getState().setViewedRun({ record, log: [], total: 0, truncated: false, loading: true, error: null, edges, records: null });
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
        edges,
        records: foldNodeData(emptyNodeData(), r.events).records,
      });
    } catch (e) {
      if (store.getState().viewedRun?.record !== record) return;
      store.getState().setViewedRun({ record, log: [], total: 0, truncated: false, loading: false, error: errorMessage(e), edges, records: null });
    }
  }

  /** openRun shows a linked run of another file (a sub-workflow's, or
   * its caller's): that file opens in the editor, then its run's log;
   * false when it could not be shown. */
  async function openRun(link: RunLink): Promise<boolean> {
    if (link.file && link.file !== store.getState().path) {
      if (!opts.openFile || !(await opts.openFile(link.file))) return false;
    }
    await loadHistory(true);
    // A Temporal run is logged in a folder of its own name; links name its Temporal id.
    const r = store.getState().runHistory.find((x) => x.run_id === link.run_id || x.engine_run_id === link.run_id);
    if (!r) {
      store.getState().toast(`The run ${link.run_id} is not in this workflow's history any more (pruned or moved)`);
      return false;
    }
    await viewRun(r);
    return true;
  }

  /** sync picks up a run that was going before the window (re)loaded. */
  async function sync(): Promise<void> {
    if (typeof apiImpl.runStatus !== 'function') return;
    try {
      const [st, can] = await Promise.all([apiImpl.runStatus(), apiImpl.canReplan()]);
      store.getState().setCanReplan(can);
      if (!st.running) return;
      subscribe();
      reset(null);
      const s = store.getState();
      if (s.runPhase !== 'running') store.setState({ runPhase: 'running', runId: st.run_id || null, runWorkflowId: st.workflow_id });
      if (st.escalation) handlers.escalation({ ...st.escalation, after_seq: 0 });
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
      changes: r.review ?? null,
      base,
      warnings: r.warnings ?? [],
      problems: (r.problems ?? []).filter((x) => x.severity === 'error'),
      valid: r.valid,
      validated: true,
      attempts: 1,
      tests: r.tests ?? null,
    };
    s.showProposal(p, base);
    const changed = [...(r.diff.added_node_ids ?? []), ...(r.diff.modified_node_ids ?? []), ...(r.diff.removed_node_ids ?? [])];
    if (changed.length) store.setState((st) => ({ focusRequest: { nodeIds: changed, seq: (st.focusRequest?.seq ?? 0) + 1 } }));
    return true;
  }

  return {
    subscribe,
    start,
    startFrom,
    pinFromRun,
    unpin,
    approve,
    runWithInputs,
    cancelInputs,
    approveStep,
    approveOnly,
    review,
    refreshTrust,
    cancelApproval,
    stop,
    respond,
    keepFix,
    loadHistory,
    loadGoing,
    follow,
    viewRun,
    openRun,
    sync,
    refreshCanReplan,
    showReplan,
    /** for tests: the handlers the backend's events reach */
    handlers,
    flush,
  };
}

export type RunActions = ReturnType<typeof makeRunActions>;
