// Whether a connection drawn on the canvas may become an edge, and which
// output label it gets. The rules are the structural ones of
// backend/validate that a single new edge can break: one next step for a
// plain node, each branch of an If/Switch/Loop used once, no self loops or
// duplicates, EndLoop edges only back to their own Loop, and no cycle that
// is not closed by an EndLoop → Loop edge.
import type { EdgeOutput, Workflow, WorkflowEdge, WorkflowNode } from '../types';
import { declaredOutputs, handleForOutput } from './handles';

export interface ConnectionRequest {
  source: string;
  target: string;
  sourceHandle?: string | null;
  targetHandle?: string | null;
}

export type ConnectionCheck =
  | { ok: true; edge: WorkflowEdge; /** an EndLoop without a loop gets this one */ setLoopId?: string }
  | { ok: false; reason: string };

export function nodeLabel(n: WorkflowNode | undefined, fallback = '?'): string {
  return n ? n.name || n.key || n.id : fallback;
}

const q = (n: WorkflowNode | undefined) => `“${nodeLabel(n)}”`;

/** outputForHandle maps a source handle id to the edge's output label:
 * null for a plain edge, undefined when the node has no such output. */
export function outputForHandle(n: WorkflowNode, handle: string | null | undefined): EdgeOutput | null | undefined {
  const id = handle || (n.type === 'EndLoop' ? 'back' : 'out');
  if (!declaredOutputs(n).some((h) => h.id === id)) return undefined;
  switch (id) {
    case 'out':
    case 'back':
      return null;
    case 'true':
      return { type: 'IfTrue' };
    case 'false':
      return { type: 'IfFalse' };
    case 'body':
      return { type: 'LoopBody' };
    case 'done':
      return { type: 'LoopDone' };
    case 'default':
      return { type: 'SwitchDefault' };
    case 'error':
      return { type: 'Error' };
    default:
      if (id.startsWith('case:')) return { type: 'SwitchCase', name: id.slice('case:'.length) };
      return undefined;
  }
}

function sameOutput(a: EdgeOutput | null | undefined, b: EdgeOutput | null | undefined): boolean {
  return (a?.type ?? '') === (b?.type ?? '') && (a?.name ?? '') === (b?.name ?? '');
}

function branchName(o: EdgeOutput | null): string {
  if (!o) return 'next step';
  switch (o.type) {
    case 'IfTrue':
      return 'true branch';
    case 'IfFalse':
      return 'false branch';
    case 'LoopBody':
      return 'body';
    case 'LoopDone':
      return 'done branch';
    case 'SwitchDefault':
      return 'default branch';
    case 'SwitchCase':
      return `case “${o.name ?? ''}”`;
    case 'Error':
      return 'error branch';
    default:
      return handleForOutput(o).label;
  }
}

/** reaches reports whether `to` can be reached from `from` along forward
 * edges (EndLoop edges jump back to their Loop and are not forward). */
export function reaches(w: Workflow, from: string, to: string): boolean {
  if (from === to) return true;
  const types = new Map(w.nodes.map((n) => [n.id, n.type]));
  const succ = new Map<string, string[]>();
  for (const e of w.edges) {
    if (types.get(e.from) === 'EndLoop') continue;
    const list = succ.get(e.from);
    if (list) list.push(e.to);
    else succ.set(e.from, [e.to]);
  }
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length) {
    const id = stack.pop()!;
    for (const t of succ.get(id) ?? []) {
      if (t === to) return true;
      if (!seen.has(t)) {
        seen.add(t);
        stack.push(t);
      }
    }
  }
  return false;
}

/** checkConnection decides whether c may be added to w. */
export function checkConnection(w: Workflow, c: ConnectionRequest): ConnectionCheck {
  const byId = new Map(w.nodes.map((n) => [n.id, n]));
  const src = byId.get(c.source);
  const dst = byId.get(c.target);
  if (!src || !dst) return { ok: false, reason: 'Connect two nodes of this workflow.' };
  if (src.id === dst.id) {
    return { ok: false, reason: `${q(src)} cannot connect to itself; to repeat steps, use a Loop and its EndLoop.` };
  }
  const output = outputForHandle(src, c.sourceHandle);
  if (output === undefined) {
    return { ok: false, reason: `${q(src)} has no output “${c.sourceHandle}”.` };
  }
  const edge: WorkflowEdge = output ? { from: src.id, to: dst.id, output } : { from: src.id, to: dst.id };
  const outgoing = w.edges.filter((e) => e.from === src.id);

  if (src.type === 'EndLoop') {
    const loopId = src.params?.loop_id ?? '';
    if (loopId && loopId !== dst.id) {
      return { ok: false, reason: `EndLoop ${q(src)} belongs to Loop ${q(byId.get(loopId))}; its edge can only go back to it.` };
    }
    if (dst.type !== 'Loop') {
      return { ok: false, reason: `An EndLoop's edge goes back to its Loop; ${q(dst)} is not a Loop.` };
    }
    if (outgoing.some((e) => e.to === dst.id)) {
      return { ok: false, reason: `EndLoop ${q(src)} already goes back to ${q(dst)}.` };
    }
    if (outgoing.length) {
      return { ok: false, reason: `EndLoop ${q(src)} already goes back to ${q(byId.get(outgoing[0].to))}; an EndLoop has one edge.` };
    }
    if (!loopId) {
      const other = w.nodes.find((n) => n.type === 'EndLoop' && n.id !== src.id && n.params?.loop_id === dst.id);
      if (other) return { ok: false, reason: `Loop ${q(dst)} already has the EndLoop ${q(other)}; a loop has one.` };
      return { ok: true, edge, setLoopId: dst.id };
    }
    return { ok: true, edge };
  }
  if (c.targetHandle === 'back') {
    return { ok: false, reason: `Only the EndLoop of ${q(dst)} connects to its loop-back input; connect to the input on the other side.` };
  }
  if (outgoing.some((e) => e.to === dst.id && sameOutput(e.output, output))) {
    return { ok: false, reason: `${q(src)} is already connected to ${q(dst)} that way.` };
  }
  const taken = outgoing.find((e) => sameOutput(e.output, output));
  if (taken) {
    const to = q(byId.get(taken.to));
    if (!output) {
      return {
        ok: false,
        reason: `${q(src)} already continues to ${to}; a step has one next step (use an If or a Switch to branch).`,
      };
    }
    return { ok: false, reason: `The ${branchName(output)} of ${src.type} ${q(src)} already goes to ${to}.` };
  }
  if (reaches(w, dst.id, src.id)) {
    return {
      ok: false,
      reason: `Connecting ${q(src)} to ${q(dst)} would make a cycle; to repeat steps, use a Loop and its EndLoop.`,
    };
  }
  return { ok: true, edge };
}
