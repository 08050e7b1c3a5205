package temporal

import (
	"go.temporal.io/sdk/client"
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

// NewWorker is a worker of the task queue running acts.
func NewWorker(c client.Client, taskQueue string, acts *Activities) worker.Worker {
	if taskQueue == "" {
		taskQueue = DefaultTaskQueue
	}
	w := worker.New(c, taskQueue, worker.Options{})
	Register(w, acts)
	return w
}
