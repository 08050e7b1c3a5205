package runner

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/workflow"
)

// What another engine (package temporal), driving the same walk (package
// flow), needs from the runner besides Step: conditions evaluated as Run
// evaluates them, and the goal check.

// EvalCondition evaluates a condition (If, Switch case, Loop exit) over
// vars (outputs by key) as Run does, keys being every node key of the
// workflow: a nil result is false, any other non-boolean an error.
func EvalCondition(keys []string, cond string, vars map[string]any) (bool, error) {
	keys = withInputs(keys)
	full := make(map[string]any, len(keys))
	for _, k := range keys {
		full[k] = map[string]any{}
		if v, ok := vars[k]; ok {
			full[k] = v
		}
	}
	return newEvaluator(keys, 0).evalBool(cond, full, "", nil)
}

// withInputs is the variables a condition may read: the node keys, and
// the run's inputs (inputs.NAME).
func withInputs(keys []string) []string {
	return append(slices.Clip(keys), inputs.Root)
}

// given puts what an engine hands a step or goal check (vars: outputs by
// node key, and the run's inputs) into r; outputs through keep.
func (r *run) given(w *workflow.Workflow, vars map[string]any, keep func(k string, m map[string]any)) {
	for k, v := range vars {
		m, ok := v.(map[string]any)
		switch {
		case !ok:
		case k == inputs.Root:
			r.vars[k] = m
		case w.NodeByKey(k) != nil:
			keep(k, m)
		}
	}
}

// Judge checks the workflow's done_when for an engine that walked it
// itself: by its condition over vars, and its criteria by the critic
// (Options.Critic) shown the plan and, per step in details, how it ended
// and its outputs (secrets hidden). When it could not be checked, the
// failure record says why, as Run records it.
func (rn *Runner) Judge(ctx context.Context, w *workflow.Workflow, vars map[string]any, details []NodeStat) (*Verdict, *failure.Record) {
	o := &rn.opts
	if w == nil || w.DoneWhen.IsZero() {
		return nil, GoalFailure(NewRedactor(o.Settings), errors.New("the workflow has no done_when"))
	}
	g, err := flow.NewGraph(w)
	if err != nil {
		return nil, GoalFailure(NewRedactor(o.Settings), err)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	red, sources := runRedactor(o, w, givenInputs(vars))
	r := rn.newRun(w, g, "goal", "", nil, red, sources)
	r.given(w, vars, func(k string, m map[string]any) {
		r.vars[k] = m
		r.set[k] = true
	})
	r.details = details
	v, err := r.judge(ctx, w.DoneWhen, nil, nil)
	if err != nil {
		return nil, GoalFailure(red, err)
	}
	return v, nil
}

// GoalFailure classifies why a done_when could not be checked (Judge's
// error), as Run does: every engine hands the walk the same record.
func GoalFailure(red *redact.Redactor, err error) *failure.Record {
	return &failure.Record{Error: red.String(err.Error()), Classification: Classify(failure.FailExecution, err, nil, false)}
}
