// Converts a weft/v1 workflow into React Flow nodes and edges.
import { MarkerType, Position as Side, type Edge, type Node, type NodeHandle } from '@xyflow/react';
import type { Workflow, WorkflowEdge, WorkflowNode } from '../types';
import { isBackEdge, outputsFor, sourceHandle, type EdgeKind, type OutputHandle } from './handles';
import { edgeKey } from './edit';
import { summary } from './nodeMeta';

export const NODE_WIDTH = 220;

/** Below this zoom nodes are drawn with less detail (icon and name only):
 * nothing else is readable there, and large workflows pan faster. */
export const LOW_DETAIL_ZOOM = 0.2;

export function nodeHeight(outputs: number): number {
  return Math.max(92, 36 + outputs * 26);
}

/** Flow direction of a drawing: handles sit left/right (LR) or top/bottom (TB). */
export type Direction = 'LR' | 'TB';

export type WeftNodeData = {
  node: WorkflowNode;
  direction: Direction;
  summary: string;
  outputs: OutputHandle[];
  /** true for a Loop that an EndLoop points back to */
  backTarget: boolean;
};

export type WeftFlowNode = Node<WeftNodeData, 'weft'>;

export type WeftEdgeData = {
  kind: EdgeKind;
  /** the edge's index in the document's edges */
  index: number;
  /** edgeKey of the document edge */
  key: string;
};

export type WeftFlowEdge = Edge<WeftEdgeData>;

function sameEdge(a: WorkflowEdge, b: WorkflowEdge): boolean {
  return (
    a.from === b.from &&
    a.to === b.to &&
    (a.output?.type ?? '') === (b.output?.type ?? '') &&
    (a.output?.name ?? '') === (b.output?.name ?? '')
  );
}

/** edgeIndex finds the index of an edge (as a problem names it) in the document. */
export function edgeIndex(w: Workflow, e: WorkflowEdge): number {
  return w.edges.findIndex((x) => sameEdge(x, e));
}

/** flowDirection reads the direction from saved positions: top-to-bottom
 * when forward edges mostly go down (as the planner lays out), else left
 * to right (as ELK lays out nodes without positions). */
export function flowDirection(w: Workflow): Direction {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  let dx = 0;
  let dy = 0;
  for (const e of w.edges) {
    const a = byId.get(e.from);
    const b = byId.get(e.to);
    if (!a?.position || !b?.position || isBackEdge(a, b)) continue;
    dx += Math.abs(b.position.x - a.position.x);
    dy += Math.abs(b.position.y - a.position.y);
  }
  return dy > dx ? 'TB' : 'LR';
}

/** The size of a handle on screen (styles.css: .react-flow__handle.handle). */
export const HANDLE_SIZE = 10;

/** outputPlacement says where each side output handle sits along the
 * node's output side, as a fraction (WeftNode draws them there). */
export function outputPlacement(outputs: OutputHandle[]): { o: OutputHandle; at: number }[] {
  const side = outputs.filter((o) => o.id !== 'back');
  return side.map((o, i) => ({ o, at: side.length > 1 ? (i + 1) / (side.length + 1) : 0.5 }));
}

/** handlesFor is where React Flow would measure a node's handles. Given up
 * front, nodes outside the view need not be drawn once just to be measured
 * (with onlyRenderVisibleElements, unmeasured nodes are always drawn). */
export function handlesFor(outputs: OutputHandle[], backTarget: boolean, direction: Direction, width: number, height: number): NodeHandle[] {
  const h = HANDLE_SIZE / 2;
  const at = (cx: number, cy: number) => ({ x: cx - h, y: cy - h, width: HANDLE_SIZE, height: HANDLE_SIZE });
  const tb = direction === 'TB';
  const out: NodeHandle[] = [{ id: 'in', type: 'target', position: tb ? Side.Top : Side.Left, ...(tb ? at(width / 2, 0) : at(0, height / 2)) }];
  const backSide = tb ? Side.Right : Side.Bottom;
  const backAt = tb ? at(width, height / 2) : at(width / 2, height);
  if (backTarget) out.push({ id: 'back', type: 'target', position: backSide, ...backAt });
  for (const { o, at: f } of outputPlacement(outputs)) {
    out.push({ id: o.id, type: 'source', position: tb ? Side.Bottom : Side.Right, ...(tb ? at(width * f, height) : at(width, height * f)) });
  }
  if (outputs.some((o) => o.id === 'back')) out.push({ id: 'back', type: 'source', position: backSide, ...backAt });
  return out;
}

function sameOutputs(a: OutputHandle[], b: OutputHandle[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (a[i].id !== b[i].id || a[i].label !== b[i].label || a[i].kind !== b[i].kind) return false;
  }
  return true;
}

/** toFlowNodes converts the document's nodes. Given the previous flow
 * nodes, it reuses each one whose node, outputs and summary did not change
 * (so memoised node components do not redraw) and keeps selection and
 * measurements. */
export function toFlowNodes(w: Workflow, direction: Direction = flowDirection(w), prev?: WeftFlowNode[]): WeftFlowNode[] {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const outgoing = new Map<string, WorkflowEdge[]>();
  const backTargets = new Set<string>();
  for (const e of w.edges) {
    const list = outgoing.get(e.from);
    if (list) list.push(e);
    else outgoing.set(e.from, [e]);
    if (isBackEdge(byId.get(e.from), byId.get(e.to))) backTargets.add(e.to);
  }
  const before = prev ? new Map(prev.map((n) => [n.id, n])) : undefined;
  return w.nodes.map((n, i) => {
    const outputs = outputsFor(n, outgoing.get(n.id) ?? []);
    const sum = summary(n, byId);
    const backTarget = backTargets.has(n.id) || n.type === 'Loop';
    const position = n.position ? { x: n.position.x, y: n.position.y } : { x: (i % 4) * 320, y: Math.floor(i / 4) * 180 };
    const old = before?.get(n.id);
    if (
      old &&
      old.data.node === n &&
      old.data.direction === direction &&
      old.data.summary === sum &&
      old.data.backTarget === backTarget &&
      sameOutputs(old.data.outputs, outputs)
    ) {
      if (!n.position || (old.position.x === position.x && old.position.y === position.y)) return old;
      return { ...old, position };
    }
    const height = nodeHeight(outputs.length);
    const out: WeftFlowNode = {
      id: n.id,
      type: 'weft',
      position,
      width: NODE_WIDTH,
      height,
      handles: handlesFor(outputs, backTarget, direction, NODE_WIDTH, height),
      data: { node: n, direction, summary: sum, outputs, backTarget },
    };
    if (old?.selected) out.selected = true;
    // Its size is known (the node's CSS is fixed to it), so React Flow need
    // not wait to measure it: a node outside the view, not drawn with
    // onlyRenderVisibleElements, is still one it can move (dragged in a
    // selection, or by the arrow keys) without "drag a node that is not
    // initialized", and fits count it.
    out.measured = old?.measured && old.height === height ? old.measured : { width: NODE_WIDTH, height };
    return out;
  });
}

/** flowEdgeId names an edge by what it connects, so that ids stay stable
 * when other edges are added or removed; a duplicate gets a suffix. */
export function flowEdgeId(e: WorkflowEdge, handle: string, dup: number): string {
  const base = `${e.from}>${e.to}>${handle}`;
  return dup ? `${base}#${dup}` : base;
}

/** toFlowEdges converts the document's edges, in document order; edges
 * whose key (edgeKey) is in problemEdges are highlighted. Given the
 * previous flow edges, unchanged ones are reused and selection is kept. */
export function toFlowEdges(w: Workflow, problemEdges: Set<string> = new Set(), prev?: WeftFlowEdge[]): WeftFlowEdge[] {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const before = prev ? new Map(prev.map((e) => [e.id, e])) : undefined;
  const seen = new Map<string, number>();
  return w.edges.map((e, index) => {
    const from = byId.get(e.from);
    const to = byId.get(e.to);
    const back = isBackEdge(from, to);
    const h = sourceHandle(e, from);
    const kind: EdgeKind = back ? 'back' : h.kind;
    const key = edgeKey(e);
    const dup = seen.get(key) ?? 0;
    seen.set(key, dup + 1);
    const id = flowEdgeId(e, h.id, dup);
    const classes = [`edge-${kind}`];
    if (problemEdges.has(key)) classes.push('edge-problem');
    const className = classes.join(' ');
    const old = before?.get(id);
    if (old && old.className === className && old.data?.index === index && old.data?.kind === kind) return old;
    const out = {
      id,
      source: e.from,
      target: e.to,
      sourceHandle: h.id,
      targetHandle: back ? 'back' : 'in',
      type: back ? 'smoothstep' : 'default',
      label: back ? 'next iteration' : h.label || undefined,
      className,
      markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      data: { kind, index, key },
      ...(back ? { pathOptions: { offset: 36, borderRadius: 12 } } : {}),
    } as WeftFlowEdge;
    if (old?.selected) out.selected = true;
    return out;
  });
}

/** missingPositions reports whether any node needs automatic layout. */
export function missingPositions(w: Workflow): boolean {
  return w.nodes.some((n) => !n.position);
}
