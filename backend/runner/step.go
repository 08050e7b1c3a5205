package runner

import (
	"context"
	"errors"
	"fmt"
	"os"

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

// Step runs one attempt of the step node of w, given the outputs of the
// steps before it by key (vars), with the same tools, templates (values
// inserted as quoted data), verify, secret redaction and approval gate as
// Run, but no graph walk, retries, escalation or run folder: an engine
// that walks and retries itself (package temporal) calls it once per
// attempt. Options.OnEvent hears its events too.
func (rn *Runner) Step(ctx context.Context, w *workflow.Workflow, nodeID string, vars map[string]any, attempt int) (*StepResult, error) {
	if w == nil {
		return nil, errors.New("no workflow to run")
	}
	w = w.Clone()
	n := w.NodeByID(nodeID)
	if n == nil {
		return nil, fmt.Errorf("the workflow has no node %q", nodeID)
	}
	if !isStep(n) {
		return nil, fmt.Errorf("%s is a %s, not a step", n.Label(), n.Type)
	}
	if err := rn.checkApproval(w); err != nil { // the gate.go check, as in Run
		return nil, err
	}
	g, err := newGraph(w)
	if err != nil {
		return nil, err
	}
	o := &rn.opts
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
	red, sources := runRedactor(o, w)
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
	r := rn.newRun(w, g, n, "step", dir, log, red, sources, o.Now())
	if r.mcp == nil {
		r.mcp = mcp.NewManager(o.Settings.MCPServers, mcp.Options{Dir: dir, Logger: o.Logger, Redactor: red})
		defer r.mcp.Close()
	}
	r.pats = o.Patterns
	for k, v := range vars {
		if m, ok := v.(map[string]any); ok && w.NodeByKey(k) != nil {
			r.vars[k] = workflow.CloneValue(m)
			r.set[k] = true
			r.noteSourceSecrets(w.NodeByKey(k), m)
		}
	}
	var args map[string]any
	var argErr error
	if n.Type == workflow.TypeTool {
		args, argErr = r.renderArgs(n.Params.Tool, n.Params.Arguments)
	}
	if attempt < 1 {
		attempt = 1
	}
	log.emit(Event{Type: EvAttempt, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRunning, Attempt: attempt, Arguments: shownArgs(args)})
	outputs, fr := r.attempt(ctx, n, attempt, nil, args, argErr)
	if fr != nil {
		log.emit(Event{Type: EvFailure, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Failure: fr})
	}
	res.Outputs, res.Failure = outputs, fr
	return res, nil
}

// maxStepEvents bounds the events one attempt returns (an AI step's tool
// calls): the engine keeps them in its history.
const maxStepEvents = 200
