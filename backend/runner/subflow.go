package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/canonpath"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/subflow"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Sub-workflows: a Workflow step's attempt is a run of another workflow
// file (package subflow's rules: the path, the chain, the inputs), with
// its own run folder, linked both ways: the caller's log event and
// Result.SubRuns name the child's run, the child's summary its Parent.
// The child is gated as any run of its file is (its approvals, its
// file's trust, GateChild): the caller's approval does not cover it.

// ChildGate is what the approvals say of a sub-workflow's file, as the
// service's gate would say for a run of it (Options.GateChild).
type ChildGate struct {
	Approvals  approval.Checker
	Catalog    *tools.Catalog
	ReviewFile bool
}

// chain is the workflows this run is inside, its own file last.
func (r *run) chain() subflow.Chain {
	return append(slices.Clip(r.opts.Chain), canonpath.Of(r.opts.WorkflowPath))
}

// renderInputs fills in the templates of a Workflow step's inputs by
// plain insertion: each value reaches the child as data (a whole
// placeholder keeps its type), never as code; the child quotes it where
// it inserts it.
func (r *run) renderInputs(in map[string]any) (map[string]any, error) {
	v, err := render.Value(in, templateEnv{r})
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

// runSubflow is one attempt of the Workflow step n: a run of its file
// with the inputs given, whose outputs are the step's. A sub-workflow
// that cannot start (no such file, a cycle, too deep, inputs that do not
// fit, content not approved) fails the step without retries (ArgError);
// one that ran and did not succeed fails it as a step fails.
func (r *run) runSubflow(ctx context.Context, n *workflow.Node, given map[string]any) (map[string]any, error) {
	o := r.opts
	path, err := subflow.Path(r.rn.workflowDir(), n)
	if err != nil {
		return nil, argErrorf("the sub-workflow cannot run: %v", err)
	}
	chain, err := r.chain().Enter(path)
	if err != nil {
		return nil, argErrorf("%v", err)
	}
	child, data, err := subflow.Load(path)
	if err != nil {
		return nil, argErrorf("%v", err)
	}
	gate := ChildGate{Approvals: approval.Set(nil), Catalog: o.ApprovalCatalog, ReviewFile: true}
	if o.GateChild != nil {
		if gate, err = o.GateChild(ctx, child, path, data); err != nil {
			return nil, argErrorf("the approvals of %s could not be read: %v", filepath.Base(path), err)
		}
	}
	co := *o
	co.WorkflowPath, co.Dir, co.Inputs = path, "", given
	co.From, co.Reuse, co.ReusedFrom, co.ReuseOf, co.UsePinned = "", nil, "", nil, false
	co.Approvals, co.ApprovalCatalog, co.ReviewFile = gate.Approvals, gate.Catalog, gate.ReviewFile
	co.MCP = nil                             // the child's servers start in its own folder
	co.Replanner, co.AutoReplan = nil, false // a new plan for the child is made in its own file
	co.Redactor = r.red
	co.Chain = chain[:len(chain)-1]
	co.Parent = &flow.RunLink{RunID: r.id, File: o.WorkflowPath, Dir: r.log.dir, NodeKey: n.Key}
	if co.RunsDir == "" {
		if co.RunsDir, err = DefaultRunsDir(path); err != nil {
			return nil, &configError{msg: "the sub-workflow's runs folder: " + err.Error()}
		}
	}
	co.OnEvent = func(e Event) {
		if e.Type == EvRunStarted {
			link := flow.RunLink{RunID: e.RunID, File: path, Dir: filepath.Join(co.RunsDir, e.RunID), NodeKey: n.Key}
			r.subRuns = append(r.subRuns, link)
			r.log.emit(Event{Type: EvLog, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name,
				Message: fmt.Sprintf("runs the sub-workflow %s as run %s", filepath.Base(path), e.RunID), SubRun: &link})
		}
	}
	res, err := New(co).Run(ctx, child)
	if err != nil {
		var ae *ApprovalError
		if errors.As(err, &ae) {
			return nil, argErrorf("the sub-workflow %s did not run: %v; review it with `weft approve %s`", filepath.Base(path), err, path)
		}
		return nil, argErrorf("the sub-workflow %s did not run: %v", filepath.Base(path), err)
	}
	out := map[string]any{"outputs": res.Outputs, "run_id": res.RunID, "outcome": string(res.Outcome)}
	switch res.Outcome {
	case OutcomeSucceeded:
		return out, nil
	case OutcomeCanceled:
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
	}
	return out, fmt.Errorf("the sub-workflow %s ended %s (run %s): %s", filepath.Base(path), res.Outcome, res.RunID, res.Error)
}
