// The Run panel's state: the run in progress (phase, per-node status for the
// canvas, the event log), the escalation waiting for an answer, the end of
// the run with its summary, a replanned version and the approval its
// side-effect steps need, and the history of past runs. The async side
// (starting, stopping, answering, the backend's events) is in
// components/run/runActions.ts.
import { outcomeLabel, verdictText } from '../components/run/format';
import { emptyNodeData, foldNodeData, type NodeAttempt, type NodeData } from './nodeData';
import { edgeKey } from '../graph/edit';
import type { StateCreator } from 'zustand';
import type {
  GoingRun,
  Problem,
  RunEscalation,
  RunEvent,
  RunFinished,
  RunNodeStatus,
  RunRecord,
  RunReplan,
  RunLink,
  ApprovalStep,
  EdgeCount,
  InputField,
  InputProblem,
  WorkflowNode,
} from '../types';
import type { StoreState } from './index';

export type RunPhase = 'idle' | 'starting' | 'running' | 'stopping' | 'finished';

/** A node's live state, for its chip and ring on the canvas. */
export interface NodeRunState {
  status: RunNodeStatus;
  attempt?: number;
  maxAttempts?: number;
  iteration?: number;
  /** the last thing said about the node (error, branch taken) */
  message?: string;
  /** the step did not run: its pinned data, or an earlier run's outputs, stood in */
  source?: 'pinned' | 'reused';
}

/** Which filter of the log shows an entry: run shows always; detail only under "All". */
export type LogGroup = 'run' | 'step' | 'problem' | 'detail';
export type LogLevel = 'info' | 'ok' | 'warn' | 'error';
export type LogFilter = 'all' | 'steps' | 'problems';

export interface RunLogEntry {
  seq: number;
  time: string;
  type: string;
  group: LogGroup;
  level: LogLevel;
  nodeId?: string;
  /** the node's name (or key) */
  node?: string;
  text: string;
  /** the run a Workflow step started (a sub-workflow's), to open */
  subRun?: RunLink;
}

export interface ViewedRun {
  record: RunRecord;
  log: RunLogEntry[];
  total: number;
  truncated: boolean;
  loading: boolean;
  error: string | null;
  /** how often that run took each edge, by edgeKey (Go's count, from its
   * summary.json); null when it did not end (no summary) */
  edges: Record<string, number> | null;
  /** its steps' records folded from its events (the edges' hover text) */
  records: Record<string, NodeAttempt[]> | null;
}

/** The log keeps the latest entries only; the run folder has them all. */
export const MAX_LOG = 3000;

/** Steps a model wrote, waiting for the person's approval before the run starts. */
export interface RunApproval {
  steps: ApprovalStep[];
  /** fingerprints approved in this dialog so far */
  approved: string[];
  /** the last approval call's error, shown in the dialog */
  error?: string;
  /** the run waits to start from this node (run from here) */
  from?: string;
}

/** A run of a workflow that declares inputs, waiting for its Run form. */
export interface RunInputsAsk {
  fields: InputField[];
  /** what the fields show first: the values last used for the file, else the defaults */
  values: Record<string, string>;
  /** why the last start refused them (Go's check), by input; input '' or absent: the whole */
  problems: InputProblem[];
  /** the run waits to start from this node (run from here) */
  from?: string;
  /** the names of the stored secrets a secret input may be given instead of a value */
  secrets?: string[];
  /** the stored secret picked for each secret input, by name ('' or absent: a value is typed) */
  refs?: Record<string, string>;
}

export interface RunSlice {
  runPhase: RunPhase;
  runId: string | null;
  runWorkflowId: string | null;
  nodeRun: Record<string, NodeRunState>;
  /** per node: each attempt's arguments, outputs and failure (the inspector's run data) */
  nodeData: NodeData;
  /** after a run: how often it took each edge, by edgeKey (Go's walk counts
   * them: run_finished's summary.edges); an edge not in it was not taken */
  edgeRun: Record<string, number> | null;
  /** each node's signature when the run started: a node that differs now is stale */
  runSnapshot: Record<string, string> | null;
  runLog: RunLogEntry[];
  /** entries dropped from the front of runLog */
  runLogDropped: number;
  logFilter: LogFilter;
  logQuery: string;
  runEscalation: RunEscalation | null;
  escalationSending: boolean;
  escalationError: string | null;
  runResult: RunFinished | null;
  /** why the run could not start, or failed to */
  runError: string | null;
  runProblems: Problem[];
  runWarnings: string[];
  /** a replanned version waiting for approval of its side-effect steps */
  runApproval: RunApproval | null;
  /** the Run form of a workflow that declares inputs */
  runInputs: RunInputsAsk | null;
  runReplan: RunReplan | null;
  /** the user answered Replan and the planner works */
  runReplanning: boolean;
  /** a fix the person gave with arguments: it changed this run only until kept */
  runFixOffer: FixOffer | null;
  canReplan: boolean | null;
  runHistory: RunRecord[];
  runHistoryLoading: boolean;
  /** runs of this workflow going on the Temporal service that the app does not follow */
  runsGoing: GoingRun[];
  runHistoryError: string | null;
  runHistoryKey: string | null;
  viewedRun: ViewedRun | null;

  runStarting(workflowId: string): void;
  runStartFailed(error: string, problems?: Problem[]): void;
  runStarted(warnings: string[]): void;
  setRunStopping(): void;
  applyRunEvents(events: RunEvent[]): void;
  setRunEscalation(e: RunEscalation | null): void;
  setEscalationSending(sending: boolean, error?: string | null): void;
  runFinished(f: RunFinished): void;
  setRunReplan(r: RunReplan | null): void;
  setRunReplanning(b: boolean): void;
  setRunFixOffer(o: FixOffer | null): void;
  setRunFixOffer(o: FixOffer | null): void;
  setRunApproval(a: RunApproval | null): void;
  setRunInputs(a: RunInputsAsk | null): void;
  setCanReplan(b: boolean): void;
  setLogFilter(f: LogFilter): void;
  setLogQuery(q: string): void;
  setRunHistoryLoading(key: string): void;
  setRunHistory(key: string, runs: RunRecord[], error?: string | null): void;
  setRunsGoing(runs: GoingRun[]): void;
  setViewedRun(v: ViewedRun | null): void;
  /** clearRunStatus forgets the last run (statuses, log, summary) when none goes. */
  clearRunStatus(): void;
}

/** FixOffer is a fix's arguments the editor can keep in the workflow. */
export interface FixOffer {
  nodeId: string;
  node: string;
  arguments: Record<string, unknown>;
}

function nodeLabel(e: RunEvent): string {
  return e.node_name || e.node_key || e.node_id || '';
}

function ms(n: number | undefined): string {
  if (n === undefined) return '';
  return n < 1000 ? `${n}ms` : `${(n / 1000).toFixed(n < 10_000 ? 2 : 1)}s`;
}

const ACTIVE: RunNodeStatus[] = ['running', 'retrying', 'escalated'];

/** nodeStateFor folds one event into a node's state; null when the event says nothing about it. */
export function nodeStateFor(prev: NodeRunState | undefined, e: RunEvent): NodeRunState | null {
  if (!e.node_id) return null;
  const keep = { attempt: prev?.attempt, maxAttempts: prev?.maxAttempts, iteration: prev?.iteration };
  switch (e.type) {
    case 'node_started':
      return { status: 'running', attempt: 1, maxAttempts: e.max_attempts };
    case 'attempt':
    case 'retry':
    case 'failure':
    case 'escalated':
      return {
        ...keep,
        status: (e.status as RunNodeStatus) || prev?.status || 'running',
        attempt: e.attempt ?? keep.attempt,
        maxAttempts: e.max_attempts ?? keep.maxAttempts,
        message: e.type === 'failure' ? e.failure?.error : e.type === 'retry' ? e.message : prev?.message,
      };
    case 'resolved':
    case 'node_finished':
    case 'node_skipped':
      if (e.source === 'pinned' || e.source === 'reused') return { status: 'ok', source: e.source, message: e.message };
      return {
        ...keep,
        status: (e.status as RunNodeStatus) || prev?.status || 'ok',
        attempt: e.attempt ?? keep.attempt,
        message: e.type === 'node_finished' && e.status === 'ok' ? undefined : e.message || prev?.message,
      };
    case 'branch_evaluated':
      return { status: 'ok', iteration: e.iteration ?? prev?.iteration, message: e.branch ? `took ${e.branch}` : undefined };
    case 'loop_iteration':
      return { status: 'running', iteration: e.iteration, message: `iteration ${e.iteration ?? ''}`.trim() };
  }
  return null;
}

/** logEntryFor says what the log shows for one event. */
export function logEntryFor(e: RunEvent): RunLogEntry {
  const base = { seq: e.seq, time: e.time, type: e.type, nodeId: e.node_id, node: nodeLabel(e) || undefined };
  const of = (n?: number, m?: number) => (n ? (m ? `${n}/${m}` : `${n}`) : '');
  switch (e.type) {
    case 'run_started':
      return { ...base, group: 'run', level: 'info', text: `Run started: ${e.message ?? ''}`.trim() };
    case 'node_started':
      return { ...base, group: 'step', level: 'info', text: `Started${e.tool ? ` (${e.tool})` : ''}` };
    case 'attempt':
      return { ...base, group: 'detail', level: 'info', text: `Attempt ${of(e.attempt, e.max_attempts)}` };
    case 'failure': {
      const f = e.failure;
      const what = f ? ` [${f.failure_type}, ${f.category}, ${f.severity}]` : '';
      const n = of(e.attempt, e.max_attempts);
      return { ...base, group: 'problem', level: 'error', text: `${n ? `Attempt ${n} failed` : 'Failed'}: ${f?.error ?? e.message ?? ''}${what}` };
    }
    case 'retry':
      return {
        ...base,
        group: 'problem',
        level: 'warn',
        text: `Retrying: attempt ${of(e.attempt, e.max_attempts)}${e.delay_ms ? ` in ${ms(e.delay_ms)}` : ''}${e.message ? ` — ${e.message}` : ''}`,
      };
    case 'escalated': {
      const why = e.escalation?.reason === 'not_retryable' ? 'retrying cannot fix this' : 'the attempts are used up';
      return { ...base, group: 'problem', level: 'warn', text: `Waiting for your answer: ${why}${e.message ? ` (${e.message})` : ''}` };
    }
    case 'user_response': {
      const r = e.response;
      const detail = r?.arguments ? ` ${JSON.stringify(r.arguments)}` : r?.instruction ? `: ${r.instruction}` : '';
      return { ...base, group: 'problem', level: 'info', text: `You answered ${r?.action ?? '?'}${detail}` };
    }
    case 'resolved':
      return { ...base, group: 'problem', level: e.status === 'ok' ? 'ok' : 'warn', text: `Resolved: ${e.message ?? e.status ?? ''}` };
    case 'variable_set':
      return { ...base, group: 'detail', level: 'info', text: `Outputs: ${e.outputs ? Object.keys(e.outputs).join(', ') : '—'}` };
    case 'branch_evaluated':
      return { ...base, group: 'step', level: 'info', text: `→ ${e.branch ?? ''}${e.condition ? ` (${e.condition})` : ''}${e.message ? ` — ${e.message}` : ''}` };
    case 'loop_iteration':
      return { ...base, group: 'step', level: 'info', text: `Iteration ${e.iteration ?? ''}` };
    case 'node_finished':
      if (e.source) return { ...base, group: 'step', level: 'info', text: e.message ?? e.source };
      if (e.status === 'ok') return { ...base, group: 'step', level: 'ok', text: `Finished${e.duration_ms !== undefined ? ` in ${ms(e.duration_ms)}` : ''}` };
      return { ...base, group: 'step', level: e.status === 'canceled' ? 'warn' : 'error', text: `${e.status ?? 'ended'}${e.message ? `: ${e.message}` : ''}` };
    case 'node_skipped':
      return { ...base, group: 'step', level: 'warn', text: `Skipped${e.message ? `: ${e.message}` : ''}` };
    case 'warning':
      return { ...base, group: 'problem', level: 'warn', text: e.message ?? '' };
    case 'log':
      return { ...base, group: 'step', level: 'info', text: e.message ?? '', ...(e.sub_run ? { subRun: e.sub_run } : {}) };
    case 'tool_call':
      return { ...base, group: 'detail', level: e.status === 'failed' ? 'warn' : 'info', text: `Tool call ${e.tool ?? ''} ${e.status ?? ''}${e.message ? `: ${e.message}` : ''}` };
    case 'verdict': {
      const v = e.verdict;
      if (!v) return { ...base, group: 'step', level: 'info', text: e.message ?? 'Goal check' };
      const sug = v.suggestions?.length ? ` Suggestions: ${v.suggestions.join('; ')}` : '';
      return {
        ...base,
        group: v.approved ? 'step' : 'problem',
        level: v.approved ? 'ok' : 'warn',
        text: `${verdictText(v)}${v.feedback ? `: ${v.feedback}` : ''}${sug}`,
      };
    }
    case 'run_finished': {
      // partial is amber, never green: a step was skipped or failed.
      const level: LogLevel = e.outcome === 'succeeded' ? 'ok' : e.outcome === 'canceled' || e.outcome === 'replanned' || e.outcome === 'partial' ? 'warn' : 'error';
      const what = e.outcome === 'partial' ? outcomeLabel(e.outcome, e.summary, e.verdict) : `Run ${e.outcome ?? 'ended'}`;
      return { ...base, group: 'run', level, text: `${what}${e.duration_ms !== undefined ? ` in ${ms(e.duration_ms)}` : ''}${e.message && e.outcome !== 'partial' ? `: ${e.message}` : ''}` };
    }
  }
  return { ...base, group: 'detail', level: 'info', text: e.message ?? e.type };
}

/** visibleLog filters the log as the panel's filter and search say. */
export function visibleLog(log: RunLogEntry[], filter: LogFilter, query: string): RunLogEntry[] {
  const q = query.trim().toLowerCase();
  return log.filter((l) => {
    if (filter === 'steps' && l.group === 'detail') return false;
    if (filter === 'problems' && l.group !== 'problem' && l.group !== 'run' && l.level !== 'error') return false;
    if (!q) return true;
    return l.text.toLowerCase().includes(q) || (l.node ?? '').toLowerCase().includes(q) || l.type.includes(q);
  });
}

/** edgeCounts indexes a run summary's edge counts by edgeKey. */
export function edgeCounts(edges: EdgeCount[] | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of edges ?? []) {
    const k = edgeKey({ from: e.from, to: e.to, output: e.output });
    out[k] = (out[k] ?? 0) + e.taken;
  }
  return out;
}

/** settle marks the nodes a finished run left running: done when it succeeded, else canceled. */
function settle(nodeRun: Record<string, NodeRunState>, outcome: string | undefined): Record<string, NodeRunState> {
  let changed = false;
  const out: Record<string, NodeRunState> = {};
  for (const [id, st] of Object.entries(nodeRun)) {
    if (ACTIVE.includes(st.status)) {
      changed = true;
      out[id] = { ...st, status: outcome === 'succeeded' || outcome === 'partial' ? 'ok' : 'canceled' };
    } else out[id] = st;
  }
  return changed ? out : nodeRun;
}

/** nodeSignature is what of a node decides what it does when run (not its
 * name or place): a node whose signature changed since a run is stale. */
export function nodeSignature(n: WorkflowNode): string {
  return JSON.stringify([n.key, n.type, n.params, n.enabled ?? null, n.timeout_ms ?? null, n.retry ?? null, n.verify ?? null, n.on_error ?? null, n.done_when ?? null]);
}

/** isStale: the node ran in the last run and has changed since. */
export function isStale(s: Pick<RunSlice, 'runSnapshot' | 'nodeRun'>, n: WorkflowNode): boolean {
  const was = s.runSnapshot?.[n.id];
  return was !== undefined && !!s.nodeRun[n.id] && was !== nodeSignature(n);
}

function fresh(): Partial<RunSlice> {
  return {
    runId: null,
    nodeRun: {},
    nodeData: emptyNodeData(),
    edgeRun: null,
    runSnapshot: null,
    runLog: [],
    runLogDropped: 0,
    runEscalation: null,
    escalationSending: false,
    escalationError: null,
    runResult: null,
    runError: null,
    runProblems: [],
    runWarnings: [],
    runApproval: null,
    runReplanning: false,
    runFixOffer: null,
  };
}

export const createRunSlice: StateCreator<StoreState, [], [], RunSlice> = (set, get) => ({
  runPhase: 'idle',
  runId: null,
  runWorkflowId: null,
  nodeRun: {},
  nodeData: emptyNodeData(),
  edgeRun: null,
  runSnapshot: null,
  runLog: [],
  runLogDropped: 0,
  logFilter: 'steps',
  logQuery: '',
  runEscalation: null,
  escalationSending: false,
  escalationError: null,
  runResult: null,
  runError: null,
  runProblems: [],
  runWarnings: [],
  runApproval: null,
  runInputs: null,
  runReplan: null,
  runReplanning: false,
  runFixOffer: null,
  canReplan: null,
  runHistory: [],
  runHistoryLoading: false,
  runsGoing: [],
  runHistoryError: null,
  runHistoryKey: null,
  viewedRun: null,

  runStarting(workflowId) {
    const doc = get().doc;
    const runSnapshot = doc ? Object.fromEntries(doc.nodes.map((n) => [n.id, nodeSignature(n)])) : null;
    set({ ...fresh(), runPhase: 'starting', runWorkflowId: workflowId, viewedRun: null, runSnapshot });
  },

  runStartFailed(error, problems = []) {
    set({ runPhase: 'idle', runError: error || null, runProblems: problems });
  },

  runStarted(warnings) {
    if (get().runPhase !== 'starting') return; // events came first and moved it on
    set({ runPhase: 'running', runWarnings: warnings });
  },

  setRunStopping() {
    if (get().runPhase === 'running' || get().runPhase === 'starting') set({ runPhase: 'stopping' });
  },

  applyRunEvents(events) {
    if (!events.length) return;
    const s = get();
    let runId = s.runId;
    let phase = s.runPhase;
    let nodeRun = s.nodeRun;
    let edgeRun = s.edgeRun;
    let copied = false;
    const entries: RunLogEntry[] = [];
    for (const e of events) {
      if (e.type === 'run_started') {
        if (runId && runId !== e.run_id) {
          // A new run: start from a clean slate.
          nodeRun = {};
          copied = true;
        }
        edgeRun = null;
        runId = e.run_id ?? null;
        if (phase === 'starting' || phase === 'idle' || phase === 'finished') phase = 'running';
      } else if (runId && e.run_id && e.run_id !== runId) {
        continue; // from another run
      }
      const next = nodeStateFor(e.node_id ? nodeRun[e.node_id] : undefined, e);
      if (next && e.node_id && e.type !== 'tool_call') {
        if (!copied) {
          nodeRun = { ...nodeRun };
          copied = true;
        }
        nodeRun[e.node_id] = next;
      }
      if (e.type === 'run_finished') {
        nodeRun = settle(nodeRun, e.outcome);
        edgeRun = edgeCounts(e.summary?.edges);
      }
      entries.push(logEntryFor(e));
    }
    let log = entries.length ? [...s.runLog, ...entries] : s.runLog;
    let dropped = s.runLogDropped;
    if (log.length > MAX_LOG) {
      dropped += log.length - MAX_LOG;
      log = log.slice(log.length - MAX_LOG);
    }
    set({ runId, runPhase: phase, nodeRun, edgeRun, nodeData: foldNodeData(s.nodeData, events), runLog: log, runLogDropped: dropped });
  },

  setRunEscalation(e) {
    set({ runEscalation: e, escalationSending: false, escalationError: null, ...(e ? { runReplanning: false } : {}) });
  },

  setEscalationSending(sending, error = null) {
    set({ escalationSending: sending, escalationError: error });
  },

  runFinished(f) {
    set((s) => ({
      runPhase: 'finished',
      runId: f.run_id || s.runId,
      runResult: f,
      runEscalation: null,
      escalationSending: false,
      runReplanning: false,
      runError: f.run_id ? null : f.error || null,
      runProblems: f.problems ?? [],
      nodeRun: settle(s.nodeRun, f.outcome),
    }));
  },

  setRunReplan(runReplan) {
    set({ runReplan });
  },

  setRunFixOffer(runFixOffer) {
    set({ runFixOffer });
  },
  setRunReplanning(runReplanning) {
    set({ runReplanning });
  },

  setRunApproval(runApproval) {
    set({ runApproval });
  },

  setRunInputs(runInputs) {
    set({ runInputs });
  },

  setCanReplan(canReplan) {
    set({ canReplan });
  },

  setLogFilter(logFilter) {
    set({ logFilter });
  },

  setLogQuery(logQuery) {
    set({ logQuery });
  },

  setRunHistoryLoading(key) {
    set({ runHistoryLoading: true, runHistoryError: null, runHistoryKey: key });
  },

  setRunsGoing(runsGoing) {
    set({ runsGoing });
  },
  setRunHistory(key, runs, error = null) {
    if (get().runHistoryKey !== key) return; // an answer about another workflow
    set({ runHistory: runs, runHistoryLoading: false, runHistoryError: error });
  },

  setViewedRun(viewedRun) {
    set({ viewedRun });
  },

  clearRunStatus() {
    const p = get().runPhase;
    if (p === 'running' || p === 'starting' || p === 'stopping') return;
    set({ ...fresh(), runPhase: 'idle', runWorkflowId: null });
  },
});
