package flow

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// EventType names an event of a run. events.jsonl holds one Event a line.
type EventType string

const (
	EvRunStarted      EventType = "run_started"
	EvNodeStarted     EventType = "node_started"
	EvAttempt         EventType = "attempt"
	EvFailure         EventType = "failure"
	EvRetry           EventType = "retry"
	EvEscalated       EventType = "escalated"
	EvUserResponse    EventType = "user_response"
	EvResolved        EventType = "resolved"
	EvVariableSet     EventType = "variable_set"
	EvBranchEvaluated EventType = "branch_evaluated"
	EvLoopIteration   EventType = "loop_iteration"
	EvNodeFinished    EventType = "node_finished"
	EvNodeSkipped     EventType = "node_skipped"
	EvWarning         EventType = "warning"
	EvLog             EventType = "log"
	EvToolCall        EventType = "tool_call"
	EvVerdict         EventType = "verdict"
	EvRunFinished     EventType = "run_finished"
)

// NodeStatus is a node's live state, for the UI's per-node badge.
type NodeStatus string

const (
	StatusRunning   NodeStatus = "running"
	StatusOK        NodeStatus = "ok"
	StatusRetrying  NodeStatus = "retrying"
	StatusEscalated NodeStatus = "escalated" // waiting for the user
	StatusFailed    NodeStatus = "failed"
	StatusSkipped   NodeStatus = "skipped"
	StatusCanceled  NodeStatus = "canceled"
)

// Event is one thing that happened in a run. Fields not relevant to a type
// are left out of its JSON.
type Event struct {
	Seq  int64     `json:"seq"`
	Time time.Time `json:"time"`
	Type EventType `json:"type"`
	// RunID is left out of events.jsonl lines (the folder is the run);
	// readers fill it in.
	RunID    string     `json:"run_id,omitempty"`
	NodeID   string     `json:"node_id,omitempty"`
	NodeKey  string     `json:"node_key,omitempty"`
	NodeName string     `json:"node_name,omitempty"`
	Status   NodeStatus `json:"status,omitempty"`
	// Attempt is 1-based; MaxAttempts grows when the user asks for
	// another round (retry, fix).
	Attempt     int `json:"attempt,omitempty"`
	MaxAttempts int `json:"max_attempts,omitempty"`
	Iteration   int `json:"iteration,omitempty"`
	// Branch is the edge taken: IfTrue, IfFalse, the Switch case name,
	// SwitchDefault, LoopBody or LoopDone.
	Branch     string         `json:"branch,omitempty"`
	Condition  string         `json:"condition,omitempty"`
	Message    string         `json:"message,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	DelayMs    int64          `json:"delay_ms,omitempty"`
	DurationMs int64          `json:"duration_ms,omitempty"`
	Outputs    map[string]any `json:"outputs,omitempty"`
	// Arguments are what a Tool node's attempt runs with, its templates
	// filled in (attempt events): the run data the editor shows per node.
	Arguments map[string]any `json:"arguments,omitempty"`
	// Reads are the keys of the nodes whose outputs the step reads
	// (node_started; Reads): the editor shows their outputs as its input.
	Reads      []string        `json:"reads,omitempty"`
	Failure    *failure.Record `json:"failure,omitempty"`
	Escalation *Escalation     `json:"escalation,omitempty"`
	Response   *Response       `json:"response,omitempty"`
	Outcome    Outcome         `json:"outcome,omitempty"`
	Summary    *Summary        `json:"summary,omitempty"`
	Verdict    *Verdict        `json:"verdict,omitempty"`
	// Source says where a step's outputs came from when it did not run
	// (node_finished): SourcePinned or SourceReused.
	Source string `json:"source,omitempty"`
	// SubRun is the run a Workflow step started (its log event), to
	// open from the caller's run.
	SubRun *RunLink `json:"sub_run,omitempty"`
}

// RunLink names a run of another workflow: a sub-workflow's run, from
// the step of its caller's run that started it, and the caller's run from
// the sub-workflow's summary.
type RunLink struct {
	RunID string `json:"run_id"`
	// File is the workflow file the run ran; Dir the run's folder.
	File string `json:"file,omitempty"`
	Dir  string `json:"dir,omitempty"`
	// NodeKey is the caller's Workflow step.
	NodeKey string `json:"node_key,omitempty"`
}

// Where a step's outputs came from when it did not run (Event.Source).
const (
	SourcePinned = "pinned" // its pinned data (Options.UsePinned)
	SourceReused = "reused" // an earlier run's, before the start (Options.From)
)

// Action is a response to an escalation.
type Action string

const (
	// ActRetry runs the node again with a fresh set of attempts.
	ActRetry Action = "retry"
	// ActSkip marks the node skipped and goes on; nodes reading its
	// outputs are warned about.
	ActSkip Action = "skip"
	// ActAbort stops the run, keeping what it did so far.
	ActAbort Action = "abort"
	// ActFix retries with a correction: for an AI node the instruction is
	// priority guidance; for a Tool node the arguments (a JSON object) are
	// merged into its arguments (RFC 7396: null removes a key).
	ActFix Action = "fix"
	// ActReplan asks the Replanner for a new workflow; the run then ends
	// with OutcomeReplanned.
	ActReplan Action = "replan"
)

// Response is the user's answer to an escalation.
type Response struct {
	Action      Action         `json:"action"`
	Instruction string         `json:"instruction,omitempty"`
	Arguments   map[string]any `json:"arguments,omitempty"`
}

// ParseResponse reads a typed answer: "retry", "skip", "abort", "replan",
// "fix: <instruction>" or "fix {json arguments}" (also the first letter of
// the first four).
func ParseResponse(s string) (Response, error) {
	s = strings.TrimSpace(s)
	word, rest, _ := strings.Cut(s, " ")
	if i := strings.IndexByte(word, ':'); i >= 0 {
		word, rest = word[:i], strings.TrimSpace(s[i+1:])
	}
	rest = strings.TrimSpace(rest)
	switch strings.ToLower(word) {
	case "retry", "r":
		return Response{Action: ActRetry}, nil
	case "skip", "s":
		return Response{Action: ActSkip}, nil
	case "abort", "a", "q", "quit":
		return Response{Action: ActAbort}, nil
	case "replan":
		return Response{Action: ActReplan}, nil
	case "fix", "f":
		if rest == "" {
			return Response{}, fmt.Errorf("fix needs an instruction or a JSON object of arguments: fix: <instruction>")
		}
		resp := Response{Action: ActFix, Instruction: rest}
		if strings.HasPrefix(rest, "{") {
			var args map[string]any
			if err := json.Unmarshal([]byte(rest), &args); err != nil {
				return Response{}, fmt.Errorf("fix arguments are not a JSON object: %v", err)
			}
			resp.Arguments = args
		}
		return resp, nil
	}
	return Response{}, fmt.Errorf("unknown response %q: answer retry, skip, abort, replan or fix: <instruction>", s)
}

// Escalation is what the runner asks the user when automated recovery is
// exhausted or cannot help (seed 003's escalation message). The run is held
// until the handler answers.
type Escalation struct {
	RunID    string            `json:"run_id"`
	NodeID   string            `json:"node_id"`
	NodeKey  string            `json:"node_key"`
	NodeName string            `json:"node_name"`
	NodeType workflow.NodeType `json:"node_type"`
	Tool     string            `json:"tool,omitempty"`
	// Reason is "max_attempts" (the attempts ran out) or "not_retryable"
	// (the failure cannot be fixed by trying again).
	Reason      string           `json:"reason"`
	Attempts    int              `json:"attempts"`
	MaxAttempts int              `json:"max_attempts"`
	Failures    []failure.Record `json:"failures"`
	LastError   string           `json:"last_error"`
	failure.Classification
	// KnownFixes are responses that resolved similar failures before.
	KnownFixes []failure.Pattern `json:"known_fixes,omitempty"`
	// Notice explains why the previous response was not accepted, when
	// the handler is asked again.
	Notice    string   `json:"notice,omitempty"`
	CanReplan bool     `json:"can_replan"`
	Choices   []Action `json:"choices"`
}

// Outcome is how a run ended.
type Outcome string

const (
	OutcomeSucceeded Outcome = "succeeded"
	OutcomeFailed    Outcome = "failed"
	OutcomeAborted   Outcome = "aborted"
	OutcomeCanceled  Outcome = "canceled"
	OutcomeReplanned Outcome = "replanned"
	// OutcomePartial is a run that went to its end but not cleanly: a
	// step was skipped after a failure, or failed and was handled by its
	// on_error (continue or branch), or the person accepted a result whose
	// done_when did not hold. It is not a success (amber, exit status 1).
	OutcomePartial Outcome = "partial"
	// OutcomeNeedsReview is a scheduled run refused before any step ran:
	// the file's content is not what was approved when the schedule was
	// made (exit status 1). Scheduling it again approves the new content.
	OutcomeNeedsReview Outcome = "needs_review"
)

// Outcomes are every outcome, success first: what lists of outcomes
// (weft stats --runs) go through.
var Outcomes = []Outcome{OutcomeSucceeded, OutcomePartial, OutcomeFailed, OutcomeAborted, OutcomeCanceled, OutcomeReplanned, OutcomeNeedsReview}

// RunSource says who started a run (Result.Source, summary.json), so a
// list never shows a run the person started as a schedule's.
type RunSource string

const (
	// RunByPerson is a run the person started: the editor, weft run.
	RunByPerson RunSource = "manual"
	// RunBySchedule is a run a schedule started (the OS scheduler's
	// weft run --source schedule, or a Temporal Schedule).
	RunBySchedule RunSource = "schedule"
	// RunByMCP is a run an agent started through weft mcp serve.
	RunByMCP RunSource = "mcp"
	// RunByTrigger is a run a workflow's trigger started (a signed
	// webhook or a watched folder, through weft serve).
	RunByTrigger RunSource = "trigger"
)

// Verdict is the check of a done_when (seed 002's critic): by its
// condition (no model) and/or its criteria (the model judges).
type Verdict struct {
	// NodeKey is set for a step's done_when; empty for the workflow's.
	NodeKey  string `json:"node_key,omitempty"`
	Approved bool   `json:"approved"`
	// Confidence is the model's, 0..1; 1 for a condition.
	Confidence  float64  `json:"confidence"`
	Feedback    string   `json:"feedback,omitempty"`
	Suggestions []string `json:"suggestions,omitempty"`
	// CheckedBy is "condition", "model" or "condition+model".
	CheckedBy string `json:"checked_by"`
	Condition string `json:"condition,omitempty"`
	Criteria  string `json:"criteria,omitempty"`
	// Accepted is set when the person accepted a rejected result.
	Accepted bool `json:"accepted,omitempty"`
}

// NodeRef names a node in results and summaries.
type NodeRef struct {
	ID   string `json:"id"`
	Key  string `json:"key"`
	Name string `json:"name,omitempty"`
}

// Result is what Run returns.
type Result struct {
	RunID   string  `json:"run_id"`
	Dir     string  `json:"dir"`
	Outcome Outcome `json:"outcome"`
	// Error says why a run that did not succeed stopped.
	Error string `json:"error,omitempty"`
	// StoppedAt is the node the run stopped at (failed, aborted,
	// canceled, replanned).
	StoppedAt *NodeRef `json:"stopped_at,omitempty"`
	// Outputs are the final variables by node key.
	Outputs map[string]any `json:"outputs"`
	// Inputs are the values the run was given for the workflow's
	// declared inputs; a secret one (writeOnly, or format password) is
	// redact.Placeholder.
	Inputs    map[string]any     `json:"inputs,omitempty"`
	Completed []string           `json:"completed"`
	Summary   Summary            `json:"summary"`
	Replanned *workflow.Workflow `json:"replanned,omitempty"`
	// Verdict is the check of the workflow's done_when, when it has one
	// and every step ran.
	Verdict  *Verdict  `json:"verdict,omitempty"`
	Warnings []string  `json:"warnings,omitempty"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished"`
	// Source is who started the run (Options.Source).
	Source RunSource `json:"source,omitempty"`
	// Parent is the run whose Workflow step ran this one, for a
	// sub-workflow's run; SubRuns are the runs this one's Workflow steps
	// started, in order.
	Parent  *RunLink  `json:"parent,omitempty"`
	SubRuns []RunLink `json:"sub_runs,omitempty"`
	// Live are the outputs of the steps that completed (ran, or were
	// reused before From), by key, before redaction: the application
	// layer keeps them in memory for the next "run from here". They are
	// never written, sent or shown (Outputs is what may be).
	Live map[string]any `json:"-"`
}

// Summary is seed 003's retry statistics for one run. Counts are per
// execution: a step in a loop that ran ten times counts ten.
type Summary struct {
	// Ran counts the nodes that ran: each execution of a step (in a
	// loop, each time; not one pinned data stood in for) and each
	// decision of an If or Switch, and each Loop once per start. It is
	// the count a person is told ("3 nodes ran"); Nodes, the step
	// executions, is the base of the retry statistics.
	Ran                   int `json:"ran"`
	Nodes                 int `json:"nodes"`
	FirstAttemptSuccesses int `json:"first_attempt_successes"`
	Retried               int `json:"retried"`
	RetrySuccesses        int `json:"retry_successes"`
	Escalations           int `json:"escalations"`
	Skipped               int `json:"skipped"`
	// Handled counts failures the node's on_error took (continue or
	// branch) instead of stopping the run.
	Handled      int                      `json:"handled"`
	Disabled     int                      `json:"disabled"`
	Failed       int                      `json:"failed"`
	FailureTypes map[failure.Type]int     `json:"failure_types"`
	Categories   map[failure.Category]int `json:"categories"`
	// Details has one row per step node that ran, in first-run order.
	Details []NodeStat `json:"details"`
	// Edges are the edges the walk took and how often (each loop
	// iteration counts), in first-taken order; an edge not listed was
	// not taken. The editor draws the counts on the canvas.
	Edges      []EdgeCount `json:"edges,omitempty"`
	DurationMs int64       `json:"duration_ms"`
	// Pinned counts the step executions that used pinned data instead of
	// running; Reused the steps before From whose outputs came from an
	// earlier run (ReusedFrom). From is where a run from a node started.
	Pinned     int      `json:"pinned,omitempty"`
	Reused     int      `json:"reused,omitempty"`
	From       *NodeRef `json:"from,omitempty"`
	ReusedFrom string   `json:"reused_from,omitempty"`
}

// NodeStat is one row of the summary's retry details.
type NodeStat struct {
	NodeRef
	Executions int    `json:"executions"`
	Attempts   int    `json:"attempts"`
	Failures   int    `json:"failures"`
	Result     string `json:"result"` // of the last execution: ok, ok_after_retry, skipped, failed, handled, aborted, canceled, disabled, pinned, reused
}

// EdgeCount is an edge of the workflow (by its ends and label, as the
// document has it) and how many times a run took it.
type EdgeCount struct {
	From   string               `json:"from"`
	To     string               `json:"to"`
	Output *workflow.EdgeOutput `json:"output,omitempty"`
	Taken  int                  `json:"taken"`
}

// GoalCheckKey names the workflow's goal check in events and escalations;
// it is not a valid node key ("done_when" is, so the dot keeps them apart).
const GoalCheckKey = "done_when"

// GoalCheckNode stands for the workflow's done_when where the runner
// speaks of a node (events, escalation, replan request). Its id is empty:
// it is on no canvas.
func GoalCheckNode() *workflow.Node {
	return &workflow.Node{Key: GoalCheckKey, Name: "Goal check (done_when)", Type: workflow.TypeGoalCheck}
}

// Line is the one-line form of a verdict, for logs and the CLI.
func (v *Verdict) Line() string {
	state := "met"
	if !v.Approved {
		state = "not met"
		if v.Accepted {
			state = "not met, accepted"
		}
	}
	s := fmt.Sprintf("goal check %s (%s", state, v.CheckedBy)
	if strings.Contains(v.CheckedBy, "model") {
		s += fmt.Sprintf(", %.0f%% confident", v.Confidence*100)
	}
	s += ")"
	if v.Feedback != "" {
		s += ": " + Truncate(v.Feedback, 300)
	}
	return s
}
