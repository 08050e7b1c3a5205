package main

import (
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/workflow"
)

// WorkflowSecrets lists the secrets w refers to, which of them this
// computer lacks and the hosts and tools their uses suggest (never a
// value): the editor asks for the missing ones when a workflow opens and
// before it runs.
func (a *App) WorkflowSecrets(w workflow.Workflow) []service.NeededSecret {
	return nonNil(a.service().SecretNeeds(&w))
}
