// Per-node run data (n8n's input and output panes): for each attempt of a
// node, in each loop iteration, what it ran with (its arguments, templates
// filled in), what it produced and, when it failed, the failure record.
// Folded from the run's events; the newest records per node are kept.
import type { FailureRecord, RunEvent } from '../types';

export interface NodeAttempt {
  seq: number;
  /** 1-based; 0 for data a node produced without an attempt (control flow) */
  attempt: number;
  /** the innermost running loop's iteration, when the node ran in a loop */
  iteration?: number;
  arguments?: Record<string, unknown>;
  /** the outputs of the nodes the step reads (node_started's reads), by
   * key, as they were when the attempt began: the rest of its input */
  read?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  failure?: FailureRecord;
  status: 'running' | 'ok' | 'failed' | 'skipped';
  message?: string;
}

export interface NodeData {
  runId: string | null;
  records: Record<string, NodeAttempt[]>;
  /** records dropped per node beyond the cap (a long loop) */
  dropped: Record<string, number>;
  /** the loops running, innermost last */
  loops: { id: string; iteration: number }[];
  /** each node's latest outputs by key (variable_set), for the next step's input */
  latest: Record<string, Record<string, unknown>>;
  /** per node id: the keys it reads (node_started) */
  reads: Record<string, string[]>;
}

/** Records kept per node: the newest ones (the run folder has them all). */
export const MAX_RECORDS_PER_NODE = 50;

export function emptyNodeData(): NodeData {
  return { runId: null, records: {}, dropped: {}, loops: [], latest: {}, reads: {} };
}

/** foldNodeData applies a batch of events; it returns d itself when nothing changed. */
export function foldNodeData(d: NodeData, events: RunEvent[]): NodeData {
  let out = d;
  let recordsCopied = false;
  let mapsCopied = false;
  const maps = () => {
    if (out === d) out = { ...d, loops: [...d.loops] };
    if (!mapsCopied) {
      out.latest = { ...out.latest };
      out.reads = { ...out.reads };
      mapsCopied = true;
    }
    return out;
  };
  const touched = new Set<string>();
  const edit = (id: string): NodeAttempt[] => {
    if (out === d) out = { ...d, loops: [...d.loops] };
    if (!recordsCopied) {
      out.records = { ...out.records };
      out.dropped = { ...out.dropped };
      recordsCopied = true;
    }
    if (!touched.has(id)) {
      out.records[id] = [...(out.records[id] ?? [])];
      touched.add(id);
    }
    return out.records[id];
  };
  const last = (id: string): NodeAttempt | undefined => {
    const list = edit(id);
    const r = list[list.length - 1];
    if (!r) return undefined;
    const copy = { ...r };
    list[list.length - 1] = copy;
    return copy;
  };
  const push = (id: string, r: NodeAttempt) => {
    const list = edit(id);
    list.push(r);
    if (list.length > MAX_RECORDS_PER_NODE) {
      const extra = list.length - MAX_RECORDS_PER_NODE;
      list.splice(0, extra);
      out.dropped[id] = (out.dropped[id] ?? 0) + extra;
    }
  };
  for (const e of events) {
    if (e.type === 'run_started') {
      if (out.runId !== e.run_id) {
        out = { ...emptyNodeData(), runId: e.run_id ?? null };
        recordsCopied = true;
        mapsCopied = true;
        touched.clear();
      }
      continue;
    }
    if (out.runId && e.run_id && e.run_id !== out.runId) continue;
    const id = e.node_id;
    if (!id) continue;
    const iteration = out.loops.length ? out.loops[out.loops.length - 1].iteration : undefined;
    switch (e.type) {
      case 'loop_iteration': {
        if (out === d) out = { ...d, loops: [...d.loops] };
        const at = out.loops.findIndex((l) => l.id === id);
        if (at >= 0) out.loops = out.loops.slice(0, at);
        out.loops = [...out.loops, { id, iteration: e.iteration ?? 0 }];
        break;
      }
      case 'branch_evaluated':
        if (e.branch === 'LoopDone') {
          if (out === d) out = { ...d, loops: [...d.loops] };
          const at = out.loops.findIndex((l) => l.id === id);
          if (at >= 0) out.loops = out.loops.slice(0, at);
        }
        break;
      case 'node_started':
        if (e.reads?.length) maps().reads[id] = e.reads;
        break;
      case 'attempt': {
        const keys = out.reads[id];
        const read = keys?.length ? Object.fromEntries(keys.map((k) => [k, out.latest[k] ?? {}])) : undefined;
        push(id, { seq: e.seq, attempt: e.attempt ?? 1, iteration, arguments: e.arguments, read, status: 'running' });
        break;
      }
      case 'failure': {
        const r = last(id);
        if (r && r.status === 'running') {
          r.failure = e.failure;
          r.status = 'failed';
        } else {
          push(id, { seq: e.seq, attempt: e.attempt ?? 0, iteration, failure: e.failure, status: 'failed' });
        }
        break;
      }
      case 'variable_set': {
        if (e.node_key && e.outputs) maps().latest[e.node_key] = e.outputs;
        const r = last(id);
        if (r && (r.status === 'running' || (r.status === 'failed' && !r.outputs))) {
          // A failure a node's on_error handles still sets its outputs.
          r.outputs = e.outputs;
          if (r.status === 'running') r.status = 'ok';
        } else {
          push(id, { seq: e.seq, attempt: 0, iteration, outputs: e.outputs, status: 'ok' });
        }
        break;
      }
      case 'node_skipped':
        push(id, { seq: e.seq, attempt: 0, iteration, status: 'skipped', message: e.message });
        break;
    }
  }
  return out;
}
