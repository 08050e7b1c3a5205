// Handle ids and edge labels: how weft/v1 edge outputs map onto React Flow
// handles. Source handles: "out" (plain), "true"/"false" (If),
// "case:<name>"/"default" (Switch), "body"/"done" (Loop), "back" (EndLoop),
// "error" (a step whose on_error is "branch").
// Target handles: "in", plus "back" on a Loop for its EndLoop's edge.
import type { EdgeOutput, WorkflowEdge, WorkflowNode } from '../types';

export type EdgeKind = 'plain' | 'true' | 'false' | 'case' | 'default' | 'body' | 'done' | 'back' | 'error' | 'other';

export interface OutputHandle {
  id: string;
  label: string;
  kind: EdgeKind;
}

export function handleForOutput(o: EdgeOutput | null | undefined): OutputHandle {
  if (!o || !o.type) return { id: 'out', label: '', kind: 'plain' };
  switch (o.type) {
    case 'IfTrue':
      return { id: 'true', label: 'true', kind: 'true' };
    case 'IfFalse':
      return { id: 'false', label: 'false', kind: 'false' };
    case 'LoopBody':
      return { id: 'body', label: 'body', kind: 'body' };
    case 'LoopDone':
      return { id: 'done', label: 'done', kind: 'done' };
    case 'SwitchDefault':
      return { id: 'default', label: 'default', kind: 'default' };
    case 'SwitchCase':
      return { id: `case:${o.name ?? ''}`, label: o.name || '(unnamed)', kind: 'case' };
    case 'Error':
      return { id: 'error', label: 'error', kind: 'error' };
    default: {
      // A file may hold a type Go does not know (validate reports it): shown as it is.
      const t: string = o.type;
      return { id: `other:${t}:${o.name ?? ''}`, label: o.name ? `${t}(${o.name})` : t, kind: 'other' };
    }
  }
}

/** declaredOutputs are the handles a node of its type always shows. */
export function declaredOutputs(n: WorkflowNode): OutputHandle[] {
  switch (n.type) {
    case 'If':
      return [handleForOutput({ type: 'IfTrue' }), handleForOutput({ type: 'IfFalse' })];
    case 'Switch':
      return [
        ...(n.params?.cases ?? []).map((c) => handleForOutput({ type: 'SwitchCase', name: c.name })),
        handleForOutput({ type: 'SwitchDefault' }),
      ];
    case 'Loop':
      return [handleForOutput({ type: 'LoopBody' }), handleForOutput({ type: 'LoopDone' })];
    case 'EndLoop':
      return [{ id: 'back', label: '', kind: 'back' }];
    case 'Tool':
    case 'AiStep':
    case 'AiTransform':
    case 'Workflow':
      // A step that branches on errors has a second output for them.
      return n.on_error === 'branch' ? [handleForOutput(null), handleForOutput({ type: 'Error' })] : [handleForOutput(null)];
    default:
      return [handleForOutput(null)];
  }
}

/** sourceHandle picks the handle an edge leaves from. */
export function sourceHandle(e: WorkflowEdge, from: WorkflowNode | undefined): OutputHandle {
  if (from?.type === 'EndLoop' && !e.output) return { id: 'back', label: '', kind: 'back' };
  return handleForOutput(e.output);
}

/** isBackEdge: an EndLoop's edge to a Loop, drawn distinctly. */
export function isBackEdge(from: WorkflowNode | undefined, to: WorkflowNode | undefined): boolean {
  return from?.type === 'EndLoop' && to?.type === 'Loop';
}

/** outputsFor merges declared outputs with any an edge uses that the type
 * does not declare (e.g. a case the Switch no longer has), so every edge has
 * a handle to attach to and invalid files still draw. */
export function outputsFor(n: WorkflowNode, outgoing: WorkflowEdge[]): OutputHandle[] {
  const out = declaredOutputs(n);
  const seen = new Set(out.map((h) => h.id));
  for (const e of outgoing) {
    const h = sourceHandle(e, n);
    if (!seen.has(h.id)) {
      seen.add(h.id);
      out.push(h);
    }
  }
  return out;
}
