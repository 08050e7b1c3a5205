// Generated from the Go types by backend/tsgen (make types). DO NOT EDIT.

export namespace approval {
  /**
   * Display is a Step as a person reads it before approving it: every text
   * of the step escaped by package reveal, so a bidi override or a
   * zero-width character in a command shows as \u202E or \u200B instead of
   * reordering or hiding what runs. The desktop's dialog and the terminal
   * both show this and nothing else of the step, so they escape alike.
   */
  export interface Display {
    name: string;
    key: string;
    tool?: string;
    reason: string;
    /** Arguments are a Tool step's arguments, by name. */
    arguments: approval.Field[] | null;
    prompt?: string;
    tools?: string[];
    /**
     * Other is the rest of what approval covers (retry, verify,
     * timeout, an If's params.condition, where it leads…), by name.
     */
    other: approval.Field[] | null;
    /**
     * Content is Step.Content and Previous is Step.Previous, each still
     * JSON for the same value.
     */
    content: string;
    previous?: string;
    /**
     * Escaped is true when anything above was escaped; Note then says
     * how to read it (reveal.Note).
     */
    escaped: boolean;
    note?: string;
  }

  /**
   * Field is one named value of a step. Value is a string as it is, or any
   * other value as indented JSON (JSON true), so 5 and "5" differ.
   */
  export interface Field {
    name: string;
    value: string;
    json?: boolean;
    escaped?: boolean;
  }

  /** Kind says why a step can act on the world. */
  export type Kind = 'command' | 'file_write' | 'request' | 'read_outside' | 'tool' | 'unknown_tool' | 'agent' | 'workflow' | 'control' | 'flow' | 'trigger';

  /**
   * Next is one outgoing edge of a node as a review shows it: the output it
   * leaves by and the key of the node it leads to.
   */
  export interface Next {
    output?: string;
    to: string;
  }

  /** Provenance is what the mark says. */
  export interface Provenance {
    source: string;
    via?: string;
    model?: string;
    time?: string;
    /**
     * Flow says that the model changed where the node leads (an edge out
     * of it added, removed or rewired, or a node it led to removed): the
     * node is then reviewed with its wiring, whatever its kind.
     */
    flow?: boolean;
  }

  /**
   * Step is a step that needs approval, with everything the person approves:
   * the full content, never shortened.
   */
  export interface Step {
    node_id: string;
    key: string;
    name: string;
    type: workflow.NodeType;
    tool?: string;
    kind: approval.Kind;
    /** Reason says in words what the step can do, for the list. */
    reason: string;
    /**
     * Arguments are a Tool step's arguments as written (templates
     * unresolved: data inserted at run time is quoted, see docs/trust.md).
     */
    arguments?: Record<string, unknown>;
    /**
     * Prompt and Tools are an AiStep's prompt and the tools it may call
     * that need approval.
     */
    prompt?: string;
    tools?: string[];
    /**
     * Next is where the step leads, when that is part of what is
     * reviewed (control flow, rewired edges, a file to review).
     */
    next?: approval.Next[];
    /** Content is the whole content approval covers (indented JSON). */
    content: string;
    /**
     * Previous is Content as last reviewed, when the step is in a file to
     * review that changed since ("" for a step that is new there).
     */
    previous?: string;
    /** Fingerprint identifies Content; approving records it. */
    fingerprint: string;
    provenance: approval.Provenance;
    /**
     * Said is who wrote it, in words (Said), for a model's step: the
     * desktop and the CLI say the same.
     */
    said?: string;
    /** Origin says why it is asked about: OriginModel or OriginFile. */
    origin: string;
    /** The step as a person reads it: what would not show escaped (package reveal). Show only this. */
    display: approval.Display;
  }
}

export namespace assistant {
  /**
   * ChangeSet describes a patch against the workflow it applies to, value by
   * value, so a review shows what will run and not only which nodes move: a
   * node whose command became `rm -rf ~/` shows the old and the new command.
   * It is computed from the merge's result (Describe), so it describes what
   * applying does, never what the model said it would do. Values are never
   * shortened.
   */
  export interface ChangeSet {
    added_nodes: assistant.NodeChange[] | null;
    removed_nodes: assistant.NodeChange[] | null;
    updated_nodes: assistant.NodeChange[] | null;
    added_edges: assistant.EdgeChange[] | null;
    removed_edges: assistant.EdgeChange[] | null;
  }

  /** ChatMessage is one turn of a conversation, as saved and as shown. */
  export interface ChatMessage {
    /** "user" or "assistant" */
    role: string;
    content: string;
    time?: string;
    /** Assistant turns: what the reply proposed. */
    kind?: assistant.Kind;
    patch?: assistant.WorkflowPatch;
    valid?: boolean;
  }

  /**
   * Diff says which nodes and edges a patch adds, removes and modifies, for
   * the canvas preview (added green, removed red ghosts, modified amber).
   */
  export interface Diff {
    added_node_ids: string[] | null;
    removed_node_ids: string[] | null;
    modified_node_ids: string[] | null;
    added_edges: workflow.Edge[] | null;
    removed_edges: workflow.Edge[] | null;
  }

  /**
   * EdgeChange is one edge the patch adds or removes, with the labels of its
   * ends ("'Download' (download)").
   */
  export interface EdgeChange {
    from: string;
    to: string;
    from_label: string;
    to_label: string;
    output?: workflow.EdgeOutput;
  }

  /**
   * FieldChange is one field of a node, named by its path in the workflow
   * file: "name", "params.tool", "params.arguments.command",
   * `params.arguments["a.b"]`. Old is nil when the field was not set, New
   * when it will not be.
   */
  export interface FieldChange {
    field: string;
    old: assistant.Value | null;
    new: assistant.Value | null;
  }

  /** Kind is what a reply proposes. */
  export type Kind = 'conversation' | 'plan' | 'patch';

  /**
   * NodeChange is one node the patch adds, removes or updates. Fields holds,
   * for an added node, every field it will have (New only); for a removed
   * node, every field it had (Old only); for an updated node, each field that
   * changes (Old and New, or one of them when the field appears or goes).
   * The node's id and canvas position are not fields; its key, name and type
   * are fields only when an update changes them.
   */
  export interface NodeChange {
    id: string;
    key: string;
    name: string;
    type: workflow.NodeType;
    fields: assistant.FieldChange[] | null;
  }

  /** Progress is reported to Config.OnProgress while Chat works. */
  export interface Progress {
    kind: assistant.ProgressKind;
    /** 1-based model call of this message */
    attempt?: number;
    /** calls allowed */
    max?: number;
    /**
     * Received counts the reply's characters streamed in so far for this
     * call (0 until the first arrive), so the UI can show the model working.
     */
    received?: number;
    /**
     * ElapsedMs is how long the model has been asked (for a long wait);
     * WaitMs and Wait say it waits before trying again, and why (a rate
     * limit, a failed attempt).
     */
    elapsed_ms?: number;
    wait_ms?: number;
    wait?: string;
  }

  /** ProgressKind names a progress event. */
  export type ProgressKind = 'thinking' | 'repairing' | 'summarizing';

  /** Result is the assistant's answer to one message. */
  export interface Result {
    kind: assistant.Kind;
    message: string;
    /**
     * Patch is nil for conversation. A plan is a patch that adds every node
     * and edge to the empty workflow.
     */
    patch: assistant.WorkflowPatch | null;
    /**
     * Workflow is the workflow with the patch merged, for the preview; nil
     * for conversation.
     */
    workflow?: workflow.Workflow;
    diff?: assistant.Diff;
    /**
     * Changes describes the patch field by field, old and new values in
     * full, for the review; nil for conversation.
     */
    changes?: assistant.ChangeSet;
    /**
     * Warnings are every local repair, guess and drop, and, when Valid is
     * false, every validation problem.
     */
    warnings: planner.Warning[] | null;
    problems: validate.Problem[] | null;
    /**
     * Valid is false when the patch could not be read or leaves the
     * workflow invalid after all attempts: the UI must not apply it silently.
     */
    valid: boolean;
    /**
     * Unused is what the change left out of the model's reply. Steps
     * left out make a valid change one the UI asks about before applying
     * (Usable).
     */
    unused: planner.Unused;
    /** Validated is false when validation was skipped (MaxRepairAttempts 0). */
    validated: boolean;
    /**
     * Tries says, for each reply before the one used, why it could not be
     * used and what Weft had fixed locally in it: the repair the user can
     * open, also when the last attempt succeeded.
     */
    tries?: assistant.Try[];
    /**
     * Attempts counts the model calls for the answer; LLMCalls adds the
     * summary call, if any.
     */
    attempts: number;
    llm_calls: number;
    usage: llm.Usage;
    /**
     * Tests are the workflow's test cases played against Workflow
     * (Config.Check); nil when it has none.
     */
    tests?: reask.Tests;
  }

  /** Try is one reply that could not be used and was asked again. */
  export interface Try {
    attempt: number;
    /** Why lists what made it unusable (the problems the re-ask named). */
    why: string[] | null;
    /** Fixed lists what Weft had repaired or dropped while reading it. */
    fixed?: string[];
  }

  /** Value is a field's value in full, for display. */
  export interface Value {
    /**
     * Text is a string value as it is (several lines stay several lines),
     * or any other value as indented JSON.
     */
    text: string;
    /**
     * JSON is true when Text is JSON (a number, boolean, list, object or
     * null), false when it is a string: 5 and "5" look different.
     */
    json?: boolean;
    /**
     * Escaped is true when the value holds characters that would not show
     * on screen (control characters other than newline and tab, bidi
     * overrides, zero-width and other non-printing characters). Text then
     * writes them as escapes (package reveal) and, for a string, a
     * backslash as \\, so that what is shown is what will run.
     */
    escaped?: boolean;
  }

  /**
   * WorkflowPatch is a reviewed-before-applied change to a workflow. Node and
   * edge references (removed_node_ids, updated_nodes[].id, edge from/to) name
   * nodes by id or, failing that, by key. Updated nodes are whole nodes that
   * replace the node with the same id (an empty key or position keeps the
   * old one). A removed edge without an output removes every edge between the
   * two nodes.
   */
  export interface WorkflowPatch {
    /**
     * Name renames the workflow: a plan's name, when the plan fills an
     * empty workflow or replaces it ("" keeps the name).
     */
    name?: string;
    added_nodes: workflow.Node[] | null;
    removed_node_ids: string[] | null;
    updated_nodes: workflow.Node[] | null;
    added_edges: workflow.Edge[] | null;
    removed_edges: workflow.Edge[] | null;
    warnings: planner.Warning[] | null;
  }
}

export namespace credentials {
  /** Secret is a named credential and where it may go. Value never serializes. */
  export interface Secret {
    /** [A-Za-z_][A-Za-z0-9_]* (≤ 64) */
    name: string;
    /** HTTP hosts it may be sent to: "api.example.com", "api.example.com:8443", "*.example.com" */
    hosts?: string[];
    /** tools it may be passed to: "run_command", "gh.create_issue" (MCP), … */
    tools?: string[];
    /** Stored is where the value lives: StoredKeyring or StoredFile. */
    stored?: string;
  }
}

export namespace examples {
  /** Example is one entry of the gallery. */
  export interface Example {
    /** File names the example (OpenExample's argument): "watch_page.json". */
    file: string;
    name: string;
    goal: string;
  }
}

export namespace failure {
  /** Category names the kind of cause. */
  export type Category = 'environment' | 'dependency' | 'validation' | 'logic' | 'timeout' | 'resource' | 'permission' | 'network' | 'not_found' | 'unknown';

  /**
   * Pattern is a learned failure and what resolved it (seed 004's "learning
   * from mistakes"): the planner puts the relevant ones in its prompt, and
   * escalations show them as known fixes.
   */
  export interface Pattern {
    time: string;
    /** tool name, or the node type for AI nodes (AiStep, AiTransform/extract) */
    tool: string;
    category: failure.Category;
    failure_type: failure.Type;
    /**
     * Signature is the error with paths, numbers and quoted text replaced,
     * so that the same failure on another file matches.
     */
    signature: string;
    error: string;
    /**
     * Resolution is what resolved it: "retry" (an automatic retry
     * succeeded), "user_retry", "fix", "skip" or "replan" (the planner
     * made a new version; Fix says what it changed).
     */
    resolution: string;
    /** Fix is the instruction or the JSON arguments of a fix. */
    fix?: string;
    attempts: number;
    /** Count is how many records Relevant merged into this one. */
    count?: number;
  }

  /** Record is one failed attempt (seed 003's failure record). */
  export interface Record {
    attempt: number;
    time: string;
    failure_type: failure.Type;
    error: string;
    /** OutputSummary is a bounded rendering of the node's outputs. */
    output_summary?: string;
    severity: failure.Severity;
    category: failure.Category;
    /**
     * Retryable says whether trying again can help. Permission problems,
     * invalid arguments and missing programs are not: they escalate at
     * once (seed 003's "not retried" table).
     */
    retryable: boolean;
    suggested_fix?: string;
    duration_ms: number;
    /**
     * RetryAfterMs is the wait the service asked for (HTTP Retry-After):
     * the next attempt waits at least this long.
     */
    retry_after_ms?: number;
  }

  /**
   * Severity ranks a failure (seed 004): CRITICAL and HIGH are what
   * automatic replanning reacts to; MEDIUM and LOW are handled by retrying.
   */
  export type Severity = 'CRITICAL' | 'HIGH' | 'MEDIUM' | 'LOW';

  /** Type says how an attempt failed. */
  export type Type = 'execution_error' | 'verification_failed' | 'timeout' | 'rejected';
}

export namespace flow {
  /** Action is a response to an escalation. */
  export type Action = 'retry' | 'skip' | 'abort' | 'fix' | 'replan';

  /**
   * EdgeCount is an edge of the workflow (by its ends and label, as the
   * document has it) and how many times a run took it.
   */
  export interface EdgeCount {
    from: string;
    to: string;
    output?: workflow.EdgeOutput;
    taken: number;
  }

  /**
   * Escalation is what the runner asks the user when automated recovery is
   * exhausted or cannot help (seed 003's escalation message). The run is held
   * until the handler answers.
   */
  export interface Escalation {
    run_id: string;
    node_id: string;
    node_key: string;
    node_name: string;
    node_type: workflow.NodeType;
    tool?: string;
    /**
     * Reason is "max_attempts" (the attempts ran out) or "not_retryable"
     * (the failure cannot be fixed by trying again).
     */
    reason: string;
    attempts: number;
    max_attempts: number;
    failures: failure.Record[] | null;
    last_error: string;
    severity: failure.Severity;
    category: failure.Category;
    /**
     * Retryable says whether trying again can help. Permission problems,
     * invalid arguments and missing programs are not: they escalate at
     * once (seed 003's "not retried" table).
     */
    retryable: boolean;
    suggested_fix?: string;
    /** KnownFixes are responses that resolved similar failures before. */
    known_fixes?: failure.Pattern[];
    /**
     * Notice explains why the previous response was not accepted, when
     * the handler is asked again.
     */
    notice?: string;
    can_replan: boolean;
    choices: flow.Action[] | null;
  }

  /**
   * Event is one thing that happened in a run. Fields not relevant to a type
   * are left out of its JSON.
   */
  export interface Event {
    seq: number;
    time: string;
    type: flow.EventType;
    /**
     * RunID is left out of events.jsonl lines (the folder is the run);
     * readers fill it in.
     */
    run_id?: string;
    node_id?: string;
    node_key?: string;
    node_name?: string;
    status?: flow.NodeStatus;
    /**
     * Attempt is 1-based; MaxAttempts grows when the user asks for
     * another round (retry, fix).
     */
    attempt?: number;
    max_attempts?: number;
    iteration?: number;
    /**
     * Branch is the edge taken: IfTrue, IfFalse, the Switch case name,
     * SwitchDefault, LoopBody or LoopDone.
     */
    branch?: string;
    condition?: string;
    message?: string;
    tool?: string;
    delay_ms?: number;
    duration_ms?: number;
    outputs?: Record<string, unknown>;
    /**
     * Arguments are what a Tool node's attempt runs with, its templates
     * filled in (attempt events): the run data the editor shows per node.
     */
    arguments?: Record<string, unknown>;
    /**
     * Reads are the keys of the nodes whose outputs the step reads
     * (node_started; Reads): the editor shows their outputs as its input.
     */
    reads?: string[];
    failure?: failure.Record;
    escalation?: flow.Escalation;
    response?: flow.Response;
    outcome?: flow.Outcome;
    summary?: flow.Summary;
    verdict?: flow.Verdict;
    /**
     * Source says where a step's outputs came from when it did not run
     * (node_finished): SourcePinned or SourceReused.
     */
    source?: string;
    /**
     * SubRun is the run a Workflow step started (its log event), to
     * open from the caller's run.
     */
    sub_run?: flow.RunLink;
  }

  /** EventType names an event of a run. events.jsonl holds one Event a line. */
  export type EventType = 'run_started' | 'node_started' | 'attempt' | 'failure' | 'retry' | 'escalated' | 'user_response' | 'resolved' | 'variable_set' | 'branch_evaluated' | 'loop_iteration' | 'node_finished' | 'node_skipped' | 'warning' | 'log' | 'tool_call' | 'verdict' | 'run_finished';

  /** NodeRef names a node in results and summaries. */
  export interface NodeRef {
    id: string;
    key: string;
    name?: string;
  }

  /** NodeStat is one row of the summary's retry details. */
  export interface NodeStat {
    id: string;
    key: string;
    name?: string;
    executions: number;
    attempts: number;
    failures: number;
    /** of the last execution: ok, ok_after_retry, skipped, failed, handled, aborted, canceled, disabled, pinned, reused */
    result: string;
  }

  /** NodeStatus is a node's live state, for the UI's per-node badge. */
  export type NodeStatus = 'running' | 'ok' | 'retrying' | 'escalated' | 'failed' | 'skipped' | 'canceled';

  /** Outcome is how a run ended. */
  export type Outcome = 'succeeded' | 'failed' | 'aborted' | 'canceled' | 'replanned' | 'partial' | 'needs_review';

  /** Response is the user's answer to an escalation. */
  export interface Response {
    action: flow.Action;
    instruction?: string;
    arguments?: Record<string, unknown>;
  }

  /**
   * RunLink names a run of another workflow: a sub-workflow's run, from
   * the step of its caller's run that started it, and the caller's run from
   * the sub-workflow's summary.
   */
  export interface RunLink {
    run_id: string;
    /** File is the workflow file the run ran; Dir the run's folder. */
    file?: string;
    dir?: string;
    /** NodeKey is the caller's Workflow step. */
    node_key?: string;
  }

  /**
   * RunSource says who started a run (Result.Source, summary.json), so a
   * list never shows a run the person started as a schedule's.
   */
  export type RunSource = 'manual' | 'schedule' | 'mcp' | 'trigger';

  /**
   * Summary is seed 003's retry statistics for one run. Counts are per
   * execution: a step in a loop that ran ten times counts ten.
   */
  export interface Summary {
    /**
     * Ran counts the nodes that ran: each execution of a step (in a
     * loop, each time; not one pinned data stood in for) and each
     * decision of an If or Switch, and each Loop once per start. It is
     * the count a person is told ("3 nodes ran"); Nodes, the step
     * executions, is the base of the retry statistics.
     */
    ran: number;
    nodes: number;
    first_attempt_successes: number;
    retried: number;
    retry_successes: number;
    escalations: number;
    skipped: number;
    /**
     * Handled counts failures the node's on_error took (continue or
     * branch) instead of stopping the run.
     */
    handled: number;
    disabled: number;
    failed: number;
    failure_types: Record<string, number> | null;
    categories: Record<string, number> | null;
    /** Details has one row per step node that ran, in first-run order. */
    details: flow.NodeStat[] | null;
    /**
     * Edges are the edges the walk took and how often (each loop
     * iteration counts), in first-taken order; an edge not listed was
     * not taken. The editor draws the counts on the canvas.
     */
    edges?: flow.EdgeCount[];
    duration_ms: number;
    /**
     * Pinned counts the step executions that used pinned data instead of
     * running; Reused the steps before From whose outputs came from an
     * earlier run (ReusedFrom). From is where a run from a node started.
     */
    pinned?: number;
    reused?: number;
    from?: flow.NodeRef;
    reused_from?: string;
  }

  /**
   * Verdict is the check of a done_when (seed 002's critic): by its
   * condition (no model) and/or its criteria (the model judges).
   */
  export interface Verdict {
    /** NodeKey is set for a step's done_when; empty for the workflow's. */
    node_key?: string;
    approved: boolean;
    /** Confidence is the model's, 0..1; 1 for a condition. */
    confidence: number;
    feedback?: string;
    suggestions?: string[];
    /** CheckedBy is "condition", "model" or "condition+model". */
    checked_by: string;
    condition?: string;
    criteria?: string;
    /** Accepted is set when the person accepted a rejected result. */
    accepted?: boolean;
  }
}

export namespace inputs {
  /** Field is one declared input, as a form shows it. */
  export interface Field {
    name: string;
    type: string;
    title?: string;
    description?: string;
    required: boolean;
    /** Default is the schema's default, if any (JSON). */
    default?: unknown;
    /** Enum lists the allowed values, when the schema names them. */
    enum?: unknown[];
    /**
     * Secret: the schema marks the input writeOnly or format password.
     * Its value is redacted wherever the run writes or shows text, left
     * out of the recorded inputs, and never remembered by a form.
     */
    secret: boolean;
  }

  /**
   * Problem is one thing wrong with the schema or with a value; Input names
   * the input ("" for the schema as a whole).
   */
  export interface Problem {
    input?: string;
    message: string;
  }
}

export namespace llm {
  /** ConnectionInfo is what the Preferences "Test connection" button shows. */
  export interface ConnectionInfo {
    endpoint: string;
    model: string;
    /**
     * Models lists what GET /models returned (empty when the server has
     * no such endpoint).
     */
    models?: string[];
    /** ModelListed: the configured model is among Models. */
    model_listed: boolean;
    /** ChatChecked: a one-token chat with the configured model succeeded. */
    chat_checked: boolean;
    latency_ns: number;
    /** Message is a one-line summary for the user. */
    message: string;
  }

  /** KeyUse says whether a stored API key may go to an endpoint. */
  export interface KeyUse {
    /** Stored is true when there is a key. */
    stored: boolean;
    /**
     * Saved is true when the endpoint is the one the key is saved with,
     * so it goes there without asking.
     */
    saved: boolean;
    /**
     * Host names the endpoint (host and port) when the person is asked
     * whether to send the key there, and Endpoint is its normalised URL.
     */
    host: string;
    endpoint: string;
  }

  /** LocalServer is a model server found on this machine by Discover. */
  export interface LocalServer {
    name: string;
    base_url: string;
    models: string[] | null;
  }

  /** Usage counts the tokens of one call. */
  export interface Usage {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
  }
}

export namespace main {
  /** AppliedPatch is the workflow with a patch applied. */
  export interface AppliedPatch {
    workflow: workflow.Workflow | null;
    warnings: planner.Warning[] | null;
  }

  /**
   * AssistantRequest is one message typed into the Assistant panel, with the
   * workflow as it is on the canvas and the file it belongs to ("" if unsaved).
   */
  export interface AssistantRequest {
    workflow: workflow.Workflow;
    path: string;
    message: string;
  }

  /**
   * AutosaveView is the autosave as the frontend sees it. Found is false (and
   * the rest empty) when there is none.
   */
  export interface AutosaveView {
    found: boolean;
    /** SavedAt is RFC 3339 in UTC. */
    saved_at: string;
    path: string;
    name: string;
    workflow: workflow.Workflow | null;
    warnings: string[] | null;
  }

  /** ChatHistory is the saved conversation of a workflow, for the panel. */
  export interface ChatHistory {
    messages: assistant.ChatMessage[] | null;
    /** Path is the chat file ("" when the workflow has nowhere to keep one). */
    path: string;
    warnings: string[] | null;
  }

  /**
   * CronPreview says what a cron expression means: its next run times, or
   * what is wrong with it.
   */
  export interface CronPreview {
    error?: string;
    /**
     * Words says it in words ("at 07:00, on weekdays"); "" for a shape
     * that the expression and its next runs say better.
     */
    words?: string;
    /** Next are the next run times (RFC 3339, local time). */
    next: string[] | null;
  }

  /**
   * InputsForm is what the Run form asks for: the workflow's declared
   * inputs in the file's order, or why its inputs schema is unusable.
   */
  export interface InputsForm {
    fields: inputs.Field[] | null;
    problems: inputs.Problem[] | null;
    /**
     * Secrets are the names of the stored secrets (no value), which a
     * secret input may be given instead of a value.
     */
    secrets: string[] | null;
  }

  /** NewSchedule is a schedule the person asks for in the dialog. */
  export interface NewSchedule {
    /** Path is the saved workflow file: the schedule runs it as saved. */
    path: string;
    cron: string;
    /** Engine is "local" or "temporal". */
    engine: string;
    pinned: boolean;
    /**
     * Approved are the fingerprints of the model-written steps the person
     * approved in the approval dialog (exactly the content shown).
     */
    approved: string[] | null;
    /**
     * Shown is the scheduler entry PreviewSchedule showed (local engine):
     * only that entry is installed.
     */
    shown?: service.ShownEntry;
    /**
     * Inputs are the values of the workflow's declared inputs each run
     * gets, as typed in the form (parsed and checked as a run's are).
     */
    inputs?: Record<string, string>;
    /**
     * SecretInputs give secret inputs stored secrets by name (input →
     * secret): a schedule keeps the name, never a value.
     */
    secret_inputs?: Record<string, string>;
  }

  /**
   * OpenResult is what opening a workflow gives the frontend. Path is empty
   * for the embedded sample and for a cancelled dialog (then Workflow is nil).
   */
  export interface OpenResult {
    path: string;
    name: string;
    workflow: workflow.Workflow | null;
    warnings: string[] | null;
    /**
     * File is the file's trust: when it is not trusted (Weft did not
     * write it, or it changed since it was reviewed), everything in it
     * that acts or routes is reviewed before it runs (PendingApprovals).
     */
    file: service.FileTrust;
  }

  /**
   * PatchPreview is a patch merged into the workflow, with what changed and
   * whether the result is valid, for the canvas preview and the review banner.
   */
  export interface PatchPreview {
    workflow: workflow.Workflow | null;
    diff: assistant.Diff;
    /** Changes is the review: each changed field, old → new, in full. */
    changes: assistant.ChangeSet;
    warnings: planner.Warning[] | null;
    valid: boolean;
    problems: validate.Problem[] | null;
  }

  /** PinSource is a step's outputs in the last run, to pin. */
  export interface PinSource {
    outputs: Record<string, unknown> | null;
    run_id: string;
  }

  /** RecentFile is one entry of the recent files list. */
  export interface RecentFile {
    path: string;
    name: string;
    /** OpenedAt is RFC 3339 in UTC. */
    opened_at: string;
  }

  /**
   * RecordedCase is a case recorded from the last run: where it went, and
   * the steps whose data was cut or hidden, for the person to fill in.
   */
  export interface RecordedCase {
    file: string;
    run_id: string;
    name: string;
    fill_in: string[] | null;
  }

  /** SchedulesView is the Schedules dialog's content. */
  export interface SchedulesView {
    schedules: service.ScheduleState[] | null;
    /**
     * Scheduler is this machine's scheduler ("systemd", "cron"); "" when
     * it has none (NoScheduler says why: only Temporal schedules then).
     */
    scheduler: string;
    no_scheduler?: string;
    /**
     * Temporal is the address of the Temporal service in the settings
     * ("" when none is set).
     */
    temporal: string;
  }

  /**
   * SecretsView is the Secrets page's content: names, bindings and where
   * each value is stored, never a value. Warning says when the index could
   * not be read (it was moved aside).
   */
  export interface SecretsView {
    secrets: credentials.Secret[] | null;
    warning?: string;
  }

  /**
   * ServeUnitView is the unit that would keep weft serve running for a
   * folder, or why there is none.
   */
  export interface ServeUnitView {
    /**
     * Entry is the unit file as it will be written, after a comment naming
     * its path; "" when Refused says why not.
     */
    entry: string;
    refused?: string;
    /** Name is the unit's name (systemctl --user status NAME). */
    name: string;
  }

  /**
   * SettingsView is the settings as the frontend sees them: never the API key
   * itself, only whether one is set and its masked form.
   */
  export interface SettingsView {
    settings: settings.Settings;
    api_key_set: boolean;
    api_key_masked: string;
    path: string;
    warnings: string[] | null;
  }

  /**
   * StartResult is what the editor opens at start: the workflow last opened
   * or saved, or the sample; Notice says why the sample opened instead of
   * the last file ("" when there is nothing to say).
   */
  export interface StartResult {
    open: main.OpenResult;
    notice: string;
  }

  /**
   * TemporalCredentials says which Temporal credentials are set, and where
   * (the environment wins over the keyring).
   */
  export interface TemporalCredentials {
    api_key_set: boolean;
    payload_key_set: boolean;
    api_key_env: boolean;
    payload_key_env: boolean;
  }

  /**
   * TestRun is what playing the cases gave: the report, or why they could
   * not be played (Error; Problems when the workflow is invalid).
   */
  export interface TestRun {
    report: testcase.Report | null;
    error: string;
    problems: validate.Problem[] | null;
  }
}

export namespace planner {
  /** Unused is what the reply held that the result does not use. */
  export interface Unused {
    /**
     * Steps are the reply's step-like objects no node stands for: where
     * each was and what it named. A result with Steps is not usable
     * unseen: the planner re-asks, `weft plan` exits 1 unless
     * --allow-dropped, the desktop asks before applying.
     */
    steps?: string[];
    /**
     * Edges are edges of the reply between two of its steps that the
     * result does not connect (not even through one node between, as
     * the inference's EndLoop rerouting does).
     */
    edges?: string[];
    /**
     * Drafts are step-like objects of an earlier complete plan in the
     * same reply that the chosen plan replaced (models correct
     * themselves); said, not counted as dropped.
     */
    drafts?: string[];
    /**
     * Text counts the characters of the reply outside its JSON (prose;
     * code fences and reasoning blocks do not count).
     */
    text?: number;
    /** Partial: the reply was too large or deep to measure whole. */
    partial?: boolean;
  }

  /** Warning is something a stage fixed, guessed or dropped. */
  export interface Warning {
    /** "truncation","extract","repair","decode","align","features","map","edges","infer","layout","validate","reask" */
    stage: string;
    message: string;
    node_id?: string;
  }
}

export namespace reask {
  /** TestCase is one case the proposal does not pass. */
  export interface TestCase {
    name: string;
    /**
     * Errored: the proposal errors under the case (a step failed, or a
     * step would act with no mock), rather than taking another path or
     * giving another output.
     */
    errored: boolean;
    differences: string[] | null;
  }

  /**
   * Tests is the outcome of playing a workflow's test cases against a
   * proposal, as the review shows it.
   */
  export interface Tests {
    /** Line sums it up: "tests: 3 of 3 pass". */
    line: string;
    passed: number;
    total: number;
    /** Cases are those that did not pass, each with how it differs. */
    cases: reask.TestCase[] | null;
    /**
     * Error says why the cases could not be played (an unusable case
     * file); then Total is 0.
     */
    error?: string;
  }
}

export namespace schedule {
  /** Remote is a Temporal service's address, namespace and task queue. */
  export interface Remote {
    address: string;
    namespace: string;
    task_queue: string;
    tls?: boolean;
  }

  /** Schedule is one workflow file run on a cron expression. */
  export interface Schedule {
    id: string;
    file: string;
    cron: string;
    paused: boolean;
    backend: string;
    created: string;
    /** Args are the flags the scheduled `weft run` gets after FILE. */
    args?: string[];
    /**
     * SHA256 is the hex SHA-256 of the file's bytes approved when the
     * schedule was made or last updated: a run of other content is
     * refused. "" for a schedule made before content was pinned.
     */
    sha256?: string;
    /** Temporal says where a schedule kept by a Temporal service is. */
    temporal?: schedule.Remote;
  }
}

export namespace service {
  /**
   * CaseFile is a workflow's case file as the desktop's Tests panel shows
   * it: each case's mocks as written, to edit.
   */
  export interface CaseFile {
    file: string;
    exists: boolean;
    /**
     * SHA256 is of the bytes read: a save names it, and is refused when
     * the file changed since (an edit elsewhere is not overwritten).
     */
    sha256: string;
    cases: testcase.CaseMocks[] | null;
    /** Error says why the file cannot be used (then Cases is empty). */
    error?: string;
  }

  /**
   * CatalogResult is the tool list with why MCP tools are missing, when
   * they are.
   */
  export interface CatalogResult {
    tools: tools.Tool[] | null;
    warnings: string[] | null;
  }

  /** Escalation is an escalation waiting for Respond(ID, …). */
  export interface Escalation {
    id: string;
    escalation: flow.Escalation;
    /** AfterSeq is the seq of the last run event sent before it. */
    after_seq: number;
  }

  /** FileTrust is what the person is told about a workflow file's trust. */
  export interface FileTrust {
    /** Path is the file's canonical path ("" when unsaved). */
    path: string;
    /**
     * Trusted is true when its bytes are ones Weft wrote for the person,
     * the person reviewed, or in a folder the person trusts.
     */
    trusted: boolean;
    /** Why says in words why it is trusted or not. */
    why: string;
    /** Folder is the trusted folder that covers it, if one does. */
    folder?: string;
    /**
     * Changed is true when an earlier content of the file was trusted
     * (the steps to review then show what they were).
     */
    changed: boolean;
    sha256?: string;
  }

  /** Finished is the end of a run. */
  export interface Finished {
    run_id: string;
    dir: string;
    outcome: flow.Outcome;
    error?: string;
    stopped_at?: flow.NodeRef;
    summary?: flow.Summary;
    /** Verdict is the goal check (done_when), when the workflow has one. */
    verdict?: flow.Verdict;
    warnings: string[] | null;
    replanned: boolean;
    started: string;
    finished: string;
    /** Problems are set when the run could not start after all. */
    problems: validate.Problem[] | null;
    /** AfterSeq is the seq of the last run event sent before it. */
    after_seq: number;
  }

  /** GoingRun is a run going on the Temporal service. */
  export interface GoingRun {
    run_id: string;
    started: string;
  }

  /** History lists past runs, newest first. */
  export interface History {
    dir: string;
    runs: service.Record[] | null;
    warnings: string[] | null;
  }

  /** Log is the events of a past run. */
  export interface Log {
    events: flow.Event[] | null;
    /**
     * Total counts the events in the file; only the last maxHistoryEvents
     * are returned.
     */
    total: number;
    truncated: boolean;
    warnings: string[] | null;
  }

  /**
   * NeededSecret is a secret a workflow refers to, with the bindings where
   * it is used suggests: the hosts of the http_request steps that send it,
   * the tools of the other steps. It never holds a value.
   */
  export interface NeededSecret {
    name: string;
    hosts: string[] | null;
    tools: string[] | null;
    /** Nodes are the ids of the steps that refer to it. */
    nodes: string[] | null;
    /** Missing is set when this computer's credentials store lacks it. */
    missing: boolean;
  }

  /** Record is one past run, from its summary.json. */
  export interface Record {
    run_id: string;
    dir: string;
    workflow_id: string;
    workflow_name: string;
    /**
     * WorkflowFile is the name of the file that ran, in the folder beside
     * its runs folder; "" unsaved, or logged before runs recorded it, or
     * not ended (no summary.json).
     */
    workflow_file?: string;
    outcome: flow.Outcome;
    error?: string;
    stopped_at?: flow.NodeRef;
    summary?: flow.Summary;
    /** Verdict is the workflow's goal check (done_when), when it had one. */
    verdict?: flow.Verdict;
    warnings: string[] | null;
    replanned: boolean;
    started: string;
    finished: string;
    /**
     * Complete is false for a folder without summary.json: a run still
     * going, or one that was killed.
     */
    complete: boolean;
    /**
     * EngineRunID is the run's id on the engine that ran it elsewhere (a
     * Temporal workflow id); "" for a local run.
     */
    engine_run_id?: string;
    /**
     * Source is who started the run (manual, schedule); "" for a run
     * logged before it was recorded.
     */
    source?: flow.RunSource;
    /**
     * Parent is the run whose Workflow step ran this one (a
     * sub-workflow's run); SubRuns the runs its Workflow steps started.
     */
    parent?: flow.RunLink;
    sub_runs?: flow.RunLink[];
  }

  /**
   * Replan is a new plan made after a failure, as a change to review (the
   * assistant's patch preview) before it is applied and run.
   */
  export interface Replan {
    run_id: string;
    message: string;
    /** Changes sums the new version up against the one that ran. */
    changes: string;
    stopped_at?: flow.NodeRef;
    patch: assistant.WorkflowPatch;
    workflow: workflow.Workflow | null;
    diff: assistant.Diff;
    /**
     * Review is the change field by field, old → new in full, as the
     * assistant's review banner shows it.
     */
    review: assistant.ChangeSet;
    warnings: planner.Warning[] | null;
    valid: boolean;
    problems: validate.Problem[] | null;
    /**
     * SideEffects are the steps of the new plan a model wrote that will
     * wait for approval before it runs (package approval).
     */
    side_effects: approval.Step[] | null;
    /**
     * Tries are the planner's replies that were asked again, and why:
     * the repair the person can open, as the assistant's.
     */
    tries?: assistant.Try[];
    /**
     * Tests are the workflow's test cases played against Workflow; nil
     * when it has none.
     */
    tests?: reask.Tests;
    /** AfterSeq is the seq of the last run event sent before it. */
    after_seq: number;
  }

  /** ScheduleResult is StartResult for a schedule: Started says it was made. */
  export interface ScheduleResult {
    started: boolean;
    error?: string;
    problems: validate.Problem[] | null;
    approval: approval.Step[] | null;
    warnings: string[] | null;
    /**
     * Refused is the run logged without running anything, when the file
     * is not the content RequireSHA256 names (outcome needs_review; Error
     * says why and how to update the schedule).
     */
    refused?: service.Record;
    /**
     * MissingSecrets are the secrets the workflow refers to that this
     * computer's credentials store lacks: a local run does not start
     * without them (Error lists them), so nothing runs half way.
     */
    missing_secrets?: service.NeededSecret[];
    /**
     * InputProblems say, input by input, why the run's inputs were
     * refused (Error says it all in one line): a form shows each at its
     * field.
     */
    input_problems?: inputs.Problem[];
    schedule?: schedule.Schedule;
    /** Entry is the text installed in this machine's scheduler. */
    entry?: string;
  }

  /** ScheduleState is a schedule with how its runs went. */
  export interface ScheduleState {
    id: string;
    file: string;
    cron: string;
    paused: boolean;
    backend: string;
    created: string;
    /** Args are the flags the scheduled `weft run` gets after FILE. */
    args?: string[];
    /**
     * SHA256 is the hex SHA-256 of the file's bytes approved when the
     * schedule was made or last updated: a run of other content is
     * refused. "" for a schedule made before content was pinned.
     */
    sha256?: string;
    /** Temporal says where a schedule kept by a Temporal service is. */
    temporal?: schedule.Remote;
    /**
     * State says it in words: paused, the file changed since it was
     * scheduled, missed the run due at …, the last run's outcome, not run
     * yet.
     */
    state: string;
    /** Words says the cron expression in words (schedule.Describe), if it can. */
    words?: string;
    last_run?: string;
    last_outcome?: string;
    missed?: string;
    /**
     * Next is when the schedule runs next (nil when paused, or never
     * within a year).
     */
    next?: string;
    /**
     * Changed is set when the file's content is not the one the schedule
     * pinned (or it pinned none): UpdateSchedules makes it run the file as
     * it is now, after the same checks as when it was made.
     */
    changed: boolean;
    /**
     * Attention is set when the person should hear of it: the last run did
     * not succeed, a due run is missing, or a local schedule's runs are
     * refused because the file changed.
     */
    attention: boolean;
  }

  /**
   * ScheduleUpdateResult is StartResult for an update: Started says the
   * schedules were updated; Approval lists what waits for approval.
   */
  export interface ScheduleUpdateResult {
    started: boolean;
    error?: string;
    problems: validate.Problem[] | null;
    approval: approval.Step[] | null;
    warnings: string[] | null;
    /**
     * Refused is the run logged without running anything, when the file
     * is not the content RequireSHA256 names (outcome needs_review; Error
     * says why and how to update the schedule).
     */
    refused?: service.Record;
    /**
     * MissingSecrets are the secrets the workflow refers to that this
     * computer's credentials store lacks: a local run does not start
     * without them (Error lists them), so nothing runs half way.
     */
    missing_secrets?: service.NeededSecret[];
    /**
     * InputProblems say, input by input, why the run's inputs were
     * refused (Error says it all in one line): a form shows each at its
     * field.
     */
    input_problems?: inputs.Problem[];
    updated: schedule.Schedule[] | null;
  }

  /**
   * ShownEntry is what PreviewSchedule showed: the schedule's name and the
   * text the scheduler gets.
   */
  export interface ShownEntry {
    id: string;
    entry: string;
    /**
     * InputProblems say, input by input, why no entry can be made with
     * the inputs given (inputs.Stored's check, AddSchedule's too).
     */
    input_problems?: inputs.Problem[];
  }

  /**
   * StartResult says whether the run started. Started is false when the
   * workflow is not valid (Error and Problems say why) or when its
   * steps a model wrote need approval that was not given (Approval lists
   * them, in full).
   */
  export interface StartResult {
    started: boolean;
    error?: string;
    problems: validate.Problem[] | null;
    approval: approval.Step[] | null;
    warnings: string[] | null;
    /**
     * Refused is the run logged without running anything, when the file
     * is not the content RequireSHA256 names (outcome needs_review; Error
     * says why and how to update the schedule).
     */
    refused?: service.Record;
    /**
     * MissingSecrets are the secrets the workflow refers to that this
     * computer's credentials store lacks: a local run does not start
     * without them (Error lists them), so nothing runs half way.
     */
    missing_secrets?: service.NeededSecret[];
    /**
     * InputProblems say, input by input, why the run's inputs were
     * refused (Error says it all in one line): a form shows each at its
     * field.
     */
    input_problems?: inputs.Problem[];
  }

  /** Status says whether a run goes and what it waits for. */
  export interface Status {
    running: boolean;
    run_id: string;
    workflow_id: string;
    escalation: service.Escalation | null;
    can_replan: boolean;
  }
}

export namespace settings {
  /** AutoReplan configures automatic replanning (seed 004). */
  export interface AutoReplan {
    enabled: boolean;
    /**
     * MaxPerRun bounds the automatic replans of one run, counting the
     * runs of the versions it replanned (1–MaxAutoReplansLimit).
     */
    max_per_run: number;
    /**
     * MinSeverity is the least severe failure that replans: "CRITICAL"
     * or "HIGH".
     */
    min_severity: string;
  }

  /** Engine is where runs go. */
  export interface Engine {
    /** Kind is "local" (the default) or "temporal". */
    kind: string;
    temporal: settings.TemporalEngine;
  }

  /** Features gate node types the planner may produce. */
  export interface Features {
    allow_ai_transforms: boolean;
    allow_agent_steps: boolean;
  }

  /**
   * LLM is the model endpoint. APIKey lives in the OS keyring when one is
   * available; the file then carries api_key_store "keyring" instead.
   */
  export interface LLM {
    base_url: string;
    model: string;
    api_key?: string;
    /** "keyring" or empty (file) */
    api_key_store?: string;
    timeout_s: number;
    /**
     * TotalTimeoutS bounds one model call with its retries (at least
     * timeout_s).
     */
    total_timeout_s: number;
    /**
     * StructuredOutput is how replies' JSON Schemas are sent: auto (try
     * json_schema, fall back and remember), json_schema, json_object, off.
     */
    structured_output: string;
  }

  /** MCPServer is one entry of the mcpServers map MCP clients share. */
  export interface MCPServer {
    command: string;
    args?: string[];
    env?: Record<string, string>;
  }

  /** Run holds run-time defaults. */
  export interface Run {
    default_retries: number;
    /** RetentionRuns is how many finished runs' log folders to keep. */
    retention_runs: number;
    /**
     * AutoReplan asks the planner for a new version of the workflow when
     * a step fails badly enough, without asking the user first.
     */
    auto_replan: settings.AutoReplan;
  }

  /** Settings is the whole preferences document. */
  export interface Settings {
    max_repair_attempts: number;
    llm: settings.LLM;
    features: settings.Features;
    mcp_servers: Record<string, settings.MCPServer> | null;
    run: settings.Run;
    /**
     * Engine says where the app's runs go: this process (local) or a
     * Temporal service (docs/scale-out.md).
     */
    engine: settings.Engine;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /**
   * TemporalEngine is how to reach a Temporal service. Its API key and the
   * payload key are read from the environment (WEFT_TEMPORAL_API_KEY,
   * WEFT_TEMPORAL_KEY), never stored here.
   */
  export interface TemporalEngine {
    address: string;
    namespace: string;
    task_queue: string;
    tls: boolean;
  }
}

export namespace testcase {
  /** CaseMocks is one case's mocks as written in its file. */
  export interface CaseMocks {
    name: string;
    /** Mocks is the case's mocks value, indented ("{}" when it has none). */
    mocks: string;
  }

  /** CaseResult is one case played. */
  export interface CaseResult {
    name: string;
    passed: boolean;
    outcome?: flow.Outcome;
    /** Error is why the run stopped, when it did not succeed. */
    error?: string;
    /** Path are the steps that started, in order. */
    path: string[] | null;
    failures: testcase.Failure[] | null;
    duration_ms: number;
  }

  /**
   * Failure is one way a case did not do what it expects: which step (a
   * node id, when one is concerned), what (path, outcome, output, file,
   * unmocked, mock, case, run), expected against actual.
   */
  export interface Failure {
    step?: string;
    what: string;
    expected?: unknown;
    actual?: unknown;
    message: string;
  }

  /** Report is what playing a case file gave. */
  export interface Report {
    workflow: string;
    file: string;
    passed: number;
    failed: number;
    cases: testcase.CaseResult[] | null;
    /**
     * Unapproved are the steps that would wait for a person's approval
     * before a real run: a test runs nothing, but says so.
     */
    unapproved: approval.Step[] | null;
  }
}

export namespace tools {
  /** Field documents one output of a tool. */
  export interface Field {
    name: string;
    type: string;
    description: string;
  }

  /** Tool is one callable tool. */
  export interface Tool {
    name: string;
    description: string;
    input_schema: unknown;
    outputs: tools.Field[] | null;
    /** Server is the MCP server that provides the tool; empty for built-ins. */
    server?: string;
    /**
     * SideEffects marks tools that change the world (run commands, write
     * files, send requests); replanned workflows need approval to run them.
     */
    side_effects: boolean;
    /**
     * OpenWorld marks tools that reach systems outside Weft's machine (an
     * MCP tool's openWorldHint, true unless the server says false): a
     * read-only tool that reaches out still needs approval when a model
     * wrote the step, since what it sends can carry data out.
     */
    open_world?: boolean;
  }
}

export namespace validate {
  /** Problem is one thing wrong with a workflow. */
  export interface Problem {
    code: string;
    severity: validate.Severity;
    message: string;
    node_ids: string[] | null;
    edges: workflow.Edge[] | null;
    /**
     * Path is, for literal_secret, the JSON pointer of the argument that
     * holds the literal ("/headers/Authorization"); for bad_argument,
     * unknown_argument and a nested missing_argument, of the argument
     * its tool's schema does not allow ("/options/depth"); for bad_note,
     * bad_group and unknown_group_member, of the note, group or member in
     * the workflow ("/groups/0/nodes/2").
     */
    path?: string;
    /**
     * Key is, for literal_secret, the name the literal is written under
     * (a header, query parameter or JSON member), if any.
     */
    key?: string;
    /** Secret is, for literal_secret, a name suggested for the secret. */
    secret?: string;
  }

  /**
   * Reference is one name a text of a node may read (the editor's `{{`
   * completion): an output of a step that runs before it, key.field, or a
   * declared input, inputs.NAME.
   */
  export interface Reference {
    key: string;
    /**
     * Field is "" for a step whose outputs are not known (a tool the
     * catalog lacks): any field of it may be read.
     */
    field: string;
    /** NodeID is the step's id; "" for an input. */
    node_id?: string;
    /** Label is the step's label, or the input's title. */
    label: string;
    type?: string;
    description?: string;
  }

  /** Result is the outcome of Validate. */
  export interface Result {
    valid: boolean;
    problems: validate.Problem[] | null;
  }

  /**
   * Severity of a problem: errors make a workflow invalid, warnings and
   * infos do not. An info tells of something that works as written but
   * perhaps not as meant.
   */
  export type Severity = 'error' | 'warning' | 'info';
}

export namespace workflow {
  /** Backoff shapes the wait between run-time retries. */
  export interface Backoff {
    initial_ms?: number;
    multiplier?: number;
    max_ms?: number;
    jitter?: number;
  }

  /**
   * DoneWhen states when a run (or a step) has reached its goal, beyond its
   * steps succeeding (seed 002's critic). Condition is an expression over
   * node outputs, checked without a model; Criteria is a sentence the model
   * judges against the goal, the plan and the step results. When both are
   * set both must hold.
   */
  export interface DoneWhen {
    condition?: string;
    criteria?: string;
  }

  /** Edge connects two nodes by id. */
  export interface Edge {
    from: string;
    to: string;
    output?: workflow.EdgeOutput;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /** EdgeOutput is the label of an edge leaving a control-flow node. */
  export interface EdgeOutput {
    type: workflow.OutputType;
    name?: string;
  }

  /**
   * Group is a titled, coloured frame around some nodes (by id) that moves
   * them together on the canvas.
   */
  export interface Group {
    id: string;
    title: string;
    position: workflow.Position;
    size: workflow.Size;
    color?: string;
    nodes: string[];
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /** Node is one step of a workflow. */
  export interface Node {
    id: string;
    key: string;
    name: string;
    type: workflow.NodeType;
    params: workflow.Params;
    position?: workflow.Position;
    enabled?: boolean;
    timeout_ms?: number;
    retry?: workflow.Retry;
    verify?: string;
    /** OnError applies to step nodes (NodeType.IsStep); "" is stop. */
    on_error?: workflow.OnError;
    /**
     * DoneWhen is checked after the step succeeded (and after verify); a
     * step whose goal does not hold fails with type rejected.
     */
    done_when?: workflow.DoneWhen;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /** NodeType names what a node does. */
  export type NodeType = 'Tool' | 'AiStep' | 'AiTransform' | 'If' | 'Switch' | 'Loop' | 'EndLoop' | 'Workflow' | 'DoneWhen';

  /** Note is free text on the canvas (a sticky note). */
  export interface Note {
    id: string;
    text: string;
    position: workflow.Position;
    size: workflow.Size;
    color?: string;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /**
   * OnError says what a step node's failure does once its retries are spent
   * (n8n's onError, Dify's fail branch).
   */
  export type OnError = 'stop' | 'continue' | 'branch';

  /** OutputType labels an edge leaving a control-flow node. */
  export type OutputType = 'IfTrue' | 'IfFalse' | 'LoopBody' | 'LoopDone' | 'SwitchCase' | 'SwitchDefault' | 'Error';

  /**
   * Params carries the type-specific settings of a node. Only the fields of the
   * node's type are meaningful; the rest stay empty and are omitted on save.
   */
  export interface Params {
    /** Tool */
    tool?: string;
    arguments?: Record<string, unknown>;
    /** AiStep */
    prompt?: string;
    allowed_tools?: string[];
    max_tool_calls?: number;
    /** AiTransform */
    kind?: string;
    input?: string;
    labels?: string[];
    /** If */
    condition?: string;
    /** Switch */
    cases?: workflow.SwitchCase[];
    /** Loop */
    exit_condition?: string;
    max_iterations?: number;
    /** EndLoop */
    loop_id?: string;
    /**
     * Workflow: the file to run, relative to this workflow's folder (a
     * literal, never a template), and the values of its declared inputs
     * (templates allowed, filled in as data).
     */
    path?: string;
    inputs?: Record<string, unknown>;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /** Position is a node's place on the canvas. */
  export interface Position {
    x: number;
    y: number;
  }

  /** Retry is a node's run-time retry policy. */
  export interface Retry {
    max_attempts?: number;
    backoff?: workflow.Backoff;
  }

  /** Size is a note's or group's extent on the canvas. */
  export interface Size {
    width: number;
    height: number;
  }

  /** SwitchCase is one named branch of a Switch. */
  export interface SwitchCase {
    name: string;
    condition: string;
  }

  /**
   * Trigger is one way a workflow's run starts without a person: content
   * that acts (it decides who may start the workflow, with what inputs), so
   * it is reviewed like a step (package approval).
   */
  export interface Trigger {
    type: workflow.TriggerType;
    /**
     * Webhook: the URL path it answers ("/hooks/NAME"), the secret that
     * signs deliveries (a reference, {{secrets.NAME}}) and the scheme.
     */
    path?: string;
    secret?: string;
    scheme?: string;
    /**
     * File: the files watched, relative to the workflow's folder
     * ("inbox/*.csv").
     */
    glob?: string;
    /**
     * Inputs maps input names to what fills them: "{{body.a.b}}" (a
     * webhook's JSON body) or "{{file.path}}" (a file trigger's file).
     * Without it, a webhook fills each input from the body's top-level
     * member of the same name and a file trigger fills the input "path".
     */
    inputs?: Record<string, string>;
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }

  /**
   * TriggerType says what starts a run: a signed webhook or a file that
   * appears in a watched folder (weft serve runs them).
   */
  export type TriggerType = 'webhook' | 'file';

  /** Workflow is a whole weft/v1 document. */
  export interface Workflow {
    format: string;
    id: string;
    name: string;
    /**
     * Goal is what the workflow is for, in the user's words; the planner
     * sets it and the done_when critic judges against it.
     */
    goal?: string;
    /**
     * DoneWhen is checked after every step ran: a run whose goal does not
     * hold is not a success.
     */
    done_when?: workflow.DoneWhen;
    nodes: workflow.Node[];
    edges: workflow.Edge[];
    /**
     * Pinned holds outputs a person pinned, by node id (n8n's pinned
     * data): a development run in the editor uses them instead of running
     * the step; a headless run ignores them unless asked. Each value
     * should be a JSON object (validate reports any other); it is data for
     * the steps after, never run.
     */
    pinned?: Record<string, unknown>;
    /**
     * Inputs declares what a run is given (package inputs): a JSON
     * Schema object whose properties are the inputs, read by steps as
     * {{inputs.NAME}}. Kept as written (property order is the form's).
     */
    inputs?: unknown;
    /**
     * Triggers start runs without a person (weft serve): a signed
     * webhook, a watched folder. Content that acts: reviewed like a step.
     */
    triggers?: workflow.Trigger[];
    /**
     * Notes and Groups annotate the canvas (sticky notes, frames around
     * nodes): never run, never reviewed (annotations.go).
     */
    notes?: workflow.Note[];
    groups?: workflow.Group[];
    /** members this version does not know, kept as they are */
    [extra: string]: unknown;
  }
}

// The bound methods, as Wails exposes them on window.go; a Go error
// rejects the promise with its text.
// Their results are JSON of the Go types above: any, typed by each function.
type Binding = (...args: unknown[]) => Promise<any>;
declare global {
  interface Window {
    go: { main: { App: Record<string, Binding> } };
  }
}
const bound = (method: string): Binding => window.go.main.App[method];

/** AddRecentFile records that path was opened or saved and returns the list. */
export function AddRecentFile(path: string): Promise<main.RecentFile[] | null> {
  return bound('AddRecentFile')(path);
}

/**
 * AddSchedule makes a schedule, or says why not: problems, or the steps a
 * model wrote that wait for approval (listed in full for the dialog).
 */
export function AddSchedule(req: main.NewSchedule): Promise<service.ScheduleResult> {
  return bound('AddSchedule')(req);
}

/**
 * ApplyPatch returns w with patch merged: the workflow the canvas takes
 * when the user applies a reviewed change. It uses the same merge as the
 * preview.
 */
export function ApplyPatch(w: workflow.Workflow, patch: assistant.WorkflowPatch): Promise<main.AppliedPatch> {
  return bound('ApplyPatch')(w, patch);
}

/**
 * ApproveSteps records the person's approval, in the dialog, of the steps
 * of w with these content fingerprints (each must be waiting) and returns
 * the steps still waiting.
 */
export function ApproveSteps(w: workflow.Workflow, path: string, fingerprints: string[] | null): Promise<approval.Step[] | null> {
  return bound('ApproveSteps')(w, path, fingerprints);
}

/** AssistantClearHistory deletes the saved conversation of a workflow. */
export function AssistantClearHistory(workflowID: string, path: string): Promise<void> {
  return bound('AssistantClearHistory')(workflowID, path);
}

/**
 * AssistantHistory loads the saved conversation of a workflow
 * (service.ReadChat). A workflow with no file and no id has none.
 */
export function AssistantHistory(workflowID: string, path: string): Promise<main.ChatHistory> {
  return bound('AssistantHistory')(workflowID, path);
}

/**
 * AssistantSend asks the assistant about the workflow (service.Chat: an
 * empty workflow is planned, as `weft chat` and `weft plan` do). Progress
 * goes out as "assistant:progress" events; the reply is a conversation, a
 * plan or a patch, never applied here: the panel previews it and the user
 * applies it with ApplyPatch. A request already running is stopped first.
 */
export function AssistantSend(req: main.AssistantRequest): Promise<assistant.Result | null> {
  return bound('AssistantSend')(req);
}

/**
 * AssistantStop cancels the request in flight; AssistantSend then returns
 * ErrAssistantStopped. It reports whether there was one.
 */
export function AssistantStop(): Promise<boolean> {
  return bound('AssistantStop')();
}

/**
 * Autosave keeps w (the document of the file at path, or "" when it has
 * none; name is its title) so that it can be restored after a crash.
 */
export function Autosave(w: workflow.Workflow, path: string, name: string): Promise<void> {
  return bound('Autosave')(w, path, name);
}

/**
 * CanReplan says whether a run started now could replan (a planner is
 * configured), for the Replan button.
 */
export function CanReplan(): Promise<boolean> {
  return bound('CanReplan')();
}

/** CancelClose records that the user kept the window open. */
export function CancelClose(): Promise<void> {
  return bound('CancelClose')();
}

/** CheckCondition returns why expr is not a valid condition, or "" if it is. */
export function CheckCondition(expr: string): Promise<string> {
  return bound('CheckCondition')(expr);
}

/**
 * ClearAutosave removes the autosave (after a save, or when the user
 * discards the changes).
 */
export function ClearAutosave(): Promise<void> {
  return bound('ClearAutosave')();
}

/**
 * ConfirmClose closes the window after the user chose to discard (or has
 * saved) their changes.
 */
export function ConfirmClose(): Promise<void> {
  return bound('ConfirmClose')();
}

/**
 * DiscoverModelServers looks for model servers on this machine (Ollama,
 * LM Studio, llama.cpp, vLLM at their usual ports) for the first-run setup.
 */
export function DiscoverModelServers(): Promise<llm.LocalServer[] | null> {
  return bound('DiscoverModelServers')();
}

/** Examples lists the gallery's workflows (file, name, goal). */
export function Examples(): Promise<examples.Example[] | null> {
  return bound('Examples')();
}

/**
 * FollowTemporalRun follows a run going on the Temporal service in the
 * Run panel, as if it had started here: its events, escalations and end.
 */
export function FollowTemporalRun(runID: string): Promise<service.StartResult> {
  return bound('FollowTemporalRun')(runID);
}

/** GetRunStatus says whether the window's run goes and what it waits for. */
export function GetRunStatus(): Promise<service.Status> {
  return bound('GetRunStatus')();
}

/** GetSettings loads the settings without the API key. */
export function GetSettings(): Promise<main.SettingsView> {
  return bound('GetSettings')();
}

/**
 * GetTemporalCredentials says which Temporal credentials are set; their
 * values never leave the backend.
 */
export function GetTemporalCredentials(): Promise<main.TemporalCredentials> {
  return bound('GetTemporalCredentials')();
}

/**
 * InstallServeUnit installs and starts the unit for the folder of the file
 * at path, only if it is still exactly shown (what ServeUnit gave).
 */
export function InstallServeUnit(path: string, shown: string): Promise<void> {
  return bound('InstallServeUnit')(path, shown);
}

/**
 * KeepFix returns w with the arguments of a fix (as the retry used them)
 * merged into the Tool node, for the editor to keep as one undo step.
 */
export function KeepFix(w: workflow.Workflow, nodeID: string, args: Record<string, unknown> | null): Promise<workflow.Workflow | null> {
  return bound('KeepFix')(w, nodeID, args);
}

/**
 * LastOutputs returns what the step produced in the workflow's last run in
 * this window (secrets hidden), for pinning; it fails when the step did
 * not complete in it or its outputs are over 1 MB.
 */
export function LastOutputs(workflowID: string, nodeID: string): Promise<main.PinSource> {
  return bound('LastOutputs')(workflowID, nodeID);
}

/**
 * ListSchedules is every schedule with how its runs went and when it runs
 * next.
 */
export function ListSchedules(): Promise<main.SchedulesView> {
  return bound('ListSchedules')();
}

/** ListSecrets is every stored secret without its value. */
export function ListSecrets(): Promise<main.SecretsView> {
  return bound('ListSecrets')();
}

/** LoadAutosave returns the autosave left by an earlier run, if any. */
export function LoadAutosave(): Promise<main.AutosaveView> {
  return bound('LoadAutosave')();
}

/**
 * LoadSample opens the sample workflow built into the app (at start when
 * there is no last file to reopen: LoadStart).
 */
export function LoadSample(): Promise<main.OpenResult> {
  return bound('LoadSample')();
}

/** LoadStart opens what the editor shows at start (lastfile.Open decides). */
export function LoadStart(): Promise<main.StartResult> {
  return bound('LoadStart')();
}

/**
 * MoveLiteralToSecrets stores the literal credential at path (written
 * under key, if any) in node's arguments (a literal_secret warning) as the secret name, bound to hosts
 * and tools (none: the URL's host or the step's tool), and returns the
 * workflow with {{secrets.NAME}} in its place, for the editor to apply as
 * one change. The value is never returned.
 */
export function MoveLiteralToSecrets(w: workflow.Workflow, node: string, path: string, key: string, name: string, hosts: string[] | null, tools: string[] | null): Promise<workflow.Workflow | null> {
  return bound('MoveLiteralToSecrets')(w, node, path, key, name, hosts, tools);
}

/**
 * OpenExample opens the example file as a new unsaved workflow: no path,
 * a fresh id, the trust of a document no file holds (as the sample's).
 */
export function OpenExample(file: string): Promise<main.OpenResult> {
  return bound('OpenExample')(file);
}

/** OpenWorkflow loads the workflow file at path. */
export function OpenWorkflow(path: string): Promise<main.OpenResult> {
  return bound('OpenWorkflow')(path);
}

/**
 * OpenWorkflowDialog asks for a file and opens it. A cancelled dialog gives
 * an empty result (Workflow nil) and no error.
 */
export function OpenWorkflowDialog(): Promise<main.OpenResult> {
  return bound('OpenWorkflowDialog')();
}

/**
 * PendingApprovals lists the steps of w (saved at path, "" when unsaved)
 * that a model wrote, can act, and wait for the person's approval.
 */
export function PendingApprovals(w: workflow.Workflow, path: string): Promise<approval.Step[] | null> {
  return bound('PendingApprovals')(w, path);
}

/** PreviewCron checks a cron expression as it is typed. */
export function PreviewCron(expr: string): Promise<main.CronPreview> {
  return bound('PreviewCron')(expr);
}

/**
 * PreviewPatch merges patch into w without changing anything, and says what
 * it adds, removes and modifies and whether the result validates.
 */
export function PreviewPatch(w: workflow.Workflow, patch: assistant.WorkflowPatch): Promise<main.PatchPreview> {
  return bound('PreviewPatch')(w, patch);
}

/**
 * PreviewSchedule is the entry a local schedule would install (a crontab
 * line, systemd unit files), shown before AddSchedule installs it.
 */
export function PreviewSchedule(req: main.NewSchedule): Promise<service.ShownEntry> {
  return bound('PreviewSchedule')(req);
}

/**
 * ReadTestCases reads the case file beside the file at path: each case's
 * mocks as written, or why it cannot be used.
 */
export function ReadTestCases(path: string): Promise<service.CaseFile> {
  return bound('ReadTestCases')(path);
}

/**
 * RecentFiles lists the recently opened workflow files that still exist,
 * newest first. Problems with the list are logged, never returned.
 */
export function RecentFiles(): Promise<main.RecentFile[] | null> {
  return bound('RecentFiles')();
}

/**
 * RecordTestCase adds a case named name ("" names it after the run) made
 * from the last local run of the file saved at path to its case file.
 */
export function RecordTestCase(path: string, name: string): Promise<main.RecordedCase> {
  return bound('RecordTestCase')(path, name);
}

/**
 * ReferencesAt lists what a text of node nodeID may read (the `{{`
 * completion of the Inspector's fields): place is "" for its arguments,
 * prompt, input or condition, "verify", "done_when" or "exit_condition"
 * (nodeID "" with "done_when": the workflow's own). It asks the rules
 * validation reports unknown references by.
 */
export function ReferencesAt(w: workflow.Workflow, nodeID: string, place: string): Promise<validate.Reference[] | null> {
  return bound('ReferencesAt')(w, nodeID, place);
}

/** RemoveRecentFile drops path from the list (it could not be opened). */
export function RemoveRecentFile(path: string): Promise<main.RecentFile[] | null> {
  return bound('RemoveRecentFile')(path);
}

/** RemoveSchedule deletes a schedule and its entry in the scheduler. */
export function RemoveSchedule(id: string): Promise<void> {
  return bound('RemoveSchedule')(id);
}

/** RemoveSecret deletes a secret and its value. */
export function RemoveSecret(name: string): Promise<void> {
  return bound('RemoveSecret')(name);
}

/**
 * RespondEscalation answers the escalation id with resp (retry, skip, abort,
 * fix with an instruction or arguments, replan). It fails when no such
 * escalation waits (answered already, or the run ended).
 */
export function RespondEscalation(id: string, resp: flow.Response): Promise<void> {
  return bound('RespondEscalation')(id, resp);
}

/**
 * RunEvents reads events.jsonl of a past run (a folder RunHistory listed):
 * the last 5000 events, with how many there are.
 */
export function RunEvents(runDir: string): Promise<service.Log> {
  return bound('RunEvents')(runDir);
}

/**
 * RunHistory lists the past runs of a workflow, newest first: the run
 * folders in .weft/runs beside its file (path) or, unsaved, in the XDG data
 * dir. workflowID, when set, keeps only that workflow's runs (a folder's
 * runs are shared by its workflows).
 */
export function RunHistory(path: string, workflowID: string): Promise<service.History> {
  return bound('RunHistory')(path, workflowID);
}

/**
 * RunTests plays the cases beside the file at path against w (the
 * editor's copy, saved or not) with nothing acting; only, when not "",
 * plays only the case of that name.
 */
export function RunTests(w: workflow.Workflow, path: string, only: string): Promise<main.TestRun> {
  return bound('RunTests')(w, path, only);
}

/**
 * SaveSettings saves s. apiKey nil keeps the stored key; a pointer to ""
 * clears it; anything else replaces it. The API key inside s is ignored,
 * since GetSettings never sends it.
 */
export function SaveSettings(s: settings.Settings, apiKey: string | null): Promise<string[] | null> {
  return bound('SaveSettings')(s, apiKey);
}

/**
 * SaveTestCaseMocks replaces the mocks of the case named name with mocks
 * (JSON text) when they, and the file with them, are valid and hold no
 * secret; base is the SHA-256 of the file as read (ReadTestCases), and
 * a file changed since is not written.
 */
export function SaveTestCaseMocks(path: string, name: string, mocks: string, base: string): Promise<service.CaseFile> {
  return bound('SaveTestCaseMocks')(path, name, mocks, base);
}

/**
 * SaveWorkflow writes w to path atomically. from is the path the
 * document was opened from or last saved to ("" for a new one): the
 * file's trust carries over from there (service.SaveWorkflow).
 */
export function SaveWorkflow(path: string, w: workflow.Workflow, from: string): Promise<void> {
  return bound('SaveWorkflow')(path, w, from);
}

/**
 * SaveWorkflowAsDialog asks where to save w and saves it there (from as
 * SaveWorkflow's). It returns the chosen path, or "" (and no error) when
 * the dialog was cancelled.
 */
export function SaveWorkflowAsDialog(w: workflow.Workflow, from: string): Promise<string> {
  return bound('SaveWorkflowAsDialog')(w, from);
}

/**
 * ScheduleNotices says, one line a schedule, which scheduled workflows
 * need attention. The ended Temporal runs nobody followed are logged
 * first, so a Temporal schedule's last run counts too.
 */
export function ScheduleNotices(): Promise<string[] | null> {
  return bound('ScheduleNotices')();
}

/**
 * ServeUnit shows the systemd user service that would serve the triggers
 * of the workflows in the folder of the workflow file at path: refused,
 * with every reason, when one of them cannot be served (not reviewed, a
 * trigger that cannot fill an input, a missing secret…) or this machine
 * has no systemd user instance.
 */
export function ServeUnit(path: string): Promise<main.ServeUnitView> {
  return bound('ServeUnit')(path);
}

/**
 * SetDirty tells the backend whether the document has unsaved changes, so
 * that closing the window asks first.
 */
export function SetDirty(dirty: boolean): Promise<void> {
  return bound('SetDirty')(dirty);
}

/** SetSchedulePaused pauses or resumes a schedule. */
export function SetSchedulePaused(id: string, paused: boolean): Promise<void> {
  return bound('SetSchedulePaused')(id, paused);
}

/** SetSecret stores a secret's value and the hosts and tools it may go to. */
export function SetSecret(name: string, value: string, hosts: string[] | null, tools: string[] | null): Promise<void> {
  return bound('SetSecret')(name, value, hosts, tools);
}

/**
 * SetSecretBindings changes where a stored secret may go, keeping its
 * value.
 */
export function SetSecretBindings(name: string, hosts: string[] | null, tools: string[] | null): Promise<void> {
  return bound('SetSecretBindings')(name, hosts, tools);
}

/**
 * SetTemporalCredentials stores the Temporal API key and payload key in the
 * OS keyring: nil keeps one, "" removes it. A payload key must be 32 bytes
 * in base64. Without a keyring it fails (they are never written to the
 * settings file: use the environment then).
 */
export function SetTemporalCredentials(apiKey: string | null, payloadKey: string | null): Promise<main.TemporalCredentials> {
  return bound('SetTemporalCredentials')(apiKey, payloadKey);
}

/**
 * StaleSchedules are this machine's schedules of the file saved at path
 * whose runs are refused because it changed since they were made: the
 * app offers to update them after a save.
 */
export function StaleSchedules(path: string): Promise<schedule.Schedule[] | null> {
  return bound('StaleSchedules')(path);
}

/**
 * StartApprovedRun is StartRun after the user approved, in the dialog, the
 * steps with these content fingerprints (as the dialog showed them): they
 * are recorded as approved, then the run starts if nothing else waits. A
 * step whose content changed since is not approved by an old fingerprint.
 */
export function StartApprovedRun(w: workflow.Workflow, path: string, approved: string[] | null): Promise<service.StartResult> {
  return bound('StartApprovedRun')(w, path, approved);
}

/**
 * StartRun runs w (saved at path, or "" when unsaved) in the background.
 * Its events reach the frontend as "run:event", escalations as
 * "run:escalation" (answer them with RespondEscalation) and its end as
 * "run:finished". One run at a time: it fails while one goes. An invalid
 * workflow does not start: the result carries the problems.
 */
export function StartRun(w: workflow.Workflow, path: string): Promise<service.StartResult> {
  return bound('StartRun')(w, path);
}

/**
 * StartRunFrom runs w from the node (a node in a loop body from its
 * outermost Loop), reusing the last run's outputs of the steps before it;
 * approved are as StartApprovedRun's (nil when none were just approved).
 * It does not start when the workflow has not run since Weft started, or
 * a step before the node changed since: Error says which.
 */
export function StartRunFrom(w: workflow.Workflow, path: string, nodeID: string, approved: string[] | null): Promise<service.StartResult> {
  return bound('StartRunFrom')(w, path, nodeID, approved);
}

/**
 * StartRunWithInputs is StartRun (StartApprovedRun when approved is not
 * empty, StartRunFrom when from is set) of a workflow that declares
 * inputs, with the values of its Run form by name, as typed (a string
 * input's text as it is, the others JSON: the CLI's --input rule). Inputs
 * that do not fit do not start it: the result's input_problems say why,
 * input by input. secretInputs gives secret inputs stored secrets by
 * name (input → secret), never a value (inputs.SecretRef).
 */
export function StartRunWithInputs(w: workflow.Workflow, path: string, approved: string[] | null, from: string, inputTexts: Record<string, string> | null, secretInputs: Record<string, string> | null): Promise<service.StartResult> {
  return bound('StartRunWithInputs')(w, path, approved, from, inputTexts, secretInputs);
}

/**
 * StopRun cancels the window's run in progress (an escalation waiting for
 * an answer ends with it). It reports whether there was one.
 */
export function StopRun(): Promise<boolean> {
  return bound('StopRun')();
}

/**
 * StoredKeyUse says whether Test connection would send the stored API key
 * to baseURL without asking, so Preferences can ask first where it would
 * not.
 */
export function StoredKeyUse(baseURL: string): Promise<llm.KeyUse> {
  return bound('StoredKeyUse')(baseURL);
}

/**
 * TemporalRunsGoing lists the runs of the workflow saved at path going on
 * the Temporal service that the app does not follow (one it followed
 * before it was closed, or one started elsewhere).
 */
export function TemporalRunsGoing(path: string): Promise<service.GoingRun[] | null> {
  return bound('TemporalRunsGoing')(path);
}

/**
 * TestConnection checks the model endpoint with the values in the
 * Preferences form (not yet saved). apiKey nil uses the stored key, but only
 * where llm.StoredKey allows it: at the saved endpoint, or at another one
 * when the person confirmed sending it there (sendStoredKey); a pointer to
 * "" tests without a key.
 */
export function TestConnection(cfg: settings.LLM, apiKey: string | null, sendStoredKey: boolean): Promise<llm.ConnectionInfo> {
  return bound('TestConnection')(cfg, apiKey, sendStoredKey);
}

/**
 * ToolCatalog lists the tools a Tool node can call: the built-ins and
 * (run issue: see ToolCatalogFull in app_run.go) the MCP servers' tools.
 */
export function ToolCatalog(): Promise<tools.Tool[] | null> {
  return bound('ToolCatalog')();
}

/**
 * ToolCatalogFull lists the built-in tools and those of the configured MCP
 * servers (as server.tool). Servers are started to ask (within 20s) and the
 * answer is kept for a few minutes; a server that fails is left out with a
 * warning, and without settings only the built-ins are listed.
 */
export function ToolCatalogFull(): Promise<service.CatalogResult> {
  return bound('ToolCatalogFull')();
}

/**
 * UpdateSchedules makes the schedules of the file saved at path run it as
 * it is now, after the checks a new schedule gets; approved are the
 * fingerprints the person approved of what waited (the approval dialog).
 */
export function UpdateSchedules(path: string, approved: string[] | null): Promise<service.ScheduleUpdateResult> {
  return bound('UpdateSchedules')(path, approved);
}

/**
 * ValidateWorkflow checks w against the tool catalog and the names of
 * the stored secrets (a reference to one the store lacks is a warning);
 * path is its file ("" unsaved), beside which a Workflow node's file is
 * looked for.
 */
export function ValidateWorkflow(w: workflow.Workflow, path: string): Promise<validate.Result> {
  return bound('ValidateWorkflow')(w, path);
}

/**
 * WorkflowFileTrust is the trust of the workflow file at path ("" for an
 * unsaved workflow: trusted, made in Weft), for the editor's banner.
 */
export function WorkflowFileTrust(path: string): Promise<service.FileTrust> {
  return bound('WorkflowFileTrust')(path);
}

/** WorkflowInputs returns the inputs w declares, for the Run form. */
export function WorkflowInputs(w: workflow.Workflow): Promise<main.InputsForm> {
  return bound('WorkflowInputs')(w);
}

/**
 * WorkflowSecrets lists the secrets w refers to, which of them this
 * computer lacks and the hosts and tools their uses suggest (never a
 * value): the editor asks for the missing ones when a workflow opens and
 * before it runs.
 */
export function WorkflowSecrets(w: workflow.Workflow): Promise<service.NeededSecret[] | null> {
  return bound('WorkflowSecrets')(w);
}
