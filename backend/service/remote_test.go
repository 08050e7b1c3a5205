package service

import (
	"context"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

type fakeRemote struct {
	got []Submission
}

func (f *fakeRemote) Submit(_ context.Context, w *workflow.Workflow, sub Submission) (string, error) {
	f.got = append(f.got, sub)
	return "remote-" + w.ID, nil
}

// A remote run is checked like a local one; what was approved travels
// with it, content-bound.
func TestSubmitChecksAndHandsOver(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-remote", [2]string{"a", "echo a"}, [2]string{"b", "echo b"})
	approval.Mark(&w.Nodes[1], approval.Provenance{Source: "model", Via: "plan"})
	eng := &fakeRemote{}
	res, id, err := svc.Submit(context.Background(), StartRequest{Workflow: w, Path: path}, eng)
	if err != nil || res.Started || id != "" || len(res.Approval) != 1 || len(eng.got) != 0 {
		t.Fatalf("unapproved: %+v %q %v", res, id, err)
	}
	res, id, err = svc.Submit(context.Background(), StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test", UsePinned: true}, eng)
	if err != nil || !res.Started || id != "remote-wf-remote" {
		t.Fatalf("approved: %+v %q %v", res, id, err)
	}
	sub := eng.got[0]
	if len(sub.Approved) != 1 || sub.Approved[0] != approval.Fingerprint(&w.Nodes[1]) || !sub.UsePinned || sub.Dir == "" {
		t.Fatalf("submission %+v", sub)
	}
	bad := w.Clone()
	bad.Edges = nil
	if res, _, _ := svc.Submit(context.Background(), StartRequest{Workflow: bad, Path: path}, eng); res.Started || len(res.Problems) == 0 {
		t.Fatalf("invalid: %+v", res)
	}
	if res, _, _ := svc.Submit(context.Background(), StartRequest{Workflow: w, Path: path, From: "id_b"}, eng); res.Started {
		t.Fatal("run from a node was submitted")
	}
}
