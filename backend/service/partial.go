package service

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// lastRun is what the last run of a workflow left, kept in memory for
// "run from here" (issue 12) and for pinning a step's outputs. live holds
// outputs before redaction: it never leaves the process (reused outputs go
// through the next run's redaction like any other value).
type lastRun struct {
	workflowID string
	runID      string
	w          *workflow.Workflow // what ran
	live       map[string]any     // key → outputs of the steps that completed
	shown      map[string]any     // key → the same outputs, redacted
}

// maxPinBytes bounds the outputs pinned from a run: pinned data is saved in
// the workflow file.
const maxPinBytes = 1 << 20

// ErrNoLastRun is LastOutputs' and a run from a node's answer when the
// workflow has not run in this window.
var ErrNoLastRun = errors.New("the workflow has not run since Weft started: run it once, so its steps have outputs to reuse")

func (s *Service) keepLast(w *workflow.Workflow, res *runner.Result) {
	if res == nil {
		return
	}
	shown := map[string]any{}
	for k := range res.Live {
		shown[k] = res.Outputs[k]
	}
	s.mu.Lock()
	s.last = &lastRun{workflowID: w.ID, runID: res.RunID, w: w, live: res.Live, shown: shown}
	s.mu.Unlock()
}

// lastOf returns the last run of the workflow, or nil.
func (s *Service) lastOf(workflowID string) *lastRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil || s.last.workflowID != workflowID {
		return nil
	}
	return s.last
}

// LastOutputs are the outputs a step produced in the last run of the
// workflow (redacted: they are for showing and pinning), with that run's
// id. It fails when the workflow has not run, the step did not complete
// in it, or its outputs are too large to pin.
func (s *Service) LastOutputs(workflowID, nodeID string) (map[string]any, string, error) {
	last := s.lastOf(workflowID)
	if last == nil {
		return nil, "", ErrNoLastRun
	}
	n := last.w.NodeByID(nodeID)
	if n == nil {
		return nil, "", fmt.Errorf("the step was added after run %s: run it first", last.runID)
	}
	out, ok := last.shown[n.Key].(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("%q did not complete in run %s, so it has no outputs to pin", n.Label(), last.runID)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, "", fmt.Errorf("the outputs of %q cannot be pinned: %w", n.Label(), err)
	}
	if len(b) > maxPinBytes {
		return nil, "", fmt.Errorf("the outputs of %q are %d KB, more than the %d KB that can be pinned: type a smaller sample instead", n.Label(), len(b)>>10, maxPinBytes>>10)
	}
	return out, last.runID, nil
}

// fromOptions fills the runner options of a run from a node: the outputs
// of the last run for the steps before it. It fails when there is no last
// run of the workflow, or a step before the node changed since.
func (s *Service) fromOptions(w *workflow.Workflow, from string, opts *runner.Options) error {
	last := s.lastOf(w.ID)
	if last == nil {
		return ErrNoLastRun
	}
	if _, err := runner.CheckFrom(w, from, last.w, last.runID); err != nil {
		return err
	}
	opts.From, opts.Reuse, opts.ReuseOf, opts.ReusedFrom = from, last.live, last.w, last.runID
	return nil
}
