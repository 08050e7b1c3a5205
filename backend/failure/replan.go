package failure

import (
	"encoding/json"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// ReplanRequest is what a replanner gets: everything the run knows at the
// failure (seed 004's replanning context).
type ReplanRequest struct {
	Workflow   *workflow.Workflow `json:"workflow"`
	FailedNode workflow.Node      `json:"failed_node"`
	Failures   []Record           `json:"failures"`
	// Outputs are the variables so far, by node key.
	Outputs map[string]any `json:"outputs"`
	// Completed lists the ids of the nodes that finished, in order.
	Completed []string `json:"completed"`
	// Patterns are known fixes of similar failures.
	Patterns []Pattern `json:"patterns,omitempty"`
	// Auto is true when the runner asked without the user (AutoReplan).
	Auto bool `json:"auto"`
	// Critique is set when every step ran but the workflow's done_when
	// rejected the result (seed 002's RetryContext: the critic's feedback
	// and suggested fixes); FailedNode then stands for the goal check.
	Critique *Critique `json:"critique,omitempty"`
}

// Critique is what the goal check said about a run's result.
type Critique struct {
	Condition   string   `json:"condition,omitempty"`
	Criteria    string   `json:"criteria,omitempty"`
	Feedback    string   `json:"feedback"`
	Suggestions []string `json:"suggestions,omitempty"`
	Confidence  float64  `json:"confidence"`
}

// ReplanExtraKey is the top-level workflow field that marks a workflow
// the planner made after a failed run. It survives saving and loading, so
// a replanned version needs approval wherever it is run from; it is not
// carried over when the replan is applied as a patch to the original
// workflow (the user reviewed it there), and ClearReplanned removes it.
const ReplanExtraKey = workflow.ReplanKey

// ReplanInfo is what the mark says.
type ReplanInfo struct {
	Time time.Time `json:"time"`
	// RunID is the run that failed; FailedNode the key of its step.
	RunID      string `json:"run_id"`
	FailedNode string `json:"failed_node"`
	// Auto is true when the runner replanned without asking.
	Auto bool `json:"auto"`
	// Replans and AutoReplans count the replans of the chain of runs that
	// led to this version, this one included; AutoReplans is what
	// run.auto_replan.max_per_run limits.
	Replans     int `json:"replans"`
	AutoReplans int `json:"auto_replans"`
	// FromVersion is the version number (package versions) of the
	// workflow that failed, when it was saved there (replan.Record).
	FromVersion int `json:"from_version,omitempty"`
	// PerStep says the steps a model changed carry their own marks
	// (provenance), as every version of Weft that writes it does; a file
	// without it is converted on load (workflow.Parse).
	PerStep bool `json:"per_step,omitempty"`
}

// ReplanInfoOf reads the mark; ok is false for a workflow that was not
// replanned (or whose mark cannot be read).
func ReplanInfoOf(w *workflow.Workflow) (ReplanInfo, bool) {
	if w == nil || w.Extra == nil {
		return ReplanInfo{}, false
	}
	raw, ok := w.Extra[ReplanExtraKey]
	if !ok {
		return ReplanInfo{}, false
	}
	var info ReplanInfo
	if json.Unmarshal(raw, &info) != nil {
		// A mark that cannot be read still marks the workflow.
		return ReplanInfo{}, true
	}
	return info, true
}

// MarkReplanned sets the mark.
func MarkReplanned(w *workflow.Workflow, info ReplanInfo) {
	info.PerStep = true
	b, err := json.Marshal(info)
	if err != nil {
		return
	}
	if w.Extra == nil {
		w.Extra = workflow.Extra{}
	}
	w.Extra[ReplanExtraKey] = b
}

// ClearReplanned removes the mark, once the user has approved the
// version for good (for example by saving it as the workflow).
func ClearReplanned(w *workflow.Workflow) {
	if w != nil && w.Extra != nil {
		delete(w.Extra, ReplanExtraKey)
		if len(w.Extra) == 0 {
			w.Extra = nil
		}
	}
}
