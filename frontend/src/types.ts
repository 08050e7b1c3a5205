// Types mirroring the Go side's JSON (backend/workflow, backend/validate,
// backend/tools, backend/settings and the App bindings in app.go).
// Unknown fields in a workflow document are kept as they are and sent back
// on save, so these interfaces are open where the Go side preserves extras.

export const NODE_TYPES = ['Tool', 'AiStep', 'AiTransform', 'If', 'Switch', 'Loop', 'EndLoop'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const OUTPUT_TYPES = ['IfTrue', 'IfFalse', 'LoopBody', 'LoopDone', 'SwitchCase', 'SwitchDefault'] as const;
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
  nodes: WorkflowNode[];
  edges: WorkflowEdge[];
  [extra: string]: unknown;
}

export interface OpenResult {
  path: string;
  name: string;
  workflow: Workflow | null;
  warnings: string[];
}

export type Severity = 'error' | 'warning';

export interface Problem {
  code: string;
  severity: Severity;
  message: string;
  node_ids: string[] | null;
  edges: WorkflowEdge[] | null;
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
  run: { default_retries: number; retention_runs: number };
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

export type AssistantKind = 'conversation' | 'plan' | 'patch';

export interface AssistantResult {
  kind: AssistantKind;
  message: string;
  patch: WorkflowPatch | null;
  workflow?: Workflow | null;
  diff?: PatchDiff | null;
  warnings: StageWarning[];
  problems: Problem[];
  valid: boolean;
  validated: boolean;
  attempts: number;
  llm_calls: number;
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
