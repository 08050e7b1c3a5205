package service

import (
	"context"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// gateChild is the runner's GateChild (sub-workflows): a Workflow step's
// file is judged as a run of it is (checkApproval on the bytes the runner
// read, its own trust and approvals; the caller's approval does not cover
// it), without asking anyone mid-run: what waits makes the child refuse
// to start, saying what, and `weft approve FILE` approves it.
func (s *Service) gateChild(st settings.Settings) func(context.Context, *workflow.Workflow, string, []byte) (runner.ChildGate, error) {
	return func(ctx context.Context, w *workflow.Workflow, path string, data []byte) (runner.ChildGate, error) {
		var fc fileCheck
		if tr, err := s.trust(); err != nil {
			fc.state = approval.FileState{Path: approval.Canonical(path), Why: err.Error()} // not trusted: reviewed whole
		} else {
			fc = judgeFile(tr, path, data)
		}
		p, err := s.checkApprovalOn(ctx, st, w, path, fc, nil, "")
		if err != nil {
			return runner.ChildGate{}, err
		}
		return runner.ChildGate{Approvals: p.checker, Catalog: p.catalog, ReviewFile: p.file}, nil
	}
}
