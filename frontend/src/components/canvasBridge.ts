// What other components may ask of the canvas (which lives inside its own
// React Flow provider): where the middle of the view is, and fitting.
import type { Viewport } from '@xyflow/react';
import { boundsOf, START_ZOOM, startNodes } from '../graph/startView';
import { NODE_WIDTH, type WeftFlowNode } from '../graph/toFlow';
import type { Position, Workflow } from '../types';

/** The drag-and-drop type of a palette entry (its NodeSpec as JSON). */
export const PALETTE_MIME = 'application/x-weft-node';

export const canvasBridge: {
  /** the flow coordinates of the middle of the visible canvas, or null */
  center: () => Position | null;
  fitView: (o?: { duration?: number }) => void;
  /** the viewport, for benchmarks and tests */
  getViewport: () => Viewport | null;
  setViewport: (v: Viewport) => void;
  /** the size of the canvas on screen, or null */
  size: () => { width: number; height: number } | null;
} = {
  size: () => null,
  center: () => null,
  fitView: () => {},
  getViewport: () => null,
  setViewport: () => {},
};

/** The farthest out the canvas zooms, and so the smallest zoom a fit may
 * choose: a plan of 60 steps in one row (the planner's 300 px apart) fits
 * the canvas of the desktop's default window with both side panels open. */
export const MIN_ZOOM = 0.02;

/** The minimap's drawing size (CanvasMiniMap), in screen pixels. */
export const MINIMAP = { width: 168, height: 108 };

/** What the canvas draws over its own corners, with React Flow's panel
 * margin (15 px) and a gap: the minimap at the bottom right, the zoom
 * controls at the bottom left. A fit keeps the nodes clear of them. */
export const CANVAS_OVERLAYS = {
  right: MINIMAP.width + 2 + 15 + 8,
  bottom: MINIMAP.height + 2 + 15 + 8,
  left: 26 + 2 + 15 + 8,
};

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** viewportFor centres bounds in a canvas of the given size. With avoid,
 * the bounds are kept clear of the bottom corners' overlays: either beside
 * them (the area between left and right, full height) or above them (full
 * width, less bottom), whichever shows the nodes larger. */
export function viewportFor(
  b: Bounds,
  size: { width: number; height: number },
  o: { padding?: number; minZoom?: number; maxZoom?: number; avoid?: { left: number; right: number; bottom: number } } = {},
): Viewport {
  const pad = o.padding ?? 0.15;
  const fitIn = (x: number, y: number, width: number, height: number): Viewport => {
    const zx = width / (b.width * (1 + 2 * pad) || 1);
    const zy = height / (b.height * (1 + 2 * pad) || 1);
    const zoom = Math.min(o.maxZoom ?? 1, Math.max(o.minZoom ?? MIN_ZOOM, Math.min(zx, zy)));
    return { x: x + width / 2 - (b.x + b.width / 2) * zoom, y: y + height / 2 - (b.y + b.height / 2) * zoom, zoom };
  };
  const a = o.avoid;
  if (!a || size.width <= a.left + a.right || size.height <= a.bottom) return fitIn(0, 0, size.width, size.height);
  const beside = fitIn(a.left, 0, size.width - a.left - a.right, size.height);
  const above = fitIn(0, 0, size.width, size.height - a.bottom);
  return beside.zoom > above.zoom ? beside : above;
}

/** startViewport is the view a large workflow opens on (its start, see
 * graph/startView.ts), or null for one that is fitted whole. */
export function startViewport(w: Workflow): Viewport | null {
  const size = canvasBridge.size();
  const start = startNodes(w, size, NODE_WIDTH, 110);
  const b = start.length && size ? boundsOf(w, start, NODE_WIDTH, 110) : null;
  if (!b || !size) return null;
  const vp = viewportFor(b, size, { maxZoom: 1, minZoom: START_ZOOM });
  // Wider (or taller) than the canvas at a readable zoom: show its
  // beginning, the entry, rather than its middle with the entry cut off.
  const margin = 24;
  if (b.width * vp.zoom > size.width - 2 * margin) vp.x = margin - b.x * vp.zoom;
  if (b.height * vp.zoom > size.height - 2 * margin) vp.y = margin - b.y * vp.zoom;
  return vp;
}

/** boundsOfNodes is the box around flow nodes (all of them, or those in ids). */
export function boundsOfNodes(nodes: WeftFlowNode[], ids?: string[]): Bounds | null {
  const want = ids ? new Set(ids) : null;
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of nodes) {
    if (want && !want.has(n.id)) continue;
    const w = n.measured?.width ?? n.width ?? NODE_WIDTH;
    const h = n.measured?.height ?? n.height ?? 92;
    x0 = Math.min(x0, n.position.x);
    y0 = Math.min(y0, n.position.y);
    x1 = Math.max(x1, n.position.x + w);
    y1 = Math.max(y1, n.position.y + h);
  }
  return Number.isFinite(x0) ? { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } : null;
}

/** fitViewport fits flow nodes into the canvas; computed from the nodes'
 * own positions and sizes, so unlike React Flow's fitView it does not wait
 * for nodes that are not drawn (and so never measured) in a large workflow. */
export function fitViewport(
  nodes: WeftFlowNode[],
  o: { ids?: string[]; padding?: number; minZoom?: number; maxZoom?: number } = {},
): Viewport | null {
  const b = boundsOfNodes(nodes, o.ids);
  const size = canvasBridge.size();
  // Fitting everything fills the canvas to its corners, where the minimap
  // and the controls are; a node brought into focus stays in the middle.
  const avoid = o.ids ? undefined : CANVAS_OVERLAYS;
  return b && size ? viewportFor(b, size, { padding: o.padding ?? 0.12, minZoom: o.minZoom ?? MIN_ZOOM, maxZoom: o.maxZoom ?? 1.1, avoid }) : null;
}
