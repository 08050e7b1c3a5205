// The types of what the Go side sends and takes: generated from the Go
// types (gen/bindings.ts, `make types`), here under the names the UI uses.
// Only types with no Go counterpart are written here, and Filled: Go writes
// a nil list as null, so the lists a result may hold are `T[] | null`; the
// api module puts [] in their place and says so with Filled.
import type { approval, assistant, credentials, examples, failure, flow, inputs, llm, main, planner, reask, schedule, service, settings, testcase, tools, validate, workflow } from './gen/bindings';

/** T with the members K neither null nor absent (api.ts filled them in). */
export type Filled<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };

// --- Workflow documents (backend/workflow) ---

/** The types of the nodes a file holds, in palette order (workflow.NodeTypes);
 * a node's type in Go also names the goal check's stand-in in run events. */
export const NODE_TYPES = ['Tool', 'AiStep', 'AiTransform', 'Workflow', 'If', 'Switch', 'Loop', 'EndLoop'] as const satisfies readonly PaletteType[];
export type NodeType = (typeof NODE_TYPES)[number];
type PaletteType = Exclude<workflow.NodeType, 'DoneWhen'>;
/** Compiles only while NODE_TYPES has every type Go has (but the goal check's). */
export const NODE_TYPES_COMPLETE: [Exclude<PaletteType, NodeType>] extends [never] ? true : false = true;

export const OUTPUT_TYPES = ['IfTrue', 'IfFalse', 'LoopBody', 'LoopDone', 'SwitchCase', 'SwitchDefault', 'Error'] as const satisfies readonly workflow.OutputType[];
export type OutputType = workflow.OutputType;
/** Compiles only while OUTPUT_TYPES has every type Go has. */
export const OUTPUT_TYPES_COMPLETE: [Exclude<OutputType, (typeof OUTPUT_TYPES)[number]>] extends [never] ? true : false = true;

export type OnError = workflow.OnError;
export type DoneWhen = workflow.DoneWhen;
export type Position = workflow.Position;
export type SwitchCase = workflow.SwitchCase;
export type Params = workflow.Params;
export type Backoff = workflow.Backoff;
export type Retry = workflow.Retry;
export type WorkflowNode = workflow.Node;
export type EdgeOutput = workflow.EdgeOutput;
export type WorkflowEdge = workflow.Edge;
export type Workflow = workflow.Workflow;

/** isEnabled mirrors Node.IsEnabled: absent means enabled. */
export function isEnabled(n: WorkflowNode): boolean {
  return n.enabled !== false;
}

/** A workflow opened (main.OpenResult), or restored from an autosave: then it has no file trust. */
export type OpenResult = Omit<Filled<main.OpenResult, 'warnings'>, 'file'> & { file?: FileTrust };
export type FileTrust = service.FileTrust;

// --- Validation, tools, settings ---

export type Severity = validate.Severity;
export type Problem = validate.Problem;
/** A name a text of a node may read at its place (Go's validate.References). */
export type Reference = validate.Reference;
/** Which text of a node: '' its arguments, prompt, input or condition. */
export type RefPlace = '' | 'verify' | 'done_when' | 'exit_condition';
export type ValidationResult = Filled<validate.Result, 'problems'>;
export type ToolField = tools.Field;
export type Tool = tools.Tool;
export type MCPServer = settings.MCPServer;
export type Settings = settings.Settings;
export type EngineSettings = settings.Engine;
export type SettingsView = Filled<main.SettingsView, 'warnings'>;

// --- Assistant and Preferences (backend/assistant, backend/llm, app_assistant.go) ---

export type StageWarning = planner.Warning;
export type WorkflowPatch = assistant.WorkflowPatch;
export type PatchDiff = assistant.Diff;
export type ChangeValue = assistant.Value;
export type FieldChange = assistant.FieldChange;
export type NodeChange = assistant.NodeChange;
export type EdgeChange = assistant.EdgeChange;
export type ChangeSet = assistant.ChangeSet;
/** a workflow's test cases played against a proposal, for its review */
export type ProposalTests = reask.Tests;
export type AssistantKind = assistant.Kind;
export type AssistantResult = Filled<assistant.Result, 'warnings' | 'problems'>;
export type AssistantTry = assistant.Try;
export type ChatMessage = assistant.ChatMessage;
export type ChatHistory = Filled<main.ChatHistory, 'messages' | 'warnings'>;
export type PatchPreview = Filled<main.PatchPreview, 'workflow' | 'warnings' | 'problems'>;
export type AppliedPatch = Filled<main.AppliedPatch, 'workflow' | 'warnings'>;
/** The "assistant:progress" event. */
export type AssistantProgress = assistant.Progress;
export type ConnectionInfo = llm.ConnectionInfo;
export type KeyUse = llm.KeyUse;
export type LocalServer = Filled<llm.LocalServer, 'models'>;

// --- Editor session (app_session.go) ---

export type RecentFile = main.RecentFile;
export type AutosaveView = Filled<main.AutosaveView, 'warnings'>;

// --- Run (app_run.go, backend/service, backend/runner) ---

export type RunEventType = flow.EventType;
export type RunNodeStatus = flow.NodeStatus;
export type RunOutcome = flow.Outcome;
export type Verdict = flow.Verdict;
export type FailureSeverity = failure.Severity;
export type FailureRecord = failure.Record;
export type RunAction = flow.Action;
export type RunResponse = flow.Response;
export type KnownFix = failure.Pattern;
export type Escalation = flow.Escalation;
/** The "run:escalation" event: answer it with respondEscalation(id, …). */
export type RunEscalation = service.Escalation;
export type NodeRef = flow.NodeRef;
export type NodeStat = flow.NodeStat;
/** how often a run took an edge (Summary.edges) */
export type EdgeCount = flow.EdgeCount;
export type RunSummary = flow.Summary;
/** One "run:event". */
export type RunEvent = flow.Event;
export type Provenance = approval.Provenance;
export type ApprovalStep = approval.Step;
export type ApprovalDisplay = approval.Display;
export type DisplayField = approval.Field;
export type RunStart = Filled<service.StartResult, 'problems' | 'approval' | 'warnings'>;
export type NeededSecret = service.NeededSecret;
/** A workflow's declared input, as its Run form asks for it. */
export type InputField = inputs.Field;
/** Why an input (or the inputs schema) was refused. */
export type InputProblem = inputs.Problem;
export type InputsForm = Filled<main.InputsForm, 'fields' | 'problems' | 'secrets'>;
/** The "run:finished" event. */
export type RunFinished = service.Finished;
/** The "run:replanned" event: a new plan, as a change to review. */
export type RunReplan = service.Replan;
export type RunStatusView = service.Status;
export type RunRecord = service.Record;
/** A run of another workflow file: a sub-workflow's, or its caller's. */
export type RunLink = flow.RunLink;
export type RunHistory = Filled<service.History, 'runs' | 'warnings'>;
export type RunLogFile = Filled<service.Log, 'events' | 'warnings'>;
export type ToolCatalogResult = Filled<service.CatalogResult, 'tools' | 'warnings'>;
/** A step's outputs in the last run, to pin. */
export type PinSource = Filled<main.PinSource, 'outputs'>;

// --- Tests (app_tests.go, backend/testcase) ---

/** One way a case did not do what it expects: step, what, expected against actual. */
export type TestFailure = testcase.Failure;
export type TestCaseResult = Filled<testcase.CaseResult, 'path' | 'failures'>;
export type TestReport = Omit<Filled<testcase.Report, 'unapproved'>, 'cases'> & { cases: TestCaseResult[] };
/** Playing the cases: the report, or why they could not be played. */
export type TestRun = Omit<Filled<main.TestRun, 'problems'>, 'report'> & { report: TestReport | null };
export type CaseMocks = testcase.CaseMocks;
/** The case file beside a workflow, each case's mocks as written. */
export type CaseFile = Filled<service.CaseFile, 'cases'>;
export type RecordedCase = Filled<main.RecordedCase, 'fill_in'>;

// --- Schedules (app_schedules.go, backend/service/schedules.go) ---

export type ScheduleState = service.ScheduleState;
export type ScheduleEntry = schedule.Schedule;
export type ScheduleUpdateResult = Filled<service.ScheduleUpdateResult, 'problems' | 'approval' | 'warnings' | 'updated'>;
export type SchedulesView = Filled<main.SchedulesView, 'schedules'>;
export type NewSchedule = main.NewSchedule;
export type ShownEntry = service.ShownEntry;
export type ScheduleResult = Filled<service.ScheduleResult, 'problems' | 'approval' | 'warnings'>;
export type CronPreview = Filled<main.CronPreview, 'next'>;
export type GoingRun = service.GoingRun;

// --- Secrets and Temporal credentials (app_secrets.go, app_engine.go) ---

export type SecretEntry = credentials.Secret;
export type SecretsView = Filled<main.SecretsView, 'secrets'>;
export type TemporalCredentials = main.TemporalCredentials;

// --- The examples gallery (backend/examples) ---

/** One workflow of the gallery: its file (OpenExample's argument), name and goal. */
export type Example = examples.Example;
