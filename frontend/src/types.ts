// Types mirroring the Go side's JSON (backend/workflow, backend/validate,
// backend/tools, backend/settings and the App bindings in app.go).
// Unknown fields in a workflow document are kept as they are and sent back
// on save, so these interfaces are open where the Go side preserves extras.

export const NODE_TYPES = ['Tool', 'AiStep', 'AiTransform', 'If', 'Switch', 'Loop', 'EndLoop'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const OUTPUT_TYPES = ['IfTrue', 'IfFalse', 'LoopBody', 'LoopDone', 'SwitchCase', 'SwitchDefault', 'Error'] as const;

/** What a step's failure does once its retries are spent (workflow.OnError). */
export type OnError = 'stop' | 'continue' | 'branch';

/** When a run (or a step) has reached its goal (workflow.DoneWhen). */
export interface DoneWhen {
  condition?: string;
  criteria?: string;
}
export type OutputType = (typeof OUTPUT_TYPES)[number];

export interface Position {
  x: number;
  y: number;
}

export interface SwitchCase {
  name: string;
  condition: string;
}

export interface Params {
  tool?: string;
  arguments?: Record<string, unknown>;
  prompt?: string;
  allowed_tools?: string[];
  max_tool_calls?: number;
  kind?: string;
  input?: string;
  labels?: string[];
  condition?: string;
  cases?: SwitchCase[];
  exit_condition?: string;
  max_iterations?: number;
  loop_id?: string;
  [extra: string]: unknown;
}

export interface Backoff {
  initial_ms?: number;
  multiplier?: number;
  max_ms?: number;
  jitter?: number;
}

export interface Retry {
  max_attempts?: number;
  backoff?: Backoff;
}

export interface WorkflowNode {
  id: string;
  key: string;
  name: string;
  type: NodeType | string;
  params: Params;
  position?: Position;
  enabled?: boolean;
  timeout_ms?: number;
  retry?: Retry;
  verify?: string;
  /** Tool, AiStep and AiTransform only; absent means stop */
  on_error?: OnError;
  done_when?: DoneWhen;
  [extra: string]: unknown;
}

export interface EdgeOutput {
  type: OutputType | string;
  name?: string;
}

export interface WorkflowEdge {
  from: string;
  to: string;
  output?: EdgeOutput | null;
  [extra: string]: unknown;
}

export interface Workflow {
  format: string;
  id: string;
  name: string;
  /** what the workflow is for; the done_when critic judges against it */
  goal?: string;
  done_when?: DoneWhen;
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  /** outputs a person pinned, by node id: editor runs use them instead of running the step */
  pinned?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface OpenResult {
  path: string;
  name: string;
  workflow: Workflow | null;
  warnings: string[];
  /** the file's trust (OpenWorkflow, LoadSample); absent for a restored autosave */
  file?: FileTrust;
}

/**
 * A workflow file's trust (service.FileTrust). A file whose bytes Weft did
 * not write for the person and the person did not review (cloned,
 * downloaded, edited elsewhere) is not trusted: everything in it that acts
 * or decides where the run goes is reviewed before it runs.
 */
export interface FileTrust {
  /** canonical path; '' when unsaved */
  path: string;
  trusted: boolean;
  /** why it is trusted or not, in words */
  why: string;
  /** the trusted folder that covers it */
  folder?: string;
  /** an earlier content was trusted: the steps to review show what they were */
  changed: boolean;
  sha256?: string;
}

export type Severity = 'error' | 'warning';

export interface Problem {
  code: string;
  severity: Severity;
  message: string;
  node_ids: string[] | null;
  edges: WorkflowEdge[] | null;
  /** literal_secret: the JSON pointer of the argument holding the literal. */
  path?: string;
  /** literal_secret: the name the literal is written under (a header, query parameter or JSON member), if any. */
  key?: string;
  /** literal_secret: a name suggested for the secret. */
  secret?: string;
}

export interface ValidationResult {
  valid: boolean;
  problems: Problem[];
}

export interface ToolField {
  name: string;
  type: string;
  description: string;
}

export interface Tool {
  name: string;
  description: string;
  input_schema: unknown;
  outputs: ToolField[];
  server?: string;
  side_effects: boolean;
}

export interface MCPServer {
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

export interface Settings {
  max_repair_attempts: number;
  llm: {
    base_url: string;
    model: string;
    api_key?: string;
    api_key_store?: string;
    timeout_s: number;
  };
  features: {
    allow_ai_transforms: boolean;
    allow_agent_steps: boolean;
  };
  mcp_servers: Record<string, MCPServer>;
  run: {
    default_retries: number;
    retention_runs: number;
    /** Automatic replanning after severe failures (backend/settings AutoReplan). */
    auto_replan?: { enabled: boolean; max_per_run: number; min_severity: 'CRITICAL' | 'HIGH' };
  };
  engine?: EngineSettings;
}

/** Where runs go (settings.Engine): this process, or a Temporal service. */
export interface EngineSettings {
  kind: 'local' | 'temporal' | string;
  temporal: { address: string; namespace: string; task_queue: string; tls: boolean };
}

export interface SettingsView {
  settings: Settings;
  api_key_set: boolean;
  api_key_masked: string;
  path: string;
  warnings: string[];
}

/** isEnabled mirrors Node.IsEnabled: absent means enabled. */
export function isEnabled(n: WorkflowNode): boolean {
  return n.enabled !== false;
}

// --- Assistant and Preferences (backend/assistant, backend/llm, app_assistant.go) ---

/** A planner/assistant warning: what was fixed, guessed or dropped. */
export interface StageWarning {
  stage: string;
  message: string;
  node_id?: string;
}

/** A reviewed-before-applied change to a workflow (assistant.WorkflowPatch). */
export interface WorkflowPatch {
  added_nodes: WorkflowNode[];
  removed_node_ids: string[];
  updated_nodes: WorkflowNode[];
  added_edges: WorkflowEdge[];
  removed_edges: WorkflowEdge[];
  warnings: StageWarning[];
}

/** What a patch adds, removes and modifies (assistant.Diff). */
export interface PatchDiff {
  added_node_ids: string[];
  removed_node_ids: string[];
  modified_node_ids: string[];
  added_edges: WorkflowEdge[];
  removed_edges: WorkflowEdge[];
}

/** A field's value in full (assistant.Value): a string as itself, anything
 * else as indented JSON; characters that would not show are \u escapes. */
export interface ChangeValue {
  text: string;
  /** text is JSON (number, boolean, list, object, null), not a string */
  json?: boolean;
  /** text had invisible characters, now written as \u escapes */
  escaped?: boolean;
}

/** One field of a node (assistant.FieldChange); old/new null: not set. */
export interface FieldChange {
  /** its path in the file: "params.arguments.command" */
  field: string;
  old: ChangeValue | null;
  new: ChangeValue | null;
}

/** A node a patch adds, removes or updates, with its fields (assistant.NodeChange). */
export interface NodeChange {
  id: string;
  key: string;
  name: string;
  type: NodeType | string;
  fields: FieldChange[];
}

/** An edge a patch adds or removes (assistant.EdgeChange). */
export interface EdgeChange {
  from: string;
  to: string;
  from_label: string;
  to_label: string;
  output?: EdgeOutput | null;
}

/** A patch described field by field against its workflow (assistant.ChangeSet),
 * computed in Go: the review renders it and computes nothing. */
export interface ChangeSet {
  added_nodes: NodeChange[];
  removed_nodes: NodeChange[];
  updated_nodes: NodeChange[];
  added_edges: EdgeChange[];
  removed_edges: EdgeChange[];
}

export type AssistantKind = 'conversation' | 'plan' | 'patch';

export interface AssistantResult {
  kind: AssistantKind;
  message: string;
  patch: WorkflowPatch | null;
  workflow?: Workflow | null;
  diff?: PatchDiff | null;
  /** the review: every changed field, old → new */
  changes?: ChangeSet | null;
  warnings: StageWarning[];
  problems: Problem[];
  valid: boolean;
  validated: boolean;
  attempts: number;
  llm_calls: number;
  /** each reply before the one used: why it was asked again, what Weft had fixed in it */
  tries?: AssistantTry[];
}

export interface AssistantTry {
  attempt: number;
  why: string[];
  fixed?: string[];
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
  time?: string;
  kind?: AssistantKind;
  patch?: WorkflowPatch | null;
  valid?: boolean | null;
}

export interface ChatHistory {
  messages: ChatMessage[];
  path: string;
  warnings: string[];
}

export interface PatchPreview {
  workflow: Workflow;
  diff: PatchDiff;
  changes?: ChangeSet;
  warnings: StageWarning[];
  valid: boolean;
  problems: Problem[];
}

export interface AppliedPatch {
  workflow: Workflow;
  warnings: StageWarning[];
}

/** The "assistant:progress" event. */
export interface AssistantProgress {
  kind: 'thinking' | 'repairing' | 'summarizing';
  attempt?: number;
  max?: number;
  /** Characters of the reply streamed in so far for this call. */
  received?: number;
  /** how long the model has been asked, during a long wait */
  elapsed_ms?: number;
  /** a wait before the next attempt, and why (a rate limit, a failure) */
  wait_ms?: number;
  wait?: string;
}

/** The result of Preferences' "Test connection" (llm.ConnectionInfo). */
export interface ConnectionInfo {
  endpoint: string;
  model: string;
  models?: string[];
  model_listed: boolean;
  chat_checked: boolean;
  latency_ns: number;
  message: string;
}

/**
 * Whether the stored API key may go to an endpoint (llm.KeyUse): only to the
 * one it is saved with (saved), unless the person confirms sending it to
 * host.
 */
export interface KeyUse {
  stored: boolean;
  saved: boolean;
  host: string;
  endpoint: string;
}

/** A model server found on this machine (llm.LocalServer). */
export interface LocalServer {
  name: string;
  base_url: string;
  models: string[];
}

// --- Editor session (app_session.go) ---

/** One entry of the recent files list. */
export interface RecentFile {
  path: string;
  name: string;
  /** RFC 3339 */
  opened_at: string;
}

/** The autosave an earlier run left; found is false when there is none. */
export interface AutosaveView {
  found: boolean;
  /** RFC 3339 */
  saved_at: string;
  path: string;
  name: string;
  workflow: Workflow | null;
  warnings: string[];
}

// --- Run (app_run.go, backend/runner) ---

export type RunEventType =
  | 'run_started'
  | 'node_started'
  | 'attempt'
  | 'failure'
  | 'retry'
  | 'escalated'
  | 'user_response'
  | 'resolved'
  | 'variable_set'
  | 'branch_evaluated'
  | 'loop_iteration'
  | 'node_finished'
  | 'node_skipped'
  | 'warning'
  | 'log'
  | 'tool_call'
  | 'verdict'
  | 'run_finished';

export type RunNodeStatus = 'running' | 'ok' | 'retrying' | 'escalated' | 'failed' | 'skipped' | 'canceled';
/** partial: the run reached its end, but with skipped steps, failures
 * handled by on_error, or a goal check accepted though not met. Never green. */
export type RunOutcome = 'succeeded' | 'partial' | 'failed' | 'aborted' | 'canceled' | 'replanned' | 'needs_review';

/** The check of a done_when (runner.Verdict). */
export interface Verdict {
  node_key?: string;
  approved: boolean;
  /** 0..1; 1 for a condition */
  confidence: number;
  feedback?: string;
  suggestions?: string[];
  /** "condition", "model", "condition+model" (or "unchecked") */
  checked_by: string;
  condition?: string;
  criteria?: string;
  /** the person accepted a result whose check did not hold */
  accepted?: boolean;
}
export type FailureSeverity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';

export interface Classification {
  severity: FailureSeverity | string;
  category: string;
  retryable: boolean;
  suggested_fix?: string;
}

/** One failed attempt (failure.Record). */
export interface FailureRecord extends Classification {
  attempt: number;
  /** RFC 3339 */
  time: string;
  failure_type: string;
  error: string;
  output_summary?: string;
  duration_ms: number;
}

export type RunAction = 'retry' | 'skip' | 'abort' | 'fix' | 'replan';

/** The answer to an escalation (runner.Response). */
export interface RunResponse {
  action: RunAction;
  instruction?: string;
  arguments?: Record<string, unknown>;
}

export interface KnownFix {
  time?: string;
  tool?: string;
  category?: string;
  failure_type?: string;
  error?: string;
  resolution: string;
  fix?: string;
  attempts?: number;
}

/** What the runner asks when automated recovery is exhausted (runner.Escalation). */
export interface Escalation extends Classification {
  run_id: string;
  node_id: string;
  node_key: string;
  node_name: string;
  node_type: string;
  tool?: string;
  reason: 'max_attempts' | 'not_retryable' | string;
  attempts: number;
  max_attempts: number;
  failures: FailureRecord[];
  last_error: string;
  known_fixes?: KnownFix[];
  notice?: string;
  can_replan: boolean;
  choices: RunAction[];
}

/** The "run:escalation" event: answer it with respondEscalation(id, …). */
export interface RunEscalation {
  id: string;
  escalation: Escalation;
  /** the seq of the last run event sent before it */
  after_seq?: number;
}

export interface NodeRef {
  id: string;
  key: string;
  name?: string;
}

export interface NodeStat extends NodeRef {
  executions: number;
  attempts: number;
  failures: number;
  result: string;
}

/** A run's retry statistics (runner.Summary). */
export interface RunSummary {
  nodes: number;
  first_attempt_successes: number;
  retried: number;
  retry_successes: number;
  escalations: number;
  skipped: number;
  /** failures a node's on_error took (continue or branch) */
  handled?: number;
  disabled: number;
  failed: number;
  failure_types: Record<string, number> | null;
  categories: Record<string, number> | null;
  details: NodeStat[] | null;
  duration_ms: number;
  /** steps that used their pinned data instead of running */
  pinned?: number;
  /** steps before a run's start whose outputs came from an earlier run */
  reused?: number;
  /** where a run from a node started */
  from?: { id: string; key: string; name?: string };
  reused_from?: string;
}

/** One "run:event" (runner.Event); fields not relevant to a type are absent. */
export interface RunEvent {
  seq: number;
  time: string;
  type: RunEventType | string;
  run_id: string;
  node_id?: string;
  node_key?: string;
  node_name?: string;
  status?: RunNodeStatus | string;
  attempt?: number;
  max_attempts?: number;
  iteration?: number;
  branch?: string;
  condition?: string;
  message?: string;
  tool?: string;
  delay_ms?: number;
  duration_ms?: number;
  outputs?: Record<string, unknown>;
  /** a Tool node's attempt: the arguments it runs with, templates filled in */
  arguments?: Record<string, unknown>;
  failure?: FailureRecord;
  escalation?: Escalation;
  response?: RunResponse;
  outcome?: RunOutcome | string;
  summary?: RunSummary;
  verdict?: Verdict;
  /** node_finished of a step that did not run: its pinned data, or a reused earlier output */
  source?: 'pinned' | 'reused' | string;
}

/** Who wrote a step (approval.Provenance): only model-written steps need approval. */
export interface Provenance {
  source: string;
  via?: 'plan' | 'patch' | 'replan' | 'fix' | string;
  model?: string;
  time?: string;
}

/**
 * A step that can act on the world or decides where the run goes, which a
 * model wrote or changed, or which is in a file nobody reviewed
 * (approval.Step). It runs only after a person approved its exact content,
 * named by fingerprint.
 */
export interface ApprovalStep {
  node_id: string;
  key: string;
  name: string;
  type: string;
  tool?: string;
  kind: 'command' | 'file_write' | 'request' | 'read_outside' | 'tool' | 'unknown_tool' | 'agent' | string;
  reason: string;
  /** a Tool step's arguments as written, in full */
  arguments?: Record<string, unknown>;
  prompt?: string;
  tools?: string[];
  /** the whole content approval covers, as indented JSON */
  content: string;
  fingerprint: string;
  provenance: Provenance;
  /** model: a model wrote or changed it; file: the workflow file is not trusted, so all that acts or routes is reviewed */
  origin?: 'model' | 'file' | string;
  /** where it leads: its outgoing edges by output and target key */
  next?: { output?: string; to: string }[];
  /** in a file that changed since it was trusted: the step's content then ('' or absent when it is new) */
  previous?: string;
  /** the step as a person reads it: what would not show escaped (approval.Display); show only this */
  display: ApprovalDisplay;
}

/**
 * A step as the dialog shows it (approval.Display): Go escapes every text a
 * model or a file wrote (package reveal), exactly as the terminal shows it.
 */
export interface ApprovalDisplay {
  name: string;
  key: string;
  tool?: string;
  reason: string;
  arguments: DisplayField[];
  prompt?: string;
  tools?: string[];
  /** the rest approval covers (retry, verify, timeout, an If's params.condition, next…) */
  other: DisplayField[];
  content: string;
  /** in a file to review: the content when it was last reviewed */
  previous?: string;
  /** something above was escaped; note says how to read it */
  escaped: boolean;
  note?: string;
}

/** One named value of a step (approval.Field): a string, or indented JSON (json). */
export interface DisplayField {
  name: string;
  value: string;
  json?: boolean;
  escaped?: boolean;
}

export interface RunStart {
  started: boolean;
  error?: string;
  problems: Problem[];
  /** steps a model wrote that need approval before the run can start */
  approval: ApprovalStep[];
  warnings: string[];
  /** secrets the workflow refers to that this computer lacks: the run did not start */
  missing_secrets?: NeededSecret[];
}

/** A secret a workflow refers to (service.NeededSecret): the bindings its uses suggest, never a value. */
export interface NeededSecret {
  name: string;
  /** hosts of the http_request steps that send it (with the port the URL names) */
  hosts: string[];
  /** tools of the other steps that use it */
  tools: string[];
  /** ids of the steps that refer to it */
  nodes: string[];
  /** this computer's credentials store lacks it */
  missing: boolean;
}

/** The "run:finished" event. */
export interface RunFinished {
  run_id: string;
  dir: string;
  outcome: RunOutcome | string;
  error?: string;
  stopped_at?: NodeRef | null;
  summary?: RunSummary | null;
  verdict?: Verdict | null;
  warnings: string[];
  replanned: boolean;
  started: string;
  finished: string;
  problems: Problem[];
  /** the seq of the last run event sent before it */
  after_seq?: number;
}

/** The "run:replanned" event: a new plan, as a change to review. */
export interface RunReplan {
  run_id: string;
  message: string;
  changes: string;
  stopped_at?: NodeRef | null;
  patch: WorkflowPatch;
  workflow: Workflow;
  diff: PatchDiff;
  /** the change field by field (old → new in full), as the review banner shows it */
  review?: ChangeSet | null;
  warnings: StageWarning[];
  valid: boolean;
  problems: Problem[];
  /** steps of the new plan that will need approval before it runs */
  side_effects: ApprovalStep[];
  /** the planner's replies asked again, and why */
  tries?: AssistantTry[];
  /** the seq of the last run event sent before it */
  after_seq?: number;
}

export interface RunStatusView {
  running: boolean;
  run_id: string;
  workflow_id: string;
  escalation: RunEscalation | null;
  can_replan: boolean;
}

/** One past run (summary.json). */
export interface RunRecord {
  run_id: string;
  dir: string;
  workflow_id: string;
  workflow_name: string;
  outcome: RunOutcome | string;
  error?: string;
  stopped_at?: NodeRef | null;
  summary?: RunSummary | null;
  verdict?: Verdict | null;
  warnings: string[];
  replanned: boolean;
  started: string;
  finished: string;
  complete: boolean;
  /** the run's id on Temporal; absent for a local run */
  engine_run_id?: string;
}

export interface RunHistory {
  dir: string;
  runs: RunRecord[];
  warnings: string[];
}

export interface RunLogFile {
  events: RunEvent[];
  total: number;
  truncated: boolean;
  warnings: string[];
}

export interface ToolCatalogResult {
  tools: Tool[];
  warnings: string[];
}

// Schedules (app_schedules.go, backend/service/schedules.go).

/** A schedule with how its runs went. Times are RFC 3339. */
export interface ScheduleState {
  id: string;
  /** the workflow file it runs, as saved */
  file: string;
  cron: string;
  paused: boolean;
  /** who runs it: "systemd", "cron" (this computer) or "temporal" */
  backend: string;
  created: string;
  args?: string[];
  temporal?: { address: string; namespace: string; task_queue: string; tls?: boolean };
  /** SHA-256 of the file's content the schedule runs (approved when it was made or updated) */
  sha256?: string;
  /** in words: paused, the file changed since it was scheduled, missed the run due at …, the last run's outcome, not run yet */
  state: string;
  last_run?: string;
  last_outcome?: string;
  missed?: string;
  next?: string;
  /** the file is not the content the schedule runs: update it to run the file as it is */
  changed?: boolean;
  /** the last run did not succeed, a due run is missing, or its runs are refused (the file changed) */
  attention: boolean;
}

/** A schedule as recorded (StaleSchedules): the fields of ScheduleState without how its runs went. */
export type ScheduleEntry = Pick<ScheduleState, 'id' | 'file' | 'cron' | 'backend' | 'paused' | 'sha256'>;

/** RunStart for an update of a file's schedules: started says they were updated. */
export interface ScheduleUpdateResult extends RunStart {
  updated: ScheduleEntry[];
}

export interface SchedulesView {
  schedules: ScheduleState[];
  /** this computer's scheduler ("systemd", "cron"); '' when it has none (no_scheduler says why) */
  scheduler: string;
  no_scheduler?: string;
  /** the Temporal service in the settings; '' when none is set */
  temporal: string;
}

export interface NewSchedule {
  path: string;
  cron: string;
  engine: 'local' | 'temporal';
  pinned: boolean;
  /** fingerprints the person approved in the approval dialog */
  approved: string[];
}

/** RunStart for a schedule: started says it was made. */
export interface ScheduleResult extends RunStart {
  schedule?: Pick<ScheduleState, 'id' | 'file' | 'cron' | 'backend' | 'temporal'>;
}

export interface CronPreview {
  error?: string;
  /** the next run times, RFC 3339 */
  next: string[];
}

/** A run going on the Temporal service that the app does not follow. */
export interface GoingRun {
  run_id: string;
  /** RFC 3339 */
  started: string;
}
