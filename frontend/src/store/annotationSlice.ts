// Sticky notes and groups on the canvas (graph/annotations.ts): their
// React Flow nodes, kept in step with the document by workflowSlice's
// view, and the edits of them, each one undo step through commit (a
// burst of typing in one note is one step, as in a form field).
import { applyNodeChanges, type NodeChange } from '@xyflow/react';
import type { StateCreator } from 'zustand';
import {
  addGroup,
  addNote,
  annotationOf,
  measuredSizes,
  moveGroup,
  placeAnnotation,
  setColor,
  setGroupTitle,
  setNoteText,
  type AnnotationFlowNode,
  type Color,
} from '../graph/annotations';
import type { Position } from '../types';
import type { StoreState } from './index';

export interface AnnotationSlice {
  /** the notes' and groups' canvas nodes (groups first: drawn behind) */
  annotations: AnnotationFlowNode[];
  /** addNote adds an empty note at pos and selects it; returns its id. */
  addNote(pos: Position, text?: string): string | null;
  setNoteText(id: string, text: string): void;
  setGroupTitle(id: string, title: string): void;
  setAnnotationColor(kind: 'note' | 'group', id: string, color: Color): void;
  /** placeAnnotation moves (and, given a size, resizes) a note or group. */
  placeAnnotation(kind: 'note' | 'group', id: string, pos: Position, size?: { width: number; height: number }): void;
  /** moveGroup moves a group and its nodes, as one undo step. */
  moveGroup(id: string, pos: Position): void;
  /** groupSelection frames the selected nodes in a new group; returns its id. */
  groupSelection(title?: string): string | null;
  /** onAnnotationsChange applies React Flow's changes to notes and groups:
   * a drag moves a group's nodes with it, a finished drag is one undo step. */
  onAnnotationsChange(changes: NodeChange<AnnotationFlowNode>[]): void;
}

export const createAnnotationSlice: StateCreator<StoreState, [], [], AnnotationSlice> = (set, get) => ({
  annotations: [],

  addNote(pos, text) {
    const { doc } = get();
    if (!doc) return null;
    const r = addNote(doc, pos, text);
    get().commit(r.doc, { select: [], label: 'Add note' });
    const fid = `note:${r.id}`;
    set({ annotations: get().annotations.map((a) => (a.selected === (a.id === fid) ? a : { ...a, selected: a.id === fid })) });
    return r.id;
  },

  setNoteText(id, text) {
    get().edit((w) => setNoteText(w, id, text), { group: `note:${id}:text`, label: 'Edit note' });
  },

  setGroupTitle(id, title) {
    get().edit((w) => setGroupTitle(w, id, title), { group: `group:${id}:title`, label: 'Rename group' });
  },

  setAnnotationColor(kind, id, color) {
    get().edit((w) => setColor(w, kind, id, color), { label: kind === 'note' ? 'Colour note' : 'Colour group' });
  },

  placeAnnotation(kind, id, pos, size) {
    const what = kind === 'note' ? 'note' : 'group';
    get().edit((w) => placeAnnotation(w, kind, id, pos, size), { label: size ? `Resize ${what}` : `Move ${what}` });
  },

  moveGroup(id, pos) {
    get().edit((w) => moveGroup(w, id, pos), { label: 'Move group' });
  },

  groupSelection(title) {
    const s = get();
    if (!s.doc) return null;
    const ids = s.nodes.filter((n) => n.selected).map((n) => n.id);
    const r = addGroup(s.doc, ids, title, measuredSizes(s.nodes));
    if (!r) return null;
    get().commit(r.doc, { label: 'Group' });
    return r.id;
  },

  onAnnotationsChange(changes) {
    const applied = changes.filter((c) => c.type !== 'remove');
    if (!applied.length) return;
    const annotations = applyNodeChanges(applied, get().annotations);
    set({ annotations });
    const s = get();
    for (const c of applied) {
      if (c.type !== 'position' || !c.position) continue;
      const a = annotationOf(c.id);
      if (!a) continue;
      if (a.kind === 'group') {
        const g = s.doc?.groups?.find((x) => x.id === a.id);
        if (!g) continue;
        if (c.dragging === false) {
          get().moveGroup(a.id, c.position);
          continue;
        }
        // While dragged, its nodes follow on the canvas (not yet in the
        // document: the drop is the one undo step).
        const dx = Math.round(c.position.x) - g.position.x;
        const dy = Math.round(c.position.y) - g.position.y;
        const members = new Set(g.nodes);
        const byId = new Map(s.doc!.nodes.map((n) => [n.id, n]));
        set({
          nodes: get().nodes.map((n) => {
            const at = members.has(n.id) ? byId.get(n.id)?.position : undefined;
            return at ? { ...n, position: { x: at.x + dx, y: at.y + dy } } : n;
          }),
        });
      } else if (c.dragging === false) {
        get().placeAnnotation('note', a.id, c.position);
      }
    }
  },
});
