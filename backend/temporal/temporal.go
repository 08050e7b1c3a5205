// Package temporal runs weft/v1 workflows on Temporal (issue 13): a
// Temporal workflow drives the same walk as the local runner (package
// flow: branches, loops, retries, on_error, escalations, the goal check)
// and does only what it asks, deterministically: each step attempt is an
// activity (runner.Step: the same tools, templates, verify, redaction and
// approval gate as a local run), conditions are local activities
// (runner.EvalCondition), waits between attempts are timers, and an
// escalation waits, durably, for an answer by signal (retry, skip, abort,
// fix, replan). The run carries its workflow's content, so editing the
// file does not change runs in flight.
package temporal

import (
	"encoding/json"

	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/subflow"
)

// Names shared by workers and clients.
const (
	DefaultTaskQueue = "weft"
	// WorkflowType is the workflow runs are started as; WorkflowTypeV1,
	// the first one, stays registered for runs in flight (interpreter.go).
	WorkflowType   = "weft.run.v2"
	WorkflowTypeV1 = "weft.run"
	// SignalRespond carries a runner.Response to the escalation waiting.
	SignalRespond = "weft.respond"
	// SignalReplanned carries a ReplanAnswer: the new plan a follower
	// made with its model for a replan answer, sent just before it.
	SignalReplanned = "weft.replanned"
	// SignalSubRun carries a flow.RunLink: a Workflow step's attempt
	// started that sub-workflow's run (children.go), which a follower
	// follows while the step waits for it.
	SignalSubRun = "weft.subrun"
	// QueryState returns the run's State.
	QueryState = "weft.state"
)

// RunInput is what a run is started with.
type RunInput struct {
	// Workflow is the weft/v1 document, as approved and submitted.
	Workflow json.RawMessage `json:"workflow"`
	// Approved are the fingerprints of the model-written steps approved
	// before submitting; the worker's gate checks the content against
	// them (runner.Options.Approvals).
	Approved []string `json:"approved"`
	// ReviewFile: the file was reviewed as a whole (not trusted as it
	// was), so the gate judges every step that acts or routes.
	ReviewFile bool `json:"review_file,omitempty"`
	// UsePinned uses pinned data instead of running those steps.
	UsePinned bool `json:"use_pinned"`
	// Dir is where relative paths start on the worker ("" = its own
	// working folder).
	Dir string `json:"dir"`
	// Path is the workflow's file on the submitter's machine ("" when
	// unsaved or unknown): where its run log goes there.
	Path string `json:"path,omitempty"`
	// DefaultRetries applies to steps without a retry policy (the
	// submitter's run.default_retries).
	DefaultRetries int `json:"default_retries"`
	// Source is who started the run (manual, schedule), recorded in its
	// result; "" in runs submitted before it was kept.
	Source runner.RunSource `json:"source,omitempty"`
	// CanReplan: the submitter has a planner (a model), so replan is
	// offered; the follower makes the plan and sends it (SignalReplanned).
	CanReplan bool `json:"can_replan,omitempty"`
	// Inputs are the values of the workflow's declared inputs, as the
	// submitter resolved them (inputs.Resolve: defaults applied, checked);
	// the run checks them again. nil in runs submitted before inputs
	// existed, and in runs of workflows without inputs.
	Inputs map[string]any `json:"inputs,omitempty"`
	// SecretInputs are the secret inputs given a stored secret, by name
	// (input → secret: inputs.Split); the worker opens one only where
	// the secret is bound, as {{secrets.NAME}} in that place.
	SecretInputs map[string]string `json:"secret_inputs,omitempty"`
	// Warnings are the run's first warnings, from the submitter, which
	// knows the MCP servers the person configured (runner.StartWarnings);
	// nil in runs submitted before they were sent.
	Warnings []string `json:"warnings,omitempty"`
	// Subflows are the files the run's Workflow steps reach, read and
	// judged by the submitter (children.go); Chain the files of the runs
	// this one is inside, outermost first; Parent the run whose Workflow
	// step started it.
	Subflows *subflow.Bundle `json:"subflows,omitempty"`
	Chain    []string        `json:"chain,omitempty"`
	Parent   *flow.RunLink   `json:"parent,omitempty"`
}

// ReplanAnswer is a follower's replan for a run's replan answer: the new
// workflow, already marked as replanned, or why there is none.
type ReplanAnswer struct {
	Workflow json.RawMessage `json:"workflow,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// WorkflowTypes are every workflow type of a Weft run.
var WorkflowTypes = []string{WorkflowType, WorkflowTypeV1}

// AttemptInput is one step attempt's input (weft.run.v2).
type AttemptInput struct {
	Workflow   json.RawMessage `json:"workflow"`
	NodeID     string          `json:"node_id"`
	Vars       map[string]any  `json:"vars"`
	Approved   []string        `json:"approved"`
	ReviewFile bool            `json:"review_file,omitempty"`
	Dir        string          `json:"dir"`
	Attempt    runner.Attempt  `json:"attempt"`
	// Caller is set for a Workflow step: what its child's run needs.
	Caller *Caller `json:"caller,omitempty"`
	// SecretInputs are the run's (RunInput.SecretInputs), over Vars' inputs.
	SecretInputs map[string]string `json:"secret_inputs,omitempty"`
}

// StepInput is one round of a step's attempts (weft.run).
type StepInput struct {
	Workflow   json.RawMessage `json:"workflow"`
	NodeID     string          `json:"node_id"`
	Vars       map[string]any  `json:"vars"`
	Approved   []string        `json:"approved"`
	ReviewFile bool            `json:"review_file,omitempty"`
	Dir        string          `json:"dir"`
}

// CondInput is one condition to evaluate over the outputs so far; Keys
// are every node key of the workflow.
type CondInput struct {
	Keys []string       `json:"keys"`
	Cond string         `json:"cond"`
	Vars map[string]any `json:"vars"`
	// SecretInputs are the run's (RunInput.SecretInputs), over Vars' inputs.
	SecretInputs map[string]string `json:"secret_inputs,omitempty"`
}

// GoalInput is the workflow's done_when to check at the end of a run.
type GoalInput struct {
	Workflow json.RawMessage   `json:"workflow"`
	Vars     map[string]any    `json:"vars"`
	Details  []runner.NodeStat `json:"details"`
	Dir      string            `json:"dir"`
	// SecretInputs are the run's (RunInput.SecretInputs), over Vars' inputs.
	SecretInputs map[string]string `json:"secret_inputs,omitempty"`
}

// GoalOutput is the verdict, or why there is none.
type GoalOutput struct {
	Verdict *runner.Verdict `json:"verdict,omitempty"`
	Error   string          `json:"error,omitempty"`
	// Failure is why it could not be checked, classified as Run does.
	Failure *failure.Record `json:"failure,omitempty"`
}

// CondOutput is a condition's value, or why it could not be evaluated.
type CondOutput struct {
	Value bool   `json:"value"`
	Error string `json:"error,omitempty"`
}

// State is what a run shows while it goes (QueryState): its events after
// a seq, the escalation waiting and, at the end, the result.
type State struct {
	Phase      string             `json:"phase"` // running, waiting, finished
	Events     []runner.Event     `json:"events"`
	LastSeq    int64              `json:"last_seq"`
	Escalation *runner.Escalation `json:"escalation,omitempty"`
	Result     *runner.Result     `json:"result,omitempty"`
	// SubRuns are the runs of sub-workflows its steps started so far
	// (SignalSubRun): the step's own events name them only once it ends.
	SubRuns []flow.RunLink `json:"sub_runs,omitempty"`
}

// Phases of State.
const (
	PhaseRunning  = "running"
	PhaseWaiting  = "waiting"
	PhaseFinished = "finished"
)

// maxStateEvents bounds the events a run keeps for its followers: the
// workflow history has every step's result.
const maxStateEvents = 5000

// heartbeatEvery is how often a step attempt tells the server it lives;
// heartbeatTimeout after the last one the attempt is given to another
// worker (a lost worker is noticed).
const (
	heartbeatEvery   = 2 * time.Second
	heartbeatTimeout = 10 * time.Second
	// defaultStepTimeout bounds a step without timeout_ms.
	defaultStepTimeout = 24 * time.Hour
)
