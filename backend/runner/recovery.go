package runner

import (
	"context"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// replan asks the Replanner for a new workflow after the failures of n,
// marked as replanned from this run's; the walk ends the run with it
// (OutcomeReplanned) and the caller decides whether to run it.
func (r *run) replan(ctx context.Context, n *workflow.Node, failures []failure.Record, auto bool) (*workflow.Workflow, error) {
	req := r.fw.ReplanRequest(n, failures, auto)
	// The planner sends this to the model's provider: outputs are
	// redacted (failures already are). The workflow is left whole, or a
	// replan could not keep its credentials.
	if m, ok := r.red.Value(req.Outputs).(map[string]any); ok {
		req.Outputs = m
	}
	req.Patterns = r.learnings(flow.ToolName(n), 5)
	nw, err := r.opts.Replanner.Replan(ctx, req)
	if err != nil {
		return nil, err
	}
	if nw == nil {
		return nil, fmt.Errorf("the planner returned no workflow")
	}
	r.replanned(nw, n, failures, auto) // autoreplan.go: mark the version, learn the fix
	return nw, nil
}

// learn records what resolved the failures of one execution, once per
// distinct failure signature.
func (r *run) learn(n *workflow.Node, failures []failure.Record, resolution, fix string, attempts int) {
	if r.pats == nil || len(failures) == 0 {
		return
	}
	seen := map[string]bool{}
	for i := len(failures) - 1; i >= 0; i-- {
		f := failures[i]
		sig := failure.Signature(f.Error)
		if seen[sig] {
			continue
		}
		seen[sig] = true
		p := failure.Pattern{Time: r.opts.Now(), Tool: flow.ToolName(n), Category: f.Category, FailureType: f.FailureType,
			Signature: sig, Error: f.Error, Resolution: resolution, Fix: r.red.String(fix), Attempts: attempts}
		if err := r.pats.Record(p); err != nil {
			r.warn(n, "could not record the failure pattern: "+err.Error())
			return
		}
	}
}

// learnings are the patterns recorded for a tool, for retry contexts and
// the planner.
func (r *run) learnings(tool string, limit int) []failure.Pattern {
	if r.pats == nil {
		return nil
	}
	ps, err := r.pats.Relevant(tool, limit)
	if err != nil {
		return nil
	}
	return ps
}

// knownFixes are the learnings that match the failure (same signature
// first, then same category).
func (r *run) knownFixes(tool string, f failure.Record) []failure.Pattern {
	return KnownFixes(r.pats, tool, f)
}

// KnownFixes are the patterns of store that match a failure of tool (same
// signature first, then same category), at most five: what an escalation
// offers as fixes that worked before, whichever engine ran the step.
func KnownFixes(store *failure.PatternStore, tool string, f failure.Record) []failure.Pattern {
	if store == nil {
		return nil
	}
	all, err := store.Relevant(tool, 0)
	if err != nil {
		return nil
	}
	sig := failure.Signature(f.Error)
	var same, related []failure.Pattern
	for _, p := range all {
		switch {
		case p.Signature == sig:
			same = append(same, p)
		case p.Category == f.Category:
			related = append(related, p)
		}
	}
	out := append(same, related...)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
