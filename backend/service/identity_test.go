package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/temporal"
	"github.com/weft-dev/weft/backend/workflow"
)

// withoutID rewrites the workflow file at path without its "id" (as hand
// written files and examples are), trusts the new bytes, and returns them.
func withoutID(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	delete(doc, "id")
	if b, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	return b
}

// load opens the file as the app and every weft command do.
func load(t *testing.T, path string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// A file without an id has one history, whichever door ran it: the app
// (its document, opened afresh each time), a schedule (the file's bytes,
// pinned) and a Temporal run read back (its input).
func TestRunsOfAFileWithoutAnIDShareOneHistory(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	_, path := runFile(t, "wf-noid", [2]string{"one", "true"})
	data := withoutID(t, path)
	sum, _, _, err := readPinned(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ { // the desktop: opened, then run
		if res, fin, err := svc.Run(ctx, StartRequest{Workflow: load(t, path), Path: path}); err != nil || !res.Started || fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("run %d: %v %+v %+v", i, err, res, fin)
		}
	}
	for i := 0; i < 3; i++ { // a schedule: the pinned bytes run, whatever the caller holds
		other, _, err := workflow.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if res, fin, err := svc.Run(ctx, StartRequest{Workflow: other, Path: path, Source: runner.RunBySchedule, RequireSHA256: sum}); err != nil || !res.Started || fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("scheduled run %d: %v %+v %+v", i, err, res, fin)
		}
	}
	// Temporal: a run read back from its input is logged under its file's id.
	w, err := inputWorkflow(temporal.RunInput{Workflow: data, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := runner.NewRecorder(runner.Options{}, w, path, "", "weft-x-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Finish(&runner.Result{RunID: "weft-x-1", Outcome: runner.OutcomeSucceeded}); err != nil {
		t.Fatal(err)
	}

	id := load(t, path).ID
	if id != workflow.FileID(path) {
		t.Fatalf("the file's id is %s, want the one derived from its path", id)
	}
	h, err := svc.RunHistory(path, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 8 || len(h.Warnings) != 0 {
		t.Fatalf("history of the file: %d runs (want 8), warnings %v", len(h.Runs), h.Warnings)
	}
	for _, r := range h.Runs {
		if r.WorkflowFile != filepath.Base(path) {
			t.Errorf("run %s records file %q", r.RunID, r.WorkflowFile)
		}
	}
}

// Saving from Weft writes the derived id into the file and keeps the
// file the person's: nothing is to be reviewed again, and its runs so far
// stay its own.
func TestSaveWritesTheDerivedID(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-save", [2]string{"one", "true"}, [2]string{"two", "true"})
	approval.Mark(&w.Nodes[1], approval.Provenance{Source: "model", Via: "plan"})
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	withoutID(t, path)
	if res, _, err := svc.Run(ctx, StartRequest{Workflow: load(t, path), Path: path}); err != nil || res.Started || len(res.Approval) != 1 {
		t.Fatalf("the model's step ran unapproved: %v %+v", err, res)
	}
	if _, fin, err := svc.Run(ctx, StartRequest{Workflow: load(t, path), Path: path, Approver: ApproveAll{}, ApprovedBy: "test"}); err != nil || fin == nil {
		t.Fatal(err)
	}
	w = load(t, path)
	if err := svc.SaveWorkflow(ctx, path, w, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), `"id": "`+workflow.FileID(path)+`"`) {
		t.Fatalf("the saved file has not the derived id:\n%s", b)
	}
	if ft := svc.FileTrustOf(path); !ft.Trusted {
		t.Fatalf("saved by Weft, the file is not trusted: %+v", ft)
	}
	if res, fin, err := svc.Run(ctx, StartRequest{Workflow: load(t, path), Path: path}); err != nil || fin == nil {
		t.Fatalf("after the save, asked again: %v %+v", err, res)
	}
	if h, _ := svc.RunHistory(path, load(t, path).ID); len(h.Runs) != 2 {
		t.Fatalf("runs before and after the save: %d, want 2", len(h.Runs))
	}
}

// A copy that kept the id of the file beside it has a history of its own,
// and both are told they share an id; a link to a file is that file, and
// a version made by replanning is the workflow's; a file renamed keeps the
// runs made under its old name.
func TestCopiedIDIsToldAndNotShared(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, a := runFile(t, "wf-dup", [2]string{"one", "true"})
	dir := filepath.Dir(a)
	b := filepath.Join(dir, "copy.json")
	data, _ := os.ReadFile(a)
	if err := os.WriteFile(b, data, 0o644); err != nil {
		t.Fatal(err)
	}
	trustFile(t, b)
	v2 := ReplannedPath(a, 2)
	failure.MarkReplanned(w, failure.ReplanInfo{FromVersion: 1})
	if err := workflow.Save(v2, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, v2)
	run := func(path string, n int) {
		t.Helper()
		for i := 0; i < n; i++ {
			if _, fin, err := svc.Run(ctx, StartRequest{Workflow: load(t, path), Path: path}); err != nil || fin == nil || fin.Outcome != runner.OutcomeSucceeded {
				t.Fatalf("run of %s: %v %+v", path, err, fin)
			}
		}
	}
	run(a, 2)
	run(b, 3)
	run(v2, 1)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(a, link); err == nil {
		trustFile(t, link)
		run(link, 1)
	} else {
		run(a, 1)
	}
	check := func(path string, want int, other string) {
		t.Helper()
		h, err := svc.RunHistory(path, "wf-dup")
		if err != nil {
			t.Fatal(err)
		}
		if len(h.Runs) != want {
			t.Errorf("%s: %d runs, want %d", filepath.Base(path), len(h.Runs), want)
		}
		told := false
		for _, w := range h.Warnings {
			told = told || strings.Contains(w, other) && strings.Contains(w, "same workflow id")
		}
		if told != (other != "") || len(h.Warnings) > 1 {
			t.Errorf("%s: warnings %q, want one about %q", filepath.Base(path), h.Warnings, other)
		}
	}
	// The replanned version's run is the workflow's, whichever file asks.
	check(a, 4, "copy.json")
	check(b, 4, filepath.Base(a))
	check(v2, 7, "")
	// Renamed: its runs so far go with it; the other file's stay apart.
	moved := filepath.Join(dir, "renamed.json")
	if err := os.Rename(b, moved); err != nil {
		t.Fatal(err)
	}
	check(moved, 4, filepath.Base(a))
}
