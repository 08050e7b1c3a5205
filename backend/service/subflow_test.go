package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// A sub-workflow's file is gated as a run of it is, wherever it is called
// from: a parent the person trusts does not carry its child's file, whose
// command does not run until that file is trusted (or its steps approved).
func TestSubflowChildGatedByItsOwnFile(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	parentDir, childDir := t.TempDir(), t.TempDir()
	marker := filepath.Join(childDir, "ran")
	_, childPath := foreignFile(t, childDir, marker)
	rel, err := filepath.Rel(parentDir, childPath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(parentDir, "parent.weft.json")
	js := `{"format":"weft/v1","id":"wf-parent","name":"Parent","nodes":[
 {"id":"s","key":"sub","type":"Workflow","on_error":"continue","params":{"path":"` + rel + `"}},
 {"id":"e","key":"said","type":"Tool","params":{"tool":"write_file","arguments":{"path":"said","content":"{{sub.error}}"}}}],
 "edges":[{"from":"s","to":"e"}]}`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.TrustFolder(parentDir, "test"); err != nil {
		t.Fatal(err)
	}
	res, fin, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path})
	if err != nil || !res.Started || fin == nil {
		t.Fatalf("the trusted parent did not start: %+v %v", res, err)
	}
	said, _ := os.ReadFile(filepath.Join(parentDir, "said"))
	if fin.Outcome != "partial" || !strings.Contains(string(said), "weft approve") || ran(marker) {
		t.Fatalf("the child's file, not trusted, ran or was not said to wait: %s %q", fin.Outcome, said)
	}
	if _, err := svc.TrustFolder(childDir, "test"); err != nil {
		t.Fatal(err)
	}
	if _, fin, err = svc.Run(ctx, StartRequest{Workflow: w, Path: path}); err != nil || fin == nil || fin.Outcome != "succeeded" || !ran(marker) {
		t.Fatalf("the trusted child did not run: %+v %v", fin, err)
	}
	// The history links the runs both ways, for the run panel.
	h, err := svc.RunHistory(path, w.ID)
	if err != nil || len(h.Runs) == 0 || len(h.Runs[0].SubRuns) != 1 {
		t.Fatalf("the parent's history: %+v %v", h, err)
	}
	link := h.Runs[0].SubRuns[0]
	ch, err := svc.RunHistory(link.File, "")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range ch.Runs {
		if r.RunID == link.RunID {
			found = r.Parent != nil && r.Parent.RunID == h.Runs[0].RunID && r.Parent.File == path
		}
	}
	if !found {
		t.Errorf("the child's history has no run %s naming the parent's %s: %+v", link.RunID, h.Runs[0].RunID, ch.Runs)
	}
}
