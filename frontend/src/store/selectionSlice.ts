// Which nodes are selected, and requests for the canvas to bring nodes into
// view. Selection is view state: it is never part of the undo history.
import type { StateCreator } from 'zustand';
import type { StoreState } from './index';

export interface FocusRequest {
  nodeIds: string[];
  seq: number;
}

export interface SelectionSlice {
  selectedNodeIds: string[];
  focusRequest: FocusRequest | null;
  /** selectNodes selects exactly ids (and no edges); with focus the canvas centres them. */
  selectNodes(ids: string[], opts?: { focus?: boolean }): void;
  selectAll(): void;
  clearSelection(): void;
  /** requestFitAll asks the canvas to fit the whole workflow into view. */
  requestFitAll(): void;
}

export const createSelectionSlice: StateCreator<StoreState, [], [], SelectionSlice> = (set, get) => ({
  selectedNodeIds: [],
  focusRequest: null,

  selectNodes(ids, opts) {
    const want = new Set(ids);
    const nodes = get().nodes.map((n) => (!!n.selected === want.has(n.id) ? n : { ...n, selected: want.has(n.id) }));
    const edges = get().edges.map((e) => (e.selected ? { ...e, selected: false } : e));
    const have = new Set(nodes.map((n) => n.id));
    const present = [...want].filter((id) => have.has(id));
    // Choosing steps leaves no note or group selected (Delete would take it too).
    const annotations = get().annotations.some((a) => a.selected) ? get().annotations.map((a) => (a.selected ? { ...a, selected: false } : a)) : get().annotations;
    set((s) => ({
      nodes,
      edges,
      annotations,
      selectedNodeIds: present,
      focusRequest: opts?.focus && present.length ? { nodeIds: present, seq: (s.focusRequest?.seq ?? 0) + 1 } : s.focusRequest,
    }));
  },

  selectAll() {
    const nodes = get().nodes.map((n) => (n.selected ? n : { ...n, selected: true }));
    // Notes and groups too, as on n8n's canvas: Copy and Delete then take them.
    const annotations = get().annotations.map((a) => (a.selected ? a : { ...a, selected: true }));
    set({ nodes, annotations, selectedNodeIds: nodes.map((n) => n.id) });
  },

  clearSelection() {
    get().selectNodes([]);
  },

  requestFitAll() {
    set((s) => ({ focusRequest: { nodeIds: [], seq: (s.focusRequest?.seq ?? 0) + 1 } }));
  },
});
