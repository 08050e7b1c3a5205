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
	// File is the trust of the workflow's file: when it is not trusted,
	// Steps hold everything in it that acts or routes.
	File FileTrust
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
// annotations), the folder that bounds harmless reads, and whether the
// file is to be reviewed whole (its trust, files.go).
func (s *Service) approvalScope(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, fc fileCheck) (approval.Scope, *tools.Catalog) {
	sc := approval.Scope{File: !fc.state.Trusted}
	if path = strings.TrimSpace(path); path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			sc.Dir = filepath.Dir(abs)
		}
	}
	sc.Catalog = s.catalogFor(ctx, st, w, sc.Dir)
	return sc, sc.Catalog
}

// Approvals is the approval state of a workflow: the steps still waiting,
// the file's trust, and warnings (an approvals or trust file that had to
// be set aside).
type Approvals struct {
	Pending  []approval.Step `json:"pending"`
	File     FileTrust       `json:"file"`
	Warnings []string        `json:"warnings"`
}

// gate is one look at what waits for approval of w at path.
type gate struct {
	sc    approval.Scope
	cat   *tools.Catalog
	fc    fileCheck
	store *approval.Store
	snap  approval.Set
	warns []string
}

func (s *Service) openGate(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string) (*gate, error) {
	return s.openGateOn(ctx, st, w, path, s.checkFile(path))
}

// openGateOn is openGate on a reading of the file already made.
func (s *Service) openGateOn(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, fc fileCheck) (*gate, error) {
	g := &gate{fc: fc}
	g.sc, g.cat = s.approvalScope(ctx, st, w, path, fc)
	g.warns = append(g.warns, g.fc.warnings...)
	store, err := s.approvals()
	if err != nil {
		return nil, err
	}
	g.store = store
	snap, warn := store.Snapshot(path)
	if warn != nil {
		g.warns = append(g.warns, warn.Error())
	}
	g.snap = snap
	return g, nil
}

// pending lists what waits, a file's steps with what they were when last
// trusted.
func (g *gate) pending(w *workflow.Workflow) []approval.Step {
	before := g.settled(g.fc.prev)
	own := g.modelApproved(w)
	var out []approval.Step
	for _, st := range approval.Pending(w, g.sc, g.snap.Approved) {
		// Unchanged since the file was last trusted; a model's step also
		// needs its own approval here (in any file).
		if before[st.Fingerprint] && (st.Provenance.Source == "" || own[st.NodeID]) {
			continue
		}
		out = append(out, st)
	}
	return g.fc.withPrevious(nonNil(out), g.sc)
}

// settled lists, in a file to review, the fingerprints of what was
// trusted in its earlier content w: steps nobody marked, and model-written
// steps approved here. A mark deleted by hand since cannot turn an
// unapproved model step into a trusted one.
func (g *gate) settled(w *workflow.Workflow) approval.Set {
	set := approval.Set{}
	if w == nil || !g.sc.File {
		return set
	}
	own := g.modelApproved(w)
	for _, st := range approval.Required(w, g.sc) {
		if st.Provenance.Source == "" || own[st.NodeID] {
			set[st.Fingerprint] = true
		}
	}
	return set
}

// modelApproved says, by node id, which of w's model-written steps are
// approved here as a model's step (its content, as in a trusted file).
func (g *gate) modelApproved(w *workflow.Workflow) map[string]bool {
	out := map[string]bool{}
	sc := g.sc
	sc.File = false
	for _, st := range approval.Required(w, sc) {
		out[st.NodeID] = g.snap[st.Fingerprint]
	}
	return out
}

// PendingApprovals lists the steps of w (saved at path, "" when unsaved)
// that wait for approval: a model wrote or changed them and they act or
// route, or the file is not trusted and they act or route.
func (s *Service) PendingApprovals(ctx context.Context, w *workflow.Workflow, path string) (Approvals, error) {
	out := Approvals{Pending: []approval.Step{}, Warnings: []string{}}
	if w == nil {
		return out, errors.New("approvals: no workflow given")
	}
	st, _, err := s.settings()
	if err != nil {
		return out, err
	}
	g, err := s.openGate(ctx, st, w, path)
	if err != nil {
		return out, err
	}
	out.Warnings = append(out.Warnings, g.warns...)
	out.File = g.fc.view()
	out.Pending = g.pending(w)
	return out, nil
}

// Approve records a person's approval (by says how: "desktop", "cli",
// "weft approve") of the steps of w with these fingerprints, each of
// which must be waiting; it returns what still waits. Nothing is recorded
// when one fingerprint is not waiting. When nothing of the file on disk
// waits any more, its bytes are trusted.
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
	st, _, err := s.settings()
	if err != nil {
		return state, err
	}
	g, err := s.openGate(ctx, st, w, path)
	if err != nil {
		return state, err
	}
	if err := g.record(w, steps, path, by); err != nil {
		return state, err
	}
	s.trustIfReviewed(ctx, path, by, g.fc)
	return s.PendingApprovals(ctx, w, path)
}

// record stores the approval of steps of w at path. A model-written step
// approved in a file review was seen whole (its content and where it
// leads), so its content is approved as a model's step too: it does not
// ask again once the file is trusted.
func (g *gate) record(w *workflow.Workflow, steps []approval.Step, path, by string) error {
	all := append([]approval.Step(nil), steps...)
	if g.sc.File {
		sc := g.sc
		sc.File = false
		own := map[string]approval.Step{}
		for _, st := range approval.Required(w, sc) {
			own[st.NodeID+"\x00"+st.Key] = st
		}
		for _, st := range steps {
			if m, ok := own[st.NodeID+"\x00"+st.Key]; ok && m.Fingerprint != st.Fingerprint {
				all = append(all, m)
			}
		}
	}
	if err := g.store.Approve(all, path, w.Name, by); err != nil {
		return err
	}
	for _, st := range all {
		g.snap[st.Fingerprint] = true
	}
	return nil
}

// pass is the gate's decision about one run.
type pass struct {
	approved bool
	denied   bool // an Approver was asked and did not approve every step
	pending  []approval.Step
	checker  approval.Checker
	catalog  *tools.Catalog
	// file is set when the workflow's file was reviewed as a whole: the
	// runner's last check (and a remote engine's) judges it so too.
	file bool
	// fingerprints are the approved steps of the workflow, for an engine
	// that checks them elsewhere (remote.go).
	fingerprints []string
	warnings     []string
}

// checkApproval decides whether w may run: the steps waiting for approval are
// shown to the approver, what it approves is recorded, and the run may
// start only when nothing waits.
func (s *Service) checkApproval(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, approver Approver, by string) (pass, error) {
	return s.checkApprovalOn(ctx, st, w, path, s.checkFile(path), approver, by)
}

// checkApprovalOn is checkApproval on a reading of the file already made.
func (s *Service) checkApprovalOn(ctx context.Context, st settings.Settings, w *workflow.Workflow, path string, fc fileCheck, approver Approver, by string) (pass, error) {
	var p pass
	g, err := s.openGateOn(ctx, st, w, path, fc)
	if err != nil {
		return p, err
	}
	p.catalog, p.file, p.warnings = g.cat, g.sc.File, g.warns
	p.pending = g.pending(w)
	if len(p.pending) > 0 && approver != nil {
		fps, err := approver.Approve(ctx, ApprovalRequest{Workflow: w, Steps: p.pending, File: g.fc.view()})
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
		if err := g.record(w, yes, path, by); err != nil {
			return p, err
		}
		p.pending, p.denied = left, len(left) > 0
		if len(yes) > 0 {
			s.trustIfReviewed(ctx, path, by, g.fc)
		}
	}
	p.approved = len(p.pending) == 0
	// What the engines check again: every step to review that does not
	// wait (approved here, or unchanged since the file was trusted).
	waits := map[string]bool{}
	for _, st := range p.pending {
		waits[st.Fingerprint] = true
	}
	approved := approval.Set{}
	for _, st := range approval.Required(w, g.sc) {
		if !waits[st.Fingerprint] {
			approved[st.Fingerprint] = true
			p.fingerprints = append(p.fingerprints, st.Fingerprint)
		}
	}
	p.checker = approved
	return p, nil
}

// approvalMessage says why a run did not start.
func approvalMessage(steps []approval.Step) string {
	n := fmt.Sprintf("%d steps", len(steps))
	if len(steps) == 1 {
		n = "1 step"
	}
	for _, st := range steps {
		if st.Origin == approval.OriginFile {
			what := " that act or decide where the run goes"
			if len(steps) == 1 {
				what = " that acts or decides where the run goes"
			}
			return "this workflow file was not written by Weft or changed since you reviewed it: review its " + n + what + " before it runs"
		}
	}
	if len(steps) == 1 {
		return "1 step written or changed by a model needs your approval before the workflow runs"
	}
	return n + " written or changed by a model need your approval before the workflow runs"
}
