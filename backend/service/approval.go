package service

// The approval gate: before any engine starts, the steps a model wrote or
// changed that can act (package approval's rule) must each be approved by
// a person, for their exact content. This file is the only place that
// decides; the desktop dialog, the terminal prompt, --approve and `weft
// approve` are Approvers or callers of Approve, and the runner's own last
// check is handed the same approvals.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Approver is the person who says which steps may run. The caller passes
// it with each run: the desktop answers with the steps the user approved
// in the dialog, the CLI asks on the terminal or approves everything with
// --approve.
type Approver interface {
	// Approve is shown the steps waiting for approval, each with its full
	// content, and returns the fingerprints of those the person approved.
	// The run starts only when none is left waiting.
	Approve(ctx context.Context, req ApprovalRequest) (approved []string, err error)
}

// ApprovalRequest is what an Approver is asked about.
type ApprovalRequest struct {
	Workflow *workflow.Workflow
	Steps    []approval.Step
}

// Preapproved is an Approver whose answer was given beforehand: the
// content fingerprints of the steps the user approved in the desktop's
// dialog ("approve all and run"). Fingerprints, not node ids: if the
// document changed after the dialog showed it, the changed step is not
// approved and is asked about again.
type Preapproved []string

// Approve returns the fingerprints in p that are among the steps asked about.
func (p Preapproved) Approve(_ context.Context, req ApprovalRequest) ([]string, error) {
	ok := map[string]bool{}
	for _, fp := range p {
		ok[fp] = true
	}
	var fps []string
	for _, st := range req.Steps {
		if ok[st.Fingerprint] {
			fps = append(fps, st.Fingerprint)
		}
	}
	return fps, nil
}

// ApproveAll approves every step it is asked about (--approve).
type ApproveAll struct{}

// Approve returns the fingerprints of all of req.Steps.
func (ApproveAll) Approve(_ context.Context, req ApprovalRequest) ([]string, error) {
	return Fingerprints(req.Steps), nil
}

// Fingerprints are the content fingerprints of steps.
func Fingerprints(steps []approval.Step) []string {
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		out = append(out, s.Fingerprint)
	}
	return out
}

// ErrNotPending is returned by Approve for a fingerprint that is not a
// step of the workflow waiting for approval: an approval is always of
// content the person was shown.
var ErrNotPending = errors.New("not a step of this workflow that waits for approval")

// approvals opens the store (default: the XDG data dir's).
func (s *Service) approvals() (*approval.Store, error) {
	if s.deps.Approvals != nil {
		return s.deps.Approvals()
	}
	return approval.DefaultStore()
}

// approvalScope is what the rule needs besides w: the tools (MCP
// annotations) and the folder that bounds harmless reads.
func (s *Service) approvalScope(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string) (approval.Scope, *tools.Catalog) {
	cat := s.catalogFor(ctx, st, w)
	sc := approval.Scope{Catalog: cat}
	if path = strings.TrimSpace(path); path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			sc.Dir = filepath.Dir(abs)
		}
	}
	return sc, cat
}

// Approvals is the approval state of a workflow: the steps still waiting,
// and a warning when the approvals file had to be set aside.
type Approvals struct {
	Pending  []approval.Step `json:"pending"`
	Warnings []string        `json:"warnings"`
}

// PendingApprovals lists the steps of w (saved at path, "" when unsaved)
// that a model wrote, can act and are not approved yet.
func (s *Service) PendingApprovals(ctx context.Context, w *workflow.Workflow, path string) (Approvals, error) {
	out := Approvals{Pending: []approval.Step{}, Warnings: []string{}}
	if w == nil {
		return out, errors.New("approvals: no workflow given")
	}
	st, _, err := s.settings()
	if err != nil {
		return out, err
	}
	sc, _ := s.approvalScope(ctx, st, w, path)
	store, err := s.approvals()
	if err != nil {
		return out, err
	}
	snap, warn := store.Snapshot()
	if warn != nil {
		out.Warnings = append(out.Warnings, warn.Error())
	}
	out.Pending = nonNil(approval.Pending(w, sc, func(fp string) bool { return snap[fp] }))
	return out, nil
}

// Approve records a person's approval (by says how: "desktop", "cli",
// "weft approve") of the steps of w with these fingerprints, each of
// which must be waiting; it returns what still waits. Nothing is recorded
// when one fingerprint is not waiting.
func (s *Service) Approve(ctx context.Context, w *workflow.Workflow, path string, fingerprints []string, by string) (Approvals, error) {
	state, err := s.PendingApprovals(ctx, w, path)
	if err != nil {
		return state, err
	}
	byFP := map[string]approval.Step{}
	for _, st := range state.Pending {
		byFP[st.Fingerprint] = st
	}
	var steps []approval.Step
	for _, fp := range fingerprints {
		st, ok := byFP[fp]
		if !ok {
			return state, fmt.Errorf("approve %.12s…: %w", fp, ErrNotPending)
		}
		steps = append(steps, st)
	}
	store, err := s.approvals()
	if err != nil {
		return state, err
	}
	if err := store.Approve(steps, w.Name, by); err != nil {
		return state, err
	}
	return s.PendingApprovals(ctx, w, path)
}

// pass is the gate's decision about one run.
type pass struct {
	approved bool
	denied   bool // an Approver was asked and did not approve every step
	pending  []approval.Step
	checker  approval.Checker
	catalog  *tools.Catalog
	// fingerprints are the approved model-written steps of the workflow,
	// for an engine that checks them elsewhere (remote.go).
	fingerprints []string
	warnings     []string
}

// checkApproval decides whether w may run: the steps waiting for approval are
// shown to the approver, what it approves is recorded, and the run may
// start only when nothing waits.
func (s *Service) checkApproval(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, approver Approver, by string) (pass, error) {
	var p pass
	sc, cat := s.approvalScope(ctx, st, w, path)
	p.catalog = cat
	store, err := s.approvals()
	if err != nil {
		return p, err
	}
	snap, warn := store.Snapshot()
	if warn != nil {
		p.warnings = append(p.warnings, warn.Error())
	}
	p.pending = approval.Pending(w, sc, func(fp string) bool { return snap[fp] })
	if len(p.pending) > 0 && approver != nil {
		fps, err := approver.Approve(ctx, ApprovalRequest{Workflow: w, Steps: p.pending})
		if err != nil {
			return p, fmt.Errorf("asking for approval: %w", err)
		}
		ok := map[string]bool{}
		for _, fp := range fps {
			ok[fp] = true
		}
		var yes, left []approval.Step
		for _, st := range p.pending {
			if ok[st.Fingerprint] {
				yes = append(yes, st)
			} else {
				left = append(left, st)
			}
		}
		if err := store.Approve(yes, w.Name, by); err != nil {
			return p, err
		}
		for _, st := range yes {
			snap[st.Fingerprint] = true
		}
		p.pending, p.denied = left, len(left) > 0
	}
	p.approved = len(p.pending) == 0
	p.checker = approval.Set(snap)
	for _, st := range approval.Required(w, sc) {
		if snap[st.Fingerprint] {
			p.fingerprints = append(p.fingerprints, st.Fingerprint)
		}
	}
	return p, nil
}

// approvalMessage says why a run did not start.
func approvalMessage(steps []approval.Step) string {
	if len(steps) == 1 {
		return "1 step written or changed by a model needs your approval before the workflow runs"
	}
	return fmt.Sprintf("%d steps written or changed by a model need your approval before the workflow runs", len(steps))
}
