package testcase

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// A case recorded from a real run replays: the same path, the answers in
// order (a retried command's two), the files written; nothing cut is
// handed on as whole and a secret is named, never kept.
func TestRecordReplays(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(`"nodes":[
	 {"id":"flaky","key":"flaky","type":"Tool","retry":{"max_attempts":2,"backoff_initial_ms":1},"params":{"tool":"run_command","arguments":{"command":"test -f marker || { touch marker; echo first >&2; exit 3; }; head -c 3000 /dev/zero | tr '\\0' y"}}},
	 {"id":"save","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out/n.txt","content":"{{flaky.stdout}}"}}},
	 {"id":"tell","key":"tell","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo token-abc''def-123456"}}}],
	 "edges":[{"from":"flaky","to":"save"},{"from":"save","to":"tell"}]`)
	st := settings.Defaults()
	path := f.path("flow.json")
	rn := runner.New(runner.Options{Settings: st, WorkflowPath: path, KeepAttempts: true,
		Redactor: redact.New("token-abcdef-123456"),
		Patterns: &failure.PatternStore{Path: filepath.Join(t.TempDir(), "p.jsonl")}})
	res, err := rn.Run(context.Background(), w)
	if err != nil || res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("run: %v %+v", err, res)
	}
	rec, err := Record(w, path, res.Dir, "recorded")
	if err != nil {
		t.Fatal(err)
	}
	c := rec.Case
	if got := strings.Join(c.Expect.Path, ","); got != "flaky,save,tell" || c.Expect.Outcome != runner.OutcomeSucceeded {
		t.Errorf("path %s, outcome %s", got, c.Expect.Outcome)
	}
	m := c.Mocks.Commands[0]
	if len(m.Answers.Answers) != 2 || m.Answers.Answers[0].ExitCode != 3 || m.Answers.Answers[0].Stderr != "first\n" || len(m.Answers.Answers[1].Stdout) != 3000 {
		t.Errorf("the retried command's answers: %+v", m.Answers)
	}
	if v := c.Expect.Files["out/n.txt"]; v.Equals != strings.Repeat("y", 3000) {
		t.Errorf("files %+v", c.Expect.Files)
	}
	if len(rec.FillIn) != 1 || !strings.Contains(rec.FillIn[0], "step tell (attempt 1): a value held a secret") {
		t.Errorf("fill in %q", rec.FillIn)
	}
	if b, _ := jsonText(c); strings.Contains(b, "token-abcdef-123456") {
		t.Errorf("the case holds the secret: %s", b)
	}
	// Filled in (a stand-in for the hidden value), the case replays.
	c.Mocks.Commands[1].Answer.Stdout = "a stand-in\n"
	rep, err := Run(context.Background(), w, path, &File{Cases: []Case{c}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantPass(t, rep.Cases[0])
}

func TestRecordNeedsTheRecord(t *testing.T) {
	f := newFolder(t)
	w := f.workflow(retried)
	if _, err := Record(w, f.path("flow.json"), t.TempDir(), "x"); err != ErrNoRecord {
		t.Errorf("err = %v, want ErrNoRecord", err)
	}
}

// A secret input is recorded hidden: the case gets an empty stand-in and
// the person is told to give one.
func TestRecordSecretInput(t *testing.T) {
	f := newFolder(t)
	f.write("flow.json", `{"format":"weft/v1","id":"w","name":"t",
	 "inputs":{"type":"object","properties":{"user":{"type":"string"},"pass":{"type":"string","writeOnly":true}}},
	 "nodes":[{"id":"hi","key":"hi","type":"Tool","params":{"tool":"log","arguments":{"message":"{{inputs.user}}"}}}],"edges":[]}`)
	w, _, err := workflow.Load(f.path("flow.json"))
	if err != nil {
		t.Fatal(err)
	}
	path := f.path("flow.json")
	rn := runner.New(runner.Options{Settings: settings.Defaults(), WorkflowPath: path, KeepAttempts: true,
		Inputs:   map[string]any{"user": "ann", "pass": "correct-horse-battery"},
		Patterns: &failure.PatternStore{Path: filepath.Join(t.TempDir(), "p.jsonl")}})
	res, err := rn.Run(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := Record(w, path, res.Dir, "r")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Case.Inputs["user"] != "ann" || rec.Case.Inputs["pass"] != "" || len(rec.FillIn) != 1 || !strings.Contains(rec.FillIn[0], "input pass: it is secret") {
		t.Errorf("inputs %v, fill in %q", rec.Case.Inputs, rec.FillIn)
	}
}
