package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// The run bindings with real tools (sh) and the Wails emitter replaced: no
// GTK, no window.

type emitted struct {
	name string
	data any
}

type runEvents struct {
	mu   sync.Mutex
	all  []emitted
	note chan emitted
}

func (r *runEvents) emit(_ context.Context, name string, data ...any) {
	if !strings.HasPrefix(name, "run:") || len(data) != 1 {
		return
	}
	e := emitted{name, data[0]}
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
	r.note <- e
}

// next waits for the next emission named name, skipping others.
func (r *runEvents) next(t *testing.T, name string) any {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-r.note:
			if e.name == name {
				return e.data
			}
		case <-deadline:
			t.Fatalf("no %s within 20s", name)
		}
	}
}

func (r *runEvents) list() []emitted {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]emitted(nil), r.all...)
}

func (r *runEvents) runnerEvents() []runner.Event {
	var out []runner.Event
	for _, e := range r.list() {
		if ev, ok := e.data.(runner.Event); ok {
			out = append(out, ev)
		}
	}
	return out
}

func runApp(t *testing.T) (*App, *runEvents) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	a, _ := testApp(t)
	ev := &runEvents{note: make(chan emitted, 4096)}
	a.tuneService = func(d *service.Deps) {
		d.Tune = func(o *runner.Options) {
			o.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
		}
	}
	a.setEmitter(ev.emit)
	t.Cleanup(func() {
		a.StopRun()
		if !a.waitRun(10 * time.Second) {
			t.Error("the run did not end")
		}
	})
	return a, ev
}

// runFile writes a workflow of run_command steps (key, command; a verify
// and one attempt for those starting with "!") in order, and returns it
// with its path.
// withDeps remakes the App's service (before it runs anything) with its
// dependencies changed by tweak as well.
func withDeps(a *App, tweak func(*service.Deps)) {
	a.service()
	prev := a.tuneService
	a.tuneService = func(d *service.Deps) {
		if prev != nil {
			prev(d)
		}
		tweak(d)
	}
	d := a.serviceDeps()
	a.tuneService(&d)
	a.svc = service.New(d)
}

func runFile(t *testing.T, id string, steps ...[2]string) (workflow.Workflow, string) {
	t.Helper()
	w := workflow.New("Run test " + id)
	w.ID = id
	for i, s := range steps {
		cmd := s[1]
		n := workflow.Node{ID: "id_" + s[0], Key: s[0], Name: strings.ToUpper(s[0][:1]) + s[0][1:], Type: workflow.TypeTool,
			Params:   workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": strings.TrimPrefix(cmd, "!")}},
			Position: &workflow.Position{X: float64(i) * 250}}
		if strings.HasPrefix(cmd, "!") {
			n.Verify = s[0] + ".exit_code == 0"
			n.Retry = &workflow.Retry{MaxAttempts: 1}
		}
		w.Nodes = append(w.Nodes, n)
		if i > 0 {
			w.Edges = append(w.Edges, workflow.Edge{From: "id_" + steps[i-1][0], To: n.ID})
		}
	}
	path := filepath.Join(t.TempDir(), id+".json")
	// Saved as the editor saves a new document: the person's, trusted.
	svc := service.New(service.Deps{Settings: func() (settings.Settings, []string, error) { return settings.Defaults(), nil, nil }})
	if err := svc.SaveWorkflow(context.Background(), path, w, ""); err != nil {
		t.Fatal(err)
	}
	return *w, path
}

func TestRunEscalationAnsweredWithSkip(t *testing.T) {
	a, ev := runApp(t)
	out := filepath.Join(t.TempDir(), "out")
	w, path := runFile(t, "wf-esc",
		[2]string{"first", "echo one > " + out + ".1"},
		[2]string{"broken", "!sh -c 'exit 3'"},
		[2]string{"last", "echo three > " + out + ".3"})

	st, err := a.StartRun(w, path)
	if err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	if _, err := a.StartRun(w, path); !errors.Is(err, ErrRunActive) {
		t.Fatalf("second StartRun: %v, want ErrRunActive", err)
	}

	esc := ev.next(t, EventRunEscalation).(service.Escalation)
	e := esc.Escalation
	if evs := ev.runnerEvents(); esc.AfterSeq == 0 || evs[len(evs)-1].Seq != esc.AfterSeq || evs[len(evs)-1].Type != runner.EvEscalated {
		t.Fatalf("escalation after seq %d; events so far end with %+v", esc.AfterSeq, evs[len(evs)-1])
	}
	if e.NodeKey != "broken" || e.Attempts != 1 || len(e.Failures) != 1 || e.Failures[0].FailureType != failure.FailVerification {
		t.Fatalf("escalation = %+v", e)
	}
	if e.LastError == "" || e.Severity == "" || e.Category == "" || e.CanReplan {
		t.Fatalf("escalation lacks the error or classification, or offers replan: %+v", e)
	}
	if !strings.Contains(e.Failures[0].OutputSummary, "exit_code") {
		t.Errorf("output summary %q", e.Failures[0].OutputSummary)
	}
	status := a.GetRunStatus()
	if !status.Running || status.Escalation == nil || status.Escalation.ID != esc.ID || status.WorkflowID != "wf-esc" {
		t.Fatalf("GetRunStatus = %+v", status)
	}
	if err := a.RespondEscalation("nope#1", runner.Response{Action: runner.ActSkip}); err == nil {
		t.Fatal("an unknown escalation id was accepted")
	}
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: "dance"}); err == nil {
		t.Fatal("an unknown action was accepted")
	}
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActSkip}); err == nil {
		t.Fatal("the same escalation was answered twice")
	}

	fin := ev.next(t, EventRunFinished).(service.Finished)
	if evs := ev.runnerEvents(); fin.AfterSeq != evs[len(evs)-1].Seq || evs[len(evs)-1].Type != runner.EvRunFinished {
		t.Fatalf("finished after seq %d, last event %+v", fin.AfterSeq, evs[len(evs)-1])
	}
	for i, e := range ev.runnerEvents() {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if fin.Outcome != runner.OutcomePartial || fin.Summary == nil { // a skipped step is not a success
		t.Fatalf("finished = %+v", fin)
	}
	s := fin.Summary
	if s.Nodes != 3 || s.FirstAttemptSuccesses != 2 || s.Escalations != 1 || s.Skipped != 1 || s.FailureTypes[failure.FailVerification] != 1 {
		t.Fatalf("summary = %+v", s)
	}
	for _, f := range []string{out + ".1", out + ".3"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("step output: %v", err)
		}
	}
	if !a.waitRun(5 * time.Second) {
		t.Fatal("the run is still marked active")
	}

	// Order: every runner event before the escalation it leads to, the
	// finish last; node statuses as the canvas shows them.
	all := ev.list()
	if all[len(all)-1].name != EventRunFinished {
		t.Fatalf("last emission is %s", all[len(all)-1].name)
	}
	var sawEscalated bool
	for _, em := range all {
		if e, ok := em.data.(runner.Event); ok && e.Type == runner.EvEscalated {
			sawEscalated = true
		}
		if em.name == EventRunEscalation && !sawEscalated {
			t.Fatal("run:escalation came before the escalated event")
		}
	}
	final := map[string]runner.NodeStatus{}
	for _, e := range ev.runnerEvents() {
		if e.NodeKey != "" && e.Status != "" {
			final[e.NodeKey] = e.Status
		}
	}
	want := map[string]runner.NodeStatus{"first": runner.StatusOK, "broken": runner.StatusSkipped, "last": runner.StatusOK}
	for k, v := range want {
		if final[k] != v {
			t.Errorf("status of %s = %q, want %q", k, final[k], v)
		}
	}

	// History: the run is listed with its summary, and its events read back.
	h, err := a.RunHistory(path, "wf-esc")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 1 || !h.Runs[0].Complete || h.Runs[0].Summary == nil || h.Runs[0].Summary.Skipped != 1 ||
		h.Runs[0].Outcome != runner.OutcomePartial || h.Runs[0].RunID != fin.RunID || h.Runs[0].WorkflowName != w.Name {
		t.Fatalf("RunHistory = %+v", h)
	}
	if other, _ := a.RunHistory(path, "another"); len(other.Runs) != 0 {
		t.Fatalf("RunHistory of another workflow = %+v", other.Runs)
	}
	log, err := a.RunEvents(h.Runs[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	if log.Total != len(log.Events) || log.Truncated || log.Events[0].Type != runner.EvRunStarted || log.Events[len(log.Events)-1].Type != runner.EvRunFinished {
		t.Fatalf("RunEvents: %d of %d, first %s", len(log.Events), log.Total, log.Events[0].Type)
	}
	if len(log.Events) != len(ev.runnerEvents()) {
		t.Errorf("events.jsonl has %d events, %d were emitted", len(log.Events), len(ev.runnerEvents()))
	}
	if _, err := a.RunEvents(filepath.Dir(h.Runs[0].Dir)); err == nil {
		t.Error("RunEvents read a folder that is not a run")
	}
}

func TestRunRetryAndFixAnswers(t *testing.T) {
	a, ev := runApp(t)
	flag := filepath.Join(t.TempDir(), "flag")
	// Fails until the flag exists; a retry after the flag is made succeeds.
	w, path := runFile(t, "wf-retry", [2]string{"check", "!test -e " + flag})
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	esc := ev.next(t, EventRunEscalation).(service.Escalation)
	// A fix of a Tool node that is not a JSON object is refused and asked again.
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActFix, Instruction: "try harder"}); err != nil {
		t.Fatal(err)
	}
	again := ev.next(t, EventRunEscalation).(service.Escalation)
	if again.ID == esc.ID || again.Escalation.Notice == "" {
		t.Fatalf("re-asked escalation = %+v", again)
	}
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.RespondEscalation(again.ID, runner.Response{Action: runner.ActRetry}); err != nil {
		t.Fatal(err)
	}
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeSucceeded || fin.Summary.RetrySuccesses != 1 {
		t.Fatalf("finished = %+v %+v", fin, fin.Summary)
	}
}

func TestStopRun(t *testing.T) {
	a, ev := runApp(t)
	if a.StopRun() {
		t.Fatal("StopRun with no run reported one")
	}
	w, path := runFile(t, "wf-stop", [2]string{"slow", "sleep 30"}, [2]string{"after", "true"})
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	for {
		e := ev.next(t, EventRunEvent).(runner.Event)
		if e.Type == runner.EvAttempt {
			break
		}
	}
	start := time.Now()
	if !a.StopRun() {
		t.Fatal("StopRun found no run")
	}
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeCanceled || fin.StoppedAt == nil || fin.StoppedAt.Key != "slow" {
		t.Fatalf("finished = %+v", fin)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("stopping took %v", d)
	}
	if !a.waitRun(5*time.Second) || a.GetRunStatus().Running {
		t.Fatal("still running after stop")
	}

	// Stopping while an escalation waits ends the wait.
	w2, _ := runFile(t, "wf-stop2", [2]string{"bad", "!false"})
	path2 := filepath.Join(filepath.Dir(path), "wf-stop2.json") // beside the first: one runs folder
	if err := a.SaveWorkflow(path2, w2, ""); err != nil {
		t.Fatal(err)
	}
	if st, err := a.StartRun(w2, path2); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	esc := ev.next(t, EventRunEscalation).(service.Escalation)
	a.StopRun()
	fin = ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeCanceled {
		t.Fatalf("finished = %+v", fin)
	}
	a.waitRun(5 * time.Second)
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActSkip}); err == nil {
		t.Fatal("an answer after the run ended was accepted")
	}

	h, err := a.RunHistory(path, "")
	if err != nil || len(h.Runs) != 2 || h.Runs[0].RunID != fin.RunID || h.Runs[0].WorkflowID != "wf-stop2" ||
		h.Runs[1].Outcome != runner.OutcomeCanceled || h.Runs[1].WorkflowID != "wf-stop" {
		t.Fatalf("RunHistory = %+v, %v", h, err)
	}
}

func TestStartRunInvalid(t *testing.T) {
	a, _ := runApp(t)
	w := workflow.New("Bad")
	w.Nodes = []workflow.Node{{ID: "a", Key: "a", Type: workflow.TypeIf, Params: workflow.Params{Condition: "((("}}}
	st, err := a.StartRun(*w, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Started || len(st.Problems) == 0 || st.Error == "" {
		t.Fatalf("StartRun of an invalid workflow = %+v", st)
	}
	if a.GetRunStatus().Running {
		t.Fatal("an invalid workflow left a run active")
	}
	// The slot is free again.
	ok, path := runFile(t, "wf-ok", [2]string{"one", "true"})
	if st, err := a.StartRun(ok, path); err != nil || !st.Started {
		t.Fatalf("StartRun after an invalid one = %+v, %v", st, err)
	}
}

// fakeReplanner replaces the failing step with one that succeeds and adds a
// step that writes a file.
type fakeReplanner struct{}

func (fakeReplanner) Replan(_ context.Context, req failure.ReplanRequest) (*workflow.Workflow, error) {
	w := req.Workflow.Clone()
	for i := range w.Nodes {
		if w.Nodes[i].ID == req.FailedNode.ID {
			w.Nodes[i].Params.Arguments = map[string]any{"command": "true"}
			w.Nodes[i].Verify = ""
		}
	}
	w.Nodes = append(w.Nodes, workflow.Node{ID: "id_save", Key: "save", Name: "Save", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "write_file", Arguments: map[string]any{"path": "notes.txt", "content": "x"}}})
	w.Edges = append(w.Edges, workflow.Edge{From: req.FailedNode.ID, To: "id_save"})
	return w, nil
}

func TestReplanProposalNeedsApproval(t *testing.T) {
	a, ev := runApp(t)
	withDeps(a, func(d *service.Deps) {
		d.Replanner = func(settings.Settings, llm.Client, func(context.Context) *tools.Catalog) runner.Replanner {
			return fakeReplanner{}
		}
	})
	if !a.CanReplan() {
		t.Fatal("CanReplan is false with a replanner")
	}
	w, path := runFile(t, "wf-replan", [2]string{"bad", "!false"})
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	esc := ev.next(t, EventRunEscalation).(service.Escalation)
	if !esc.Escalation.CanReplan {
		t.Fatal("the escalation does not offer replan")
	}
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActReplan}); err != nil {
		t.Fatal(err)
	}
	rp := ev.next(t, EventRunReplanned).(service.Replan)
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeReplanned || !fin.Replanned {
		t.Fatalf("finished = %+v", fin)
	}
	if len(rp.Patch.AddedNodes) != 1 || len(rp.Patch.UpdatedNodes) != 1 || len(rp.Diff.AddedNodeIDs) != 1 ||
		len(rp.Diff.ModifiedNodeIDs) != 1 || !rp.Valid || rp.Workflow == nil || len(rp.Workflow.Nodes) != 2 {
		t.Fatalf("replan proposal = %+v", rp)
	}
	if len(rp.SideEffects) != 2 || rp.SideEffects[0].Fingerprint == "" || rp.SideEffects[0].Content == "" {
		t.Fatalf("side effects = %+v", rp.SideEffects)
	}
	// The patch applied to the old workflow gives the proposal's steps
	// (the assistant's Apply merges), marked as the model's.
	applied := a.ApplyPatch(w, rp.Patch)
	for _, id := range []string{"id_bad", "id_save"} {
		if !approval.FromModel(applied.Workflow.NodeByID(id)) {
			t.Fatalf("the applied replan's step %s is not marked as the model's", id)
		}
	}
	// Saved and opened by a fresh app (a restart), it still asks.
	saved := filepath.Join(t.TempDir(), "replanned.json")
	if err := a.SaveWorkflow(saved, *applied.Workflow, ""); err != nil {
		t.Fatal(err)
	}
	reopened, _, err := workflow.Load(saved)
	if err != nil {
		t.Fatal(err)
	}
	data := os.Getenv("XDG_DATA_HOME")
	fresh, _ := runApp(t)
	t.Setenv("XDG_DATA_HOME", data) // a restart: the same approvals and trust
	if st, err := fresh.StartRun(*reopened, saved); err != nil || st.Started || len(st.Approval) != 2 {
		t.Fatalf("after a restart the replanned version ran without approval: %+v, %v", st, err)
	}
	a.waitRun(5 * time.Second)

	// The replanned version does not run before its steps are approved;
	// approving one step in the dialog leaves the other waiting.
	nw := *applied.Workflow
	st, err := a.StartRun(nw, path)
	if err != nil || st.Started || len(st.Approval) != 2 {
		t.Fatalf("StartRun of the replanned version = %+v, %v", st, err)
	}
	left, err := a.ApproveSteps(nw, path, []string{st.Approval[0].Fingerprint})
	if err != nil || len(left) != 1 || left[0].NodeID != st.Approval[1].NodeID {
		t.Fatalf("ApproveSteps = %+v, %v", left, err)
	}
	if pend, err := a.PendingApprovals(nw, path); err != nil || len(pend) != 1 {
		t.Fatalf("PendingApprovals = %+v, %v", pend, err)
	}
	if st, err := a.StartRun(nw, path); err != nil || st.Started || len(st.Approval) != 1 {
		t.Fatalf("a partial approval started the run: %+v, %v", st, err)
	}
	st, err = a.StartApprovedRun(nw, path, []string{left[0].Fingerprint})
	if err != nil || !st.Started {
		t.Fatalf("StartApprovedRun = %+v, %v", st, err)
	}
	fin = ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("replanned run = %+v", fin)
	}
	a.waitRun(5 * time.Second)
	// Approved once: the same content runs again without asking, also in
	// a fresh app; in another file it is asked about there.
	if st, err := fresh.StartRun(nw, path); err != nil || !st.Started {
		t.Fatalf("StartRun of the approved version = %+v, %v", st, err)
	}
	fresh.waitRun(5 * time.Second)
	if st, err := fresh.StartRun(*reopened, saved); err != nil || st.Started || len(st.Approval) != 2 {
		t.Fatalf("an approval given in one file held in another: %+v, %v", st, err)
	}
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun of the original = %+v, %v", st, err)
	}
}

func TestModelWrittenWorkflowNeedsApproval(t *testing.T) {
	a, ev := runApp(t)
	w, path := runFile(t, "wf-marked", [2]string{"one", "true"})
	approval.MarkAll(&w, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan})
	st, err := a.StartRun(w, path)
	if err != nil || st.Started || len(st.Approval) != 1 || st.Approval[0].Kind != approval.KindCommand ||
		st.Approval[0].Arguments["command"] != "true" {
		t.Fatalf("StartRun of a model-written workflow = %+v, %v", st, err)
	}
	if _, err := a.ApproveSteps(w, path, []string{"not-a-fingerprint"}); err == nil {
		t.Fatal("ApproveSteps approved something that does not wait")
	}
	if st, err := a.StartApprovedRun(w, path, []string{"id_one"}); err != nil || st.Started {
		t.Fatalf("a node id approved something: %+v, %v", st, err)
	}
	if st, err := a.StartApprovedRun(w, path, []string{st.Approval[0].Fingerprint}); err != nil || !st.Started {
		t.Fatalf("StartApprovedRun = %+v, %v", st, err)
	}
	if fin := ev.next(t, EventRunFinished).(service.Finished); fin.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("finished = %+v", fin)
	}
}

func TestToolCatalogFull(t *testing.T) {
	a, _ := runApp(t)
	if got := a.ToolCatalogFull(); len(got.Tools) != len(tools.Builtin().List()) || len(got.Warnings) != 0 {
		t.Fatalf("without MCP servers: %d tools, warnings %v", len(got.Tools), got.Warnings)
	}
	s := settings.Defaults()
	s.MCPServers = map[string]settings.MCPServer{"files": {Command: "files-mcp"}, "broken": {Command: "nope"}}
	if _, err := a.SaveSettings(s, nil); err != nil {
		t.Fatal(err)
	}
	calls := 0
	list := func(ctx context.Context, s settings.Settings) (*tools.Catalog, map[string]error) {
		calls++
		if _, ok := ctx.Deadline(); !ok {
			t.Error("the MCP catalog is asked without a timeout")
		}
		return tools.Builtin().With("files", []tools.Tool{{Name: "read", SideEffects: false}}),
			map[string]error{"broken": errors.New("exec: nope: not found")}
	}
	withDeps(a, func(d *service.Deps) {
		d.ListTools = func(ctx context.Context, s settings.Settings) (*tools.Catalog, map[string]error) { return list(ctx, s) }
	})
	got := a.ToolCatalogFull()
	names := map[string]bool{}
	for _, tl := range got.Tools {
		names[tl.Name] = true
	}
	if !names["files.read"] || !names["run_command"] || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "broken") {
		t.Fatalf("ToolCatalogFull = %v, %v", names, got.Warnings)
	}
	if len(a.ToolCatalog()) != len(got.Tools) {
		t.Fatal("ToolCatalog does not list the MCP tools")
	}
	if calls != 2 {
		t.Fatalf("a catalog with a failed server was cached (%d calls)", calls)
	}
	// A good answer is cached.
	list = func(context.Context, settings.Settings) (*tools.Catalog, map[string]error) {
		calls++
		return tools.Builtin().With("files", []tools.Tool{{Name: "read"}}), nil
	}
	a.ToolCatalogFull()
	a.ToolCatalogFull()
	if calls != 3 {
		t.Fatalf("calls = %d, want 3 (cached)", calls)
	}
	// Read-only, closed-world MCP tools need no approval; unknown tools do.
	w := workflow.New("x")
	w.Nodes = []workflow.Node{
		{ID: "r", Key: "r", Type: workflow.TypeTool, Params: workflow.Params{Tool: "files.read"}},
		{ID: "u", Key: "u", Type: workflow.TypeTool, Params: workflow.Params{Tool: "mystery.do"}},
		{ID: "l", Key: "l", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}},
		{ID: "c", Key: "c", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "ls"}}},
	}
	approval.MarkAll(w, approval.Provenance{Source: approval.SourceModel})
	var keys []string
	pend, err := a.PendingApprovals(*w, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pend {
		keys = append(keys, s.Key+":"+string(s.Kind))
	}
	if strings.Join(keys, ",") != "u:unknown_tool,c:command" {
		t.Fatalf("PendingApprovals = %v", keys)
	}
}

func TestReplanThroughThePlanner(t *testing.T) {
	a, ev := runApp(t)
	if a.CanReplan() {
		t.Fatal("CanReplan without a model")
	}
	// The first reply has no plan in it: it is asked again, and the
	// proposal says so (what the person can open, as in the assistant).
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("Sorry, I would rather not change anything."), llmtest.Reply(`{"nodes": [
  {"id": "bad", "step_type": "Tool", "name": "Bad", "tool_name": "run_command", "arguments": {"command": "true"}},
  {"id": "note", "step_type": "Tool", "name": "Note", "tool_name": "log", "arguments": {"message": "fixed"}}],
 "edges": [{"from": "bad", "to": "note"}]}`)))
	s := settings.Defaults()
	s.LLM.BaseURL, s.LLM.Model, s.LLM.TimeoutS = srv.URL, "fake-model", 10
	s.MaxRepairAttempts = 2
	key := ""
	if _, err := a.SaveSettings(s, &key); err != nil {
		t.Fatal(err)
	}
	if !a.CanReplan() {
		t.Fatal("CanReplan is false with a model")
	}
	w, path := runFile(t, "wf-planner", [2]string{"bad", "!false"})
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	esc := ev.next(t, EventRunEscalation).(service.Escalation)
	if !esc.Escalation.CanReplan || !a.GetRunStatus().CanReplan {
		t.Fatal("replanning not offered with a model")
	}
	if err := a.RespondEscalation(esc.ID, runner.Response{Action: runner.ActReplan}); err != nil {
		t.Fatal(err)
	}
	rp := ev.next(t, EventRunReplanned).(service.Replan)
	if len(rp.Tries) != 1 || rp.Tries[0].Attempt != 1 || len(rp.Tries[0].Why) != 1 {
		t.Errorf("replan tries = %+v", rp.Tries)
	}
	if srv.Calls() != 2 || rp.Workflow == nil || len(rp.Workflow.Nodes) != 2 || len(rp.Diff.AddedNodeIDs) != 1 ||
		len(rp.Diff.ModifiedNodeIDs) != 1 || rp.Diff.ModifiedNodeIDs[0] != "id_bad" || rp.Changes == "" {
		t.Fatalf("replan = %+v (calls %d)", rp, srv.Calls())
	}
	if fin := ev.next(t, EventRunFinished).(service.Finished); fin.Outcome != runner.OutcomeReplanned {
		t.Fatalf("finished = %+v", fin)
	}
}

func TestShutdownStopsTheRun(t *testing.T) {
	a, ev := runApp(t)
	w, path := runFile(t, "wf-shutdown", [2]string{"slow", "sleep 30"}, [2]string{"after", "true"})
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("StartRun = %+v, %v", st, err)
	}
	for {
		if e := ev.next(t, EventRunEvent).(runner.Event); e.Type == runner.EvAttempt {
			break
		}
	}
	start := time.Now()
	a.shutdown(context.Background())
	if a.GetRunStatus().Running {
		t.Fatal("a run is still going after the window closed")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("shutdown took %v", d)
	}
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != runner.OutcomeCanceled || fin.StoppedAt == nil || fin.StoppedAt.Key != "slow" {
		t.Fatalf("finished = %+v", fin)
	}
	a.shutdown(context.Background()) // nothing running: a no-op
}

// The desktop's door: a file Weft did not write opens marked as not
// trusted, Run does not start it until everything in it that acts or
// routes is approved in the dialog, and saving it in the editor does not
// make it trusted; approving it does, and a Save As carries that over.
func TestDesktopReviewsAForeignFile(t *testing.T) {
	a, _ := runApp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "cloned.json")
	marker := filepath.Join(dir, "ran")
	os.WriteFile(path, []byte(`{"format":"weft/v1","id":"wf-desk","name":"cloned","nodes":[
 {"id":"a","key":"tidy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch `+marker+`"}}}],"edges":[]}`), 0o644)
	r, err := a.OpenWorkflow(path)
	if err != nil || r.File.Trusted || r.File.Why == "" {
		t.Fatalf("open: %+v %v", r.File, err)
	}
	// Saved in the editor without a review: still to be reviewed.
	if err := a.SaveWorkflow(path, *r.Workflow, path); err != nil {
		t.Fatal(err)
	}
	if a.WorkflowFileTrust(path).Trusted {
		t.Fatal("a save in the editor trusted a file nobody reviewed")
	}
	st, err := a.StartRun(*r.Workflow, path)
	if err != nil || st.Started || len(st.Approval) != 1 || st.Approval[0].Origin != "file" {
		t.Fatalf("run: %+v %v", st, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the step ran")
	}
	left, err := a.ApproveSteps(*r.Workflow, path, []string{st.Approval[0].Fingerprint})
	if err != nil || len(left) != 0 || !a.WorkflowFileTrust(path).Trusted {
		t.Fatalf("approve: %+v %v (trusted %v)", left, err, a.WorkflowFileTrust(path))
	}
	other := filepath.Join(t.TempDir(), "mine.json")
	if err := a.SaveWorkflow(other, *r.Workflow, path); err != nil || !a.WorkflowFileTrust(other).Trusted {
		t.Fatalf("save as: %v %+v", err, a.WorkflowFileTrust(other))
	}
}
