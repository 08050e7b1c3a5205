package service

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// askLog is an Approver that records what it was asked and answers ids.
type askLog struct {
	asked [][]string
	ids   []string
	err   error
}

func (a *askLog) Approve(_ context.Context, req ApprovalRequest) ([]string, error) {
	a.asked = append(a.asked, StepIDs(req.Steps))
	return a.ids, a.err
}

func TestApprovalGate(t *testing.T) {
	marked := func(w *workflow.Workflow) {
		failure.MarkReplanned(w, failure.ReplanInfo{RunID: "r", FailedNode: "one", Replans: 1})
	}
	cases := []struct {
		name     string
		mark     bool
		approver func() *askLog // nil: no approver
		steps    [][2]string
		started  bool
		denied   bool
		asked    int
		wantErr  string
	}{
		{name: "not replanned runs without asking", steps: [][2]string{{"one", "true"}}, approver: func() *askLog { return &askLog{} }, started: true},
		{name: "marked, nobody to ask", mark: true, steps: [][2]string{{"one", "true"}}, started: false},
		{name: "marked, denied", mark: true, steps: [][2]string{{"one", "true"}}, approver: func() *askLog { return &askLog{} }, denied: true, asked: 1},
		{name: "marked, approved", mark: true, steps: [][2]string{{"one", "true"}}, approver: func() *askLog { return &askLog{ids: []string{"id_one"}} }, started: true, asked: 1},
		{name: "marked, partly approved", mark: true, steps: [][2]string{{"one", "true"}, {"two", "true"}},
			approver: func() *askLog { return &askLog{ids: []string{"id_one"}} }, denied: true, asked: 1},
		{name: "marked, hostile ids", mark: true, steps: [][2]string{{"one", "true"}},
			approver: func() *askLog { return &askLog{ids: []string{"", "id_", "ID_ONE", "id_one ", "*"}} }, denied: true, asked: 1},
		{name: "marked, duplicates and extras still approve", mark: true, steps: [][2]string{{"one", "true"}},
			approver: func() *askLog { return &askLog{ids: []string{"id_one", "id_one", "id_other"}} }, started: true, asked: 1},
		{name: "approver fails", mark: true, steps: [][2]string{{"one", "true"}},
			approver: func() *askLog { return &askLog{err: errors.New("terminal closed")} }, wantErr: "asking for approval of the replanned workflow: terminal closed", asked: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc := testService(t, nil)
			w, path := runFile(t, "wf-gate", c.steps...)
			if c.mark {
				marked(w)
			}
			req := StartRequest{Workflow: w, Path: path}
			var al *askLog
			if c.approver != nil {
				al = c.approver()
				req.Approver = al
			}
			st, fin, err := svc.Run(context.Background(), req)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("err = %v, want %q", err, c.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if st.Started != c.started || st.Denied != c.denied {
				t.Fatalf("Started %v Denied %v, want %v %v: %+v", st.Started, st.Denied, c.started, c.denied, st)
			}
			if !c.started && c.wantErr == "" && (len(st.Approval) != len(c.steps) || st.Error == "") {
				t.Fatalf("a refused start lists %d steps (want %d): %+v", len(st.Approval), len(c.steps), st)
			}
			if c.started && (fin == nil || fin.Outcome != runner.OutcomeSucceeded) {
				t.Fatalf("finished = %+v", fin)
			}
			if al != nil && len(al.asked) != c.asked {
				t.Fatalf("asked %d times, want %d", len(al.asked), c.asked)
			}
		})
	}
}

// A replan's proposal needs approval in this session even applied as a
// patch (which drops the mark), MarkApplied puts the mark back, and a
// version approved once runs again without asking.
func TestReplanProposalThroughTheGate(t *testing.T) {
	svc := testService(t, withFakeReplanner)
	ev := newEvents()
	w, path := runFile(t, "wf-replan", [2]string{"bad", "!false"})
	if st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev}); err != nil || !st.Started {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	esc := ev.next(t, KindEscalation).Escalation
	if !esc.Escalation.CanReplan || !svc.Status().CanReplan {
		t.Fatal("replanning not offered")
	}
	if err := svc.Respond(esc.ID, runner.Response{Action: runner.ActReplan}); err != nil {
		t.Fatal(err)
	}
	rp := ev.next(t, KindReplanned).Replan
	fin := ev.next(t, KindFinished).Finished
	if fin.Outcome != runner.OutcomeReplanned || !fin.Replanned || rp.AfterSeq != fin.AfterSeq {
		t.Fatalf("finished = %+v, replan after %d", fin, rp.AfterSeq)
	}
	if len(rp.Patch.AddedNodes) != 1 || len(rp.Patch.UpdatedNodes) != 1 || !rp.Valid || len(rp.Workflow.Nodes) != 2 ||
		len(rp.SideEffects) != 2 || len(rp.ChangedIDs) != 2 {
		t.Fatalf("proposal = %+v", rp)
	}
	if _, marked := failure.ReplanInfoOf(rp.Workflow); !marked {
		t.Fatal("the proposal lacks the runner's mark")
	}
	svc.Wait(5e9)

	applied, _ := assistant.MergePatchIntoWorkflow(w, &rp.Patch)
	if _, marked := failure.ReplanInfoOf(applied); marked {
		t.Fatal("the merge kept the mark: this test no longer tests the pending path")
	}
	// Unmarked, it still needs approval (the session's pending replan).
	unmarked := applied.Clone()
	if st, err := svc.Start(context.Background(), StartRequest{Workflow: unmarked, Path: path, Approver: Preapproved(nil)}); err != nil || st.Started ||
		len(st.Approval) != 2 || len(st.ApprovalChanged) != 2 || !st.Denied {
		t.Fatalf("the applied replan ran without approval: %+v, %v", st, err)
	}
	svc.MarkApplied(applied)
	if _, marked := failure.ReplanInfoOf(applied); !marked {
		t.Fatal("MarkApplied did not mark the applied replan")
	}
	other := w.Clone()
	svc.MarkApplied(other)
	svc.MarkApplied(nil)
	if _, marked := failure.ReplanInfoOf(other); marked {
		t.Fatal("MarkApplied marked a workflow that is not the replan")
	}
	// A fresh session (a restart) asks for the marked version too.
	b, _ := json.Marshal(applied)
	var reopened workflow.Workflow
	if err := json.Unmarshal(b, &reopened); err != nil {
		t.Fatal(err)
	}
	if st, _ := testService(t, nil).Start(context.Background(), StartRequest{Workflow: &reopened, Path: filepath.Join(t.TempDir(), "r.json")}); st.Started || len(st.Approval) != 2 {
		t.Fatalf("after a restart the replanned version ran without approval: %+v", st)
	}

	st, fin2, err := svc.Run(context.Background(), StartRequest{Workflow: applied, Path: path, Approver: ApproveAll{}})
	if err != nil || !st.Started || fin2.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("approved run = %+v, %+v, %v", st, fin2, err)
	}
	// Approved once: it runs again without asking, marked or not.
	al := &askLog{}
	for _, v := range []*workflow.Workflow{applied, rp.Workflow, unmarked} {
		if st, _, err := svc.Run(context.Background(), StartRequest{Workflow: v, Path: path, Approver: al}); err != nil || !st.Started {
			t.Fatalf("a version approved before = %+v, %v", st, err)
		}
	}
	if len(al.asked) != 0 {
		t.Fatalf("asked again: %v", al.asked)
	}
	// The original (which fails and waits for an answer) starts too.
	if st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path}); err != nil || !st.Started {
		t.Fatalf("the original after approval = %+v, %v", st, err)
	}
	svc.Stop()
}

func TestSideEffectSteps(t *testing.T) {
	svc := testService(t, nil)
	w := workflow.New("x")
	w.Nodes = []workflow.Node{
		{ID: "u", Key: "u", Type: workflow.TypeTool, Params: workflow.Params{Tool: "mystery.do"}},
		{ID: "l", Key: "l", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}},
		{ID: "c", Key: "c", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "ls"}}},
	}
	var keys []string
	for _, s := range svc.SideEffectSteps(w) {
		keys = append(keys, s.Key+":"+string(s.Kind))
	}
	if strings.Join(keys, ",") != "u:unknown_tool,c:command" {
		t.Fatalf("SideEffectSteps = %v", keys)
	}
	if got := svc.SideEffectSteps(nil); got == nil || len(got) != 0 {
		t.Fatalf("SideEffectSteps(nil) = %#v, want []", got)
	}
}

func TestWorkflowHashIgnoresPositionsAndMark(t *testing.T) {
	w, _ := runFile(t, "wf-hash", [2]string{"one", "true"}, [2]string{"two", "true"})
	h := workflowHash(w)
	moved := w.Clone()
	moved.Nodes[0].Position = &workflow.Position{X: 999, Y: -3}
	failure.MarkReplanned(moved, failure.ReplanInfo{Replans: 1})
	if workflowHash(moved) != h {
		t.Fatal("a move or the replan mark changed the hash")
	}
	changed := w.Clone()
	changed.Nodes[1].Params.Arguments["command"] = "false"
	rewired := w.Clone()
	rewired.Edges = nil
	for name, v := range map[string]*workflow.Workflow{"changed": changed, "rewired": rewired} {
		if workflowHash(v) == h {
			t.Errorf("%s workflow has the same hash", name)
		}
	}
}
