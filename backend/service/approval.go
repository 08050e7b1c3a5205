package service

// The approval gate: which workflows need their side-effect steps approved
// before they run, who is asked, and what this session remembers. It is
// the only place that decides; the desktop dialog and the CLI prompt are
// Approvers, and the runner's own check (runner.Options.Approve) is
// answered from the decision made here.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Approver is the one who says which side-effect steps may run. The
// caller passes it with each run: the desktop answers with the steps the
// user ticked in the dialog, the CLI asks on the terminal or approves
// everything with --approve.
type Approver interface {
	// Approve returns the ids of the steps in req.Steps that may run. The
	// run starts only when every step is approved.
	Approve(ctx context.Context, req ApprovalRequest) (approved []string, err error)
}

// ApprovalRequest is what an Approver is asked about.
type ApprovalRequest struct {
	Workflow *workflow.Workflow
	// Steps are the side-effect steps to approve.
	Steps []runner.SideEffect
	// Changed are the ids of those the replan added or changed.
	Changed []string
}

// Preapproved is an Approver whose answer was given beforehand: the node
// ids the user approved in the desktop's dialog (none for a first try).
type Preapproved []string

// Approve returns p.
func (p Preapproved) Approve(context.Context, ApprovalRequest) ([]string, error) { return p, nil }

// ApproveAll approves every step it is asked about.
type ApproveAll struct{}

// Approve returns the ids of all of req.Steps.
func (ApproveAll) Approve(_ context.Context, req ApprovalRequest) ([]string, error) {
	return StepIDs(req.Steps), nil
}

// StepIDs are the node ids of steps.
func StepIDs(steps []runner.SideEffect) []string {
	ids := make([]string, 0, len(steps))
	for _, s := range steps {
		ids = append(ids, s.ID)
	}
	return ids
}

// gate is the session's approval state.
type gate struct {
	mu sync.Mutex
	// pending is the last replan proposed, which comes back applied as a
	// patch without the runner's mark.
	pending *pendingApproval
	// approved are the workflows (by workflowHash) whose side-effect
	// steps were approved in this session: they run again without asking.
	approved map[string]bool
}

// pendingApproval remembers a replanned version whose side-effect steps
// must be approved before it runs.
type pendingApproval struct {
	hash   string          // of the whole replanned workflow, positions aside
	prints map[string]bool // of its added or changed side-effect nodes
	info   *failure.ReplanInfo
}

// pass is the gate's decision about one run.
type pass struct {
	approved bool
	denied   bool // an Approver was asked and said no to some step
	steps    []runner.SideEffect
	changed  []string
	pending  bool // the workflow matched the last replan, not the mark
	ok       map[string]bool
	catalog  *tools.Catalog
}

// check decides whether w may run: when it needs approval (needsApproval)
// the approver is asked, and every step must be approved. catalog gives
// the tools to judge the steps by; it is only asked when needed.
func (g *gate) check(ctx context.Context, w *workflow.Workflow, catalog func() *tools.Catalog, approver Approver) (pass, error) {
	p := pass{ok: map[string]bool{}}
	if !g.mayNeedApproval(w) {
		p.approved = true
		return p, nil
	}
	p.catalog = catalog()
	p.steps, p.changed, p.pending = g.needsApproval(w, p.catalog)
	if len(p.steps) == 0 {
		p.approved = true
		return p, nil
	}
	if approver == nil {
		return p, nil
	}
	ids, err := approver.Approve(ctx, ApprovalRequest{Workflow: w, Steps: p.steps, Changed: nonNil(p.changed)})
	if err != nil {
		return p, fmt.Errorf("asking for approval of the replanned workflow: %w", err)
	}
	for _, id := range ids {
		p.ok[id] = true
	}
	for _, st := range p.steps {
		if !p.ok[st.ID] {
			p.denied = true
			return p, nil
		}
	}
	p.approved = true
	g.mu.Lock()
	if g.approved == nil {
		g.approved = map[string]bool{}
	}
	g.approved[workflowHash(w)] = true
	if p.pending {
		g.pending = nil
	}
	g.mu.Unlock()
	return p, nil
}

// apply makes the runner's own check agree with p: it asks again (its
// replan mark; RequireApproval for a version applied as a patch), and is
// answered with what the gate approved.
func (g *gate) apply(p pass, opts *runner.Options, fallback func() *tools.Catalog) {
	opts.RequireApproval = p.pending
	opts.ApprovalCatalog = p.catalog
	if opts.ApprovalCatalog == nil {
		opts.ApprovalCatalog = fallback()
	}
	steps, ok := p.steps, p.ok
	opts.Approve = func(_ context.Context, asked []runner.SideEffect) (bool, error) {
		for _, st := range asked {
			if !ok[st.ID] && len(steps) > 0 {
				return false, nil
			}
		}
		return true, nil
	}
}

// mayNeedApproval is the cheap part of needsApproval, before any catalog
// is built: w carries the replan mark or may be the last replan.
func (g *gate) mayNeedApproval(w *workflow.Workflow) bool {
	if _, marked := failure.ReplanInfoOf(w); marked {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.pending != nil
}

// needsApproval returns the side-effect steps of w when w is a replanned
// version (the runner's mark, or the content of the last replan) that was
// not approved yet, with the ids of those the replan added or changed.
// pending says whether w matched the last replan rather than the mark.
func (g *gate) needsApproval(w *workflow.Workflow, cat *tools.Catalog) (steps []runner.SideEffect, changed []string, pending bool) {
	hash := workflowHash(w)
	g.mu.Lock()
	p, done := g.pending, g.approved[hash]
	g.mu.Unlock()
	if done {
		return nil, nil, false
	}
	_, marked := failure.ReplanInfoOf(w)
	if p != nil {
		for i := range w.Nodes {
			if p.prints[nodePrint(&w.Nodes[i])] {
				changed = append(changed, w.Nodes[i].ID)
			}
		}
		pending = len(changed) > 0 || hash == p.hash
	}
	if !marked && !pending {
		return nil, nil, false
	}
	return runner.SideEffectNodes(w, cat), changed, pending
}

// replanned remembers what marks the replanned version when it comes back
// applied as a patch (which drops the runner's mark): its content and its
// added or changed side-effect nodes.
func (g *gate) replanned(rp Replan) {
	if rp.Workflow == nil {
		return
	}
	p := &pendingApproval{hash: workflowHash(rp.Workflow), prints: map[string]bool{}}
	if info, ok := failure.ReplanInfoOf(rp.Workflow); ok {
		p.info = &info
	}
	for _, id := range rp.ChangedIDs {
		if n := rp.Workflow.NodeByID(id); n != nil {
			p.prints[nodePrint(n)] = true
		}
	}
	g.mu.Lock()
	g.pending = p
	g.mu.Unlock()
}

// MarkApplied puts the runner's replan mark back on w when w is the last
// replan applied as a patch (the merge keeps only nodes and edges). Saved,
// the mark makes the version ask for approval again after a restart, not
// only in the session that replanned it.
func (s *Service) MarkApplied(w *workflow.Workflow) {
	if w == nil {
		return
	}
	if _, marked := failure.ReplanInfoOf(w); marked {
		return
	}
	g := &s.gate
	g.mu.Lock()
	p := g.pending
	g.mu.Unlock()
	if p == nil || p.info == nil {
		return
	}
	match := workflowHash(w) == p.hash
	for i := 0; !match && i < len(w.Nodes); i++ {
		match = p.prints[nodePrint(&w.Nodes[i])]
	}
	if match {
		failure.MarkReplanned(w, *p.info)
	}
}

// SideEffectSteps lists the steps of w that change the world (commands,
// file writes, requests other than GET, tools that may change things, AI
// agents allowed to call them), as the approval dialog shows them.
func (s *Service) SideEffectSteps(w *workflow.Workflow) []runner.SideEffect {
	return nonNil(runner.SideEffectNodes(w, s.cachedCatalog()))
}

// nodePrint identifies a node's content, its position aside.
func nodePrint(n *workflow.Node) string {
	c := *n
	c.Position = nil
	b, _ := json.Marshal(&c)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// workflowHash identifies a workflow's steps and wiring, positions and
// top-level fields (such as the replan mark) aside.
func workflowHash(w *workflow.Workflow) string {
	h := sha256.New()
	for i := range w.Nodes {
		h.Write([]byte(nodePrint(&w.Nodes[i])))
	}
	b, _ := json.Marshal(w.Edges)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
