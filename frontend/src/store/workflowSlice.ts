// The open document: the workflow as loaded (unknown fields kept), its file,
// whether it has unsaved changes, the undo history and the React Flow view
// of it. Every edit goes through commit(), which records one undo step
// (or extends the current one for a burst of typing in one field), keeps
// the canvas in sync and leaves selection out of the history.
import { applyEdgeChanges, applyNodeChanges, type Connection, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { StateCreator } from 'zustand';
import { checkConnection, type ConnectionCheck } from '../graph/connect';
import { declaredOutputs, sourceHandle } from '../graph/handles';
import {
  addEdge,
  addElements,
  copyNodes,
  edgeKey,
  markCopiedFromFile,
  emptyWorkflow,
  makeNodes,
  pasteNodes,
  removeElements,
  setPositions as withPositions,
  updateNode as withNode,
  type Clipboard,
  type NodeSpec,
} from '../graph/edit';
import { annotationOf, fitGroups, groupFlowId, measuredSizes, noteFlowId, regroupMoved, removeAnnotations, toAnnotationNodes, type AnnotationFlowNode } from '../graph/annotations';
import { flowDirection, missingPositions, toFlowEdges, toFlowNodes, type Direction, type WeftFlowEdge, type WeftFlowNode } from '../graph/toFlow';
import type { OpenResult, Position, Workflow, WorkflowNode } from '../types';
import { typeMeta } from '../graph/nodeMeta';
import type { StoreState } from './index';
import { untrustedFile } from './trustSlice';

/** specLabel names what a palette entry adds, for the undo history: its
 * tool, or its type as the palette says it ("AI step", not "AiStep"). */
function specLabel(spec: NodeSpec): string {
  return spec.tool ?? typeMeta(spec.type).label;
}

/** Edits in one group (one field) within this many ms of each other are one undo step. */
export const GROUP_MS = 1500;
export const HISTORY_LIMIT = 200;

/** The clock history grouping reads; tests replace now. */
export const historyClock = { now: () => Date.now() };

export interface CommitOptions {
  /** edits with the same group in a burst merge into one undo step */
  group?: string;
  /** select exactly these nodes (and notes and groups, by their canvas ids) afterwards */
  select?: string[];
  /** what the step did, for the undo button's tooltip */
  label?: string;
}

export interface WorkflowSlice {
  doc: Workflow | null;
  /** absolute file path; '' for the sample or a document never saved */
  path: string;
  /** name shown in the title: the file's base name, or the sample's */
  fileName: string;
  dirty: boolean;
  /** the document as last loaded or saved; dirty is doc !== savedDoc */
  savedDoc: Workflow | null;
  openWarnings: string[];
  /** bumped on every load so async work (layout) can drop stale results */
  docSeq: number;
  /** bumped on every change of doc */
  rev: number;
  direction: Direction;
  nodes: WeftFlowNode[];
  edges: WeftFlowEdge[];
  past: { doc: Workflow; label: string }[];
  future: { doc: Workflow; label: string }[];
  historyGroup: string | null;
  historyAt: number;
  clipboard: Clipboard | null;
  pasteCount: number;

  /** loadDocument shows r's workflow; dirty: it holds unsaved changes (a restored autosave). */
  loadDocument(r: OpenResult, opts?: { dirty?: boolean }): void;
  newDocument(): void;
  /** commit replaces the document with next as an undo step. */
  commit(next: Workflow, opts?: CommitOptions): void;
  /** edit commits f(doc). */
  edit(f: (w: Workflow) => Workflow, opts?: CommitOptions): void;
  /** setWorkflow replaces the whole document as one undo step (the assistant's Apply). */
  setWorkflow(w: Workflow, opts?: { label?: string }): void;
  updateNode(id: string, f: (n: WorkflowNode) => WorkflowNode, opts?: CommitOptions): void;
  /** endEditGroup ends the current typing burst (an input lost focus). */
  endEditGroup(): void;
  undo(): void;
  redo(): void;
  /** setPositions writes node positions; markDirty false: a layout on load, outside the history;
   * fitGroups: a layout, after which each group frames its nodes again;
   * regroup: a drop, after which each moved node belongs to the group
   * whose frame it lies in (graph/annotations.ts frameFor), if any. */
  setPositions(pos: Record<string, Position>, opts?: { markDirty?: boolean; direction?: Direction; label?: string; fitGroups?: boolean; regroup?: boolean }): void;
  onNodesChange(changes: NodeChange<WeftFlowNode>[]): void;
  onEdgesChange(changes: EdgeChange<WeftFlowEdge>[]): void;
  /** connect adds the edge if it is allowed; the result says why not. */
  connect(c: Connection): ConnectionCheck;
  /** insertOnEdge adds a node in the middle of the edge with key edgeKey: from → new → to, as one undo step. */
  insertOnEdge(edgeKey: string, spec: NodeSpec, pos: Position): string[];
  /** reconnect moves an end of the edge with key edgeKey (dragged to another handle), as one undo step. */
  reconnect(edgeKey: string, c: Connection): ConnectionCheck;
  /** addNode adds what a palette entry makes at pos and selects it; with
   * after, it also connects that node's first free output to it when that
   * is allowed. Returns the new ids. */
  /** after: connect from that node (its handle, or the first free output); before: connect into that node's input. */
  addNode(spec: NodeSpec, pos: Position, opts?: { after?: string; handle?: string | null; before?: string }): string[];
  deleteSelection(): number;
  copySelection(): number;
  paste(): number;
  duplicateSelection(): number;
  markSaved(path: string, saved?: Workflow): void;
  dismissWarnings(): void;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

/** freeOutputs lists the handles of n that no edge uses yet, in handle order. */
export function freeOutputs(w: Workflow, n: WorkflowNode): string[] {
  const used = new Set(w.edges.filter((e) => e.from === n.id).map((e) => sourceHandle(e, n).id));
  return declaredOutputs(n)
    .map((h) => h.id)
    .filter((id) => !used.has(id));
}

/** selectedAnnotations names the notes and groups selected on the canvas. */
function selectedAnnotations(annotations: AnnotationFlowNode[]): { notes: string[]; groups: string[] } {
  const marked = annotations.filter((a) => a.selected).map((a) => annotationOf(a.id)!);
  return { notes: marked.filter((a) => a.kind === 'note').map((a) => a.id), groups: marked.filter((a) => a.kind === 'group').map((a) => a.id) };
}

/** copyOf takes the selected nodes, notes and groups. */
function copyOf(s: StoreState): Clipboard | null {
  const marked = selectedAnnotations(s.annotations);
  return copyNodes(
    s.doc!,
    s.nodes.filter((n) => n.selected).map((n) => n.id),
    marked.notes,
    marked.groups,
  );
}

/** pasted is what a paste adds, by canvas id, to be selected. */
function pasted(r: ReturnType<typeof pasteNodes>): string[] {
  return [...r.ids, ...r.noteIds.map(noteFlowId), ...r.groupIds.map(groupFlowId)];
}

function selectedEdgeKeys(edges: WeftFlowEdge[]): string[] {
  return edges.filter((e) => e.selected && e.data).map((e) => e.data!.key);
}

export const createWorkflowSlice: StateCreator<StoreState, [], [], WorkflowSlice> = (set, get) => {
  /** view derives the canvas and flags from a new document. */
  function view(s: StoreState, doc: Workflow, select?: string[]) {
    let nodes = toFlowNodes(doc, s.direction, s.nodes);
    let selectedNodeIds: string[];
    if (select) {
      const want = new Set(select);
      nodes = nodes.map((n) => (!!n.selected === want.has(n.id) ? n : { ...n, selected: want.has(n.id) }));
      selectedNodeIds = nodes.filter((n) => n.selected).map((n) => n.id);
    } else {
      const have = new Set(doc.nodes.map((n) => n.id));
      selectedNodeIds = s.selectedNodeIds.filter((id) => have.has(id));
    }
    let edges = toFlowEdges(doc, s.problemEdgeKeys, s.edges);
    if (select) edges = edges.map((e) => (e.selected ? { ...e, selected: false } : e));
    let annotations = toAnnotationNodes(doc, s.annotations);
    if (select) {
      const want = new Set(select);
      annotations = annotations.map((a) => (!!a.selected === want.has(a.id) ? a : { ...a, selected: want.has(a.id) }));
    }
    return { doc, nodes, edges, annotations, selectedNodeIds, dirty: doc !== s.savedDoc, rev: s.rev + 1 };
  }

  const self: WorkflowSlice = {
    doc: null,
    path: '',
    fileName: '',
    dirty: false,
    savedDoc: null,
    openWarnings: [],
    docSeq: 0,
    rev: 0,
    direction: 'LR',
    nodes: [],
    edges: [],
    past: [],
    future: [],
    historyGroup: null,
    historyAt: 0,
    clipboard: null,
    pasteCount: 0,

    loadDocument(r, opts) {
      const doc = r.workflow;
      if (!doc) return;
      doc.nodes ??= [];
      doc.edges ??= [];
      // Workflows laid out here (no saved positions) flow left to right.
      const direction: Direction = missingPositions(doc) ? 'LR' : flowDirection(doc);
      set((s) => ({
        doc,
        savedDoc: opts?.dirty ? null : doc,
        path: r.path,
        fileName: r.name || (r.path ? baseName(r.path) : 'untitled.json'),
        dirty: !!opts?.dirty,
        openWarnings: r.warnings ?? [],
        // The file's trust comes with it (a restored autosave's is asked for).
        fileTrust: r.file ?? null,
        fileTrustFor: r.path,
        docSeq: s.docSeq + 1,
        rev: s.rev + 1,
        direction,
        nodes: toFlowNodes(doc, direction),
        edges: toFlowEdges(doc),
        annotations: toAnnotationNodes(doc),
        past: [],
        future: [],
        historyGroup: null,
        pasteCount: 0,
        problems: [],
        problemsByNode: {},
        problemEdgeKeys: new Set(),
        warnings: [],
        valid: null,
        selectedNodeIds: [],
        focusRequest: { nodeIds: [], seq: (s.focusRequest?.seq ?? 0) + 1 },
      }));
    },

    newDocument() {
      get().loadDocument({ path: '', name: 'untitled.json', workflow: emptyWorkflow(), warnings: [] });
    },

    commit(next, opts = {}) {
      const s = get();
      if (!s.doc) return;
      if (next === s.doc) {
        if (opts.select) get().selectNodes(opts.select);
        return;
      }
      const now = historyClock.now();
      const merge = !!opts.group && s.historyGroup === opts.group && now - s.historyAt < GROUP_MS && s.past.length > 0;
      const past = merge ? s.past : [...s.past, { doc: s.doc, label: opts.label ?? 'Edit' }].slice(-HISTORY_LIMIT);
      set({
        ...view(s, next, opts.select),
        past,
        future: [],
        historyGroup: opts.group ?? null,
        historyAt: now,
      });
    },

    edit(f, opts) {
      const { doc } = get();
      if (doc) get().commit(f(doc), opts);
    },

    setWorkflow(w, opts) {
      w.nodes ??= [];
      w.edges ??= [];
      get().commit(w, { label: opts?.label ?? 'Replace workflow' });
    },

    updateNode(id, f, opts) {
      get().edit((w) => withNode(w, id, f), opts);
    },

    endEditGroup() {
      if (get().historyGroup !== null) set({ historyGroup: null });
    },

    undo() {
      const s = get();
      const prev = s.past[s.past.length - 1];
      if (!prev || !s.doc) return;
      set({
        ...view(s, prev.doc),
        past: s.past.slice(0, -1),
        future: [...s.future, { doc: s.doc, label: prev.label }],
        historyGroup: null,
      });
    },

    redo() {
      const s = get();
      const next = s.future[s.future.length - 1];
      if (!next || !s.doc) return;
      set({
        ...view(s, next.doc),
        future: s.future.slice(0, -1),
        past: [...s.past, { doc: s.doc, label: next.label }],
        historyGroup: null,
      });
    },

    setPositions(pos, opts) {
      const s = get();
      if (!s.doc) return;
      let next = withPositions(s.doc, pos);
      if (opts?.fitGroups) next = fitGroups(next, measuredSizes(s.nodes));
      if (opts?.regroup) next = regroupMoved(next, Object.keys(pos), measuredSizes(s.nodes));
      const direction = opts?.direction ?? s.direction;
      if (next === s.doc && direction === s.direction) return;
      if (opts?.markDirty === false) {
        // A layout made on load is part of opening the file, not an edit.
        const base = { ...s, direction };
        set({
          ...view(base, next),
          direction,
          savedDoc: s.savedDoc === s.doc ? next : s.savedDoc,
          dirty: s.savedDoc === s.doc ? false : s.dirty,
        });
        return;
      }
      if (direction !== s.direction) set({ direction });
      get().commit(next, { label: opts?.label ?? 'Move' });
    },

    onNodesChange(changes) {
      // Deleting goes through deleteSelection (undoable); React Flow's own
      // remove changes are ignored.
      const applied = changes.filter((c) => c.type !== 'remove');
      if (!applied.length) return;
      const nodes = applyNodeChanges(applied, get().nodes);
      const selectionChanged = applied.some((c) => c.type === 'select');
      set({
        nodes,
        ...(selectionChanged ? { selectedNodeIds: nodes.filter((n) => n.selected).map((n) => n.id) } : {}),
      });
      // A finished drag writes the new positions into the document: one step per drag.
      const dropped: Record<string, Position> = {};
      for (const c of applied) {
        if (c.type === 'position' && c.dragging === false) {
          const n = nodes.find((x) => x.id === c.id);
          if (n) dropped[n.id] = n.position;
        }
      }
      // Dropped into a group's frame it joins the group, out of it it leaves: the same step.
      if (Object.keys(dropped).length) get().setPositions(dropped, { regroup: true });
    },

    onEdgesChange(changes) {
      const allowed = changes.filter((c) => c.type === 'select');
      if (allowed.length) set({ edges: applyEdgeChanges(allowed, get().edges) });
    },

    connect(c) {
      const { doc } = get();
      if (!doc) return { ok: false, reason: 'No workflow is open.' };
      const check = checkConnection(doc, c);
      if (check.ok) get().commit(addEdge(doc, check.edge, check.setLoopId), { label: 'Connect' });
      return check;
    },

    insertOnEdge(key, spec, pos) {
      const { doc } = get();
      const old = doc?.edges.find((e) => edgeKey(e) === key);
      if (!doc || !old) return [];
      const from = doc.nodes.find((n) => n.id === old.from);
      const { nodes, edges } = makeNodes(doc, spec, pos);
      const ids = nodes.map((n) => n.id);
      let next = addElements(removeElements(doc, [], [key]), nodes, edges);
      // Into the new node through the old edge's handle (its branch label
      // stays), then on from the new node's first free output that may.
      const into = checkConnection(next, { source: old.from, sourceHandle: sourceHandle(old, from).id, target: ids[0], targetHandle: 'in' });
      if (into.ok) next = addEdge(next, into.edge, into.setLoopId);
      const added = next.nodes.find((n) => n.id === ids[0])!;
      for (const h of freeOutputs(next, added)) {
        const out = checkConnection(next, { source: added.id, sourceHandle: h, target: old.to, targetHandle: 'in' });
        if (out.ok) {
          next = addEdge(next, out.edge, out.setLoopId);
          break;
        }
      }
      get().commit(next, { select: [ids[0]], label: `Insert ${specLabel(spec)}` });
      // Its form is what to fill in next.
      get().setSidebarTab('inspector');
      return ids;
    },

    reconnect(key, c) {
      const { doc } = get();
      if (!doc) return { ok: false, reason: 'No workflow is open.' };
      // Checked without the old edge: it is the one being moved.
      const without = removeElements(doc, [], [key]);
      if (without === doc) return { ok: false, reason: 'That edge is no longer in the workflow.' };
      const check = checkConnection(without, c);
      if (check.ok) get().commit(addEdge(without, check.edge, check.setLoopId), { label: 'Reconnect' });
      return check;
    },

    addNode(spec, pos, opts) {
      const { doc } = get();
      if (!doc) return [];
      const { nodes, edges } = makeNodes(doc, spec, pos);
      const ids = nodes.map((n) => n.id);
      let next = addElements(doc, nodes, edges);
      const after = opts?.after ? next.nodes.find((n) => n.id === opts.after) : undefined;
      if (after) {
        // From the given handle (a connection dropped on empty canvas), or the first free one.
        const handles = opts?.handle !== undefined ? [opts.handle] : freeOutputs(next, after);
        for (const h of handles) {
          const check = checkConnection(next, { source: after.id, sourceHandle: h, target: ids[0], targetHandle: 'in' });
          if (check.ok) {
            next = addEdge(next, check.edge, check.setLoopId);
            break;
          }
        }
      }
      const before = opts?.before ? next.nodes.find((n) => n.id === opts.before) : undefined;
      if (before) {
        // Into the given node's input, from the new node's first free output that may.
        const added = next.nodes.find((n) => n.id === ids[0])!;
        for (const h of freeOutputs(next, added)) {
          const check = checkConnection(next, { source: added.id, sourceHandle: h, target: before.id, targetHandle: 'in' });
          if (check.ok) {
            next = addEdge(next, check.edge, check.setLoopId);
            break;
          }
        }
      }
      get().commit(next, { select: [ids[0]], label: `Add ${specLabel(spec)}` });
      // Its form is what to fill in next.
      get().setSidebarTab('inspector');
      return ids;
    },

    deleteSelection() {
      const s = get();
      if (!s.doc) return 0;
      const ids = s.nodes.filter((n) => n.selected).map((n) => n.id);
      const keys = selectedEdgeKeys(s.edges);
      // Selected notes and groups go too (a group's nodes stay).
      const { notes, groups } = selectedAnnotations(s.annotations);
      const next = removeAnnotations(removeElements(s.doc, ids, keys), notes, groups);
      if (next === s.doc) return 0;
      get().commit(next, { select: [], label: 'Delete' });
      return ids.length + keys.length + notes.length + groups.length;
    },

    copySelection() {
      const s = get();
      if (!s.doc) return 0;
      const clip = copyOf(s);
      if (!clip) return 0;
      // Steps copied out of a file nobody reviewed stay to be reviewed
      // wherever they are pasted (Go's approval rule counts the mark).
      if (untrustedFile(s)) markCopiedFromFile(clip);
      set({ clipboard: clip, pasteCount: 0 });
      return clip.nodes.length + (clip.notes?.length ?? 0) + (clip.groups?.length ?? 0);
    },

    paste() {
      const s = get();
      if (!s.doc || !s.clipboard) return 0;
      const k = s.pasteCount + 1;
      const r = pasteNodes(s.doc, s.clipboard, { x: 40 * k, y: 40 * k });
      set({ pasteCount: k });
      const ids = pasted(r);
      get().commit(r.doc, { select: ids, label: 'Paste' });
      return ids.length;
    },

    duplicateSelection() {
      const s = get();
      if (!s.doc) return 0;
      const clip = copyOf(s);
      if (!clip) return 0;
      const r = pasteNodes(s.doc, clip, { x: 40, y: 40 });
      const ids = pasted(r);
      get().commit(r.doc, { select: ids, label: 'Duplicate' });
      return ids.length;
    },

    markSaved(path, saved) {
      const s = get();
      const doc = saved ?? s.doc;
      set({ path, fileName: baseName(path), savedDoc: doc, dirty: s.doc !== doc, historyGroup: null });
    },

    dismissWarnings() {
      set({ openWarnings: [] });
    },
  };
  return self;
};
