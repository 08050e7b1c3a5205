package temporal

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// The Temporal engine drives the same walk as the local runner (package
// flow): the walk decides, this file only does what it asks, in workflow
// code (deterministic: it changes only from activity results, timers and
// signals). Two workflow types share it and differ in how a step attempt
// is done:
//
//   - weft.run.v2 (Run): one activity per attempt, the walk's retries and
//     waits as Temporal timers, so the events match the local engine's;
//     Temporal's own retry policy only re-runs an attempt lost with its
//     worker (heartbeat timeout), which does not use the step's retries.
//   - weft.run (RunV1, the first version): one activity per round of
//     attempts under Temporal's retry policy. It stays registered so the
//     runs started by older submitters finish; it issues the commands it
//     always did (replayed from recorded histories in tests).

// MaxLostAttempts is how often an attempt lost with its worker runs again
// on another worker before the step escalates.
const MaxLostAttempts = 3

// engine is one run in workflow code.
type engine struct {
	ctx   workflow.Context
	in    RunInput
	walk  *flow.Walk
	w     *wf.Workflow
	state State
	resp  workflow.ReceiveChannel
	// replans holds the plans followers made for replan answers.
	replans workflow.ReceiveChannel
	keys    []string // every node key, for conditions
	v1      bool
	// subRuns are the runs its Workflow steps started (their events say).
	subRuns []flow.RunLink
}

// Run is the Temporal workflow weft.run.v2 (WorkflowType).
func Run(ctx workflow.Context, in RunInput) (*runner.Result, error) { return run(ctx, in, false) }

// RunV1 is the first workflow type, weft.run (WorkflowTypeV1), kept for
// runs in flight.
func RunV1(ctx workflow.Context, in RunInput) (*runner.Result, error) { return run(ctx, in, true) }

func run(ctx workflow.Context, in RunInput, v1 bool) (*runner.Result, error) {
	w, _, err := wf.Parse(in.Workflow)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the workflow does not load: "+err.Error(), "weft.invalid", nil)
	}
	vr := validate.Validate(w, tools.Builtin())
	if !vr.Valid {
		ie := &runner.InvalidError{Problems: vr.Errors()}
		return nil, temporal.NewNonRetryableApplicationError(ie.Error(), "weft.invalid", nil)
	}
	warnings := in.Warnings
	if warnings == nil { // an older submitter's run: any unknown tool may be an MCP tool its worker resolves
		warnings = runner.ValidationWarnings(vr, w, func(string) bool { return true })
	}
	given, err := inputs.Resolve(w.Inputs, inputs.WithRefs(in.Inputs, in.SecretInputs), nil) // pure: the same on every replay
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "weft.invalid", nil)
	}
	info := workflow.GetInfo(ctx)
	started := workflow.Now(ctx)
	e := &engine{ctx: ctx, in: in, w: w, v1: v1, state: State{Phase: PhaseRunning, Events: []runner.Event{}},
		resp: workflow.GetSignalChannel(ctx, SignalRespond), replans: workflow.GetSignalChannel(ctx, SignalReplanned)}
	for i := range w.Nodes {
		e.keys = append(e.keys, w.Nodes[i].Key)
	}
	e.walk, err = flow.New(w, flow.Config{RunID: info.WorkflowExecution.ID, UsePinned: in.UsePinned, DefaultRetries: in.DefaultRetries,
		CanAsk: true, CanReplan: in.CanReplan, Seed: uint64(started.UnixNano()), Warnings: warnings, Inputs: given, Emit: e.emit})
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "weft.invalid", nil)
	}
	subRuns := workflow.GetSignalChannel(ctx, SignalSubRun)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var l flow.RunLink
			if !subRuns.Receive(ctx, &l) {
				return
			}
			if !slices.ContainsFunc(e.state.SubRuns, func(x flow.RunLink) bool { return x.RunID == l.RunID }) && len(e.state.SubRuns) < maxStateEvents {
				e.state.SubRuns = append(e.state.SubRuns, l)
			}
		}
	})
	if err := workflow.SetQueryHandler(ctx, QueryState, func(after int64) (State, error) { return e.view(after), nil }); err != nil {
		return nil, err
	}
	c := e.walk.Start(started)
	for c.Kind != flow.KindDone {
		c = e.walk.Next(e.do(c))
	}
	res := c.Result
	res.RunID, res.Source = info.WorkflowExecution.ID, in.Source
	res.Parent, res.SubRuns = in.Parent, e.subRuns
	res.Started, res.Finished = started, workflow.Now(ctx)
	e.state.Phase, e.state.Result = PhaseFinished, res
	return res, nil
}

// do does what the walk asked and returns its answer.
func (e *engine) do(c flow.Command) flow.Input {
	var in flow.Input
	switch c.Kind {
	case flow.KindAttempt:
		if e.v1 {
			in = e.round(c)
		} else {
			in = e.attempt(c)
		}
	case flow.KindCondition:
		in = e.condition(c.Condition)
	case flow.KindWait:
		in.Canceled = workflow.Sleep(e.ctx, c.Delay) != nil
	case flow.KindAsk:
		in = e.ask(c.Escalation)
	case flow.KindGoal:
		in = e.goal()
	case flow.KindReplan:
		in = e.replanned()
	default:
		in.Error = fmt.Sprintf("a Temporal run cannot %s", c.Kind)
	}
	in.Now = workflow.Now(e.ctx)
	in.Canceled = in.Canceled || e.ctx.Err() != nil
	return in
}

// view is the state a follower sees: the events after seq.
func (e *engine) view(after int64) State {
	v := e.state
	v.Events = []runner.Event{}
	for _, ev := range e.state.Events {
		if ev.Seq > after {
			v.Events = append(v.Events, ev)
		}
	}
	return v
}

func (e *engine) emit(ev runner.Event) {
	e.state.LastSeq++
	ev.Seq = e.state.LastSeq
	if ev.Time.IsZero() {
		ev.Time = workflow.Now(e.ctx)
	}
	e.state.Events = append(e.state.Events, ev)
	if len(e.state.Events) > maxStateEvents {
		e.state.Events = e.state.Events[len(e.state.Events)-maxStateEvents:]
	}
}

// addEvents adds what an attempt reported on its worker.
func (e *engine) addEvents(evs []runner.Event) {
	for _, ev := range evs {
		ev.Seq = 0
		if ev.SubRun != nil {
			e.subRuns = append(e.subRuns, *ev.SubRun)
		}
		e.emit(ev)
	}
}

func (e *engine) stepOptions(n *wf.Node, p *temporal.RetryPolicy) workflow.Context {
	timeout := defaultStepTimeout
	if n.TimeoutMs > 0 {
		timeout = time.Duration(n.TimeoutMs)*time.Millisecond + time.Minute
	}
	return workflow.WithActivityOptions(e.ctx, workflow.ActivityOptions{StartToCloseTimeout: timeout, HeartbeatTimeout: heartbeatTimeout, RetryPolicy: p})
}

// attempt runs one attempt as one activity. Its retry policy re-runs it
// only when it was lost with its worker (a failed attempt is a result,
// not an error), at most MaxLostAttempts times.
func (e *engine) attempt(c flow.Command) flow.Input {
	n := c.Node
	ctx := e.stepOptions(n, &temporal.RetryPolicy{MaximumAttempts: 1 + MaxLostAttempts, InitialInterval: time.Second,
		NonRetryableErrorTypes: []string{errRefused, errInvalid}})
	a := runner.Attempt{Number: c.Attempt, Max: c.MaxAttempts, Failures: c.Failures, Instruction: c.Instruction}
	if n.Type == wf.TypeTool {
		a.Arguments = n.Params.Arguments // a person's fix, merged by the walk
	}
	var acts *Activities
	var out runner.StepResult
	ai := AttemptInput{Workflow: e.in.Workflow, NodeID: n.ID, Vars: e.walk.Reads(),
		Approved: e.in.Approved, ReviewFile: e.in.ReviewFile, Dir: e.in.Dir, Attempt: a, SecretInputs: e.in.SecretInputs}
	if n.Type == wf.TypeWorkflow {
		ai.Caller = &Caller{Path: e.in.Path, Chain: e.in.Chain, Subflows: e.in.Subflows, Source: e.in.Source, DefaultRetries: e.in.DefaultRetries}
	}
	err := workflow.ExecuteActivity(ctx, acts.Attempt, ai).Get(ctx, &out)
	if err == nil {
		e.addEvents(out.Events)
		return flow.Input{Outputs: out.Outputs, Failure: out.Failure}
	}
	return e.lost(c, err)
}

// lost is the answer for an attempt that gave no result: refused by the
// worker (no answer can help: the run fails there), canceled, or lost
// with its workers more often than MaxLostAttempts.
func (e *engine) lost(c flow.Command, err error) flow.Input {
	if temporal.IsCanceledError(err) || e.ctx.Err() != nil {
		return flow.Input{Canceled: true, Failure: &failure.Record{Attempt: c.Attempt, Error: "canceled", FailureType: failure.FailExecution}}
	}
	var appErr *temporal.ApplicationError
	msg := err.Error()
	if errors.As(err, &appErr) {
		msg = appErr.Error()
		if appErr.Type() == errRefused || appErr.Type() == errInvalid {
			return flow.Input{Refused: msg}
		}
	}
	return flow.Input{Failure: &failure.Record{Attempt: c.Attempt, FailureType: failure.FailExecution,
		Error: fmt.Sprintf("the attempt was lost with its worker %d times, the last time: %s", 1+MaxLostAttempts, msg),
		Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatUnknown,
			SuggestedFix: "Check that the workers stay up for the whole step (its heartbeats stopped), then retry."}}}
}

// round is weft.run's attempt: every attempt of a round in one activity
// under Temporal's retry policy. What fails is not retried by the walk
// (Temporal did), so it goes to on_error or an escalation at once.
func (e *engine) round(c flow.Command) flow.Input {
	n := c.Node
	ctx := e.stepOptions(n, e.retryPolicyV1(n))
	raw := e.in.Workflow
	if b, err := wf.Marshal(e.w); err == nil {
		raw = b // a fix changes this run's copy only
	}
	var acts *Activities
	var out runner.StepResult
	err := workflow.ExecuteActivity(ctx, acts.Step, StepInput{Workflow: raw, NodeID: n.ID, Vars: e.walk.Reads(), Approved: e.in.Approved,
		ReviewFile: e.in.ReviewFile, Dir: e.in.Dir}).Get(ctx, &out)
	if err == nil {
		e.addEvents(out.Events)
		return flow.Input{Outputs: out.Outputs}
	}
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.HasDetails() {
		var failed runner.StepResult
		if appErr.Details(&failed) == nil && failed.Failure != nil {
			e.addEvents(failed.Events)
			fr := *failed.Failure
			fr.Retryable = false
			return flow.Input{Outputs: failed.Outputs, Failure: &fr, Canceled: e.ctx.Err() != nil}
		}
	}
	in := e.lost(c, err)
	if in.Failure != nil {
		in.Failure.Error = err.Error()
	}
	return in
}

// retryPolicyV1 is weft.run's mapping of the node's retry policy to
// Temporal's.
func (e *engine) retryPolicyV1(n *wf.Node) *temporal.RetryPolicy {
	fp := flow.PolicyOf(n, e.in.DefaultRetries)
	p := &temporal.RetryPolicy{MaximumAttempts: int32(fp.MaxAttempts), InitialInterval: fp.Initial, BackoffCoefficient: fp.Mult, MaximumInterval: fp.Max}
	if n.Retry == nil || n.Retry.MaxAttempts <= 0 {
		p.MaximumAttempts = int32(1 + e.in.DefaultRetries)
	}
	if p.MaximumInterval < p.InitialInterval {
		p.MaximumInterval = p.InitialInterval
	}
	return p
}

// condition evaluates a condition in a local activity (recorded in the
// history, so a replay reads the same value).
func (e *engine) condition(cond string) flow.Input {
	ctx := workflow.WithLocalActivityOptions(e.ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
	var out CondOutput
	var acts *Activities
	if err := workflow.ExecuteLocalActivity(ctx, acts.Condition, CondInput{Keys: e.keys, Cond: cond, Vars: e.walk.Reads(), SecretInputs: e.in.SecretInputs}).Get(ctx, &out); err != nil {
		out.Error = err.Error()
	}
	return flow.Input{Value: out.Value, Error: out.Error}
}

// goal checks the workflow's done_when on a worker (its model judges
// criteria).
func (e *engine) goal() flow.Input {
	ctx := workflow.WithActivityOptions(e.ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
	var acts *Activities
	var out GoalOutput
	if err := workflow.ExecuteActivity(ctx, acts.Goal, GoalInput{Workflow: e.in.Workflow, Vars: e.walk.Reads(), Details: e.walk.Details(), Dir: e.in.Dir, SecretInputs: e.in.SecretInputs}).Get(ctx, &out); err != nil {
		out.Error = err.Error()
	}
	switch {
	case out.Verdict != nil:
		return flow.Input{Verdict: out.Verdict}
	case out.Failure != nil:
		return flow.Input{Failure: out.Failure}
	}
	return flow.Input{Failure: &failure.Record{Error: out.Error, Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatUnknown}}}
}

// replanned is the plan the follower made for the replan answer just
// received: a worker has no planner, the person's side does, and sends
// it (SignalReplanned) before the answer, so it is already here.
func (e *engine) replanned() flow.Input {
	var a ReplanAnswer
	if !e.replans.ReceiveAsync(&a) {
		return flow.Input{Error: "no plan came with the answer: replanning is done where the run is followed with a model (the app, or weft run's prompt)"}
	}
	if a.Error != "" {
		return flow.Input{Error: a.Error}
	}
	nw, _, err := wf.Parse(a.Workflow)
	if err != nil {
		return flow.Input{Error: "the new plan does not load: " + err.Error()}
	}
	return flow.Input{Workflow: nw}
}

// ask waits, durably, for an answer to an escalation (a signal).
func (e *engine) ask(esc *runner.Escalation) flow.Input {
	e.state.Phase, e.state.Escalation = PhaseWaiting, esc
	var resp runner.Response
	more := e.resp.Receive(e.ctx, &resp)
	e.state.Phase, e.state.Escalation = PhaseRunning, nil
	if !more && e.ctx.Err() != nil {
		return flow.Input{Canceled: true}
	}
	return flow.Input{Response: resp}
}
