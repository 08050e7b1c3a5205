// Pure edits of a workflow document. Each returns a new document and leaves
// the nodes and edges it does not change as they were (same objects), so the
// canvas only redraws what changed and history snapshots share structure.
import type { workflow } from '../gen/bindings';
import type { EdgeOutput, NodeType, OnError, Params, Position, Workflow, WorkflowEdge, WorkflowNode } from '../types';
import { humanize, keyFromName, newId, uniqueKey } from './ids';

export function edgeKey(e: WorkflowEdge): string {
  return `${e.from}\u0000${e.to}\u0000${e.output?.type ?? ''}\u0000${e.output?.name ?? ''}`;
}

export function takenKeys(w: Workflow, except?: string): Set<string> {
  const s = new Set<string>();
  for (const n of w.nodes) if (n.id !== except && n.key) s.add(n.key);
  return s;
}

export function emptyWorkflow(name = 'Untitled workflow'): Workflow {
  return { format: 'weft/v1', id: newId(), name, nodes: [], edges: [] };
}

/** What the palette adds: a node type, and for a Tool the tool. */
export interface NodeSpec {
  type: NodeType;
  tool?: string;
  name?: string;
}

const DEFAULT_NAMES: Record<NodeType, string> = {
  Tool: 'Tool',
  AiStep: 'AI step',
  AiTransform: 'AI transform',
  Workflow: 'Sub-workflow',
  If: 'If',
  Switch: 'Switch',
  Loop: 'Loop',
  EndLoop: 'End loop',
};

function defaultParams(spec: NodeSpec): Params {
  switch (spec.type) {
    case 'Tool':
      return { tool: spec.tool ?? '', arguments: {} };
    case 'AiStep':
      return { prompt: '' };
    case 'AiTransform':
      return { kind: 'summarize', input: '' };
    case 'Workflow':
      return { path: '', inputs: {} };
    case 'If':
      return { condition: '' };
    case 'Switch':
      return { cases: [{ name: 'case_1', condition: '' }] };
    case 'Loop':
      return { exit_condition: '', max_iterations: 100 };
    case 'EndLoop':
      return { loop_id: '' };
    default:
      return {};
  }
}

/** makeNodes builds the nodes (and edges) a palette entry adds at pos: one
 * node, or for a Loop the Loop with its EndLoop already paired. The first
 * node returned is the one the user asked for. */
export function makeNodes(w: Workflow, spec: NodeSpec, pos: Position): { nodes: WorkflowNode[]; edges: WorkflowEdge[] } {
  const taken = takenKeys(w);
  const make = (type: NodeType, name: string, params: Params, at: Position): WorkflowNode => {
    const key = uniqueKey(keyFromName(name), taken);
    taken.add(key);
    return { id: newId(), key, name, type, params, position: { x: Math.round(at.x), y: Math.round(at.y) } };
  };
  const name = spec.name ?? (spec.type === 'Tool' && spec.tool ? humanize(spec.tool) : DEFAULT_NAMES[spec.type]);
  const first = make(spec.type, name, defaultParams(spec), pos);
  if (spec.type !== 'Loop') {
    if (spec.type === 'EndLoop') {
      // Pair it with the only Loop that has no EndLoop yet, if there is one.
      const paired = new Set(w.nodes.filter((n) => n.type === 'EndLoop').map((n) => n.params?.loop_id));
      const free = w.nodes.filter((n) => n.type === 'Loop' && !paired.has(n.id));
      if (free.length === 1) {
        first.params = { loop_id: free[0].id };
        return { nodes: [first], edges: [{ from: first.id, to: free[0].id }] };
      }
    }
    return { nodes: [first], edges: [] };
  }
  const end = make('EndLoop', `End ${name.toLowerCase()}`, { loop_id: first.id }, { x: pos.x + 320, y: pos.y + 160 });
  return { nodes: [first, end], edges: [{ from: end.id, to: first.id }] };
}

export function addElements(w: Workflow, nodes: WorkflowNode[], edges: WorkflowEdge[] = []): Workflow {
  return { ...w, nodes: [...w.nodes, ...nodes], edges: [...w.edges, ...edges] };
}

/** removeElements deletes the nodes, every edge touching them and the
 * edges named by key. */
export function removeElements(w: Workflow, nodeIds: Iterable<string>, edgeKeys: Iterable<string> = []): Workflow {
  const ids = new Set(nodeIds);
  const keys = new Set(edgeKeys);
  if (!ids.size && !keys.size) return w;
  const nodes = w.nodes.filter((n) => !ids.has(n.id));
  const edges = w.edges.filter((e) => !ids.has(e.from) && !ids.has(e.to) && !keys.has(edgeKey(e)));
  if (nodes.length === w.nodes.length && edges.length === w.edges.length) return w;
  // A removed node's pin goes with it, and it leaves its groups (undo brings all back).
  const gone = w.pinned ? Object.keys(w.pinned).filter((id) => ids.has(id)) : [];
  const rest = withoutMembers({ ...w, nodes, edges }, ids);
  return gone.length ? setPinned(rest, gone, undefined) : rest;
}

/** withoutMembers drops the nodes with these ids from the groups that framed them. */
export function withoutMembers(w: Workflow, nodeIds: Set<string>): Workflow {
  if (!w.groups?.some((g) => g.nodes.some((id) => nodeIds.has(id)))) return w;
  return { ...w, groups: w.groups.map((g) => (g.nodes.some((id) => nodeIds.has(id)) ? { ...g, nodes: g.nodes.filter((id) => !nodeIds.has(id)) } : g)) };
}

/** setPinned pins outputs to the nodes, or unpins them (undefined); no
 * pins left removes the field, so an unpinned file reads as before. */
export function setPinned(w: Workflow, ids: string[], outputs: Record<string, unknown> | undefined): Workflow {
  const pinned: Record<string, unknown> = { ...(w.pinned ?? {}) };
  for (const id of ids) {
    if (outputs === undefined) delete pinned[id];
    else pinned[id] = outputs;
  }
  const { pinned: _old, ...rest } = w;
  return Object.keys(pinned).length ? { ...rest, pinned } : rest;
}

/** hasPin says whether the node has any pinned value (an invalid one too: validation reports it). */
export function hasPin(w: Workflow | null | undefined, id: string): boolean {
  return !!w?.pinned && Object.prototype.hasOwnProperty.call(w.pinned, id);
}

/** addEdge adds e; setLoopId pairs an EndLoop that had no Loop. */
export function addEdge(w: Workflow, e: WorkflowEdge, setLoopId?: string): Workflow {
  let nodes = w.nodes;
  if (setLoopId) {
    nodes = w.nodes.map((n) => (n.id === e.from ? { ...n, params: { ...n.params, loop_id: setLoopId } } : n));
  }
  return { ...w, nodes, edges: [...w.edges, e] };
}

export function updateNode(w: Workflow, id: string, f: (n: WorkflowNode) => WorkflowNode): Workflow {
  let changed = false;
  const nodes = w.nodes.map((n) => {
    if (n.id !== id) return n;
    const m = f(n);
    if (m !== n) changed = true;
    return m;
  });
  return changed ? { ...w, nodes } : w;
}

/** setField sets (or, for undefined, removes) one top-level node field. */
export function setField<K extends keyof WorkflowNode>(n: WorkflowNode, k: K, v: WorkflowNode[K] | undefined): WorkflowNode {
  if (n[k] === v) return n;
  const out = { ...n };
  if (v === undefined) delete out[k];
  else out[k] = v;
  return out;
}

/** setParam sets (or, for undefined, removes) one param. */
export function setParam(n: WorkflowNode, k: string, v: unknown): WorkflowNode {
  const params = { ...(n.params ?? {}) };
  if (params[k] === v) return n;
  if (v === undefined) delete params[k];
  else params[k] = v;
  return { ...n, params };
}

export function setPositions(w: Workflow, pos: Record<string, Position>): Workflow {
  let changed = false;
  const nodes = w.nodes.map((n) => {
    const p = pos[n.id];
    if (!p) return n;
    const x = Math.round(p.x);
    const y = Math.round(p.y);
    if (n.position && n.position.x === x && n.position.y === y) return n;
    changed = true;
    return { ...n, position: { x, y } };
  });
  return changed ? { ...w, nodes } : w;
}

function sameCase(o: EdgeOutput | null | undefined, name: string): boolean {
  return o?.type === 'SwitchCase' && (o.name ?? '') === name;
}

/** renameCase renames case i of a Switch and the output of its edge. */
export function renameCase(w: Workflow, id: string, i: number, name: string): Workflow {
  const sw = w.nodes.find((n) => n.id === id);
  const cases = sw?.params?.cases ?? [];
  if (!sw || i < 0 || i >= cases.length || cases[i].name === name) return w;
  const old = cases[i].name;
  // Another case with the old name keeps its edges.
  const shared = cases.some((c, j) => j !== i && c.name === old);
  const next = updateNode(w, id, (n) =>
    setParam(
      n,
      'cases',
      cases.map((c, j) => (j === i ? { ...c, name } : c)),
    ),
  );
  if (shared) return next;
  return {
    ...next,
    edges: next.edges.map((e) => (e.from === id && sameCase(e.output, old) ? { ...e, output: { ...e.output!, name } } : e)),
  };
}

/** addCase appends a case with a fresh name. */
export function addCase(w: Workflow, id: string): Workflow {
  return updateNode(w, id, (n) => {
    const cases = n.params?.cases ?? [];
    const names = new Set(cases.map((c) => c.name));
    let k = cases.length + 1;
    while (names.has(`case_${k}`)) k++;
    return setParam(n, 'cases', [...cases, { name: `case_${k}`, condition: '' }]);
  });
}

/** removeCase drops case i of a Switch and its edge. */
export function removeCase(w: Workflow, id: string, i: number): Workflow {
  const sw = w.nodes.find((n) => n.id === id);
  const cases = sw?.params?.cases ?? [];
  if (!sw || i < 0 || i >= cases.length) return w;
  const name = cases[i].name;
  const shared = cases.some((c, j) => j !== i && c.name === name);
  const next = updateNode(w, id, (n) =>
    setParam(
      n,
      'cases',
      cases.filter((_, j) => j !== i),
    ),
  );
  if (shared) return next;
  return { ...next, edges: next.edges.filter((e) => !(e.from === id && sameCase(e.output, name))) };
}

/** setOnError sets a step's on_error ("stop" is the default, left out);
 * leaving "branch" removes the step's Error edges, which would be invalid. */
export function setOnError(w: Workflow, id: string, mode: OnError): Workflow {
  const next = updateNode(w, id, (n) => setField(n, 'on_error', mode === 'stop' ? undefined : mode));
  if (mode === 'branch') return next;
  return { ...next, edges: next.edges.filter((e) => !(e.from === id && e.output?.type === 'Error')) };
}

/** moveCase moves case i by delta places (the first matching case wins). */
export function moveCase(w: Workflow, id: string, i: number, delta: number): Workflow {
  return updateNode(w, id, (n) => {
    const cases = [...(n.params?.cases ?? [])];
    const j = i + delta;
    if (i < 0 || j < 0 || i >= cases.length || j >= cases.length) return n;
    [cases[i], cases[j]] = [cases[j], cases[i]];
    return setParam(n, 'cases', cases);
  });
}

/** setEndLoopTarget pairs an EndLoop with a Loop and points its edge there. */
export function setEndLoopTarget(w: Workflow, endId: string, loopId: string): Workflow {
  const end = w.nodes.find((n) => n.id === endId);
  if (!end) return w;
  let next = updateNode(w, endId, (n) => setParam(n, 'loop_id', loopId || undefined));
  const out = next.edges.filter((e) => e.from === endId);
  if (!loopId) return next;
  if (out.length === 0) {
    next = { ...next, edges: [...next.edges, { from: endId, to: loopId }] };
  } else if (out.some((e) => e.to !== loopId)) {
    next = {
      ...next,
      edges: next.edges.map((e) => (e.from === endId ? { from: endId, to: loopId } : e)),
    };
    // Retargeting two edges to one Loop would duplicate them.
    const seen = new Set<string>();
    next.edges = next.edges.filter((e) => {
      const k = edgeKey(e);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  return next;
}

// --- key references -------------------------------------------------------

const EXPR_FIELDS = new Set(['condition', 'exit_condition']);

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function refRe(keys: string[]): RegExp {
  return new RegExp(`(?<![A-Za-z0-9_.])(${keys.map(escapeRe).join('|')})(?=\\s*(?:\\.|\\[))`, 'g');
}

/** renameRefs rewrites references key.field to the new keys in an
 * expression (all of it) or a template string (inside {{ }} only). */
export function renameRefs(text: string, keys: Map<string, string>, expression: boolean): string {
  if (!keys.size || !text) return text;
  const re = refRe([...keys.keys()]);
  const sub = (s: string) => s.replace(re, (m) => keys.get(m) ?? m);
  if (expression) return sub(text);
  return text.replace(/\{\{[\s\S]*?\}\}/g, sub);
}

function renameInValue(v: unknown, keys: Map<string, string>): unknown {
  if (typeof v === 'string') return renameRefs(v, keys, false);
  if (Array.isArray(v)) {
    let changed = false;
    const out = v.map((x) => {
      const y = renameInValue(x, keys);
      if (y !== x) changed = true;
      return y;
    });
    return changed ? out : v;
  }
  if (v && typeof v === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const y = renameInValue(x, keys);
      if (y !== x) changed = true;
      out[k] = y;
    }
    return changed ? out : v;
  }
  return v;
}

/** renameNodeRefs rewrites the references to renamed keys inside one node. */
export function renameNodeRefs(n: WorkflowNode, keys: Map<string, string>): WorkflowNode {
  if (!keys.size) return n;
  let params = n.params ?? {};
  let changed = false;
  const p: Params = {};
  for (const [k, v] of Object.entries(params)) {
    let y: unknown;
    if (EXPR_FIELDS.has(k) && typeof v === 'string') y = renameRefs(v, keys, true);
    else if (k === 'cases' && Array.isArray(v)) {
      const cases = v as { name: string; condition: string }[];
      const out = cases.map((c) => {
        const cond = renameRefs(c.condition ?? '', keys, true);
        return cond === c.condition ? c : { ...c, condition: cond };
      });
      y = out.some((c, i) => c !== cases[i]) ? out : v;
    } else if (k === 'loop_id' || k === 'tool' || k === 'kind') y = v;
    else y = renameInValue(v, keys);
    if (y !== v) changed = true;
    p[k] = y;
  }
  if (changed) params = p;
  const verify = n.verify ? renameRefs(n.verify, keys, true) : n.verify;
  if (!changed && verify === n.verify) return n;
  return { ...n, params, ...(verify !== n.verify ? { verify } : {}) };
}

/** renameKey gives node id the key and updates every reference to the old
 * key in the workflow's conditions and templates. */
export function renameKey(w: Workflow, id: string, key: string): Workflow {
  const n = w.nodes.find((x) => x.id === id);
  if (!n || n.key === key) return w;
  const old = n.key;
  const map = new Map(old ? [[old, key]] : []);
  // Only rewrite when no other node still owns the old key.
  const owned = w.nodes.some((x) => x.id !== id && x.key === old);
  const nodes = w.nodes.map((x) => {
    const y = owned ? x : renameNodeRefs(x, map);
    return x.id === id ? { ...y, key } : y;
  });
  return { ...w, nodes };
}

// --- clipboard ------------------------------------------------------------

export interface Clipboard {
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** the notes and groups copied with them (a group keeps the members copied) */
  notes?: workflow.Note[];
  groups?: workflow.Group[];
}

/** copyNodes takes the nodes, the edges between them, and the notes and
 * groups with these ids (a group's members that are not copied are left
 * out of it); null when nothing is taken. */
export function copyNodes(w: Workflow, ids: Iterable<string>, noteIds: Iterable<string> = [], groupIds: Iterable<string> = []): Clipboard | null {
  const set = new Set(ids);
  const nodes = w.nodes.filter((n) => set.has(n.id));
  const ns = new Set(noteIds);
  const gs = new Set(groupIds);
  const notes = (w.notes ?? []).filter((n) => ns.has(n.id));
  const groups = (w.groups ?? []).filter((g) => gs.has(g.id)).map((g) => ({ ...g, nodes: g.nodes.filter((id) => set.has(id)) }));
  if (!nodes.length && !notes.length && !groups.length) return null;
  const edges = w.edges.filter((e) => set.has(e.from) && set.has(e.to));
  return structuredClone({ nodes, edges, ...(notes.length ? { notes } : {}), ...(groups.length ? { groups } : {}) });
}

/** markCopiedFromFile marks the clipboard's nodes that carry no provenance
 * as copied from a workflow file nobody reviewed, so that pasting them into
 * a trusted document does not make them the person's (Go reviews a marked
 * step that acts or routes before it runs). */
export function markCopiedFromFile(clip: Clipboard): void {
  for (const n of clip.nodes) {
    const node = n as WorkflowNode & { provenance?: unknown };
    if (node.provenance === undefined) node.provenance = { source: 'file', via: 'copy' };
  }
}

/** pasteNodes adds a copy of the clipboard with fresh ids and unique keys,
 * its internal edges kept (and references between its nodes rewritten),
 * its notes and groups too (a group framing the copies of its members),
 * moved by offset. Returns the new document and the new ids. */
export function pasteNodes(w: Workflow, clip: Clipboard, offset: Position): { doc: Workflow; ids: string[]; noteIds: string[]; groupIds: string[] } {
  const taken = takenKeys(w);
  const ids = new Map<string, string>();
  const keys = new Map<string, string>();
  const keyOf = new Map<string, string>();
  for (const n of clip.nodes) {
    ids.set(n.id, newId());
    const k = uniqueKey(n.key || keyFromName(n.name || n.type), taken);
    taken.add(k);
    keyOf.set(n.id, k);
    if (n.key && n.key !== k) keys.set(n.key, k);
  }
  const at = (p: Position) => ({ x: Math.round(p.x + offset.x), y: Math.round(p.y + offset.y) });
  const nodes = clip.nodes.map((n) => {
    const copy = renameNodeRefs(structuredClone(n), keys);
    const out: WorkflowNode = {
      ...copy,
      id: ids.get(n.id)!,
      key: keyOf.get(n.id)!,
      position: at(n.position ?? { x: 0, y: 0 }),
    };
    if (n.type === 'EndLoop') {
      const loop = n.params?.loop_id ?? '';
      // An EndLoop copied with its Loop follows the copy; one copied alone
      // is left without a Loop rather than giving the old Loop a second one.
      out.params = { ...out.params, loop_id: ids.get(loop) ?? '' };
    }
    return out;
  });
  const edges = clip.edges.map((e) => ({ ...structuredClone(e), from: ids.get(e.from)!, to: ids.get(e.to)! }));
  const notes = (clip.notes ?? []).map((n) => ({ ...structuredClone(n), id: newId(), position: at(n.position) }));
  const groups = (clip.groups ?? []).map((g) => ({ ...structuredClone(g), id: newId(), position: at(g.position), nodes: g.nodes.flatMap((id) => ids.get(id) ?? []) }));
  const doc = addElements(w, nodes, edges);
  if (notes.length) doc.notes = [...(w.notes ?? []), ...notes];
  if (groups.length) doc.groups = [...(w.groups ?? []), ...groups];
  return { doc, ids: nodes.map((n) => n.id), noteIds: notes.map((n) => n.id), groupIds: groups.map((g) => g.id) };
}
