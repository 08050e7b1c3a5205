package runner

import (
	"context"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/workflow"
)

// The run's data types live in package flow (the walk both engines share);
// these names keep the runner's callers reading as before.

type (
	EventType  = flow.EventType
	NodeStatus = flow.NodeStatus
	Event      = flow.Event
	Action     = flow.Action
	Response   = flow.Response
	Escalation = flow.Escalation
	Outcome    = flow.Outcome
	RunSource  = flow.RunSource
	Verdict    = flow.Verdict
	NodeRef    = flow.NodeRef
	Result     = flow.Result
	Summary    = flow.Summary
	NodeStat   = flow.NodeStat
)

const (
	EvRunStarted       = flow.EvRunStarted
	EvNodeStarted      = flow.EvNodeStarted
	EvAttempt          = flow.EvAttempt
	EvFailure          = flow.EvFailure
	EvRetry            = flow.EvRetry
	EvEscalated        = flow.EvEscalated
	EvUserResponse     = flow.EvUserResponse
	EvResolved         = flow.EvResolved
	EvVariableSet      = flow.EvVariableSet
	EvBranchEvaluated  = flow.EvBranchEvaluated
	EvLoopIteration    = flow.EvLoopIteration
	EvNodeFinished     = flow.EvNodeFinished
	EvNodeSkipped      = flow.EvNodeSkipped
	EvWarning          = flow.EvWarning
	EvLog              = flow.EvLog
	EvToolCall         = flow.EvToolCall
	EvVerdict          = flow.EvVerdict
	EvRunFinished      = flow.EvRunFinished
	StatusRunning      = flow.StatusRunning
	StatusOK           = flow.StatusOK
	StatusRetrying     = flow.StatusRetrying
	StatusEscalated    = flow.StatusEscalated
	StatusFailed       = flow.StatusFailed
	StatusSkipped      = flow.StatusSkipped
	StatusCanceled     = flow.StatusCanceled
	SourcePinned       = flow.SourcePinned
	SourceReused       = flow.SourceReused
	ActRetry           = flow.ActRetry
	ActSkip            = flow.ActSkip
	ActAbort           = flow.ActAbort
	ActFix             = flow.ActFix
	ActReplan          = flow.ActReplan
	OutcomeSucceeded   = flow.OutcomeSucceeded
	OutcomeFailed      = flow.OutcomeFailed
	OutcomeAborted     = flow.OutcomeAborted
	OutcomeCanceled    = flow.OutcomeCanceled
	OutcomeReplanned   = flow.OutcomeReplanned
	OutcomePartial     = flow.OutcomePartial
	OutcomeNeedsReview = flow.OutcomeNeedsReview
	RunByPerson        = flow.RunByPerson
	RunBySchedule      = flow.RunBySchedule
	RunByMCP           = flow.RunByMCP
	RunByTrigger       = flow.RunByTrigger
)

// Outcomes are every outcome, success first.
var Outcomes = flow.Outcomes

// ParseResponse reads a typed answer (flow.ParseResponse).
func ParseResponse(s string) (Response, error) { return flow.ParseResponse(s) }

// EscalationHandler answers escalations; the desktop app and the CLI
// implement it. Escalate blocks the run until it returns; an error (for
// example ctx ending) cancels the run.
type EscalationHandler interface {
	Escalate(ctx context.Context, e Escalation) (Response, error)
}

// HandlerFunc adapts a function to EscalationHandler.
type HandlerFunc func(ctx context.Context, e Escalation) (Response, error)

// Escalate calls f.
func (f HandlerFunc) Escalate(ctx context.Context, e Escalation) (Response, error) { return f(ctx, e) }

// Replanner makes a new workflow after a failure; the planner implements
// it. The runner never runs the new workflow itself: it ends with
// OutcomeReplanned and returns it in Result.Replanned, for the caller to
// show, approve and run.
type Replanner interface {
	Replan(ctx context.Context, req failure.ReplanRequest) (*workflow.Workflow, error)
}

func (o *Options) source() RunSource {
	if o.Source == "" {
		return RunByPerson
	}
	return o.Source
}
