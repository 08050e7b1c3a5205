package runner

import (
	"context"
	"errors"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// What another engine (package temporal) needs to walk a workflow exactly
// as Run does: the same edges, start node and conditions. Steps run
// through Step.

// Nav follows a valid workflow's edges.
type Nav struct{ g *graph }

// NewNav indexes w (which must be valid).
func NewNav(w *workflow.Workflow) (*Nav, error) {
	g, err := newGraph(w)
	if err != nil {
		return nil, err
	}
	return &Nav{g: g}, nil
}

// Start is where a run starts: the entry, or from (its outermost Loop for
// a node in a loop body).
func (n *Nav) Start(from string) (*workflow.Node, error) { return n.g.startAt(from) }

// Next follows the node's plain edge; nil at the end of a path.
func (n *Nav) Next(id string) *workflow.Node { return n.g.next(id) }

// Branch follows the node's edge with the label (and case name).
func (n *Nav) Branch(id string, t workflow.OutputType, name string) *workflow.Node {
	return n.g.branch(id, t, name)
}

// Node returns the node with the id, or nil.
func (n *Nav) Node(id string) *workflow.Node { return n.g.byID[id] }

// EvalCondition evaluates a condition (If, Switch case, Loop exit) over
// vars (outputs by key) as Run does, keys being every node key of the
// workflow: a nil result is false, any other non-boolean an error.
func EvalCondition(keys []string, cond string, vars map[string]any) (bool, error) {
	full := make(map[string]any, len(keys))
	for _, k := range keys {
		full[k] = map[string]any{}
		if v, ok := vars[k]; ok {
			full[k] = v
		}
	}
	return newEvaluator(keys, 0).evalBool(cond, full, "", nil)
}

// SkippedOutputs are a step's outputs when it did not run: disabled, or
// skipped after a failure (err is its error then).
func SkippedOutputs(err string) map[string]any {
	if err == "" {
		err = "disabled"
	}
	return map[string]any{"success": false, "skipped": true, "error": err}
}

// HandledOutputs are a failed step's outputs when its on_error took the
// failure (continue or branch), as Run sets them.
func HandledOutputs(outputs map[string]any, fr *failure.Record, attempts int) map[string]any {
	out := make(map[string]any, len(outputs)+3)
	for k, v := range outputs {
		out[k] = v
	}
	out["success"] = false
	out["error"] = fr.Error
	out["error_record"] = map[string]any{
		"type": string(fr.FailureType), "category": string(fr.Category), "severity": string(fr.Severity),
		"retryable": fr.Retryable, "error": fr.Error, "suggested_fix": fr.SuggestedFix, "attempts": attempts,
	}
	return out
}

// Judge checks the workflow's done_when for an engine that walked it
// itself: by its condition over vars, and its criteria by the critic
// (Options.Critic) shown the plan and, per step in details, how it ended
// and its outputs (secrets hidden). An error means it could not be
// checked.
func (rn *Runner) Judge(ctx context.Context, w *workflow.Workflow, vars map[string]any, details []NodeStat) (*Verdict, error) {
	if w == nil || w.DoneWhen.IsZero() {
		return nil, errors.New("the workflow has no done_when")
	}
	g, err := newGraph(w)
	if err != nil {
		return nil, err
	}
	o := &rn.opts
	if o.Now == nil {
		o.Now = time.Now
	}
	red, sources := runRedactor(o, w)
	r := rn.newRun(w, g, g.entry, "goal", "", nil, red, sources, o.Now())
	for k, v := range vars {
		if m, ok := v.(map[string]any); ok && w.NodeByKey(k) != nil {
			r.vars[k] = m
		}
	}
	for _, d := range details {
		st := d
		r.stats[d.ID] = &st
		r.order = append(r.order, d.ID)
	}
	return r.judge(ctx, w.DoneWhen, nil, nil)
}
