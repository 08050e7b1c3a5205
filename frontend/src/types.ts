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
