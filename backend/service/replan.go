package service

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/replan"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// ReplannerFactory builds the Replanner a run uses from the effective
// settings, the model client (nil without a model) and the tool catalog
// (asked when a replan starts, so MCP servers start only then). A nil
// result leaves replanning unavailable.
type ReplannerFactory func(s settings.Settings, client llm.Client, catalog func(context.Context) *tools.Catalog) runner.Replanner

// PlannerReplanner is the planner as a run's Replanner: the settings'
// model, features and repair attempts (at least one validated call), the
// repair memory and the learned failure patterns. No model means no
// replanning. log and onProgress may be nil.
func PlannerReplanner(log *slog.Logger, onProgress func(planner.Event)) ReplannerFactory {
	return func(s settings.Settings, client llm.Client, catalog func(context.Context) *tools.Catalog) runner.Replanner {
		if client == nil {
			return nil
		}
		cfg := aiOf(s, log).Planner(nil, onProgress)
		// A replan is always validated: even with max_repair_attempts 0
		// an unchecked proposal must never reach a run.
		cfg.MaxRepairAttempts = max(cfg.MaxRepairAttempts, 1)
		return &planner.Replanner{Client: client, Config: cfg, Catalog: catalog}
	}
}

// Replan is a new plan made after a failure, as a change to review (the
// assistant's patch preview) before it is applied and run.
type Replan struct {
	RunID   string `json:"run_id"`
	Message string `json:"message"`
	// Changes sums the new version up against the one that ran.
	Changes   string                  `json:"changes"`
	StoppedAt *runner.NodeRef         `json:"stopped_at,omitempty"`
	Patch     assistant.WorkflowPatch `json:"patch"`
	Workflow  *workflow.Workflow      `json:"workflow"`
	Diff      assistant.Diff          `json:"diff"`
	// Review is the change field by field, old → new in full, as the
	// assistant's review banner shows it.
	Review   assistant.ChangeSet `json:"review"`
	Warnings []assistant.Warning `json:"warnings"`
	Valid    bool                `json:"valid"`
	Problems []validate.Problem  `json:"problems"`
	// SideEffects are the steps of the new plan a model wrote that will
	// wait for approval before it runs (package approval).
	SideEffects []approval.Step `json:"side_effects"`
	// Tries are the planner's replies that were asked again, and why:
	// the repair the person can open, as the assistant's.
	Tries []assistant.Try `json:"tries,omitempty"`
	// Tests are the workflow's test cases played against Workflow; nil
	// when it has none.
	Tests *reask.Tests `json:"tests,omitempty"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`
}

// proposal turns the replanned workflow into a patch of the one that ran,
// previewed like an assistant change.
func (s *Service) proposal(ctx context.Context, old *workflow.Workflow, res *runner.Result, path string) Replan {
	patch := replanPatch(old, res.Replanned)
	pv := assistant.PreviewPatch(old, &patch)
	vr := validate.Validate(pv.Workflow, s.deps.Builtin)
	rp := Replan{RunID: res.RunID, Message: res.Error, Changes: versions.Compare(old, res.Replanned).Summary(), StoppedAt: res.StoppedAt, Patch: patch,
		Workflow: pv.Workflow, Diff: pv.Diff, Review: pv.Changes, Warnings: nonNil(pv.Warnings), Valid: vr.Valid, Problems: nonNil(vr.Problems)}
	if info, ok := failure.ReplanInfoOf(res.Replanned); ok {
		failure.MarkReplanned(pv.Workflow, info) // the whole version carries the runner's mark
	}
	rp.Tests = s.testsOf(ctx, path, old, pv.Workflow)
	rp.SideEffects = []approval.Step{}
	if a, err := s.PendingApprovals(ctx, pv.Workflow, path); err == nil {
		rp.SideEffects = a.Pending
	}
	return rp
}

// replanPatch describes new as a change of old: the nodes it adds, removes
// and changes and the edges it rewires.
func replanPatch(old, nw *workflow.Workflow) assistant.WorkflowPatch {
	d := assistant.DiffForPreview(old, nw)
	p := assistant.WorkflowPatch{AddedNodes: []workflow.Node{}, RemovedNodeIDs: nonNil(d.RemovedNodeIDs),
		UpdatedNodes: []workflow.Node{}, AddedEdges: nonNil(d.AddedEdges), RemovedEdges: nonNil(d.RemovedEdges),
		Warnings: []assistant.Warning{}}
	added, modified := map[string]bool{}, map[string]bool{}
	for _, id := range d.AddedNodeIDs {
		added[id] = true
	}
	for _, id := range d.ModifiedNodeIDs {
		modified[id] = true
	}
	// Steps the replan kept stay where the user put them; new ones keep
	// their place in the planner's layout relative to a kept neighbour.
	shift := layoutShift(old, nw)
	for _, n := range nw.Nodes {
		switch {
		case added[n.ID]:
			if d, ok := shift[n.ID]; ok && n.Position != nil {
				n.Position = &workflow.Position{X: n.Position.X + d.X, Y: n.Position.Y + d.Y}
			}
			p.AddedNodes = append(p.AddedNodes, n)
		case modified[n.ID]:
			if o := old.NodeByID(n.ID); o != nil && o.Position != nil {
				n.Position = &workflow.Position{X: o.Position.X, Y: o.Position.Y}
			}
			p.UpdatedNodes = append(p.UpdatedNodes, n)
		}
	}
	return p
}

// layoutShift gives each node new to nw the move that puts the planner's
// layout onto the old one around it: the difference between where a kept
// neighbour (through an edge, predecessors first) was and where the planner
// put it. Nodes with no kept neighbour in reach are not in the map.
func layoutShift(old, nw *workflow.Workflow) map[string]workflow.Position {
	out := map[string]workflow.Position{}
	for i := range nw.Nodes {
		if o := old.NodeByID(nw.Nodes[i].ID); o != nil && o.Position != nil && nw.Nodes[i].Position != nil {
			out[nw.Nodes[i].ID] = workflow.Position{X: o.Position.X - nw.Nodes[i].Position.X, Y: o.Position.Y - nw.Nodes[i].Position.Y}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, e := range nw.Edges {
			for _, pair := range [][2]string{{e.From, e.To}, {e.To, e.From}} {
				if d, ok := out[pair[0]]; ok {
					if _, done := out[pair[1]]; !done && old.NodeByID(pair[1]) == nil {
						out[pair[1]] = d
						changed = true
					}
				}
			}
		}
	}
	for i := range nw.Nodes {
		if old.NodeByID(nw.Nodes[i].ID) != nil {
			delete(out, nw.Nodes[i].ID)
		}
	}
	return out
}

// SavedReplan is what SaveReplanned did.
type SavedReplan struct {
	// File is where the new version was written ("" when it could not be).
	File string
	// Version and FromVersion are the numbers of the new version and of
	// the one that ran in the versions store (0 when not recorded).
	Version, FromVersion int
	// Proposal is the review of the new version: changes and the steps
	// that need approval before it runs.
	Proposal replan.Proposal
	// RecordErr is why the versions were not recorded; WriteErr why the
	// file was not written.
	RecordErr, WriteErr error
}

// SaveReplanned keeps a replanned version for a run from a file (the
// CLI): both versions go into the versions store and the new one is
// written beside path (ReplannedPath). Failures are reported in the
// result, not returned: the run's own result matters more.
func (s *Service) SaveReplanned(ctx context.Context, path string, old, nw *workflow.Workflow) SavedReplan {
	var out SavedReplan
	if old == nil || nw == nil {
		out.RecordErr = errors.New("no workflow given")
		return out
	}
	var rec replan.Recorded
	store, err := s.deps.Versions()
	if err == nil {
		if s.deps.Logger != nil {
			store.Log = s.deps.Logger
		}
		rec, err = replan.Record(store, old, nw)
	}
	if err != nil {
		out.RecordErr = err
	}
	out.Version, out.FromVersion = rec.To.N, rec.From.N
	out.File = ReplannedPath(path, rec.To.N)
	// Weft writes it beside the file it replans: the trust carries over
	// (the replanned steps carry the model's marks and wait for approval).
	if err := s.SaveWorkflow(ctx, out.File, nw, path); err != nil {
		out.File, out.WriteErr = "", err
	}
	st, _, err := s.settings()
	if err != nil {
		st = settings.Settings{}
	}
	out.Proposal = replan.Propose(old, nw, s.catalogFor(ctx, st, nw, ""))
	return out
}

// ReplannedPath is where a replanned version goes beside the input:
// notes.json → notes.replanned-v3.json (notes.replanned-v2.json too).
func ReplannedPath(path string, n int) string {
	base := path
	if strings.EqualFold(filepath.Ext(base), ".json") {
		base = base[:len(base)-len(".json")]
	}
	base = replannedSuffix.ReplaceAllString(base, "")
	if n <= 0 {
		return base + ".replanned.json"
	}
	return base + ".replanned-v" + strconv.Itoa(n) + ".json"
}

var replannedSuffix = regexp.MustCompile(`\.replanned(-v[0-9]+)?$`)

// hearReplans keeps what the planner's replan asked again and why, for
// the proposal (a replanner that is not the planner's says nothing), and
// has it play the workflow's test cases against each new plan (check,
// nil without cases), asking again when one errors under them.
func (r *activeRun) hearReplans(rp runner.Replanner, check reask.Check) {
	pr, ok := rp.(*planner.Replanner)
	if !ok {
		return
	}
	pr.Config.Check = check
	prev := pr.OnResult
	pr.OnResult = func(res planner.Result) {
		if prev != nil {
			prev(res)
		}
		var tries []assistant.Try
		for _, a := range res.Attempts {
			if a.Error != "" {
				tries = append(tries, assistant.Try{Attempt: a.N, Why: []string{a.Error}})
			}
		}
		r.mu.Lock()
		r.replanTries = tries
		r.mu.Unlock()
	}
}
