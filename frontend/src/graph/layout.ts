// Automatic layout (ELK layered, left to right) for workflows whose nodes
// have no saved positions. Back edges (EndLoop → Loop) are left out so the
// layering follows the forward flow.
import type { ELK as Elk } from 'elkjs/lib/elk-api';
import type { Position, Workflow } from '../types';
import { isBackEdge, outputsFor } from './handles';
import { NODE_WIDTH, nodeHeight } from './toFlow';

// ELK is large; load it only when a workflow needs laying out.
let elk: Promise<Elk> | null = null;
function getElk(): Promise<Elk> {
  elk ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default());
  return elk;
}

export async function layoutWorkflow(w: Workflow): Promise<Record<string, Position>> {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const edges = w.edges
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => byId.has(e.from) && byId.has(e.to) && e.from !== e.to)
    .filter(({ e }) => !isBackEdge(byId.get(e.from), byId.get(e.to)));
  const graph = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '48',
      'elk.layered.spacing.nodeNodeBetweenLayers': '96',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.edgeRouting': 'SPLINES',
    },
    children: w.nodes.map((n) => ({
      id: n.id,
      width: NODE_WIDTH,
      height: nodeHeight(outputsFor(n, w.edges.filter((e) => e.from === n.id)).length),
    })),
    edges: edges.map(({ e, i }) => ({ id: `e${i}`, sources: [e.from], targets: [e.to] })),
  };
  const res = await (await getElk()).layout(graph);
  const out: Record<string, Position> = {};
  for (const c of res.children ?? []) {
    out[c.id] = { x: Math.round(c.x ?? 0), y: Math.round(c.y ?? 0) };
  }
  return out;
}
