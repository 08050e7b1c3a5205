// Sticky notes and groups on the canvas (weft/v1 `notes` and `groups`,
// docs/file-format.md): pure edits of the document, and their React Flow
// nodes. They are no steps: nothing here touches nodes' content or edges;
// a group's move moves its member nodes' positions only.
import type { Node } from '@xyflow/react';
import type { workflow } from '../gen/bindings';
import type { Position, Workflow } from '../types';
import { newId } from './ids';
import { NODE_WIDTH } from './toFlow';

export type Note = workflow.Note;
export type Group = workflow.Group;

/** The colours a note or group may have (workflow.Colors); the theme maps them. */
export const COLORS = ['yellow', 'orange', 'red', 'pink', 'purple', 'blue', 'teal', 'green', 'gray'] as const;
export type Color = (typeof COLORS)[number];

/** Bounds as backend/workflow's (validate reports the rest); texts in bytes of UTF-8. */
export const MAX_NOTE_TEXT = 20000;
export const MAX_GROUP_TITLE = 200;
export const MIN_SIZE = 20;
export const MAX_SIZE = 20000;
export const NOTE_SIZE = { width: 240, height: 140 };
/** Space between a new group's frame and its nodes (the title bar above them). */
export const GROUP_PAD = 30;
/** The height of a group's title bar, above its nodes. */
export const GROUP_TITLE_BAR = 30;
/** A node's height when React Flow has not measured it. */
const NODE_HEIGHT = 92;

export type NoteFlowNode = Node<{ note: Note }, 'note'>;
/** ('frame', not 'group': React Flow styles nodes of type group as its own.) */
export type GroupFlowNode = Node<{ group: Group }, 'frame'>;
export type AnnotationFlowNode = NoteFlowNode | GroupFlowNode;

/** React Flow ids: prefixed, so a note never takes a step's id there. */
export const noteFlowId = (id: string) => `note:${id}`;
export const groupFlowId = (id: string) => `group:${id}`;

/** annotationOf says which note or group a flow node id is, if any. */
export function annotationOf(flowId: string): { kind: 'note' | 'group'; id: string } | null {
  if (flowId.startsWith('note:')) return { kind: 'note', id: flowId.slice(5) };
  if (flowId.startsWith('group:')) return { kind: 'group', id: flowId.slice(6) };
  return null;
}

function clampSize(v: number): number {
  return Math.round(Math.min(MAX_SIZE, Math.max(MIN_SIZE, v)));
}

/** toAnnotationNodes draws the groups (behind everything) and the notes;
 * prev keeps selection across edits. */
export function toAnnotationNodes(w: Workflow, prev: AnnotationFlowNode[] = []): AnnotationFlowNode[] {
  if (!w.notes?.length && !w.groups?.length) return prev.length ? [] : prev;
  const selected = new Set(prev.filter((n) => n.selected).map((n) => n.id));
  const base = (id: string, x: Note | Group, zIndex: number) => ({
    id,
    position: { ...x.position },
    width: x.size.width,
    height: x.size.height,
    zIndex,
    selected: selected.has(id),
    className: 'annotation',
  });
  return [
    ...(w.groups ?? []).map((g): GroupFlowNode => ({ ...base(groupFlowId(g.id), g, -2), type: 'frame', data: { group: g }, ariaLabel: `Group ${g.title || '(untitled)'}` })),
    ...(w.notes ?? []).map((n): NoteFlowNode => ({ ...base(noteFlowId(n.id), n, -1), type: 'note', data: { note: n }, dragHandle: '.note-drag', ariaLabel: 'Sticky note' })),
  ];
}

/** addNote adds an empty note at pos. */
export function addNote(w: Workflow, pos: Position, text = ''): { doc: Workflow; id: string } {
  const id = newId();
  const note: Note = { id, text, position: { x: Math.round(pos.x), y: Math.round(pos.y) }, size: { ...NOTE_SIZE } };
  return { doc: { ...w, notes: [...(w.notes ?? []), note] }, id };
}

/** updateIn replaces the note or group with id by f(it); w itself when nothing changed. */
function updateIn<K extends 'notes' | 'groups'>(w: Workflow, list: K, id: string, f: (x: NonNullable<Workflow[K]>[number]) => NonNullable<Workflow[K]>[number]): Workflow {
  const items = (w[list] ?? []) as NonNullable<Workflow[K]>[number][];
  let changed = false;
  const next = items.map((x) => {
    if (x.id !== id) return x;
    const y = f(x);
    if (y !== x) changed = true;
    return y;
  });
  return changed ? { ...w, [list]: next } : w;
}

/** updateNote replaces the note with id by f(note); w itself when nothing changed. */
export function updateNote(w: Workflow, id: string, f: (n: Note) => Note): Workflow {
  return updateIn(w, 'notes', id, f);
}

/** updateGroup replaces the group with id by f(group); w itself when nothing changed. */
export function updateGroup(w: Workflow, id: string, f: (g: Group) => Group): Workflow {
  return updateIn(w, 'groups', id, f);
}

/** cutBytes cuts text to at most max bytes of UTF-8 (the file's bound),
 * at a character boundary. */
export function cutBytes(text: string, max: number): string {
  if (text.length * 3 <= max) return text; // no character takes more than 3 bytes per UTF-16 unit
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return text;
  let end = max;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--; // not inside a character
  return new TextDecoder().decode(bytes.subarray(0, end));
}

/** setNoteText sets a note's text, cut to MAX_NOTE_TEXT bytes. */
export function setNoteText(w: Workflow, id: string, text: string): Workflow {
  const t = cutBytes(text, MAX_NOTE_TEXT);
  return updateNote(w, id, (n) => (n.text === t ? n : { ...n, text: t }));
}

/** setGroupTitle sets a group's title, cut to MAX_GROUP_TITLE. */
export function setGroupTitle(w: Workflow, id: string, title: string): Workflow {
  const t = cutBytes(title, MAX_GROUP_TITLE);
  return updateGroup(w, id, (g) => (g.title === t ? g : { ...g, title: t }));
}

/** setColor colours a note or group; the default colour drops the field. */
export function setColor(w: Workflow, kind: 'note' | 'group', id: string, color: Color): Workflow {
  const dflt = kind === 'note' ? 'yellow' : 'gray';
  const f = <T extends { color?: string }>(x: T): T => {
    if ((x.color ?? dflt) === color) return x;
    const next = { ...x };
    if (color === dflt) delete next.color;
    else next.color = color;
    return next;
  };
  return kind === 'note' ? updateNote(w, id, f) : updateGroup(w, id, f);
}

/** placeAnnotation moves a note or group to pos and, given, resizes it
 * (within the bounds). A group's members do not move: see moveGroup. */
export function placeAnnotation(w: Workflow, kind: 'note' | 'group', id: string, pos: Position, size?: { width: number; height: number }): Workflow {
  const f = <T extends Note | Group>(x: T): T => {
    const position = { x: Math.round(pos.x), y: Math.round(pos.y) };
    const sz = size ? { width: clampSize(size.width), height: clampSize(size.height) } : x.size;
    if (position.x === x.position.x && position.y === x.position.y && sz.width === x.size.width && sz.height === x.size.height) return x;
    return { ...x, position, size: sz };
  };
  return kind === 'note' ? updateNote(w, id, f) : updateGroup(w, id, f);
}

/** moveGroup moves a group to pos and its member nodes by as much: one edit. */
export function moveGroup(w: Workflow, id: string, pos: Position): Workflow {
  const g = w.groups?.find((x) => x.id === id);
  if (!g) return w;
  const dx = Math.round(pos.x) - g.position.x;
  const dy = Math.round(pos.y) - g.position.y;
  if (!dx && !dy) return w;
  const members = new Set(g.nodes);
  return {
    ...placeAnnotation(w, 'group', id, pos),
    nodes: w.nodes.map((n) => (members.has(n.id) ? { ...n, position: { x: (n.position?.x ?? 0) + dx, y: (n.position?.y ?? 0) + dy } } : n)),
  };
}

type SizeOf = (id: string) => { width: number; height: number } | undefined;

/** measuredSizes gives the sizes React Flow measured of the nodes drawn. */
export function measuredSizes(nodes: { id: string; measured?: { width?: number; height?: number } }[]): SizeOf {
  const m = new Map(nodes.map((n) => [n.id, n.measured]));
  return (id) => {
    const x = m.get(id);
    return x?.width && x.height ? { width: x.width, height: x.height } : undefined;
  };
}

/** A rectangle on the canvas: top-left corner and size. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** frameFor is the one rule of membership by position: the group whose
 * frame holds the box wholly (its edge counts as inside), the smallest
 * when frames nest or overlap (the first listed of equal ones); null when
 * no frame holds it. */
export function frameFor(box: Box, groups: readonly Pick<Group, 'id' | 'position' | 'size'>[]): string | null {
  let best: string | null = null;
  let area = Infinity;
  for (const g of groups) {
    const inside = box.x >= g.position.x && box.y >= g.position.y && box.x + box.width <= g.position.x + g.size.width && box.y + box.height <= g.position.y + g.size.height;
    const a = g.size.width * g.size.height;
    if (inside && a < area) {
      best = g.id;
      area = a;
    }
  }
  return best;
}

/** regroupMoved makes each node with an id in moved a member of the group
 * frameFor gives for where it now is, and of no other: a node dropped
 * into a frame joins it, one dragged out of its frame leaves it. Nodes not
 * moved keep their groups. */
export function regroupMoved(w: Workflow, moved: Iterable<string>, sizeOf: SizeOf = () => undefined): Workflow {
  if (!w.groups?.length) return w;
  const groups = w.groups;
  const home = new Map<string, string | null>();
  const want = new Set(moved);
  for (const n of w.nodes) {
    if (!want.has(n.id) || !n.position) continue;
    const s = sizeOf(n.id) ?? { width: NODE_WIDTH, height: NODE_HEIGHT };
    home.set(n.id, frameFor({ ...n.position, ...s }, groups));
  }
  if (!home.size) return w;
  let changed = false;
  const next = groups.map((g) => {
    const kept = g.nodes.filter((id) => !home.has(id) || home.get(id) === g.id);
    const joined = [...home].filter(([id, gid]) => gid === g.id && !g.nodes.includes(id)).map(([id]) => id);
    if (kept.length === g.nodes.length && !joined.length) return g;
    changed = true;
    return { ...g, nodes: [...kept, ...joined] };
  });
  return changed ? { ...w, groups: next } : w;
}

/** frameAround is the frame of a group around the nodes (with positions),
 * with room for its title; null when none has a position. */
function frameAround(nodes: Workflow['nodes'], sizeOf: SizeOf): Pick<Group, 'position' | 'size'> | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of nodes) {
    if (!n.position) continue;
    const s = sizeOf(n.id) ?? { width: NODE_WIDTH, height: NODE_HEIGHT };
    x0 = Math.min(x0, n.position.x);
    y0 = Math.min(y0, n.position.y);
    x1 = Math.max(x1, n.position.x + s.width);
    y1 = Math.max(y1, n.position.y + s.height);
  }
  if (x0 === Infinity) return null;
  return {
    position: { x: Math.round(x0 - GROUP_PAD), y: Math.round(y0 - GROUP_PAD - GROUP_TITLE_BAR) },
    size: { width: clampSize(x1 - x0 + 2 * GROUP_PAD), height: clampSize(y1 - y0 + 2 * GROUP_PAD + GROUP_TITLE_BAR) },
  };
}

/** addGroup frames the nodes with ids (those with a position); null when
 * there is none to frame. sizeOf gives a node's measured size, when known. */
export function addGroup(w: Workflow, ids: string[], title = 'Group', sizeOf: SizeOf = () => undefined): { doc: Workflow; id: string } | null {
  const want = new Set(ids);
  const members = w.nodes.filter((n) => want.has(n.id) && n.position);
  const frame = frameAround(members, sizeOf);
  if (!frame) return null;
  const id = newId();
  const group: Group = { id, title: cutBytes(title, MAX_GROUP_TITLE), ...frame, nodes: members.map((n) => n.id) };
  return { doc: { ...w, groups: [...(w.groups ?? []), group] }, id };
}

/** fitGroups frames each group around its nodes again (after a layout
 * moved them); a group whose nodes are gone stays where it is. */
export function fitGroups(w: Workflow, sizeOf: SizeOf = () => undefined): Workflow {
  if (!w.groups?.length) return w;
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  let changed = false;
  const groups = w.groups.map((g) => {
    const frame = frameAround(
      g.nodes.flatMap((id) => byId.get(id) ?? []),
      sizeOf,
    );
    if (!frame || (frame.position.x === g.position.x && frame.position.y === g.position.y && frame.size.width === g.size.width && frame.size.height === g.size.height)) return g;
    changed = true;
    return { ...g, ...frame };
  });
  return changed ? { ...w, groups } : w;
}

/** removeAnnotations deletes the notes and groups with these ids (their
 * nodes stay); no notes or groups left drops the field, so the file
 * reads as before. */
export function removeAnnotations(w: Workflow, noteIds: Iterable<string>, groupIds: Iterable<string>): Workflow {
  const ns = new Set(noteIds);
  const gs = new Set(groupIds);
  if (!ns.size && !gs.size) return w;
  const notes = (w.notes ?? []).filter((n) => !ns.has(n.id));
  const groups = (w.groups ?? []).filter((g) => !gs.has(g.id));
  if (notes.length === (w.notes?.length ?? 0) && groups.length === (w.groups?.length ?? 0)) return w;
  const next: Workflow = { ...w, notes, groups };
  if (!notes.length) delete next.notes;
  if (!groups.length) delete next.groups;
  return next;
}
