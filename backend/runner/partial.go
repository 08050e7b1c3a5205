package runner

import (
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/workflow"
)

// Development runs in the editor (issue 12): pinned data stands in for a
// step's run, and "run from here" starts at a chosen node with the outputs
// an earlier run left for the steps before it. Both only feed data to the
// steps after (which quote it like any other value); neither runs
// anything the approval gate did not see. The walk (package flow) does
// both; these are its names here.

// StaleError is Run's refusal to reuse the outputs of steps that changed
// (flow.StaleError).
type StaleError = flow.StaleError

// CheckFrom says where a run from the node would start, or why it cannot
// (flow.CheckFrom).
func CheckFrom(w *workflow.Workflow, from string, old *workflow.Workflow, runID string) (*workflow.Node, error) {
	return flow.CheckFrom(w, from, old, runID)
}
