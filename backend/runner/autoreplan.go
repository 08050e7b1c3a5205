package runner

import (
	"encoding/json"
	"github.com/weft-dev/weft/backend/flow"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// Limits of automatic replanning.
const (
	// DefaultMaxAutoReplans applies when neither Options.MaxAutoReplans
	// nor run.auto_replan.max_per_run says otherwise.
	DefaultMaxAutoReplans = settings.DefaultAutoReplans
	// AutoReplanHardCap bounds the automatic replans of a run and of the
	// versions replanned from it, whatever the settings say: a failure the
	// planner cannot fix must reach the user.
	AutoReplanHardCap = settings.MaxAutoReplansLimit
)

// autoReplanPolicy is the effective automatic replanning of a run:
// Options.AutoReplan or run.auto_replan.enabled turns it on; the Options
// limits win over the settings.
func (o *Options) autoReplanPolicy() flow.AutoReplan {
	ar := o.Settings.Run.AutoReplan
	p := flow.AutoReplan{Enabled: (o.AutoReplan || ar.Enabled) && o.Replanner != nil, Max: DefaultMaxAutoReplans, Min: failure.SevHigh}
	switch {
	case o.MaxAutoReplans > 0:
		p.Max = o.MaxAutoReplans
	case ar.MaxPerRun > 0:
		p.Max = ar.MaxPerRun
	}
	p.Max = min(p.Max, AutoReplanHardCap)
	sev := o.AutoReplanMinSeverity
	if sev == "" {
		sev = failure.Severity(strings.ToUpper(strings.TrimSpace(ar.MinSeverity)))
	}
	if sev == failure.SevCritical {
		p.Min = failure.SevCritical
	}
	return p
}

// replanned marks the new workflow as a replanned version of the run's
// workflow (so it needs approval to run, and the chain's automatic
// replans are counted) and records the replan as what was done about the
// failure, for the planner's "Known failure patterns".
func (r *run) replanned(nw *workflow.Workflow, n *workflow.Node, failures []failure.Record, auto bool) {
	prev, _ := failure.ReplanInfoOf(r.w)
	info := failure.ReplanInfo{Time: r.opts.Now(), RunID: r.id, FailedNode: n.Key, Auto: auto,
		Replans: prev.Replans + 1, AutoReplans: prev.AutoReplans}
	if auto {
		info.AutoReplans++
	}
	failure.MarkReplanned(nw, info)
	// Whatever the replanner is, the steps it added or changed are a
	// model's: they run only once a person approved them.
	approval.MarkChanged(r.w, nw, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaReplan,
		Model: r.opts.Settings.LLM.Model, Time: r.opts.Now()})
	r.learn(n, failures, "replan", replanFix(n, nw), len(failures))
}

// replanFix describes what the new plan does instead of the failed step.
func replanFix(n *workflow.Node, nw *workflow.Workflow) string {
	step := func(m *workflow.Node) string {
		s := m.Key + " (" + flow.ToolName(m)
		if m.Type == workflow.TypeTool && len(m.Params.Arguments) > 0 {
			s += " " + mustJSON(m.Params.Arguments)
		} else if m.Type == workflow.TypeAiStep {
			s += ": " + m.Params.Prompt
		}
		return truncate(s, 240) + ")"
	}
	if m := nw.NodeByKey(n.Key); m != nil {
		return "the planner changed the step to " + step(m)
	}
	var added []string
	for i := range nw.Nodes {
		m := &nw.Nodes[i]
		if m.Type == workflow.TypeTool || m.Type == workflow.TypeAiStep || m.Type == workflow.TypeAiTransform {
			added = append(added, m.Key)
		}
	}
	return truncate("the planner removed the step; the new plan's steps: "+strings.Join(added, ", "), 500)
}

// MarkReplan marks nw as replanned from old after the failure of the step
// failedKey in run runID, for an engine that replans outside the runner
// (Temporal): the replan's version info, and the steps the planner added
// or changed as a model's, so they run only once a person approved them.
func MarkReplan(old, nw *workflow.Workflow, runID, failedKey, model string, now time.Time) {
	prev, _ := failure.ReplanInfoOf(old)
	failure.MarkReplanned(nw, failure.ReplanInfo{Time: now, RunID: runID, FailedNode: failedKey, Replans: prev.Replans + 1, AutoReplans: prev.AutoReplans})
	approval.MarkChanged(old, nw, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaReplan, Model: model, Time: now})
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
