package temporal

import (
	"context"
	"fmt"
	"maps"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// Activities run on a worker: each step attempt, and the conditions (as
// local activities, so the workflow code stays free of timers).
type Activities struct {
	// Options gives the runner options of the worker (settings, model
	// client, MCP servers); Approvals and Dir are set per run.
	Options func() runner.Options
}

// Errors a step activity gives when it will not run the step at all.
const (
	errRefused = "weft.refused" // not approved, not a step: trying again cannot help
	errInvalid = "weft.invalid" // the run's workflow does not load
)

// Attempt runs one attempt of a step (weft.run.v2): a failed attempt is
// a result, not an error, so Temporal re-runs the activity only when it
// was lost with its worker (heartbeat timeout); the events of such a
// re-run say so.
func (a *Activities) Attempt(ctx context.Context, in AttemptInput) (*runner.StepResult, error) {
	w, opts, err := a.setup(in.Workflow, in.Dir)
	if err != nil {
		return nil, err
	}
	opts.Approvals, opts.ReviewFile = approval.Set(setOf(in.Approved)), in.ReviewFile
	if c := in.Caller; c != nil { // a Workflow step: its child runs on Temporal too
		info := activity.GetInfo(ctx)
		opts.WorkflowPath, opts.Chain = c.Path, c.Chain
		opts.Children = children{client: activity.GetClient(ctx), queue: info.TaskQueue, parentID: info.WorkflowExecution.ID,
			attemptID: info.ActivityID, in: *c}
	}
	defer heartbeat(ctx)()
	res, err := runner.New(opts).Step(ctx, w, in.NodeID, withRefs(in.Vars, in.SecretInputs), in.Attempt)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, err)
	}
	if lost := int(activity.GetInfo(ctx).Attempt) - 1; lost > 0 {
		n := w.NodeByID(in.NodeID)
		note := runner.Event{Type: runner.EvWarning, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Time: time.Now(),
			Message: fmt.Sprintf("attempt %d ran again on another worker: the worker running it was lost (%d of %d such re-runs; they do not count as attempts)", in.Attempt.Number, lost, MaxLostAttempts)}
		res.Events = append([]runner.Event{note}, res.Events...)
	}
	return res, nil
}

// heartbeat tells the server the attempt lives until the returned stop
// is called: a worker that dies is noticed after heartbeatTimeout and the
// attempt runs elsewhere.
func heartbeat(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// Step runs the attempts of one round of a step (weft.run, the first
// workflow type, kept for runs in flight): a failed attempt is an error
// carrying its StepResult as details, retried by Temporal under the
// node's policy unless it is not retryable.
func (a *Activities) Step(ctx context.Context, in StepInput) (*runner.StepResult, error) {
	w, opts, err := a.setup(in.Workflow, in.Dir)
	if err != nil {
		return nil, err
	}
	opts.Approvals, opts.ReviewFile = approval.Set(setOf(in.Approved)), in.ReviewFile
	defer heartbeat(ctx)()
	n := int(activity.GetInfo(ctx).Attempt)
	res, err := runner.New(opts).Step(ctx, w, in.NodeID, in.Vars, runner.Attempt{Number: n, Max: n})
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), errRefused, err)
	}
	if fr := res.Failure; fr != nil {
		return nil, temporal.NewApplicationErrorWithOptions(fr.Error, string(fr.FailureType), temporal.ApplicationErrorOptions{
			NonRetryable: !fr.Retryable, Details: []any{res}})
	}
	return res, nil
}

// Condition evaluates one condition over the outputs so far.
func (a *Activities) Condition(_ context.Context, in CondInput) (CondOutput, error) {
	v, err := runner.EvalCondition(in.Keys, in.Cond, withRefs(in.Vars, in.SecretInputs))
	if err != nil {
		return CondOutput{Error: err.Error()}, nil
	}
	return CondOutput{Value: v}, nil
}

// setup reads the run's workflow and the worker's runner options for it.
func (a *Activities) setup(raw []byte, dir string) (*wf.Workflow, runner.Options, error) {
	var opts runner.Options
	w, _, err := wf.Parse(raw)
	if err != nil {
		return nil, opts, temporal.NewNonRetryableApplicationError("the run's workflow does not load: "+err.Error(), errInvalid, err)
	}
	if a.Options != nil {
		opts = a.Options()
	}
	if dir != "" {
		opts.Dir = dir
	}
	return w, opts, nil
}

// withRefs is vars (the outputs and inputs a step reads) with the run's
// secret inputs given stored secrets back as references: JSON carried
// them as the text they show.
func withRefs(vars map[string]any, refs map[string]string) map[string]any {
	if len(refs) == 0 {
		return vars
	}
	out := maps.Clone(vars)
	given, _ := vars[inputs.Root].(map[string]any)
	out[inputs.Root] = inputs.WithRefs(given, refs)
	return out
}

func setOf(ss []string) map[string]bool {
	m := make(map[string]bool, len(ss))
	for _, s := range ss {
		m[s] = true
	}
	return m
}

// Goal checks the workflow's done_when (its criteria by this worker's
// model, as the runner's critic).
func (a *Activities) Goal(ctx context.Context, in GoalInput) (GoalOutput, error) {
	w, opts, err := a.setup(in.Workflow, in.Dir)
	if err != nil {
		return GoalOutput{}, err
	}
	v, fr := runner.New(opts).Judge(ctx, w, withRefs(in.Vars, in.SecretInputs), in.Details)
	if fr != nil {
		return GoalOutput{Error: fr.Error, Failure: fr}, nil
	}
	return GoalOutput{Verdict: v}, nil
}
