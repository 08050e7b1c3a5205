package planner

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Limits of the planning loop.
const (
	// MaxRepairAttemptsLimit caps Config.MaxRepairAttempts: the
	// setting's own bound, written once (settings.MaxRepairAttempts).
	MaxRepairAttemptsLimit = settings.MaxRepairAttempts
	// DefaultTokenBudget bounds the tokens one PlanWorkflow may spend across all its
	// calls when Config.TokenBudget is 0: about ten calls of a mid-sized
	// catalog prompt, far more than a healthy plan needs.
	DefaultTokenBudget = 60_000
)

// ErrConfig marks a PlanWorkflow call that cannot work as configured (no client,
// empty goal). The CLI reports it like a transport error.
var ErrConfig = errors.New("planner: not configured")

// Config tunes one PlanWorkflow call.
type Config struct {
	// MaxRepairAttempts bounds the model calls: 0 = one call whose reply is
	// parsed but not validated; 1 = one call, validated, no re-ask; N = up
	// to N calls in total. Values outside 0–MaxRepairAttemptsLimit are
	// clamped.
	MaxRepairAttempts int
	// Features gate the AI step types the model may use.
	Features Features
	// Catalog lists the tools the model may call; nil means the built-ins.
	Catalog *tools.Catalog
	// TokenBudget bounds the total tokens across calls; 0 means
	// DefaultTokenBudget. When spent, PlanWorkflow stops re-asking.
	TokenBudget int
	// Model names the model for the repair memory.
	Model string
	// Memory, when set, receives a record of this plan and supplies the
	// "Mistakes to avoid" list of the first prompt.
	Memory *Memory
	// Patterns, when set (a *failure.PatternStore), supplies the
	// "Known failure patterns" of the catalog's tools for the first
	// prompt: failures seen at run time and what resolved them.
	Patterns PatternSource
	// OnProgress, when set, is told when a call starts, when a re-ask is
	// sent and when the plan is done.
	OnProgress func(Event)
	// Logger receives debug details; nil means slog.Default().
	Logger *slog.Logger
	// ChatOptions are passed to every call (temperature, max tokens, streaming).
	ChatOptions llm.Options
	// Check, when set, judges a plan that is usable as it is (the
	// workflow's test cases): its feedback asks again; its Tests go to
	// Result.Tests.
	Check reask.Check
}

// EventKind names a progress event.
type EventKind string

const (
	EventCalling   EventKind = "calling"   // a model call starts
	EventRepairing EventKind = "repairing" // the last reply failed; a re-ask follows
	EventDone      EventKind = "done"      // PlanWorkflow is about to return
)

// Event reports progress to Config.OnProgress.
type Event struct {
	Kind    EventKind `json:"kind"`
	Attempt int       `json:"attempt"`
	Max     int       `json:"max"`
	// Reason says why a re-ask is needed (repairing) or sums up the
	// outcome (done).
	Reason string `json:"reason,omitempty"`
	// Valid is set on done when a valid plan was found.
	Valid bool `json:"valid,omitempty"`
}

// Attempt is one model call of a PlanWorkflow and what became of its reply.
type Attempt struct {
	N int `json:"n"`
	// Error says why the reply was not usable; empty when it was.
	Error string `json:"error"`
}

// Result is the outcome of PlanWorkflow.
type Result struct {
	// Valid is true when Workflow passed validation (or, with
	// MaxRepairAttempts 0, parsed: see Validated). It says nothing of
	// what the reading left out: see Unused.
	Valid bool `json:"valid"`
	// Validated is false when validation was skipped (MaxRepairAttempts 0).
	Validated bool `json:"validated"`
	// Workflow is the valid plan or, when there is none, the best draft
	// (fewest validation errors); nil when no reply could be parsed.
	Workflow *workflow.Workflow `json:"workflow"`
	// Warnings are the local repairs and drops made on Workflow's reply.
	Warnings []Warning `json:"warnings"`
	// Problems are Workflow's validation problems (errors and warnings).
	Problems []validate.Problem `json:"problems"`
	// Unused is what Workflow's reply held that the plan does not use.
	// Steps left out make the plan unusable unseen even when Valid:
	// `weft plan` exits 1 unless --allow-dropped, the desktop asks.
	Unused Unused `json:"unused"`
	// Attempts has one entry per model call that answered.
	Attempts []Attempt `json:"attempts"`
	LLMCalls int       `json:"llm_calls"`
	Usage    llm.Usage `json:"usage"`
	// Summary is one or two sentences for the user.
	Summary string `json:"summary"`
	// Tests are the workflow's test cases played against Workflow
	// (Config.Check); nil when there are none.
	Tests *reask.Tests `json:"tests,omitempty"`
}

// PlanWorkflow asks the model for a workflow that reaches goal and makes its reply
// usable, cheapest layer first: lenient parsing and local repair, then
// validation, then re-asking with precise feedback, within
// cfg.MaxRepairAttempts calls and cfg.TokenBudget tokens.
//
// A plan that stays invalid is not an error: Result.Valid is false and
// Result.Workflow holds the best draft. The error return is for transport
// and configuration errors (from the client, nothing counted as an
// attempt) and for cancellation of ctx.
func PlanWorkflow(ctx context.Context, client llm.Client, goal string, cfg Config) (Result, error) {
	if client == nil {
		return Result{}, errors.Join(ErrConfig, errors.New("no LLM client"))
	}
	goal = strings.TrimSpace(goal)
	if goal == "" {
		return Result{}, errors.Join(ErrConfig, errors.New("the goal is empty: say what the workflow should do"))
	}
	return newLoop(client, goal, cfg).run(ctx)
}
