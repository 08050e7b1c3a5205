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
// Everything but reaching the file and running the child is this file's,
// on both engines (Children is the door that differs).

// ChildGate is what the approvals say of a sub-workflow's file, as the
// service's gate would say for a run of it (Options.GateChild).
type ChildGate struct {
	Approvals  approval.Checker
	Catalog    *tools.Catalog
	ReviewFile bool
}

// Children is how a run's Workflow steps reach the workflows they call
// (Options.Children): where the file is, its content and approvals, and
// how a run of it is made.
type Children interface {
	// Path is the canonical path of the file the Workflow step n calls,
	// n being in the workflow whose folder is dir.
	Path(dir string, n *workflow.Node) (string, error)
	// Open is the workflow at path and what its approvals say.
	Open(ctx context.Context, path string) (*workflow.Workflow, ChildGate, error)
	// Run runs c.Workflow as a run of its own, approved already, and
	// tells c.Started its link once it has an id.
	Run(ctx context.Context, c ChildRun) (*Result, error)
}

// ChildRun is a sub-workflow's run to make.
type ChildRun struct {
	Workflow *workflow.Workflow
	Path     string
	// Options are the child's run's: its inputs (Inputs), the files it
	// is inside (Chain), its caller's step (Parent), its approvals.
	Options Options
	Started func(flow.RunLink)
}

// localChildren reads the file when the step runs and runs it here.
type localChildren struct{ o *Options }

func (l localChildren) Path(dir string, n *workflow.Node) (string, error) {
	return subflow.Path(dir, n)
}

func (l localChildren) Open(ctx context.Context, path string) (*workflow.Workflow, ChildGate, error) {
	child, data, err := subflow.Load(path)
	if err != nil {
		return nil, ChildGate{}, err
	}
	gate := ChildGate{Approvals: approval.Set(nil), Catalog: l.o.ApprovalCatalog, ReviewFile: true}
	if l.o.GateChild != nil {
		if gate, err = l.o.GateChild(ctx, child, path, data); err != nil {
			return nil, gate, fmt.Errorf("the approvals of %s could not be read: %v", filepath.Base(path), err)
		}
	}
	return child, gate, nil
}

func (l localChildren) Run(ctx context.Context, c ChildRun) (*Result, error) {
	co := c.Options
	var err error
	if co.RunsDir == "" {
		if co.RunsDir, err = DefaultRunsDir(c.Path); err != nil {
			return nil, &configError{msg: "the sub-workflow's runs folder: " + err.Error()}
		}
	}
	co.OnEvent = func(e Event) {
		if e.Type == EvRunStarted {
			c.Started(flow.RunLink{RunID: e.RunID, File: c.Path, Dir: filepath.Join(co.RunsDir, e.RunID), NodeKey: c.Options.Parent.NodeKey})
		}
	}
	return New(co).Run(ctx, c.Workflow)
}

// children is the run's door to its sub-workflows.
func (r *run) children() Children {
	if r.opts.Children != nil {
		return r.opts.Children
	}
	return localChildren{r.opts}
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
	v, err := render.Inputs(in, templateEnv{r})
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
	door := r.children()
	path, err := door.Path(r.rn.workflowDir(), n)
	if err != nil {
		return nil, argErrorf("the sub-workflow cannot run: %v", err)
	}
	chain, err := r.chain().Enter(path)
	if err != nil {
		return nil, argErrorf("%v", err)
	}
	child, gate, err := door.Open(ctx, path)
	if err != nil {
		return nil, argErrorf("%v", err)
	}
	co := *o
	co.WorkflowPath, co.Dir, co.Inputs = path, "", given
	co.From, co.Reuse, co.ReusedFrom, co.ReuseOf, co.UsePinned = "", nil, "", nil, false
	co.Approvals, co.ApprovalCatalog, co.ReviewFile = gate.Approvals, gate.Catalog, gate.ReviewFile
	co.RunID = ""                            // its own run, its own id
	co.MCP = nil                             // the child's servers start in its own folder
	co.Replanner, co.AutoReplan = nil, false // a new plan for the child is made in its own file
	co.Redactor = r.red
	co.Chain = chain[:len(chain)-1]
	co.Parent = &flow.RunLink{RunID: r.id, File: o.WorkflowPath, Dir: r.log.dir, NodeKey: n.Key}
	// The child is admitted here, the same on both engines, before it is
	// asked to start (each engine's run checks it again).
	var res *Result
	if _, err = New(co).admit(child.Clone()); err == nil {
		res, err = door.Run(ctx, ChildRun{Workflow: child, Path: path, Options: co,
			Started: func(link flow.RunLink) {
				r.subRuns = append(r.subRuns, link)
				r.log.emit(Event{Type: EvLog, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name,
					Message: fmt.Sprintf("runs the sub-workflow %s as run %s", filepath.Base(path), link.RunID), SubRun: &link})
			}})
	}
	var ae *ApprovalError
	switch {
	case errors.As(err, &ae):
		return nil, argErrorf("the sub-workflow %s did not run: %v; review it with `weft approve %s`", filepath.Base(path), err, path)
	case err != nil:
		return nil, argErrorf("the sub-workflow %s did not run: %v", filepath.Base(path), err)
	}
	return subflowOutputs(ctx, path, res)
}

// subflowOutputs are a Workflow step's outputs from its child's result:
// the step fails as the child did.
func subflowOutputs(ctx context.Context, path string, res *Result) (map[string]any, error) {
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
