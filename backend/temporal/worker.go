package temporal

import (
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Register adds the run workflows (weft.run.v2, and weft.run for runs in
// flight) and the step activities to a worker (or a test environment).
func Register(r worker.Registry, acts *Activities) {
	r.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowType})
	r.RegisterWorkflowWithOptions(RunV1, workflow.RegisterOptions{Name: WorkflowTypeV1})
	r.RegisterActivity(acts)
}
