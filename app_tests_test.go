package main

import (
	"os"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/testcase"
)

// The Tests panel through the bindings: no cases yet says how to record
// one; a case recorded from a real run plays and passes with nothing
// acting; the editor's copy is what plays; a mock edited through the
// panel is checked, saved, and changes what the case sees.
func TestDesktopTests(t *testing.T) {
	a, ev := runApp(t)
	marker := t.TempDir() + "/ran"
	w, path := runFile(t, "wf-tests", [2]string{"say", "echo hello; echo x >> " + marker})

	tr, err := a.RunTests(w, path, "")
	if err != nil || tr.Report != nil || !strings.Contains(tr.Error, "--record") || tr.Problems == nil {
		t.Fatalf("no cases: %+v %v", tr, err)
	}
	if _, err := a.RecordTestCase(path, "first"); err == nil || !strings.Contains(err.Error(), "no finished local run") {
		t.Fatalf("record before a run: %v", err)
	}
	if st, err := a.StartRun(w, path); err != nil || !st.Started {
		t.Fatalf("start: %+v %v", st, err)
	}
	ev.next(t, EventRunFinished)
	rec, err := a.RecordTestCase(path, "first")
	if err != nil || rec.Name != "first" || rec.File != testcase.PathFor(path) || rec.FillIn == nil {
		t.Fatalf("record: %+v %v", rec, err)
	}
	before, _ := os.ReadFile(marker)

	tr, err = a.RunTests(w, path, "")
	if err != nil || tr.Error != "" || tr.Report == nil || tr.Report.Passed != 1 || tr.Report.Cases[0].Failures == nil {
		t.Fatalf("play: %+v %v", tr, err)
	}
	if after, _ := os.ReadFile(marker); string(after) != string(before) {
		t.Fatal("playing a case ran the command")
	}
	if tr, _ := a.RunTests(w, path, "other"); !strings.Contains(tr.Error, `no case is named "other"`) {
		t.Errorf("one unknown case: %+v", tr)
	}

	// The editor's copy plays: a changed command has no mock.
	changed := w
	changed.Nodes = append(changed.Nodes[:0:0], w.Nodes...)
	changed.Nodes[0].Params.Arguments = map[string]any{"command": "echo changed"}
	tr, err = a.RunTests(changed, path, "first")
	if err != nil || tr.Report == nil || tr.Report.Failed != 1 || !strings.Contains(tr.Report.Cases[0].Failures[0].Message, "no mock") {
		t.Fatalf("the editor's copy: %+v %v", tr.Report, err)
	}

	cf, err := a.ReadTestCases(path)
	if err != nil || len(cf.Cases) != 1 || !strings.Contains(cf.Cases[0].Mocks, "echo hello") {
		t.Fatalf("read: %+v %v", cf, err)
	}
	if _, err := a.SaveTestCaseMocks(path, "first", `{"commands":[{"command":"echo changed"}]}`, cf.SHA256); err == nil || !strings.Contains(err.Error(), "has no answer") {
		t.Fatalf("invalid mocks saved: %v", err)
	}
	cf, err = a.SaveTestCaseMocks(path, "first", `{"commands":[{"command":"echo changed","answer":{"exit_code":0}}]}`, cf.SHA256)
	if err != nil || !strings.Contains(cf.Cases[0].Mocks, "echo changed") {
		t.Fatalf("save: %+v %v", cf, err)
	}
	tr, _ = a.RunTests(changed, path, "")
	if tr.Report == nil || tr.Report.Cases[0].Failures == nil {
		t.Fatalf("after the edit: %+v", tr)
	}
	for _, f := range tr.Report.Cases[0].Failures {
		if strings.Contains(f.Message, "no mock") {
			t.Errorf("the edited mock did not answer: %+v", f)
		}
	}
}
