// Converts a weft/v1 workflow into React Flow nodes and edges.
import { MarkerType, type Edge, type Node } from '@xyflow/react';
import type { Workflow, WorkflowEdge, WorkflowNode } from '../types';
import { isBackEdge, outputsFor, sourceHandle, type EdgeKind, type OutputHandle } from './handles';
import { summary } from './nodeMeta';

export const NODE_WIDTH = 220;

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
  index: number;
};

export type WeftFlowEdge = Edge<WeftEdgeData>;

export function edgeId(index: number): string {
  return `e${index}`;
}

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

export function toFlowNodes(w: Workflow, direction: Direction = flowDirection(w)): WeftFlowNode[] {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const outgoing = new Map<string, WorkflowEdge[]>();
  const backTargets = new Set<string>();
  for (const e of w.edges) {
    const list = outgoing.get(e.from) ?? [];
    list.push(e);
    outgoing.set(e.from, list);
    if (isBackEdge(byId.get(e.from), byId.get(e.to))) backTargets.add(e.to);
  }
  return w.nodes.map((n, i) => {
    const outputs = outputsFor(n, outgoing.get(n.id) ?? []);
    return {
      id: n.id,
      type: 'weft',
      position: n.position ? { x: n.position.x, y: n.position.y } : { x: (i % 4) * 320, y: Math.floor(i / 4) * 180 },
      width: NODE_WIDTH,
      height: nodeHeight(outputs.length),
      data: {
        node: n,
        direction,
        summary: summary(n, byId),
        outputs,
        backTarget: backTargets.has(n.id) || n.type === 'Loop',
      },
    };
  });
}

export function toFlowEdges(w: Workflow, problemEdges: Set<number> = new Set()): WeftFlowEdge[] {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  return w.edges.map((e, index) => {
    const from = byId.get(e.from);
    const to = byId.get(e.to);
    const back = isBackEdge(from, to);
    const h = sourceHandle(e, from);
    const kind: EdgeKind = back ? 'back' : h.kind;
    const classes = [`edge-${kind}`];
    if (problemEdges.has(index)) classes.push('edge-problem');
    return {
      id: edgeId(index),
      source: e.from,
      target: e.to,
      sourceHandle: h.id,
      targetHandle: back ? 'back' : 'in',
      type: back ? 'smoothstep' : 'default',
      label: back ? 'next iteration' : h.label || undefined,
      className: classes.join(' '),
      markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      data: { kind, index },
      ...(back ? { pathOptions: { offset: 36, borderRadius: 12 } } : {}),
    } as WeftFlowEdge;
  });
}

/** missingPositions reports whether any node needs automatic layout. */
export function missingPositions(w: Workflow): boolean {
  return w.nodes.some((n) => !n.position);
}
