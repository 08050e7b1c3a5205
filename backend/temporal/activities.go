package temporal

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/weft-dev/weft/backend/approval"
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

// Step runs one attempt of a step. A failed attempt is an error carrying
// its StepResult (outputs, failure record, events) as details: Temporal
// retries it under the node's policy unless the failure is not retryable.
func (a *Activities) Step(ctx context.Context, in StepInput) (*runner.StepResult, error) {
	w, opts, err := a.setup(in.Workflow, in.Dir)
	if err != nil {
		return nil, err
	}
	opts.Approvals, opts.ReviewFile = approval.Set(setOf(in.Approved)), in.ReviewFile
	// Alive while it works: a worker that dies is noticed after
	// heartbeatTimeout and the attempt runs elsewhere.
	done := make(chan struct{})
	defer close(done)
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
	attempt := int(activity.GetInfo(ctx).Attempt)
	res, err := runner.New(opts).Step(ctx, w, in.NodeID, in.Vars, attempt)
	if err != nil {
		// Not approved, not a step: trying again cannot help.
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "weft.refused", err)
	}
	if fr := res.Failure; fr != nil {
		return nil, temporal.NewApplicationErrorWithOptions(fr.Error, string(fr.FailureType), temporal.ApplicationErrorOptions{
			NonRetryable: !fr.Retryable, Details: []any{res}})
	}
	return res, nil
}

// Condition evaluates one condition over the outputs so far.
func (a *Activities) Condition(_ context.Context, in CondInput) (CondOutput, error) {
	v, err := runner.EvalCondition(in.Keys, in.Cond, in.Vars)
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
		return nil, opts, temporal.NewNonRetryableApplicationError("the run's workflow does not load: "+err.Error(), "weft.invalid", err)
	}
	if a.Options != nil {
		opts = a.Options()
	}
	if dir != "" {
		opts.Dir = dir
	}
	return w, opts, nil
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
	v, err := runner.New(opts).Judge(ctx, w, in.Vars, in.Details)
	if err != nil {
		return GoalOutput{Error: err.Error()}, nil
	}
	return GoalOutput{Verdict: v}, nil
}
