package service

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// askLog is an Approver that records the keys it was asked about and
// answers with the fingerprints of the keys in yes (or raw fingerprints).
type askLog struct {
	asked [][]string
	yes   []string
	raw   []string
	err   error
}

func (a *askLog) Approve(_ context.Context, req ApprovalRequest) ([]string, error) {
	var keys, fps []string
	for _, s := range req.Steps {
		keys = append(keys, s.Key)
		for _, y := range a.yes {
			if y == s.Key {
				fps = append(fps, s.Fingerprint)
			}
		}
	}
	a.asked = append(a.asked, keys)
	return append(fps, a.raw...), a.err
}

// byModel marks every node of w as a model's plan, as the planner does.
func byModel(w *workflow.Workflow) {
	approval.MarkAll(w, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan})
}

func TestApprovalGate(t *testing.T) {
	cases := []struct {
		name     string
		hand     bool
		approver *askLog // nil: no approver
		steps    [][2]string
		started  bool
		denied   bool
		asked    int
		wantErr  string
	}{
		{name: "hand-written runs without asking", hand: true, steps: [][2]string{{"one", "true"}}, approver: &askLog{}, started: true},
		{name: "model-written, nobody to ask", steps: [][2]string{{"one", "true"}}},
		{name: "model-written, denied", steps: [][2]string{{"one", "true"}}, approver: &askLog{}, denied: true, asked: 1},
		{name: "model-written, approved", steps: [][2]string{{"one", "true"}}, approver: &askLog{yes: []string{"one"}}, started: true, asked: 1},
		{name: "partly approved", steps: [][2]string{{"one", "true"}, {"two", "true"}}, approver: &askLog{yes: []string{"one"}}, denied: true, asked: 1},
		{name: "hostile answers", steps: [][2]string{{"one", "true"}},
			approver: &askLog{raw: []string{"", "*", "id_one", strings.Repeat("0", 64)}}, denied: true, asked: 1},
		{name: "approver fails", steps: [][2]string{{"one", "true"}}, approver: &askLog{err: errors.New("terminal closed")},
			wantErr: "asking for approval: terminal closed", asked: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc := testService(t, nil)
			w, path := runFile(t, "wf-gate", c.steps...)
			if !c.hand {
				byModel(w)
			}
			req := StartRequest{Workflow: w, Path: path, ApprovedBy: "test"}
			if c.approver != nil {
				req.Approver = c.approver
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
			if !c.started && c.wantErr == "" && (len(st.Approval) == 0 || st.Error == "") {
				t.Fatalf("a refused start lists no steps: %+v", st)
			}
			if c.started && (fin == nil || fin.Outcome != runner.OutcomeSucceeded) {
				t.Fatalf("finished = %+v", fin)
			}
			if c.approver != nil && len(c.approver.asked) != c.asked {
				t.Fatalf("asked %d times, want %d", len(c.approver.asked), c.asked)
			}
		})
	}
}

// Approvals are kept per content, on disk: they survive a new Service (a
// restart), and a step a model changes after approval asks again.
func TestApprovalSurvivesAndFollowsContent(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-keep", [2]string{"one", "true"}, [2]string{"two", "true"})
	byModel(w)
	if st, _, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test"}); err != nil || !st.Started {
		t.Fatalf("approved run = %+v, %v", st, err)
	}
	// Saved, reopened, in a new process: runs without asking.
	if err := svc.SaveWorkflow(context.Background(), path, w, path); err != nil {
		t.Fatal(err)
	}
	reopened, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh := New(svc.deps)
	al := &askLog{}
	if st, _, err := fresh.Run(context.Background(), StartRequest{Workflow: reopened, Path: path, Approver: al}); err != nil || !st.Started || len(al.asked) != 0 {
		t.Fatalf("after a restart = %+v, %v, asked %v", st, err, al.asked)
	}
	// A model changes step two: only two is asked about again.
	changed := reopened.Clone()
	patch := assistant.WorkflowPatch{UpdatedNodes: []workflow.Node{{ID: "id_two", Key: "two", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "true; touch pwned"}}}}}
	merged, _ := assistant.MergePatchIntoWorkflow(changed, &patch)
	st, _, err := fresh.Run(context.Background(), StartRequest{Workflow: merged, Path: path})
	if err != nil || st.Started || len(st.Approval) != 1 || st.Approval[0].Key != "two" ||
		st.Approval[0].Arguments["command"] != "true; touch pwned" {
		t.Fatalf("a model's change ran on an earlier approval: %+v, %v", st, err)
	}
	// A hand edit of a model-written step does not approve it either.
	hand := merged.Clone()
	hand.Nodes[1].Params.Arguments["command"] = "true # reviewed?"
	if st, _, _ := fresh.Run(context.Background(), StartRequest{Workflow: hand, Path: path}); st.Started {
		t.Fatal("a hand edit of a model-written step ran unapproved")
	}
}

func TestApproveAndPending(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-approve", [2]string{"one", "true"}, [2]string{"two", "true"})
	byModel(w)
	ctx := context.Background()
	a, err := svc.PendingApprovals(ctx, w, path)
	if err != nil || len(a.Pending) != 2 {
		t.Fatalf("pending %+v %v", a, err)
	}
	// Only a fingerprint that waits can be approved; nothing is recorded otherwise.
	if _, err := svc.Approve(ctx, w, path, []string{a.Pending[0].Fingerprint, "deadbeef"}, "test"); !errors.Is(err, ErrNotPending) {
		t.Fatalf("err %v", err)
	}
	if again, _ := svc.PendingApprovals(ctx, w, path); len(again.Pending) != 2 {
		t.Fatalf("a refused approval recorded something: %+v", again)
	}
	left, err := svc.Approve(ctx, w, path, []string{a.Pending[0].Fingerprint}, "test")
	if err != nil || len(left.Pending) != 1 || left.Pending[0].Key != "two" {
		t.Fatalf("left %+v %v", left, err)
	}
	store, _ := approval.DefaultStore()
	if fi, err := os.Stat(store.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("approvals file %v %v", fi, err)
	}
	b, _ := os.ReadFile(store.Path())
	if !strings.Contains(string(b), `"by": "test"`) || !strings.Contains(string(b), a.Pending[0].Fingerprint) {
		t.Fatalf("approvals file:\n%s", b)
	}
	// Preapproved (the desktop's "approve all and run") approves by
	// fingerprint: a node id, or the fingerprint of other content, does not.
	if st, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, Approver: Preapproved{"id_two", a.Pending[0].Fingerprint}}); err != nil || st.Started {
		t.Fatalf("preapproved by id: %+v %v", st, err)
	}
	if st, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, Approver: Preapproved{left.Pending[0].Fingerprint}}); err != nil || !st.Started {
		t.Fatalf("preapproved run %+v %v", st, err)
	}
}

// A replan's new and changed steps are a model's: the proposal lists them,
// and applied as a patch they need approval before they run.
func TestReplanProposalThroughTheGate(t *testing.T) {
	svc := testService(t, withFakeReplanner)
	ev := newEvents()
	w, path := runFile(t, "wf-replan", [2]string{"ok", "true"}, [2]string{"bad", "!false"})
	st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev})
	if err != nil || !st.Started {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	esc := ev.next(t, KindEscalation).Escalation
	if !esc.Escalation.CanReplan || !svc.Status(st.RunID).CanReplan {
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
	var keys []string
	for _, s := range rp.SideEffects {
		keys = append(keys, s.Key+":"+s.Provenance.Via)
	}
	// "ok" was kept as the person wrote it: it needs no approval.
	if len(rp.Patch.AddedNodes) != 1 || len(rp.Patch.UpdatedNodes) != 1 || !rp.Valid || strings.Join(keys, ",") != "bad:replan,save:replan" {
		t.Fatalf("proposal side effects %v, patch %+v", keys, rp.Patch)
	}
	svc.Wait(5e9)

	applied, _ := assistant.MergePatchIntoWorkflow(w, &rp.Patch)
	b, _ := json.Marshal(applied)
	var reopened workflow.Workflow
	if err := json.Unmarshal(b, &reopened); err != nil {
		t.Fatal(err)
	}
	st, err = svc.Start(context.Background(), StartRequest{Workflow: &reopened, Path: path})
	if err != nil || st.Started || len(st.Approval) != 2 {
		t.Fatalf("the applied replan ran without approval: %+v, %v", st, err)
	}
	st, fin2, err := svc.Run(context.Background(), StartRequest{Workflow: &reopened, Path: path, Approver: Preapproved(Fingerprints(st.Approval))})
	if err != nil || !st.Started || fin2.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("approved run = %+v, %+v, %v", st, fin2, err)
	}
}
