// Automatic layout (ELK layered, left to right) for workflows whose nodes
// have no saved positions. Back edges (EndLoop → Loop) are left out so the
// layering follows the forward flow.
import ELKApi from 'elkjs/lib/elk-api.js';
import ELK from 'elkjs/lib/elk.bundled.js';
import ElkWorker from 'elkjs/lib/elk-worker.min.js?worker&inline';
import type { Position, Workflow } from '../types';
import { GROUP_PAD, GROUP_TITLE_BAR, groupFlowId } from './annotations';
import { isBackEdge, outputsFor, sourceHandle } from './handles';
import { NODE_WIDTH, nodeHeight } from './toFlow';

// ELK runs in a web worker, so a layout never stalls the page (60 nodes
// stalled it for a second, cold). The worker's script is inlined in the
// bundle and started from a blob: a lazy chunk import() hangs in WebKitGTK
// under the wails:// asset scheme, and the size does not matter on desktop.
// Where no worker can start (tests under jsdom, a webview refusing blob
// workers) ELK runs on the page as before.
type Engine = { layout: InstanceType<typeof ELK>['layout'] };
let elk: Engine | null = null;
let workerElk: Engine | null = null;
let workerBroken = typeof Worker === 'undefined';
// Rejected when the worker fails: a layout waiting for it goes to the page.
let workerFailed: { promise: Promise<never>; fail: (e: unknown) => void } | null = null;

/** inWorker is ELK in its web worker, or null where none can start. */
function inWorker(): Engine | null {
  if (workerBroken) return null;
  try {
    if (!workerElk) {
      let fail: (e: unknown) => void = () => {};
      const promise = new Promise<never>((_, reject) => (fail = reject));
      promise.catch(() => undefined); // nobody may be waiting
      workerFailed = { promise, fail };
    }
    workerElk ??= new ELKApi({
      workerFactory: () => {
        const w = new ElkWorker();
        // A worker that cannot run (its script refused) says so once:
        // later layouts run on the page.
        w.addEventListener('error', (e) => {
          workerBroken = true;
          workerElk = null;
          workerFailed?.fail(e);
        });
        return w;
      },
    });
  } catch {
    workerBroken = true;
  }
  return workerElk;
}

/** warmLayout starts the worker and lays out two nodes in it, so that the
 * first auto-layout a person asks for does not wait for ELK's 2 MB script
 * to load and warm up there (60 nodes took 0.9 s cold, 0.13 s warm). */
export function warmLayout(): Promise<unknown> {
  const engine = inWorker();
  if (!engine) return Promise.resolve();
  const node = (id: string) => ({ id, width: NODE_WIDTH, height: 90 });
  return engine
    .layout({ id: 'warm', layoutOptions: { 'elk.algorithm': 'layered' }, children: [node('a'), node('b')], edges: [{ id: 'e', sources: ['a'], targets: ['b'] }] })
    .catch(() => undefined);
}

// In the app (not under jsdom, which has no Worker), once the page is idle.
if (typeof window !== 'undefined' && !workerBroken) {
  const idle = window.requestIdleCallback ?? ((f: () => void) => window.setTimeout(f, 2000));
  idle(() => void warmLayout());
}

/** onPage is ELK on the page's own thread. */
function onPage(large: boolean): Engine {
  // ELK keeps what it allocated for a graph; a large one gets an engine of
  // its own that is dropped afterwards rather than held for the session.
  return large ? new ELK() : (elk ??= new ELK());
}

/** Node count from which long layouts wrap into rows. */
export const WRAP_FROM = 30;

/** Columns per band when the simple layout folds many layers. */
const WRAP_LAYERS = 12;

/** elkLayout lays w out with ELK, in its worker unless where is 'page'
 * (the benchmark compares the two). */
export async function elkLayout(w: Workflow, where: 'worker' | 'page' = 'worker'): Promise<Record<string, Position>> {
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
      // A group's nodes are laid out inside a box of their own (an ELK
      // compound node), so they stay together and its frame holds no other.
      ...(w.groups?.some((g) => g.nodes.length) ? { 'elk.hierarchyHandling': 'INCLUDE_CHILDREN' } : {}),
    },
    children: compound(w, (n) => {
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
  const worker = where === 'worker' ? inWorker() : null;
  let res;
  try {
    res = worker ? await Promise.race([worker.layout(graph), workerFailed!.promise]) : await onPage(w.nodes.length > 300).layout(graph);
  } catch (e) {
    if (!worker || !workerBroken) throw e;
    res = await onPage(w.nodes.length > 300).layout(graph); // the worker failed to start
  }
  const out: Record<string, Position> = {};
  // A group's box is no node; its nodes' places are relative to it.
  const place = (cs: ElkResult[] = [], dx = 0, dy = 0) => {
    for (const c of cs) {
      if (c.children?.length) place(c.children, dx + (c.x ?? 0), dy + (c.y ?? 0));
      else out[c.id] = { x: Math.round(dx + (c.x ?? 0)), y: Math.round(dy + (c.y ?? 0)) };
    }
  };
  place(res.children);
  return out;
}

type ElkResult = { id: string; x?: number; y?: number; children?: ElkResult[] };

/** compound gives ELK the nodes, each group's members inside a box of the
 * group's (with the room fitGroups leaves around them and for the title);
 * a node two groups list goes in the first one's. */
function compound<T extends { id: string }>(w: Workflow, child: (n: Workflow['nodes'][number]) => T): (T | { id: string; layoutOptions: Record<string, string>; children: T[] })[] {
  const home = new Map<string, string>();
  for (const g of w.groups ?? []) for (const id of g.nodes) if (!home.has(id)) home.set(id, g.id);
  const members = new Map<string, T[]>();
  const top: (T | { id: string; layoutOptions: Record<string, string>; children: T[] })[] = [];
  for (const n of w.nodes) {
    const g = home.get(n.id);
    if (!g) {
      top.push(child(n));
      continue;
    }
    if (!members.has(g)) {
      const children: T[] = [];
      members.set(g, children);
      const pad = `[top=${GROUP_PAD + GROUP_TITLE_BAR},left=${GROUP_PAD},bottom=${GROUP_PAD},right=${GROUP_PAD}]`;
      top.push({ id: groupFlowId(g), layoutOptions: { 'elk.padding': pad }, children });
    }
    members.get(g)!.push(child(n));
  }
  return top;
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
