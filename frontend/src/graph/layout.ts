// Automatic layout (ELK layered, left to right) for workflows whose nodes
// have no saved positions. Back edges (EndLoop → Loop) are left out so the
// layering follows the forward flow.
import ELK from 'elkjs/lib/elk.bundled.js';
import type { Position, Workflow } from '../types';
import { isBackEdge, outputsFor, sourceHandle } from './handles';
import { NODE_WIDTH, nodeHeight } from './toFlow';

// ELK is imported statically: a lazy chunk import() hangs in WebKitGTK
// under the wails:// asset scheme, and the size does not matter on desktop.
let elk: InstanceType<typeof ELK> | null = null;

/** Node count from which long layouts wrap into rows. */
export const WRAP_FROM = 30;

/** Columns per band when the simple layout folds many layers. */
const WRAP_LAYERS = 12;

export async function elkLayout(w: Workflow): Promise<Record<string, Position>> {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const edges = w.edges
    .map((e, i) => ({ e, i }))
    .filter(({ e }) => byId.has(e.from) && byId.has(e.to) && e.from !== e.to)
    .filter(({ e }) => !isBackEdge(byId.get(e.from), byId.get(e.to)));
  // Ports in handle order (top to bottom on the east side) keep branch
  // targets in the order of their handles, so branch edges do not cross.
  const graph = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'RIGHT',
      'elk.spacing.nodeNode': '40',
      'elk.layered.spacing.nodeNodeBetweenLayers': '110',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      // A long chain would make one row kilometres wide: past a few dozen
      // nodes the layers wrap into rows, towards a screen's shape.
      ...(w.nodes.length > WRAP_FROM ? { 'elk.layered.wrapping.strategy': 'MULTI_EDGE', 'elk.aspectRatio': '1.6' } : {}),
    },
    children: w.nodes.map((n) => {
      const outs = outputsFor(n, w.edges.filter((e) => e.from === n.id));
      return {
        id: n.id,
        width: NODE_WIDTH,
        height: nodeHeight(outs.length),
        layoutOptions: { 'elk.portConstraints': 'FIXED_ORDER' },
        ports: [
          { id: `${n.id}::in`, width: 1, height: 1, layoutOptions: { 'elk.port.side': 'WEST', 'elk.port.index': '0' } },
          ...outs.map((o, i) => ({
            id: `${n.id}::${o.id}`,
            width: 1,
            height: 1,
            layoutOptions: { 'elk.port.side': o.id === 'back' ? 'SOUTH' : 'EAST', 'elk.port.index': String(i) },
          })),
        ],
      };
    }),
    edges: edges.map(({ e, i }) => ({
      id: `e${i}`,
      sources: [`${e.from}::${sourceHandle(e, byId.get(e.from)).id}`],
      targets: [`${e.to}::in`],
    })),
  };
  // ELK keeps what it allocated for a graph; a large one gets an engine of
  // its own that is dropped afterwards rather than held for the session.
  const engine = w.nodes.length > 300 ? new ELK() : (elk ??= new ELK());
  const res = await engine.layout(graph);
  const out: Record<string, Position> = {};
  for (const c of res.children ?? []) {
    out[c.id] = { x: Math.round(c.x ?? 0), y: Math.round(c.y ?? 0) };
  }
  return out;
}

/** simpleLayout layers nodes by longest path from the entries (back edges
 * ignored), left to right; used when ELK fails or takes too long. */
export function simpleLayout(w: Workflow): Record<string, Position> {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const succ = new Map<string, string[]>();
  const indeg = new Map(w.nodes.map((n) => [n.id, 0]));
  for (const e of w.edges) {
    if (!byId.has(e.from) || !byId.has(e.to) || e.from === e.to) continue;
    if (isBackEdge(byId.get(e.from), byId.get(e.to))) continue;
    (succ.get(e.from) ?? succ.set(e.from, []).get(e.from)!).push(e.to);
    indeg.set(e.to, (indeg.get(e.to) ?? 0) + 1);
  }
  const layer = new Map<string, number>();
  const queue = w.nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
  for (const id of queue) layer.set(id, 0);
  // Kahn's order; nodes left in cycles get placed after everything else.
  for (let i = 0; i < queue.length; i++) {
    const id = queue[i];
    for (const t of succ.get(id) ?? []) {
      layer.set(t, Math.max(layer.get(t) ?? 0, layer.get(id)! + 1));
      indeg.set(t, indeg.get(t)! - 1);
      if (indeg.get(t) === 0) queue.push(t);
    }
  }
  const maxLayer = Math.max(0, ...layer.values());
  const rows = new Map<number, number>();
  const at = new Map<string, [number, number]>();
  for (const n of w.nodes) {
    const l = layer.get(n.id) ?? maxLayer + 1;
    const r = rows.get(l) ?? 0;
    rows.set(l, r + 1);
    at.set(n.id, [l, r]);
  }
  // Many layers fold into bands of WRAP_LAYERS columns, one band under the
  // other, rather than one endless row.
  const layers = maxLayer + 2;
  const perBand = layers > WRAP_LAYERS * 1.5 ? WRAP_LAYERS : layers;
  const bandHeight = (Math.max(1, ...rows.values()) + 1) * 150;
  const out: Record<string, Position> = {};
  for (const [id, [l, r]] of at) {
    out[id] = { x: (l % perBand) * (NODE_WIDTH + 110), y: Math.floor(l / perBand) * bandHeight + r * 150 };
  }
  return out;
}

function timeout(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`layout took over ${ms} ms`)), ms));
}

/** layoutWorkflow lays out with ELK, falling back to simpleLayout. */
export async function layoutWorkflow(
  w: Workflow,
  opts: { timeoutMs?: number; onFallback?: (why: unknown) => void } = {},
): Promise<Record<string, Position>> {
  try {
    return await Promise.race([elkLayout(w), timeout(opts.timeoutMs ?? 8000)]);
  } catch (e) {
    opts.onFallback?.(e);
    return simpleLayout(w);
  }
}
