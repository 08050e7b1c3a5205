package temporal

import (
	"fmt"

	wf "github.com/weft-dev/weft/backend/workflow"
)

// refuseSubflows refuses, before anything is submitted, a workflow with a
// Workflow node: this engine does not run sub-workflows yet (their
// files, approvals and run folders live on the machine that submits), and
// a run must never start that would fail half-way for it. The local
// engine runs them.
func refuseSubflows(w *wf.Workflow) error {
	for i := range w.Nodes {
		if n := &w.Nodes[i]; n.Type == wf.TypeWorkflow {
			return fmt.Errorf("temporal: %s runs the sub-workflow %q, and the Temporal engine does not run sub-workflows yet: run this workflow on this machine (the local engine)", n.Label(), n.Params.Path)
		}
	}
	return nil
}
