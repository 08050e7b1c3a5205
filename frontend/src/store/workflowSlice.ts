// The open document: the workflow as loaded (unknown fields kept), its file,
// whether it has unsaved changes, and the React Flow view of it.
import { applyEdgeChanges, applyNodeChanges, type EdgeChange, type NodeChange } from '@xyflow/react';
import type { StateCreator } from 'zustand';
import type { OpenResult, Position, Workflow } from '../types';
import { missingPositions, toFlowEdges, toFlowNodes, type WeftFlowEdge, type WeftFlowNode } from '../graph/toFlow';
import type { StoreState } from './index';

export interface WorkflowSlice {
  doc: Workflow | null;
  /** absolute file path; '' for the sample or a document never saved */
  path: string;
  /** name shown in the title: the file's base name, or the sample's */
  fileName: string;
  dirty: boolean;
  openWarnings: string[];
  /** bumped on every load so async work (layout) can drop stale results */
  docSeq: number;
  nodes: WeftFlowNode[];
  edges: WeftFlowEdge[];

  loadDocument(r: OpenResult): void;
  /** setPositions writes node positions into the document. */
  setPositions(pos: Record<string, Position>, opts?: { markDirty?: boolean }): void;
  onNodesChange(changes: NodeChange<WeftFlowNode>[]): void;
  onEdgesChange(changes: EdgeChange<WeftFlowEdge>[]): void;
  markSaved(path: string): void;
  dismissWarnings(): void;
}

export function baseName(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts[parts.length - 1] || path;
}

export const createWorkflowSlice: StateCreator<StoreState, [], [], WorkflowSlice> = (set, get) => ({
  doc: null,
  path: '',
  fileName: '',
  dirty: false,
  openWarnings: [],
  docSeq: 0,
  nodes: [],
  edges: [],

  loadDocument(r) {
    const doc = r.workflow;
    if (!doc) return;
    doc.nodes ??= [];
    doc.edges ??= [];
    set((s) => ({
      doc,
      path: r.path,
      fileName: r.name || (r.path ? baseName(r.path) : 'untitled.json'),
      dirty: false,
      openWarnings: r.warnings ?? [],
      docSeq: s.docSeq + 1,
      // Workflows laid out here (no saved positions) flow left to right.
      nodes: toFlowNodes(doc, missingPositions(doc) ? 'LR' : undefined),
      edges: toFlowEdges(doc),
      problems: [],
      problemsByNode: {},
      valid: null,
      selectedNodeIds: [],
      focusRequest: { nodeIds: [], seq: (s.focusRequest?.seq ?? 0) + 1 },
    }));
  },

  setPositions(pos, opts) {
    const { doc } = get();
    if (!doc) return;
    let changed = false;
    const nodes = doc.nodes.map((n) => {
      const p = pos[n.id];
      if (!p || (n.position && n.position.x === p.x && n.position.y === p.y)) return n;
      changed = true;
      return { ...n, position: { x: Math.round(p.x), y: Math.round(p.y) } };
    });
    if (!changed) return;
    const next = { ...doc, nodes };
    set((s) => ({
      doc: next,
      dirty: s.dirty || (opts?.markDirty ?? true),
      nodes: s.nodes.map((fn) => {
        const p = pos[fn.id];
        return p ? { ...fn, position: { x: p.x, y: p.y } } : fn;
      }),
    }));
  },

  onNodesChange(changes) {
    const nodes = applyNodeChanges(changes, get().nodes);
    const selectionChanged = changes.some((c) => c.type === 'select');
    set({
      nodes,
      ...(selectionChanged ? { selectedNodeIds: nodes.filter((n) => n.selected).map((n) => n.id) } : {}),
    });
    // A finished drag writes the new positions into the document.
    const dropped: Record<string, Position> = {};
    for (const c of changes) {
      if (c.type === 'position' && c.dragging === false) {
        const n = nodes.find((x) => x.id === c.id);
        if (n) dropped[n.id] = n.position;
      }
    }
    if (Object.keys(dropped).length) get().setPositions(dropped);
  },

  onEdgesChange(changes) {
    // Only selection changes for now: the editor issue adds edge editing.
    const allowed = changes.filter((c) => c.type === 'select');
    if (allowed.length) set({ edges: applyEdgeChanges(allowed, get().edges) });
  },

  markSaved(path) {
    set({ path, fileName: baseName(path), dirty: false });
  },

  dismissWarnings() {
    set({ openWarnings: [] });
  },
});
