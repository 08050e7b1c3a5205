package temporal

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/subflow"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// Sub-workflows on Temporal: the files a run's Workflow steps reach were
// read and judged where the run was submitted (subflow.Gather: a worker
// may be another machine), and travel with the run (RunInput.Subflows),
// as its own workflow's content does. A Workflow step's attempt is an
// activity like any step's (runner.Step: the same inputs, checks and
// failures as a local run); only the child's run differs: it is a
// Temporal run of its own, started by the attempt and waited for, linked
// both ways (the step's event, the child's Parent). A child that
// escalates waits for an answer as any run does; whoever follows the
// parent follows it too.

// Caller is what a Workflow step's attempt knows of its run, to start the
// child's: the run's file, the files it is inside, the files it may
// call, and what a child inherits.
type Caller struct {
	Path           string           `json:"path,omitempty"`
	Chain          []string         `json:"chain,omitempty"`
	Subflows       *subflow.Bundle  `json:"subflows,omitempty"`
	Source         runner.RunSource `json:"source,omitempty"`
	DefaultRetries int              `json:"default_retries"`
}

// children is runner.Children for one Workflow step's attempt on a
// worker: it reads only what was judged at submission.
type children struct {
	client   client.Client
	queue    string
	parentID string // the caller's Temporal run
	// attemptID makes the child's run id: the same when the attempt runs
	// again after its worker was lost, so the child starts once.
	attemptID string
	in        Caller
}

func (c children) Path(_ string, n *wf.Node) (string, error) {
	var call subflow.Call
	ok := c.in.Subflows != nil
	if ok {
		call, ok = c.in.Subflows.Calls[n.ID]
	}
	if !ok {
		return "", fmt.Errorf("%s was not read when the run was submitted", n.Params.Path)
	}
	if call.Error != "" {
		return "", errors.New(call.Error)
	}
	return call.Path, nil
}

func (c children) file(path string) (subflow.File, error) {
	var f subflow.File
	ok := c.in.Subflows != nil
	if ok {
		f, ok = c.in.Subflows.Files[path]
	}
	switch {
	case !ok:
		return f, fmt.Errorf("the workflow file %s was not read when the run was submitted", path)
	case f.Error != "":
		return f, errors.New(f.Error)
	}
	return f, nil
}

func (c children) Open(_ context.Context, path string) (*wf.Workflow, runner.ChildGate, error) {
	f, err := c.file(path)
	if err != nil {
		return nil, runner.ChildGate{}, err
	}
	w, _, err := wf.ParseFile(path, f.Workflow)
	if err != nil {
		return nil, runner.ChildGate{}, fmt.Errorf("the workflow file %s is not a workflow: %w", path, err)
	}
	return w, runner.ChildGate{Approvals: approval.Set(setOf(f.Approved)), ReviewFile: f.ReviewFile}, nil
}

// Run starts the child's Temporal run (or finds it, started by this
// attempt before its worker was lost) and waits for its end; a canceled
// wait cancels the child.
func (c children) Run(ctx context.Context, cr runner.ChildRun) (*runner.Result, error) {
	f, err := c.file(cr.Path)
	if err != nil {
		return nil, err
	}
	values, refs := inputs.Split(cr.Options.Inputs) // a stored secret passed on stays a reference
	in := RunInput{Workflow: f.Workflow, Approved: f.Approved, ReviewFile: f.ReviewFile, Dir: filepath.Dir(cr.Path), Path: cr.Path,
		DefaultRetries: c.in.DefaultRetries, Source: c.in.Source, Inputs: values, SecretInputs: refs,
		Subflows: c.in.Subflows.Of(cr.Path), Chain: cr.Options.Chain,
		Parent: &flow.RunLink{RunID: c.parentID, File: c.in.Path, NodeKey: cr.Options.Parent.NodeKey}}
	id := fmt.Sprintf("%s.%s.%s", c.parentID, cr.Options.Parent.NodeKey, c.attemptID)
	run, err := c.client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: c.queue,
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, WorkflowType, in)
	if err != nil {
		return nil, fmt.Errorf("temporal: start the sub-workflow's run: %w", err)
	}
	link := flow.RunLink{RunID: id, File: cr.Path, NodeKey: cr.Options.Parent.NodeKey}
	cr.Started(link)
	// The step's events reach its run only when it ends: the run is told
	// now, so that whoever follows it follows the child (its escalations)
	// while the step waits. Without it the child still runs, answerable
	// with `weft runs respond`.
	_ = c.client.SignalWorkflow(ctx, c.parentID, "", SignalSubRun, link)
	var res runner.Result
	if err := run.Get(ctx, &res); err != nil {
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			_ = c.client.CancelWorkflow(cctx, id, "")
			cancel()
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("temporal: the sub-workflow's run %s: %w", id, err)
	}
	return &res, nil
}
