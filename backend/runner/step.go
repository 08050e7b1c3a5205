package runner

import (
	"context"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"os"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/workflow"
)

// StepResult is one attempt of one step, run on its own.
type StepResult struct {
	// Outputs are what the step produced (also when it failed: a
	// command's exit code and output).
	Outputs map[string]any `json:"outputs"`
	// Failure is set when the attempt failed; Retryable says whether
	// trying again may help.
	Failure *failure.Record `json:"failure,omitempty"`
	// Events are what the attempt reported (attempt, tool calls, logs,
	// failure), secrets hidden, numbered from 1.
	Events []Event `json:"events"`
}

// Attempt says which attempt of a step to run, for an engine that walks
// the workflow itself (flow.Command of KindAttempt).
type Attempt struct {
	Number int `json:"number"`
	Max    int `json:"max"`
	// Failures and Instruction are an AI step's retry context.
	Failures    []failure.Record `json:"failures,omitempty"`
	Instruction string           `json:"instruction,omitempty"`
	// Arguments replace a Tool step's arguments: a person's fix merged
	// into them during the run (the approval gate judges the workflow as
	// submitted, as in Run).
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Step runs one attempt of the step node of w, given the outputs of the
// steps before it by key (vars), with the same tools, templates (values
// inserted as quoted data), verify, secret redaction and approval gate as
// Run, but no graph walk or run folder: an engine that walks with
// package flow itself (package temporal) calls it once per attempt. Its
// events are the attempt's own (attempt, tool calls, logs, a step
// verdict); the walk emits the failure. Options.OnEvent hears them too.
func (rn *Runner) Step(ctx context.Context, w *workflow.Workflow, nodeID string, vars map[string]any, a Attempt) (*StepResult, error) {
	if w == nil {
		return nil, errors.New("no workflow to run")
	}
	w = w.Clone()
	n := w.NodeByID(nodeID)
	if n == nil {
		return nil, fmt.Errorf("the workflow has no node %q", nodeID)
	}
	if !flow.IsStep(n) {
		return nil, fmt.Errorf("%s is a %s, not a step", n.Label(), n.Type)
	}
	if n.Type == workflow.TypeWorkflow && rn.opts.Children == nil {
		// A step has no run folder for a child run here to link to: its
		// engine hands in the door its children go through (Children).
		return nil, fmt.Errorf("%s runs a sub-workflow: this engine gave the step no way to run it (Options.Children)", n.Label())
	}
	if err := rn.checkApproval(w); err != nil { // the gate.go check, as in Run
		return nil, err
	}
	if a.Arguments != nil && n.Type == workflow.TypeTool {
		n.Params.Arguments = a.Arguments
	}
	g, err := flow.NewGraph(w)
	if err != nil {
		return nil, err
	}
	o := &rn.opts
	if o.Now == nil {
		o.Now = time.Now
	}
	dir, err := rn.runDir()
	if err != nil {
		return nil, err
	}
	// The run log needs a folder; a step's is temporary: its events are
	// returned (and heard), the engine keeps the history.
	tmp, err := os.MkdirTemp("", "weft-step-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &StepResult{}
	red, sources := runRedactor(o, w, givenInputs(vars))
	log, err := openRunLog(tmp, "step", func(e Event) {
		if len(res.Events) < maxStepEvents {
			res.Events = append(res.Events, e)
		}
		if o.OnEvent != nil {
			o.OnEvent(e)
		}
	}, o.Now, red)
	if err != nil {
		return nil, err
	}
	defer log.close()
	r := rn.newRun(w, g, "step", dir, log, red, sources)
	if r.mcp == nil {
		r.mcp = mcp.NewManager(o.Settings.MCPServers, mcp.Options{Dir: dir, Logger: o.Logger, Redactor: red})
		defer r.mcp.Close()
	}
	r.pats = o.Patterns
	r.given(w, vars, func(k string, m map[string]any) {
		r.vars[k] = workflow.CloneValue(m)
		r.set[k] = true
		r.noteSourceSecrets(w.NodeByKey(k), m)
	})
	res.Outputs, res.Failure = r.runAttempt(ctx, flow.Command{Kind: flow.KindAttempt, Node: n, Attempt: max(a.Number, 1), MaxAttempts: max(a.Max, 1),
		Failures: a.Failures, Instruction: a.Instruction})
	return res, nil
}

// maxStepEvents bounds the events one attempt returns (an AI step's tool
// calls): the engine keeps them in its history.
const maxStepEvents = 200
