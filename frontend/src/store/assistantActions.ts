// The Assistant panel's operations: load the conversation of the open
// workflow, send a message (progress comes as backend events), stop it,
// and review a proposed change (preview → apply or discard). Merging is the
// backend's (PreviewPatch/ApplyPatch): there is no merge in TypeScript.
import { api, ASSISTANT_STOPPED, errorMessage, type Api } from '../api';
import type { AssistantResult, StageWarning, Workflow } from '../types';
import type { Proposal } from './assistantSlice';
import type { AppStore } from './index';

export type AssistantApi = Pick<
  Api,
  | 'assistantSend'
  | 'assistantStop'
  | 'assistantHistory'
  | 'assistantClearHistory'
  | 'previewPatch'
  | 'applyPatch'
  | 'onAssistantProgress'
  | 'log'
>;

export interface AssistantDeps {
  /** validate re-checks the document after a change was applied. */
  validate(): Promise<void>;
}

/** chatKeyOf names the conversation of a document: its file, else its id. */
export function chatKeyOf(path: string, doc: Workflow | null): string {
  return `${path}|${doc?.id ?? ''}`;
}

/** The source under which the assistant's warnings go to the problems panel. */
export const WARNING_SOURCE = 'assistant';

export type ApplyOutcome = 'applied' | 'needs-confirm' | 'needs-review' | 'none';

export function makeAssistantActions(store: AppStore, apiImpl: AssistantApi = api, deps?: AssistantDeps) {
  let unsubscribe: (() => void) | null = null;

  // Opening another document ends the review of a change to the old one
  // and the request about it, whichever sidebar tab shows.
  store.subscribe((s, prev) => {
    if (s.docSeq === prev.docSeq) return;
    if (s.proposal) discard();
    if (s.chatBusy) void apiImpl.assistantStop();
  });

  /** Progress events are heard from the first message on, whichever tab shows. */
  function subscribe() {
    if (unsubscribe) return;
    unsubscribe = apiImpl.onAssistantProgress((p) => store.getState().setChatProgress(p));
  }

  function publishWarnings(ws: StageWarning[]) {
    setAssistantWarnings(store, ws);
  }

  async function loadHistory(): Promise<void> {
    const { doc, path, chatKey, chatBusy } = store.getState();
    if (!doc) return;
    const key = chatKeyOf(path, doc);
    if (key === chatKey) return;
    if (chatBusy) void apiImpl.assistantStop(); // its answer is for the other workflow
    store.getState().setChatLoading(key);
    publishWarnings([]);
    try {
      const h = await apiImpl.assistantHistory(doc.id, path);
      if (store.getState().chatKey === key) store.getState().setChatHistory(key, h.messages, h.warnings);
    } catch (e) {
      if (store.getState().chatKey === key) {
        store.getState().setChatHistory(key, [], [`Could not load the conversation: ${errorMessage(e)}`]);
      }
    }
  }

  async function propose(entryId: number, r: AssistantResult, sent: Workflow): Promise<void> {
    if (!r.patch || r.kind === 'conversation') return;
    const base = store.getState().doc;
    if (!base) return;
    let workflow = r.workflow ?? null;
    let diff = r.diff ?? null;
    let changes = r.changes ?? null;
    let problems = r.problems;
    let valid = r.valid;
    let warnings = r.warnings;
    if (base !== sent || !workflow || !diff) {
      // The document changed while the assistant worked: merge into what
      // is there now.
      const pv = await apiImpl.previewPatch(base, r.patch);
      workflow = pv.workflow;
      diff = pv.diff;
      changes = pv.changes ?? null;
      problems = pv.problems;
      valid = r.valid && (!r.validated || pv.valid);
      warnings = [...r.warnings, ...pv.warnings];
    }
    const p: Proposal = {
      entryId,
      kind: r.kind === 'plan' ? 'plan' : 'patch',
      message: r.message,
      patch: r.patch,
      workflow,
      diff,
      changes,
      base,
      warnings,
      problems: problems.filter((x) => x.severity === 'error'),
      valid,
      leftOut: r.unused.steps ?? [],
      validated: r.validated,
      attempts: r.attempts,
      // Played against the workflow the backend merged; not against a
      // document that changed since.
      tests: base === sent ? (r.tests ?? null) : null,
    };
    store.getState().showProposal(p, base);
    publishWarnings(warnings);
    // Show the change with the nodes it connects to.
    const around = new Set([...(diff.added_node_ids ?? []), ...(diff.modified_node_ids ?? []), ...(diff.removed_node_ids ?? [])]);
    for (const e of [...(diff.added_edges ?? []), ...(diff.removed_edges ?? [])]) around.add(e.from).add(e.to);
    if (base.nodes.length === 0 || around.size === 0) {
      store.getState().requestFitAll();
    } else {
      store.setState((s) => ({ focusRequest: { nodeIds: [...around], seq: (s.focusRequest?.seq ?? 0) + 1 } }));
    }
  }

  async function send(text: string): Promise<void> {
    const message = text.trim();
    const st = store.getState();
    const doc = st.doc;
    if (!doc || !message || st.chatBusy) return;
    subscribe();
    if (st.proposal) discard();
    const key = chatKeyOf(st.path, doc);
    if (st.chatKey !== key) store.getState().setChatHistory(key, [], []);
    const id = store.getState().chatStarted(message);
    try {
      const r = await apiImpl.assistantSend(doc, st.path, message);
      if (store.getState().chatKey !== key) {
        store.setState({ chatBusy: false, chatProgress: null });
        return;
      }
      store.getState().chatAnswered(id, r);
      if (!r.patch || r.kind === 'conversation') publishWarnings(r.warnings);
      await propose(id, r, doc);
    } catch (e) {
      const msg = errorMessage(e);
      const stopped = msg.includes(ASSISTANT_STOPPED);
      if (!stopped) apiImpl.log('error', `assistant: ${msg}`);
      if (store.getState().chatKey === key) store.getState().chatFailed(id, msg, stopped);
      else store.setState({ chatBusy: false, chatProgress: null });
    }
  }

  async function stop(): Promise<void> {
    await apiImpl.assistantStop();
  }

  /** apply merges the proposal into the document as one undo step. An
   * invalid proposal, or one that leaves steps of the model's reply out,
   * needs anyway=true (the "Apply anyway" confirmation). */
  async function apply(opts?: { anyway?: boolean }): Promise<ApplyOutcome> {
    const { proposal, doc } = store.getState();
    if (!proposal || !doc) return 'none';
    if (proposal.base && proposal.base !== doc) {
      // The document changed since the review: what would be applied is
      // not what was shown. Show the same patch against it and ask again.
      return reReview(proposal, doc);
    }
    if ((!proposal.valid || proposal.leftOut?.length) && !opts?.anyway) {
      store.getState().setConfirmingApplyAnyway(true);
      return 'needs-confirm';
    }
    try {
      const r = await apiImpl.applyPatch(doc, proposal.patch);
      if (store.getState().proposal !== proposal) return 'none';
      commitWorkflow(store, r.workflow, proposal.kind === 'plan' ? 'Apply assistant plan' : 'Apply assistant change');
      store.getState().endProposal('applied');
      publishWarnings([...proposal.warnings, ...r.warnings]);
      await deps?.validate();
      return 'applied';
    } catch (e) {
      store.getState().setChatError(`Could not apply the change: ${errorMessage(e)}`);
      return 'none';
    }
  }

  async function reReview(proposal: Proposal, doc: Workflow): Promise<ApplyOutcome> {
    try {
      const pv = await apiImpl.previewPatch(doc, proposal.patch);
      if (store.getState().proposal !== proposal) return 'none';
      const problems = pv.problems.filter((x) => x.severity === 'error');
      const warnings = [...(proposal.patch.warnings ?? []), ...pv.warnings];
      store.getState().showProposal(
        {
          ...proposal,
          workflow: pv.workflow,
          diff: pv.diff,
          changes: pv.changes ?? null,
          base: doc,
          problems,
          valid: proposal.valid && (!proposal.validated || pv.valid),
          warnings,
          tests: null,
        },
        doc,
      );
      publishWarnings(warnings);
      store.getState().setChatError('The workflow changed since this review; review the change again before applying it.');
      return 'needs-review';
    } catch (e) {
      store.getState().setChatError(`Could not review the change again: ${errorMessage(e)}`);
      return 'none';
    }
  }

  function discard(): void {
    if (!store.getState().proposal) return;
    store.getState().endProposal('discarded');
    publishWarnings([]);
  }

  async function clearHistory(): Promise<void> {
    const { doc, path, chatBusy } = store.getState();
    if (!doc || chatBusy) return;
    discard();
    try {
      await apiImpl.assistantClearHistory(doc.id, path);
      store.getState().setChatHistory(chatKeyOf(path, doc), [], []);
    } catch (e) {
      store.getState().setChatError(`Could not clear the conversation: ${errorMessage(e)}`);
    }
  }

  return { subscribe, loadHistory, send, stop, apply, discard, clearHistory };
}

/** commitWorkflow puts w in place of the document as one undo step. */
export function commitWorkflow(store: AppStore, w: Workflow, label: string): void {
  store.getState().setWorkflow(w, { label });
}

/** setAssistantWarnings shows the assistant's warnings in the problems panel. */
export function setAssistantWarnings(store: AppStore, ws: StageWarning[]): void {
  store
    .getState()
    .setWarnings(WARNING_SOURCE, ws.map((w) => ({ source: WARNING_SOURCE, stage: w.stage, message: w.message, node_id: w.node_id })));
}

export type AssistantActions = ReturnType<typeof makeAssistantActions>;
