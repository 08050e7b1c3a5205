package service

import (
	"errors"
	"fmt"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// KeepFix returns w with a fix the person gave in an escalation (arguments
// merged into a Tool node, as the retry used them) kept in the workflow:
// the same merge as the run's, so what is saved is what ran. A
// model-written step changed this way stays the model's and needs
// approval again, as after any edit, but its mark says the last change
// was the person's (approval.ViaEdit), not the model's.
func KeepFix(w *workflow.Workflow, nodeID string, args map[string]any) (*workflow.Workflow, error) {
	if w == nil {
		return nil, errors.New("keep fix: no workflow")
	}
	if len(args) == 0 {
		return nil, errors.New("keep fix: the fix has no arguments")
	}
	out := w.Clone()
	n := out.NodeByID(nodeID)
	if n == nil {
		return nil, fmt.Errorf("keep fix: the workflow has no node %q (was it deleted since the run?)", nodeID)
	}
	if n.Type != workflow.TypeTool {
		return nil, fmt.Errorf("keep fix: %s is a %s; only a Tool node's arguments can be kept", n.Label(), n.Type)
	}
	n.Params.Arguments = runner.MergePatch(n.Params.Arguments, args)
	if pv, ok := approval.Of(n); ok && pv.Source == approval.SourceModel {
		approval.Mark(n, approval.Provenance{Source: pv.Source, Via: approval.ViaEdit, Model: pv.Model, Flow: pv.Flow})
	}
	return out, nil
}
