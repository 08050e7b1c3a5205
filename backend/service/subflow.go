package service

import (
	"context"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/subflow"
	"github.com/weft-dev/weft/backend/workflow"
)

// childPass judges a sub-workflow's file as a run of it is judged
// (checkApproval on the bytes read, its own trust and approvals; the
// caller's approval does not cover it), without asking anyone mid-run:
// what waits makes the child refuse to start, saying what, and
// `weft approve FILE` approves it.
func (s *Service) childPass(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, data []byte) (pass, error) {
	var fc fileCheck
	if tr, err := s.trust(); err != nil {
		fc.state = approval.FileState{Path: approval.Canonical(path), Why: err.Error()} // not trusted: reviewed whole
	} else {
		fc = judgeFile(tr, path, data)
	}
	return s.checkApprovalOn(ctx, st, w, path, fc, nil, "")
}

// gateChild is the runner's GateChild for a local run: the child's file
// is judged when its step runs.
func (s *Service) gateChild(st settings.Settings) func(context.Context, *workflow.Workflow, string, []byte) (runner.ChildGate, error) {
	return func(ctx context.Context, w *workflow.Workflow, path string, data []byte) (runner.ChildGate, error) {
		p, err := s.childPass(ctx, st, w, path, data)
		if err != nil {
			return runner.ChildGate{}, err
		}
		return runner.ChildGate{Approvals: p.checker, Catalog: p.catalog, ReviewFile: p.file}, nil
	}
}

// subflows are the files w's Workflow steps reach, judged now, for an
// engine whose workers cannot read them (package temporal): the same
// judgement gateChild makes, made at submission; nil when w calls none.
func (s *Service) subflows(ctx context.Context, st settings.Settings, dir string, w *workflow.Workflow) *subflow.Bundle {
	return subflow.Gather(dir, w, func(cw *workflow.Workflow, path string, data []byte) ([]string, bool, error) {
		p, err := s.childPass(ctx, st, cw, path, data)
		return p.fingerprints, p.file, err
	})
}
