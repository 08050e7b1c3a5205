// A workflow's triggers (weft serve's webhooks and watched folders) drawn as
// nodes before its start, n8n's convention: each is a small node to the
// left of (or above) the entry step, with an edge into it. They are shown,
// not edited here: the file holds them (docs/file-format.md#triggers) and
// Go reviews them like steps; the canvas never selects, moves or deletes
// them, and they are no part of the document's nodes.
import { MarkerType, Position as Side, type Edge, type Node } from '@xyflow/react';
import type { Workflow } from '../types';
import { HANDLE_SIZE, flowDirection, type Direction, type WeftFlowNode } from './toFlow';

export const TRIGGER_PREFIX = 'trigger:';
export const TRIGGER_WIDTH = 200;
export const TRIGGER_HEIGHT = 64;
const GAP = 80;

export type TriggerData = {
  kind: 'webhook' | 'file' | 'other';
  /** what a person reads: the path it answers, the files it watches */
  label: string;
  detail: string;
  direction: Direction;
};

export type TriggerFlowNode = Node<TriggerData, 'trigger'>;

/** isTriggerId says whether a canvas id is a trigger's, not a step's. */
export function isTriggerId(id: string): boolean {
  return id.startsWith(TRIGGER_PREFIX);
}

/** entryOf is the step a run starts at: the first node in document order
 * that no edge leads into, or none. */
function entryOf(w: Workflow): string | undefined {
  const into = new Set(w.edges.map((e) => e.to));
  return w.nodes.find((n) => !into.has(n.id))?.id;
}

/** triggerFlow is the triggers of w as canvas nodes beside its entry step
 * (placed by the step's node on the canvas), with an edge into it each. */
export function triggerFlow(w: Workflow | null, nodes: WeftFlowNode[]): { nodes: TriggerFlowNode[]; edges: Edge[] } {
  const none = { nodes: [], edges: [] };
  const ts = w?.triggers;
  if (!w || !ts?.length) return none;
  const entryId = entryOf(w);
  const entry = nodes.find((n) => n.id === entryId);
  const direction = flowDirection(w);
  const tb = direction === 'TB';
  const origin = entry?.position ?? { x: 0, y: 0 };
  const entryH = entry?.height ?? 92;
  const span = ts.length * (tb ? TRIGGER_WIDTH : TRIGGER_HEIGHT) + (ts.length - 1) * 20;
  const out: TriggerFlowNode[] = ts.map((t, i) => {
    const kind = t.type === 'webhook' || t.type === 'file' ? t.type : 'other';
    const label = kind === 'webhook' ? 'Webhook' : kind === 'file' ? 'Watched folder' : `Trigger (${String(t.type)})`;
    const detail = kind === 'webhook' ? `${t.path ?? ''}${t.scheme ? ` · ${t.scheme}` : ''}` : kind === 'file' ? (t.glob ?? '') : '';
    const position = tb
      ? { x: origin.x + 110 - span / 2 + i * (TRIGGER_WIDTH + 20), y: origin.y - GAP - TRIGGER_HEIGHT }
      : { x: origin.x - GAP - TRIGGER_WIDTH, y: origin.y + entryH / 2 - span / 2 + i * (TRIGGER_HEIGHT + 20) };
    const h = HANDLE_SIZE / 2;
    const handle = tb
      ? { x: TRIGGER_WIDTH / 2 - h, y: TRIGGER_HEIGHT - h, position: Side.Bottom }
      : { x: TRIGGER_WIDTH - h, y: TRIGGER_HEIGHT / 2 - h, position: Side.Right };
    return {
      id: `${TRIGGER_PREFIX}${i}`,
      type: 'trigger',
      position,
      width: TRIGGER_WIDTH,
      height: TRIGGER_HEIGHT,
      measured: { width: TRIGGER_WIDTH, height: TRIGGER_HEIGHT },
      handles: [{ id: 'out', type: 'source', width: HANDLE_SIZE, height: HANDLE_SIZE, ...handle }],
      selectable: false,
      draggable: false,
      connectable: false,
      deletable: false,
      focusable: false,
      data: { kind, label, detail, direction },
    };
  });
  const edges: Edge[] = entry
    ? out.map((n) => ({
        id: `${n.id}>${entry.id}`,
        source: n.id,
        sourceHandle: 'out',
        target: entry.id,
        targetHandle: 'in',
        className: 'edge-trigger',
        selectable: false,
        deletable: false,
        focusable: false,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
      }))
    : [];
  return { nodes: out, edges };
}
