package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

// noID is validWF as a hand-written file or an example: without an id.
var noID = strings.Replace(validWF, `"id":"w",`, "", 1)

// statsRuns is how many runs `weft stats --runs FILE --json` counts, and
// what it said on stderr.
func statsRuns(t *testing.T, env map[string]string, file string) (int, string) {
	t.Helper()
	code, out, errOut := run(t, env, "stats", "--runs", file, "--json")
	var st struct {
		Runs int `json:"runs"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("stats: exit %d\n%s\n%s", code, out, errOut)
	}
	return st.Runs, errOut
}

// Every run of a file without an id is counted, whoever started it and
// however its path is spelt.
func TestStatsCountsEveryRunOfAFileWithoutAnID(t *testing.T) {
	if strings.Contains(noID, `"id":"w"`) {
		t.Fatal("the fixture still has its id")
	}
	env := runEnv(t)
	wf := writeFile(t, noID)
	dir := filepath.Dir(wf)
	for i, args := range [][]string{
		{"run", wf}, {"run", wf}, {"run", wf, "--source", "schedule"}, {"run", wf, "--json"},
		{"run", filepath.Join(dir, ".", "x", "..", "wf.json")}, {"run", wf}, {"run", wf},
	} {
		if code, out, errOut := run(t, env, args...); code != exitOK {
			t.Fatalf("run %d: exit %d\n%s\n%s", i+1, code, out, errOut)
		}
	}
	if n, errOut := statsRuns(t, env, wf); n != 7 || errOut != "" {
		t.Fatalf("stats counts %d runs of 7\n%s", n, errOut)
	}
	if b, _ := os.ReadFile(wf); string(b) != noID {
		t.Error("running the file wrote it")
	}
}

// A copy that kept the file's id is counted apart, and told so.
func TestStatsOfACopiedID(t *testing.T) {
	env := runEnv(t)
	wf := writeFile(t, validWF)
	cp := filepath.Join(filepath.Dir(wf), "copy.json")
	if err := os.WriteFile(cp, []byte(validWF), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{wf, wf, cp, cp, cp} {
		if code, out, errOut := run(t, env, "run", f); code != exitOK {
			t.Fatalf("run %s: exit %d\n%s\n%s", f, code, out, errOut)
		}
	}
	for f, want := range map[string]struct {
		runs  int
		other string
	}{wf: {2, "copy.json"}, cp: {3, "wf.json"}} {
		n, errOut := statsRuns(t, env, f)
		if n != want.runs || !strings.Contains(errOut, want.other+" beside this file has the same workflow id (w)") {
			t.Errorf("%s: %d runs (want %d)\n%s", filepath.Base(f), n, want.runs, errOut)
		}
	}
}

// weft versions finds the versions a replanned run of a file without an
// id saved, from the file and from the replanned copy (which has the id
// written in).
func TestVersionsOfAFileWithoutAnID(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(replanGood)))
	env := replanEnv(t, srv)
	wf := buildFile(t)
	b, _ := os.ReadFile(wf)
	if err := os.WriteFile(wf, []byte(strings.Replace(string(b), `"id":"wf-build",`, "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := run(t, env, "run", wf); code != exitInvalid || !strings.Contains(out, "Run replanned") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	newFile := filepath.Join(filepath.Dir(wf), "wf.replanned-v2.json")
	nw, _, err := workflow.Load(newFile)
	if err != nil || nw.ID != workflow.FileID(wf) {
		t.Fatalf("the replanned copy has id %q (%v), want the file's %s", nw.ID, err, workflow.FileID(wf))
	}
	for _, f := range []string{wf, newFile} {
		code, out, errOut := run(t, env, "versions", "--json", f)
		var list versionsListJSON
		if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Versions) != 2 || list.WorkflowID != workflow.FileID(wf) {
			t.Errorf("versions of %s: exit %d\n%s\n%s", filepath.Base(f), code, out, errOut)
		}
	}
	if n, _ := statsRuns(t, env, wf); n != 1 {
		t.Errorf("stats: %d runs, want 1", n)
	}
}
