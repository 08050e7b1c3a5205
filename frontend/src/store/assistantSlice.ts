// The Assistant panel's state: the conversation of the open workflow, the
// request in flight with the backend's progress, and the proposed change
// under review with its preview on the canvas (added nodes green, removed
// nodes red ghosts, modified amber). The async side is in assistantActions.ts.
import { applyNodeChanges, type NodeChange } from '@xyflow/react';
import type { StateCreator } from 'zustand';
import { toFlowEdges, toFlowNodes, type WeftFlowEdge, type WeftFlowNode } from '../graph/toFlow';
import type {
  AssistantKind,
  AssistantProgress,
  AssistantResult,
  AssistantTry,
  ChangeSet,
  ChatMessage,
  PatchDiff,
  Problem,
  ProposalTests,
  StageWarning,
  Workflow,
  WorkflowEdge,
  WorkflowPatch,
} from '../types';
import type { StoreState } from './index';

export type PreviewStatus = 'added' | 'removed' | 'modified';

export type EntryState = 'pending' | 'stopped' | 'error' | 'proposed' | 'applied' | 'discarded';

/** One message shown in the panel. */
export interface ChatEntry {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  kind?: AssistantKind;
  /** for a proposed change: whether it passed validation */
  valid?: boolean | null;
  state?: EntryState;
  /** "+2 nodes, 1 modified" for a change */
  summary?: string;
  attempts?: number;
  /** replies asked again before this answer, and why (the repair the person can open) */
  tries?: AssistantTry[];
  /** the local fixes made to the reply that was used */
  fixes?: string[];
  /** for an applied change: the document it made (its undo step undone: the chip says so) */
  appliedDoc?: Workflow;
}

/** A change the assistant proposed, under review. */
export interface Proposal {
  entryId: number;
  kind: 'plan' | 'patch';
  message: string;
  patch: WorkflowPatch;
  /** the workflow with the patch merged */
  workflow: Workflow;
  diff: PatchDiff;
  /** the review, field by field, computed by the backend; absent: names only */
  changes?: ChangeSet | null;
  /** the document the review was computed against: applying to another one
   * shows the review again instead */
  base?: Workflow;
  warnings: StageWarning[];
  /** validation errors of the merged workflow */
  problems: Problem[];
  /** false: applying needs an explicit "Apply anyway" */
  valid: boolean;
  /** steps of the model's reply the change leaves out (where each was and
   * what it named); any: applying needs an explicit "Apply anyway" too */
  leftOut?: string[];
  validated: boolean;
  attempts: number;
  /** the workflow's test cases played against `workflow` by the backend
   * (mocked, nothing acting); absent when it has none, or when the
   * change was merged into another document since */
  tests?: ProposalTests | null;
}

export interface AssistantSlice {
  /** which workflow the conversation belongs to (path|id) */
  chatKey: string | null;
  chatMessages: ChatEntry[];
  chatLoading: boolean;
  /** notes from loading the history (a corrupt file moved aside) */
  chatNotes: string[];
  chatBusy: boolean;
  chatProgress: AssistantProgress | null;
  chatError: string | null;
  proposal: Proposal | null;
  /** the "Apply anyway" confirmation is showing */
  confirmingApplyAnyway: boolean;
  /** preview of the proposal on the canvas; null when there is none */
  previewStatus: Record<string, PreviewStatus> | null;
  previewNodes: WeftFlowNode[] | null;
  previewEdges: WeftFlowEdge[] | null;

  setChatHistory(key: string, messages: ChatMessage[], notes: string[]): void;
  setChatLoading(key: string): void;
  /** chatStarted records the user's message and a pending reply; returns the reply's id. */
  chatStarted(text: string): number;
  setChatProgress(p: AssistantProgress | null): void;
  chatAnswered(entryId: number, r: AssistantResult): void;
  chatFailed(entryId: number, error: string, stopped: boolean): void;
  /** showProposal previews a change against base (the document it applies to). */
  showProposal(p: Proposal, base: Workflow): void;
  /** endProposal clears the preview, marking its message applied or discarded. */
  endProposal(outcome: 'applied' | 'discarded'): void;
  setConfirmingApplyAnyway(on: boolean): void;
  setChatError(e: string | null): void;
  onPreviewNodesChange(changes: NodeChange<WeftFlowNode>[]): void;
}

/** repairNotes are the local repairs made to the reply that was used (not the validation problems). */
/** repairNotes are the local fixes among a result's warnings (not validation or layout). */
export function repairNotes(r: { warnings: AssistantResult['warnings'] | null }): string[] | undefined {
  const notes = (r.warnings ?? []).filter((w) => w.stage !== 'validate' && w.stage !== 'layout').map((w) => w.message);
  return notes.length ? notes : undefined;
}

/** progressText is what the panel says while the assistant works. */
export function progressText(p: AssistantProgress | null): string {
  if (!p) return '';
  // The model endpoint's own progress: a silent model, a retry wait.
  const secs = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (p.wait_ms) return `${p.wait || 'The model did not answer'}; trying again in ${secs(p.wait_ms)}…`;
  if (p.elapsed_ms) return `Waiting for the model: ${secs(p.elapsed_ms)}…`;
  switch (p.kind) {
    case 'repairing':
      return p.attempt && p.max ? `Repairing (attempt ${p.attempt} of ${p.max})…` : 'Repairing…';
    case 'summarizing':
      return 'Summarising the conversation…';
    default:
      return 'Thinking…';
  }
}

/** receivedText says how much of a streamed reply has arrived. */
export function receivedText(p: AssistantProgress | null): string {
  const n = p?.received ?? 0;
  if (n <= 0) return '';
  const amount = n < 1000 ? String(n) : `${(n / 1000).toFixed(n < 10000 ? 1 : 0)}k`;
  return `${amount} characters received`;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** changeSummary says in a few words what a diff does. */
export function changeSummary(d: PatchDiff | null | undefined): string {
  if (!d) return '';
  const parts: string[] = [];
  const added = d.added_node_ids?.length ?? 0;
  const removed = d.removed_node_ids?.length ?? 0;
  const modified = d.modified_node_ids?.length ?? 0;
  if (added) parts.push(`+${plural(added, 'node')}`);
  if (removed) parts.push(`−${plural(removed, 'node')}`);
  if (modified) parts.push(`${modified} modified`);
  const edges = (d.added_edges?.length ?? 0) + (d.removed_edges?.length ?? 0);
  if (!parts.length && edges) parts.push(`${plural(edges, 'edge')} rewired`);
  return parts.join(', ') || 'no changes';
}

function edgeKey(e: WorkflowEdge): string {
  return `${e.from}\u0000${e.to}\u0000${e.output?.type ?? ''}\u0000${e.output?.name ?? ''}`;
}

/** previewGraph draws the merged workflow with the removed nodes and edges
 * of base kept as ghosts, and says which node is added, removed or modified. */
export function previewGraph(
  base: Workflow,
  merged: Workflow,
  diff: PatchDiff,
): { nodes: WeftFlowNode[]; edges: WeftFlowEdge[]; status: Record<string, PreviewStatus> } {
  const status: Record<string, PreviewStatus> = {};
  for (const id of diff.added_node_ids ?? []) status[id] = 'added';
  for (const id of diff.modified_node_ids ?? []) status[id] = 'modified';
  for (const id of diff.removed_node_ids ?? []) status[id] = 'removed';
  const removed = new Set(diff.removed_node_ids);
  const ghosts = base.nodes.filter((n) => removed.has(n.id));
  const have = new Set(merged.edges.map(edgeKey));
  const ghostEdges = (diff.removed_edges ?? []).filter((e) => !have.has(edgeKey(e)));
  const union: Workflow = { ...merged, nodes: [...merged.nodes, ...ghosts], edges: [...merged.edges, ...ghostEdges] };
  const added = new Set((diff.added_edges ?? []).map(edgeKey));
  const nodes = toFlowNodes(union).map((n) => ({ ...n, draggable: false, connectable: false }));
  const edges = toFlowEdges(union).map((e, i) => {
    const src = union.edges[i];
    const cls = i >= merged.edges.length ? ' edge-preview-removed' : added.has(edgeKey(src)) ? ' edge-preview-added' : '';
    return cls ? { ...e, className: `${e.className ?? ''}${cls}`, animated: cls === ' edge-preview-added' } : e;
  });
  return { nodes, edges, status };
}

function fromSaved(m: ChatMessage, id: number): ChatEntry {
  const e: ChatEntry = { id, role: m.role === 'assistant' ? 'assistant' : 'user', content: m.content };
  if (m.role === 'assistant') {
    e.kind = m.kind;
    if (m.valid !== undefined && m.valid !== null) e.valid = m.valid;
    if (m.patch) {
      const p = m.patch;
      const d: PatchDiff = {
        added_node_ids: (p.added_nodes ?? []).map((n) => n.id),
        removed_node_ids: p.removed_node_ids,
        modified_node_ids: (p.updated_nodes ?? []).map((n) => n.id),
        added_edges: p.added_edges,
        removed_edges: p.removed_edges,
      };
      e.summary = changeSummary(d);
    }
  }
  return e;
}

let nextId = 1;

const NO_PREVIEW = { previewStatus: null, previewNodes: null, previewEdges: null } as const;

export const createAssistantSlice: StateCreator<StoreState, [], [], AssistantSlice> = (set, get) => ({
  chatKey: null,
  chatMessages: [],
  chatLoading: false,
  chatNotes: [],
  chatBusy: false,
  chatProgress: null,
  chatError: null,
  proposal: null,
  confirmingApplyAnyway: false,
  ...NO_PREVIEW,

  setChatLoading(key) {
    set({ chatKey: key, chatLoading: true, chatMessages: [], chatNotes: [], chatError: null, proposal: null, confirmingApplyAnyway: false, ...NO_PREVIEW });
  },

  setChatHistory(key, messages, notes) {
    set((s) => {
      const saved = messages.map((m) => fromSaved(m, nextId++));
      // Messages sent while the history was loading come after it.
      const during = s.chatLoading && s.chatKey === key ? s.chatMessages : [];
      return { chatKey: key, chatLoading: false, chatMessages: [...saved, ...during], chatNotes: notes };
    });
  },

  chatStarted(text) {
    const user: ChatEntry = { id: nextId++, role: 'user', content: text };
    const reply: ChatEntry = { id: nextId++, role: 'assistant', content: '', state: 'pending' };
    set((s) => ({
      chatMessages: [...s.chatMessages, user, reply],
      chatBusy: true,
      chatProgress: { kind: 'thinking' },
      chatError: null,
    }));
    return reply.id;
  },

  setChatProgress(p) {
    if (!get().chatBusy && p) return; // a late event after the answer
    set({ chatProgress: p });
  },

  chatAnswered(entryId, r) {
    const change = !!r.patch && r.kind !== 'conversation';
    set((s) => ({
      chatBusy: false,
      chatProgress: null,
      chatMessages: s.chatMessages.map((m) =>
        m.id === entryId
          ? {
              ...m,
              content: r.message,
              kind: r.kind,
              state: change ? 'proposed' : undefined,
              valid: change ? r.valid : undefined,
              summary: change ? changeSummary(r.diff) : undefined,
              attempts: r.attempts,
              tries: r.tries?.length ? r.tries : undefined,
              fixes: repairNotes(r),
            }
          : m,
      ),
    }));
  },

  chatFailed(entryId, error, stopped) {
    set((s) => ({
      chatBusy: false,
      chatProgress: null,
      // The failed message says why; no second copy in the error banner.
      chatError: null,
      chatMessages: s.chatMessages.map((m) =>
        m.id === entryId ? { ...m, content: stopped ? 'Stopped.' : error, state: stopped ? 'stopped' : 'error' } : m,
      ),
    }));
  },

  showProposal(p, base) {
    const g = previewGraph(base, p.workflow, p.diff);
    set({
      proposal: p,
      confirmingApplyAnyway: false,
      previewStatus: g.status,
      previewNodes: g.nodes,
      previewEdges: g.edges,
    });
  },

  endProposal(outcome) {
    const p = get().proposal;
    set((s) => ({
      proposal: null,
      confirmingApplyAnyway: false,
      ...NO_PREVIEW,
      chatMessages: p
        ? s.chatMessages.map((m) =>
            m.id === p.entryId && m.state === 'proposed' ? { ...m, state: outcome, ...(outcome === 'applied' && s.doc ? { appliedDoc: s.doc } : {}) } : m,
          )
        : s.chatMessages,
    }));
  },

  setConfirmingApplyAnyway(on) {
    set({ confirmingApplyAnyway: on });
  },

  setChatError(chatError) {
    set({ chatError });
  },

  onPreviewNodesChange(changes) {
    const nodes = get().previewNodes;
    if (!nodes) return;
    // The preview is read-only: only measuring and selection apply.
    const allowed = changes.filter((c) => c.type === 'dimensions' || c.type === 'select');
    if (allowed.length) set({ previewNodes: applyNodeChanges(allowed, nodes) });
  },
});
