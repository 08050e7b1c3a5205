package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/workflow"
)

// The desktop's door: a file without an id opens with the id derived from
// its path each time, so its runs are one history; saving it writes that
// id, and the history stays.
func TestDesktopFileWithoutAnIDKeepsItsRuns(t *testing.T) {
	a, ev := runApp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "hand.json")
	os.WriteFile(path, []byte(`{"format":"weft/v1","name":"hand written","nodes":[
 {"id":"a","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]}`), 0o644)
	if _, err := a.service().TrustFolder(dir, "test"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r, err := a.OpenWorkflow(path)
		if err != nil || r.Workflow.ID != workflow.FileID(path) {
			t.Fatalf("open %d: id %q (%v), want %s", i, r.Workflow.ID, err, workflow.FileID(path))
		}
		if st, err := a.StartRun(*r.Workflow, path); err != nil || !st.Started {
			t.Fatalf("run %d: %+v %v", i, st, err)
		}
		if fin := ev.next(t, EventRunFinished).(service.Finished); fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("run %d: %+v", i, fin)
		}
	}
	r, err := a.OpenWorkflow(path)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := a.RunHistory(path, r.Workflow.ID); err != nil || len(h.Runs) != 3 {
		t.Fatalf("history: %d runs (want 3), %v", len(h.Runs), err)
	}
	if err := a.SaveWorkflow(path, *r.Workflow, path); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"id": "`+workflow.FileID(path)+`"`) {
		t.Fatalf("saved without the id:\n%s", b)
	}
	if r, _ := a.OpenWorkflow(path); r.Workflow == nil || r.Workflow.ID != workflow.FileID(path) {
		t.Fatal("the saved file opens with another id")
	}
	if h, _ := a.RunHistory(path, r.Workflow.ID); len(h.Runs) != 3 {
		t.Fatalf("history after the save: %d runs, want 3", len(h.Runs))
	}
}
