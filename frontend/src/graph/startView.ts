// Which nodes a freshly opened workflow shows first. A workflow that fits
// the canvas at a readable zoom is fitted whole; a larger one (unreadable
// when fitted, and for hundreds of nodes slow to draw all at once) opens on
// its start: the entry nodes and the first steps after them, as many as fit
// at a readable zoom. F (fit view) and the minimap show it all. (The sample
// once opened fitted whole at zoom 0.3, its text about 4 px high.)
import type { Workflow } from '../types';

/** Workflows with more nodes than this open on their start. */
export const LARGE_WORKFLOW = 250;
/** How many nodes the start view tries to show. */
export const START_NODES = 24;

/** Fitting below this zoom makes node text too small to read (at 0.3 it
 * is about 4 px); a workflow that does not fit at it opens on its start. */
export const READABLE_ZOOM = 0.75;
/** The zoom the start view aims for. */
export const START_ZOOM = 0.75;

/** entryOrder lists node ids breadth-first from the entries (at most limit). */
export function entryOrder(w: Workflow, limit = START_NODES): string[] {
  const ids = new Set(w.nodes.map((n) => n.id));
  const types = new Map(w.nodes.map((n) => [n.id, n.type]));
  const succ = new Map<string, string[]>();
  const indeg = new Map<string, number>();
  for (const e of w.edges) {
    if (!ids.has(e.from) || !ids.has(e.to) || types.get(e.from) === 'EndLoop') continue;
    (succ.get(e.from) ?? succ.set(e.from, []).get(e.from)!).push(e.to);
    indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1);
  }
  if (!w.nodes.length) return [];
  const entries = w.nodes.filter((n) => !indeg.get(n.id)).map((n) => n.id);
  const queue = entries.length ? entries.slice(0, 3) : [w.nodes[0].id];
  const seen = new Set(queue);
  for (let i = 0; i < queue.length && seen.size < limit; i++) {
    for (const t of succ.get(queue[i]) ?? []) {
      if (seen.size >= limit) break;
      if (!seen.has(t)) {
        seen.add(t);
        queue.push(t);
      }
    }
  }
  return [...seen];
}

/** boundsOf is the box around the given nodes' saved positions (null if
 * any lacks one). */
export function boundsOf(w: Workflow, ids: string[], width: number, height: number) {
  const want = new Set(ids);
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of w.nodes) {
    if (!want.has(n.id)) continue;
    if (!n.position) return null;
    x0 = Math.min(x0, n.position.x);
    y0 = Math.min(y0, n.position.y);
    x1 = Math.max(x1, n.position.x + width);
    y1 = Math.max(y1, n.position.y + height);
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

type Size = { width: number; height: number };
type Box = { x: number; y: number; width: number; height: number };

function zoomToFit(b: Box, size: Size, pad: number): number {
  return Math.min(size.width / (b.width * (1 + 2 * pad) || 1), size.height / (b.height * (1 + 2 * pad) || 1));
}

/** startNodes returns the ids to show on open, or [] to fit everything:
 * the workflow's first steps, as many as fit at START_ZOOM (at least three),
 * when fitting the whole would be below READABLE_ZOOM. */
export function startNodes(w: Workflow, size?: Size | null, nodeWidth = 220, nodeHeight = 110): string[] {
  const all = boundsOf(
    w,
    w.nodes.map((n) => n.id),
    nodeWidth,
    nodeHeight,
  );
  if (!all) return [];
  if (size) {
    if (zoomToFit(all, size, 0.12) >= READABLE_ZOOM) return [];
  } else if (w.nodes.length <= LARGE_WORKFLOW) return [];
  const order = entryOrder(w, Math.min(w.nodes.length, 400));
  if (!size) return order.slice(0, START_NODES);
  const out: string[] = [];
  for (const id of order) {
    const b = boundsOf(w, [...out, id], nodeWidth, nodeHeight);
    if (out.length >= 3 && (!b || zoomToFit(b, size, 0.15) < START_ZOOM)) break;
    out.push(id);
  }
  return out;
}
