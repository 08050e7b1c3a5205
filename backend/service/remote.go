package service

import (
	"context"
	"errors"
	"path/filepath"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/subflow"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Remote is an engine that runs workflows elsewhere (package temporal):
// the service decides whether the run may start, as for a local run, and
// hands it over with what was approved.
type Remote interface {
	Submit(ctx context.Context, w *workflow.Workflow, sub Submission) (runID string, err error)
}

// Submission is what a remote run starts with beside its workflow.
type Submission struct {
	// Approved are the fingerprints of the model-written steps a person
	// approved: the worker's gate checks the content against them.
	Approved []string
	// ReviewFile: the file was reviewed as a whole (runner.Options).
	ReviewFile bool
	// Dir is the workflow's folder: relative paths start there on the
	// worker (the same machine, or one that has that folder).
	Dir string
	// Path is the workflow's file here ("" when unsaved): where a run
	// nobody followed is logged when it is read back (temporal_log.go).
	Path           string
	UsePinned      bool
	DefaultRetries int
	// Source is who starts the run (recorded with it).
	Source runner.RunSource
	// Warnings are the run's first warnings, as a local run would give
	// them (runner.StartWarnings).
	Warnings []string
	// Inputs are the run's inputs, resolved (inputs.Resolve).
	Inputs map[string]any
	// CanReplan: a model is set up here, so replan is offered (the
	// follower makes the plan).
	CanReplan bool
	// Subflows are the files its Workflow steps reach, read and judged
	// here: a worker may not have them.
	Subflows *subflow.Bundle
}

// Submit checks req.Workflow as Start does (validation, then approval of
// the steps a model wrote, asking req.Approver) and submits it to the
// remote engine. runID is "" when it did not start (the result says why).
func (s *Service) Submit(ctx context.Context, req StartRequest, eng Remote) (StartResult, string, error) {
	res := StartResult{Problems: []validate.Problem{}, Approval: []approval.Step{}, Warnings: []string{}}
	if req.Workflow == nil {
		return res, "", errors.New("run: no workflow given")
	}
	if eng == nil {
		return res, "", errors.New("run: no engine to submit to")
	}
	w := req.Workflow.Clone()
	if req.From != "" {
		res.Error = "a run from a node reuses the outputs the app keeps in memory: it runs on the local engine only"
		return res, "", nil
	}
	vr := validate.Validate(w, s.deps.Builtin)
	if !vr.Valid {
		res.Problems = nonNil(vr.Errors())
		res.Error = (&runner.InvalidError{Problems: res.Problems}).Error()
		return res, "", nil
	}
	given, ok, err := runInputs(w, req, &res)
	if !ok {
		return res, "", err
	}
	st, warnings, err := s.settings()
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		return res, "", err
	}
	path, err := absPath(req.Path)
	if err != nil {
		return res, "", err
	}
	dir := ""
	if path != "" {
		dir = filepath.Dir(path)
	}
	pass, err := s.checkApproval(ctx, st, w, path, req.Approver, req.ApprovedBy)
	res.Warnings = append(res.Warnings, pass.warnings...)
	if err != nil {
		return res, "", err
	}
	if !pass.approved {
		res.Approval, res.Denied = pass.pending, pass.denied
		res.Error = approvalMessage(pass.pending)
		return res, "", nil
	}
	id, err := eng.Submit(ctx, w, Submission{Approved: pass.fingerprints, ReviewFile: pass.file, Dir: dir, Path: path, UsePinned: req.UsePinned, DefaultRetries: st.Run.DefaultRetries, Source: req.Source,
		Warnings: runner.StartWarnings(w, st), CanReplan: s.canReplan(st), Inputs: given, Subflows: s.subflows(ctx, st, dir, w)})
	if err != nil {
		return res, "", err
	}
	res.Started = true
	return res, id, nil
}
