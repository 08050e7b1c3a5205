package main

// Bindings for the Run panel: start and stop a run of the workflow on the
// canvas, stream its events, answer escalations, read past runs and list the
// tools (built-in and MCP) for the palette. They stay thin: running,
// recovery, classification and the run folders all live in backend/runner.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// Events sent to the frontend while a run goes, in this order per run:
// "run:event" for every runner.Event; "run:escalation" (a RunEscalation)
// right after the escalated event, when the run waits for an answer;
// "run:replanned" (a RunReplan) when the run ended with a new plan; and last
// "run:finished" (a RunFinished). They are emitted in that order, but the
// transport may deliver them out of order (wails dev sends each message
// from its own goroutine): events carry their seq (1, 2, … per run) and
// the others the seq of the last event before them (AfterSeq), for the
// frontend to put them back in order.
const (
	EventRunEvent      = "run:event"
	EventRunEscalation = "run:escalation"
	EventRunReplanned  = "run:replanned"
	EventRunFinished   = "run:finished"
)

// ErrRunActive is what StartRun returns while another run goes.
var ErrRunActive = errors.New("a run is already in progress: stop it first")

// Limits of the history bindings.
const (
	maxHistoryRuns   = 100
	maxHistoryEvents = 5000
	// catalogTimeout bounds starting the MCP servers to list their tools.
	catalogTimeout = 20 * time.Second
	catalogTTL     = 5 * time.Minute
)

// RunStart is StartRun's answer. Started is false when the workflow is not
// valid (Error and Problems say why) or, for a replanned version, when its
// side-effect steps need approval first (Approval lists them; run it with
// StartApprovedRun).
type RunStart struct {
	Started  bool                `json:"started"`
	Error    string              `json:"error,omitempty"`
	Problems []validate.Problem  `json:"problems"`
	Approval []runner.SideEffect `json:"approval"`
	// ApprovalChanged are the ids of the steps in Approval that the replan
	// added or changed.
	ApprovalChanged []string `json:"approval_changed"`
	Warnings        []string `json:"warnings"`
}

// RunEscalation is an escalation waiting for RespondEscalation(ID, …).
type RunEscalation struct {
	ID         string            `json:"id"`
	Escalation runner.Escalation `json:"escalation"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`
}

// RunFinished is the end of a run.
type RunFinished struct {
	RunID     string          `json:"run_id"`
	Dir       string          `json:"dir"`
	Outcome   runner.Outcome  `json:"outcome"`
	Error     string          `json:"error,omitempty"`
	StoppedAt *runner.NodeRef `json:"stopped_at,omitempty"`
	Summary   *runner.Summary `json:"summary,omitempty"`
	Warnings  []string        `json:"warnings"`
	Replanned bool            `json:"replanned"`
	Started   time.Time       `json:"started"`
	Finished  time.Time       `json:"finished"`
	// Problems are set when the run could not start after all.
	Problems []validate.Problem `json:"problems"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`
}

// RunReplan is a new plan made after a failure, as a change to review
// (the assistant's patch preview) before it is applied and run.
type RunReplan struct {
	RunID   string `json:"run_id"`
	Message string `json:"message"`
	// Changes sums the new version up against the one that ran.
	Changes   string                  `json:"changes"`
	StoppedAt *runner.NodeRef         `json:"stopped_at,omitempty"`
	Patch     assistant.WorkflowPatch `json:"patch"`
	Workflow  *workflow.Workflow      `json:"workflow"`
	Diff      assistant.Diff          `json:"diff"`
	Warnings  []assistant.Warning     `json:"warnings"`
	Valid     bool                    `json:"valid"`
	Problems  []validate.Problem      `json:"problems"`
	// SideEffects are the steps of the new plan that will need approval
	// before it runs; ChangedIDs those of them the replan added or changed.
	SideEffects []runner.SideEffect `json:"side_effects"`
	ChangedIDs  []string            `json:"changed_ids"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`
}

// RunStatus says whether a run goes, for a frontend that (re)loads while
// one does.
type RunStatus struct {
	Running    bool           `json:"running"`
	RunID      string         `json:"run_id"`
	WorkflowID string         `json:"workflow_id"`
	Escalation *RunEscalation `json:"escalation"`
	CanReplan  bool           `json:"can_replan"`
}

// RunRecord is one past run of RunHistory, from its summary.json.
type RunRecord struct {
	RunID        string          `json:"run_id"`
	Dir          string          `json:"dir"`
	WorkflowID   string          `json:"workflow_id"`
	WorkflowName string          `json:"workflow_name"`
	Outcome      runner.Outcome  `json:"outcome"`
	Error        string          `json:"error,omitempty"`
	StoppedAt    *runner.NodeRef `json:"stopped_at,omitempty"`
	Summary      *runner.Summary `json:"summary,omitempty"`
	Warnings     []string        `json:"warnings"`
	Replanned    bool            `json:"replanned"`
	Started      time.Time       `json:"started"`
	Finished     time.Time       `json:"finished"`
	// Complete is false for a folder without summary.json: a run still
	// going, or one that was killed.
	Complete bool `json:"complete"`
}

// RunHistoryResult lists past runs, newest first.
type RunHistoryResult struct {
	Dir      string      `json:"dir"`
	Runs     []RunRecord `json:"runs"`
	Warnings []string    `json:"warnings"`
}

// RunLog is the events of a past run.
type RunLog struct {
	Events []runner.Event `json:"events"`
	// Total counts the events in the file; only the last maxHistoryEvents
	// are returned.
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Warnings  []string `json:"warnings"`
}

// ToolCatalogResult is the palette's tool list with why MCP tools are
// missing, when they are.
type ToolCatalogResult struct {
	Tools    []tools.Tool `json:"tools"`
	Warnings []string     `json:"warnings"`
}

// ReplannerFactory builds the Replanner a run uses; nil (or a nil result)
// leaves replanning unavailable.
type ReplannerFactory func(s settings.Settings, client llm.Client, cat *tools.Catalog) runner.Replanner

// runState is the App's run plumbing, kept beside App (app.go is shared).
type runState struct {
	mu       sync.Mutex
	active   *activeRun
	approval *pendingApproval
	approved map[string]bool

	// replanner makes the runs' Replanner; see defaultReplanner.
	replanner ReplannerFactory
	// tune adjusts the runner options (tests: a fast Sleep).
	tune func(*runner.Options)

	catMu    sync.Mutex
	catKey   string
	catAt    time.Time
	catValue ToolCatalogResult
	// catalog lists the tools (tests replace it).
	catalog func(ctx context.Context, s settings.Settings) (*tools.Catalog, map[string]error)
}

// pendingApproval remembers a replanned version whose side-effect steps
// must be approved before it runs.
type pendingApproval struct {
	hash   string          // of the whole replanned workflow, positions aside
	prints map[string]bool // of its added or changed side-effect nodes
	info   *failure.ReplanInfo
}

// approvedHashes are the workflows (by workflowHash) whose side-effect
// steps were approved in this session: they run again without asking.

func (a *App) runState() *runState {
	a.stateOnce.Do(a.initState)
	return a.run
}

// defaultReplanner is the planner's, with the model of the settings; no
// model means no replanning (the frontend says so).
func defaultReplanner(s settings.Settings, client llm.Client, cat *tools.Catalog) runner.Replanner {
	if client == nil {
		return nil
	}
	cfg := planner.Config{
		// A replan is always validated: even with max_repair_attempts 0 an
		// unchecked proposal must never reach a run.
		MaxRepairAttempts: max(s.MaxRepairAttempts, 1),
		Features:          planner.Features{AllowAITransforms: s.Features.AllowAITransforms, AllowAgentSteps: s.Features.AllowAgentSteps},
		Catalog:           cat,
		Model:             s.LLM.Model,
	}
	if mem, err := planner.DefaultMemory(); err == nil {
		cfg.Memory = mem
	}
	if pats, err := failure.DefaultPatternStore(); err == nil {
		cfg.Patterns = pats
	}
	return &planner.Replanner{Client: client, Config: cfg}
}

// activeRun is the run in progress.
type activeRun struct {
	app        *App
	cancel     context.CancelFunc
	done       chan struct{}
	workflowID string
	canReplan  bool
	out        chan emission

	// lastSeq is the seq of the last event sent.
	lastSeq atomic.Int64

	mu      sync.Mutex
	runID   string
	seq     int
	waiting map[string]chan runner.Response
	current *RunEscalation
}

type emission struct {
	name string
	data any
}

// send queues an event for the frontend; the forwarder emits them in order
// so the runner never waits on the UI for long.
func (r *activeRun) send(name string, data any) { r.out <- emission{name, data} }

func (r *activeRun) forward(done chan<- struct{}) {
	for e := range r.out {
		r.app.emit(e.name, e.data)
	}
	close(done)
}

// Escalate implements runner.EscalationHandler: it tells the frontend and
// waits for RespondEscalation or the end of the run.
func (r *activeRun) Escalate(ctx context.Context, e runner.Escalation) (runner.Response, error) {
	ch := make(chan runner.Response, 1)
	r.mu.Lock()
	r.seq++
	id := fmt.Sprintf("%s#%d", e.RunID, r.seq)
	r.waiting[id] = ch
	esc := &RunEscalation{ID: id, Escalation: e, AfterSeq: r.lastSeq.Load()}
	if esc.Escalation.Failures == nil {
		esc.Escalation.Failures = []failure.Record{}
	}
	r.current = esc
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiting, id)
		if r.current == esc {
			r.current = nil
		}
		r.mu.Unlock()
	}()
	r.send(EventRunEscalation, *esc)
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return runner.Response{}, ctx.Err()
	}
}

// StartRun runs w (saved at path, or "" when unsaved) in the background.
// Its events reach the frontend as "run:event", escalations as
// "run:escalation" (answer them with RespondEscalation) and its end as
// "run:finished". One run at a time: it fails while one goes. An invalid
// workflow does not start: the result carries the problems.
func (a *App) StartRun(w workflow.Workflow, path string) (RunStart, error) {
	return a.startRun(w, path, nil)
}

// StartApprovedRun is StartRun for a replanned version whose side-effect
// steps the user approved (their node ids).
func (a *App) StartApprovedRun(w workflow.Workflow, path string, approved []string) (RunStart, error) {
	return a.startRun(w, path, approved)
}

func (a *App) startRun(w workflow.Workflow, path string, approved []string) (RunStart, error) {
	rs := a.runState()
	rs.mu.Lock()
	if rs.active != nil {
		rs.mu.Unlock()
		return RunStart{}, ErrRunActive
	}
	ctx, cancel := context.WithCancel(a.context())
	run := &activeRun{app: a, cancel: cancel, done: make(chan struct{}), workflowID: w.ID,
		out: make(chan emission, 1024), waiting: map[string]chan runner.Response{}}
	rs.active = run // reserved while it is checked
	rs.mu.Unlock()
	started := false
	defer func() {
		if !started {
			cancel()
			rs.mu.Lock()
			if rs.active == run {
				rs.active = nil
			}
			rs.mu.Unlock()
		}
	}()

	if path = strings.TrimSpace(path); path != "" {
		abs, err := filepath.Abs(path)
		if err != nil {
			return RunStart{}, fmt.Errorf("run: %w", err)
		}
		path = abs
	}
	res := RunStart{Problems: []validate.Problem{}, Approval: []runner.SideEffect{}, ApprovalChanged: []string{}, Warnings: []string{}}
	vr := validate.Validate(&w, a.catalog)
	if !vr.Valid {
		res.Problems = nonNil(vr.Errors())
		res.Error = (&runner.InvalidError{Problems: res.Problems}).Error()
		return res, nil
	}
	st, err := a.settingsStore()
	if err != nil {
		return RunStart{}, err
	}
	s, warnings, err := st.Effective()
	if err != nil {
		return RunStart{}, err
	}
	res.Warnings = append(res.Warnings, warnings...)

	cat := rs.cachedCatalog()
	steps, changed, pending := rs.needsApproval(&w, cat)
	ok := map[string]bool{}
	for _, id := range approved {
		ok[id] = true
	}
	for _, st := range steps {
		if !ok[st.ID] {
			res.Approval, res.ApprovalChanged = steps, nonNil(changed)
			res.Error = "this is a replanned version: approve its side-effect steps before it runs"
			return res, nil
		}
	}
	if len(steps) > 0 {
		rs.mu.Lock()
		if rs.approved == nil {
			rs.approved = map[string]bool{}
		}
		rs.approved[workflowHash(&w)] = true
		if pending {
			rs.approval = nil
		}
		rs.mu.Unlock()
	}

	var client llm.Client
	if strings.TrimSpace(s.LLM.Model) != "" {
		c, err := a.newLLM(s.LLM)
		if err != nil {
			res.Warnings = append(res.Warnings, "AI steps cannot run: "+err.Error())
		} else {
			client = c
		}
	}
	opts := runner.Options{Settings: s, LLM: client, Escalation: run, WorkflowPath: path,
		OnEvent: func(e runner.Event) {
			if e.Type == runner.EvRunStarted {
				run.mu.Lock()
				run.runID = e.RunID
				run.mu.Unlock()
			}
			run.lastSeq.Store(e.Seq)
			run.send(EventRunEvent, e)
		}}
	// The runner checks again (its replan mark; RequireApproval for a
	// version applied as a patch): the steps were approved above.
	opts.RequireApproval = pending
	opts.ApprovalCatalog = cat
	opts.Approve = func(_ context.Context, asked []runner.SideEffect) (bool, error) {
		for _, st := range asked {
			if !ok[st.ID] && len(steps) > 0 {
				return false, nil
			}
		}
		return true, nil
	}
	if rs.replanner != nil {
		if rp := rs.replanner(s, client, cat); rp != nil {
			opts.Replanner = rp
			run.canReplan = true
		}
	}
	if rs.tune != nil {
		rs.tune(&opts)
	}
	started = true
	res.Started = true
	forwarded := make(chan struct{})
	go run.forward(forwarded)
	go a.runInBackground(ctx, run, runner.New(opts), &w, forwarded)
	return res, nil
}

func (a *App) runInBackground(ctx context.Context, run *activeRun, rn *runner.Runner, w *workflow.Workflow, forwarded chan struct{}) {
	rs := a.runState()
	defer func() {
		run.cancel()
		close(run.out)
		<-forwarded
		rs.mu.Lock()
		if rs.active == run {
			rs.active = nil
		}
		rs.mu.Unlock()
		close(run.done)
	}()
	fin := RunFinished{Warnings: []string{}, Problems: []validate.Problem{}}
	res, err := rn.Run(ctx, w)
	if err != nil {
		fin.Outcome = runner.OutcomeFailed
		fin.Error = err.Error()
		var ie *runner.InvalidError
		if errors.As(err, &ie) {
			fin.Problems = nonNil(ie.Problems)
		}
		run.send(EventRunFinished, fin)
		return
	}
	fin.RunID, fin.Dir, fin.Outcome, fin.Error, fin.StoppedAt = res.RunID, res.Dir, res.Outcome, res.Error, res.StoppedAt
	fin.Summary, fin.Warnings, fin.Replanned = &res.Summary, nonNil(res.Warnings), res.Replanned != nil
	fin.Started, fin.Finished = res.Started, res.Finished
	fin.AfterSeq = run.lastSeq.Load()
	if res.Replanned != nil {
		rp := a.replanProposal(w, res)
		rp.AfterSeq = fin.AfterSeq
		rs.mu.Lock()
		rs.approval = approvalFor(rp)
		rs.mu.Unlock()
		run.send(EventRunReplanned, rp)
	}
	run.send(EventRunFinished, fin)
}

// replanProposal turns the replanned workflow into a patch of the one that
// ran, previewed like an assistant change.
func (a *App) replanProposal(old *workflow.Workflow, res *runner.Result) RunReplan {
	patch := replanPatch(old, res.Replanned)
	pv := assistant.PreviewPatch(old, &patch)
	vr := validate.Validate(pv.Workflow, a.catalog)
	rp := RunReplan{RunID: res.RunID, Message: res.Error, Changes: versions.Compare(old, res.Replanned).Summary(), StoppedAt: res.StoppedAt, Patch: patch,
		Workflow: pv.Workflow, Diff: pv.Diff, Warnings: nonNil(pv.Warnings), Valid: vr.Valid, Problems: nonNil(vr.Problems)}
	if info, ok := failure.ReplanInfoOf(res.Replanned); ok {
		failure.MarkReplanned(pv.Workflow, info) // the whole version carries the runner's mark
	}
	changed := map[string]bool{}
	for _, id := range append(append([]string{}, pv.Diff.AddedNodeIDs...), pv.Diff.ModifiedNodeIDs...) {
		changed[id] = true
	}
	rp.SideEffects = nonNil(runner.SideEffectNodes(pv.Workflow, a.runState().cachedCatalog()))
	rp.ChangedIDs = []string{}
	for _, st := range rp.SideEffects {
		if changed[st.ID] {
			rp.ChangedIDs = append(rp.ChangedIDs, st.ID)
		}
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

// RespondEscalation answers the escalation id with resp (retry, skip, abort,
// fix with an instruction or arguments, replan). It fails when no such
// escalation waits (answered already, or the run ended).
func (a *App) RespondEscalation(id string, resp runner.Response) error {
	switch resp.Action {
	case runner.ActRetry, runner.ActSkip, runner.ActAbort, runner.ActFix, runner.ActReplan:
	default:
		return fmt.Errorf("%q is not an answer: use retry, skip, abort, fix or replan", resp.Action)
	}
	run := a.activeRun()
	if run == nil {
		return fmt.Errorf("no run is waiting for an answer (escalation %s)", id)
	}
	run.mu.Lock()
	ch, ok := run.waiting[id]
	delete(run.waiting, id)
	run.mu.Unlock()
	if !ok {
		return fmt.Errorf("escalation %s is not waiting for an answer (answered already, or the run moved on)", id)
	}
	ch <- resp
	return nil
}

// activeRun is the run in progress, or nil.
func (a *App) activeRun() *activeRun {
	rs := a.runState()
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.active
}

// StopRun cancels the run in progress (an escalation waiting for an answer
// ends with it). It reports whether there was one.
func (a *App) StopRun() bool {
	run := a.activeRun()
	if run == nil {
		return false
	}
	run.cancel()
	return true
}

// waitRun waits for the run in progress, if any, to end (tests, shutdown).
func (a *App) waitRun(timeout time.Duration) bool {
	run := a.activeRun()
	if run == nil {
		return true
	}
	select {
	case <-run.done:
		return true
	case <-time.After(timeout):
		return false
	}
}

// GetRunStatus says whether a run goes and what it waits for.
func (a *App) GetRunStatus() RunStatus {
	run := a.activeRun()
	if run == nil {
		return RunStatus{}
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	return RunStatus{Running: true, RunID: run.runID, WorkflowID: run.workflowID, Escalation: run.current, CanReplan: run.canReplan}
}

// CanReplan says whether a run started now could replan (a planner is
// configured), for the Replan button.
func (a *App) CanReplan() bool {
	st, err := a.settingsStore()
	if err != nil {
		return false
	}
	s, _, err := st.Effective()
	if err != nil {
		return false
	}
	rs := a.runState()
	if rs.replanner == nil {
		return false
	}
	var client llm.Client
	if strings.TrimSpace(s.LLM.Model) != "" {
		if c, err := a.newLLM(s.LLM); err == nil {
			client = c
		}
	}
	return rs.replanner(s, client, rs.cachedCatalog()) != nil
}

var runIDPattern = regexp.MustCompile(`^\d{8}-\d{6}\.\d{3}-[0-9a-f]{6}$`)

// RunHistory lists the past runs of a workflow, newest first: the run
// folders in .weft/runs beside its file (path) or, unsaved, in the XDG data
// dir. workflowID, when set, keeps only that workflow's runs (a folder's
// runs are shared by its workflows).
func (a *App) RunHistory(path, workflowID string) (RunHistoryResult, error) {
	out := RunHistoryResult{Runs: []RunRecord{}, Warnings: []string{}}
	dir, err := runner.DefaultRunsDir(strings.TrimSpace(path))
	if err != nil {
		return out, err
	}
	out.Dir = dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		return out, fmt.Errorf("run history: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && runIDPattern.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids))) // ids start with the UTC time
	for _, id := range ids {
		if len(out.Runs) == maxHistoryRuns {
			break
		}
		rec, err := readRunRecord(filepath.Join(dir, id))
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %s: %v", id, err))
			continue
		}
		if workflowID != "" && rec.WorkflowID != workflowID {
			continue
		}
		out.Runs = append(out.Runs, rec)
	}
	return out, nil
}

func readRunRecord(dir string) (RunRecord, error) {
	rec := RunRecord{RunID: filepath.Base(dir), Dir: dir, Warnings: []string{}}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if errors.Is(err, os.ErrNotExist) {
		// Still going, or killed: say which workflow from its copy.
		var w struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		if wb, err := readCapped(filepath.Join(dir, "workflow.json"), 8<<20); err == nil {
			_ = json.Unmarshal(wb, &w)
		}
		rec.WorkflowID, rec.WorkflowName = w.ID, w.Name
		if st, err := os.Stat(dir); err == nil {
			rec.Started = st.ModTime()
		}
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	var doc struct {
		WorkflowID   string          `json:"workflow_id"`
		WorkflowName string          `json:"workflow_name"`
		Replanned    bool            `json:"replanned"`
		Outcome      runner.Outcome  `json:"outcome"`
		Error        string          `json:"error"`
		StoppedAt    *runner.NodeRef `json:"stopped_at"`
		Summary      *runner.Summary `json:"summary"`
		Warnings     []string        `json:"warnings"`
		Started      time.Time       `json:"started"`
		Finished     time.Time       `json:"finished"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return rec, fmt.Errorf("summary.json: %w", err)
	}
	rec.WorkflowID, rec.WorkflowName, rec.Replanned = doc.WorkflowID, doc.WorkflowName, doc.Replanned
	rec.Outcome, rec.Error, rec.StoppedAt, rec.Summary = doc.Outcome, doc.Error, doc.StoppedAt, doc.Summary
	rec.Warnings, rec.Started, rec.Finished = nonNil(doc.Warnings), doc.Started, doc.Finished
	rec.Complete = true
	return rec, nil
}

func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// RunEvents reads events.jsonl of a past run (a folder RunHistory listed):
// the last 5000 events, with how many there are.
func (a *App) RunEvents(runDir string) (RunLog, error) {
	out := RunLog{Events: []runner.Event{}, Warnings: []string{}}
	runDir = filepath.Clean(strings.TrimSpace(runDir))
	if !runIDPattern.MatchString(filepath.Base(runDir)) {
		return out, fmt.Errorf("%q is not a run folder", runDir)
	}
	f, err := os.Open(filepath.Join(runDir, "events.jsonl"))
	if err != nil {
		return out, fmt.Errorf("run events: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	ring := make([][]byte, 0, 256)
	bad := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		out.Total++
		if len(ring) == maxHistoryEvents {
			copy(ring, ring[1:])
			ring = ring[:maxHistoryEvents-1]
		}
		ring = append(ring, append([]byte(nil), line...))
	}
	if err := sc.Err(); err != nil {
		out.Warnings = append(out.Warnings, "the log is cut short: "+err.Error())
	}
	for _, line := range ring {
		var e runner.Event
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			continue
		}
		out.Events = append(out.Events, e)
	}
	if bad > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d unreadable line(s) left out", bad))
	}
	out.Truncated = out.Total > len(ring)
	return out, nil
}

// ToolCatalogFull lists the built-in tools and those of the configured MCP
// servers (as server.tool). Servers are started to ask (within 20s) and the
// answer is kept for a few minutes; a server that fails is left out with a
// warning, and without settings only the built-ins are listed.
func (a *App) ToolCatalogFull() ToolCatalogResult {
	rs := a.runState()
	fallback := func(why string) ToolCatalogResult {
		return ToolCatalogResult{Tools: nonNil(a.catalog.List()), Warnings: []string{why}}
	}
	st, err := a.settingsStore()
	if err != nil {
		return fallback("MCP tools are not listed: " + err.Error())
	}
	s, _, err := st.Effective()
	if err != nil {
		return fallback("MCP tools are not listed: " + err.Error())
	}
	if len(s.MCPServers) == 0 {
		return ToolCatalogResult{Tools: nonNil(a.catalog.List()), Warnings: []string{}}
	}
	kb, _ := json.Marshal(s.MCPServers)
	key := string(kb)
	rs.catMu.Lock()
	defer rs.catMu.Unlock()
	if rs.catKey == key && time.Since(rs.catAt) < catalogTTL {
		return rs.catValue
	}
	ctx, cancel := context.WithTimeout(a.context(), catalogTimeout)
	defer cancel()
	cat, errs := rs.catalog(ctx, s)
	res := ToolCatalogResult{Warnings: []string{}}
	if cat == nil {
		cat = a.catalog
	}
	res.Tools = nonNil(cat.List())
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Warnings = append(res.Warnings, fmt.Sprintf("MCP server %q: %v; its tools are not listed", n, errs[n]))
	}
	if len(errs) == 0 {
		rs.catKey, rs.catAt, rs.catValue = key, time.Now(), res
	} else {
		rs.catKey = "" // ask again next time
	}
	return res
}

// cachedCatalog is the last full catalog when there is one, else the
// built-ins: enough to tell side-effect tools apart.
func (rs *runState) cachedCatalog() *tools.Catalog {
	rs.catMu.Lock()
	defer rs.catMu.Unlock()
	if rs.catKey != "" && len(rs.catValue.Tools) > 0 {
		return tools.NewCatalog(rs.catValue.Tools...)
	}
	return tools.Builtin()
}

// SideEffectSteps lists the steps of w that change the world (commands,
// file writes, requests other than GET, tools that may change things, AI
// agents allowed to call them), as the approval dialog shows them.
func (a *App) SideEffectSteps(w workflow.Workflow) []runner.SideEffect {
	return nonNil(runner.SideEffectNodes(&w, a.runState().cachedCatalog()))
}

// approvalFor remembers what marks the replanned version when it comes back
// applied as a patch (which drops the runner's mark): its content and its
// added or changed side-effect nodes.
func approvalFor(rp RunReplan) *pendingApproval {
	if rp.Workflow == nil {
		return nil
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
	return p
}

// needsApproval returns the side-effect steps of w when w is a replanned
// version (the runner's mark, or the content of the last replan) that was
// not approved yet, with the ids of those the replan added or changed.
// pending says whether w matched the last replan rather than the mark.
func (rs *runState) needsApproval(w *workflow.Workflow, cat *tools.Catalog) (steps []runner.SideEffect, changed []string, pending bool) {
	hash := workflowHash(w)
	rs.mu.Lock()
	p, done := rs.approval, rs.approved[hash]
	rs.mu.Unlock()
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

// markApplied puts the runner's replan mark back on w when w is the last
// replan applied as a patch (the merge keeps only nodes and edges). Saved,
// the mark makes the version ask for approval again after a restart, not
// only in the session that replanned it.
func (rs *runState) markApplied(w *workflow.Workflow) {
	if w == nil {
		return
	}
	if _, marked := failure.ReplanInfoOf(w); marked {
		return
	}
	rs.mu.Lock()
	p := rs.approval
	rs.mu.Unlock()
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
