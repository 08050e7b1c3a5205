package temporal

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/testsuite"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// env is a Temporal test environment (the SDK's, no server) with the real
// step activities running commands in a temp folder.
func env(t *testing.T) (*testsuite.TestWorkflowEnvironment, string) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	s.SetLogger(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	e := s.NewTestWorkflowEnvironment()
	dir := t.TempDir()
	acts := &Activities{Options: func() runner.Options {
		st := settings.Defaults()
		return runner.Options{Settings: st, Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}}
	}}
	Register(e, acts)
	return e, dir
}

func input(t *testing.T, dir, doc string) RunInput {
	t.Helper()
	w, _, err := wf.Parse([]byte(`{"format":"weft/v1","id":"w","name":"temporal test",` + doc + `}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := wf.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	return RunInput{Workflow: b, Dir: dir}
}

func result(t *testing.T, e *testsuite.TestWorkflowEnvironment) *runner.Result {
	t.Helper()
	if !e.IsWorkflowCompleted() {
		t.Fatal("the workflow did not complete")
	}
	if err := e.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res runner.Result
	if err := e.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	return &res
}

func read(t *testing.T, dir, name string) string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, name))
	return string(b)
}

// A loop with an If inside: the walk, the conditions and the templates are
// the runner's (values inserted as quoted data).
const loopIfWF = `"nodes":[
 {"id":"l","key":"rounds","type":"Loop","params":{"exit_condition":"rounds.iteration >= 3","max_iterations":5}},
 {"id":"w","key":"write","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo round {{rounds.iteration}} >> out.txt; echo {{rounds.iteration}}"}}},
 {"id":"i","key":"odd","type":"If","params":{"condition":"int(trim(write.stdout)) % 2 == 1"}},
 {"id":"o","key":"mark_odd","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo odd >> out.txt"}}},
 {"id":"e","key":"rounds_end","type":"EndLoop","params":{"loop_id":"l"}},
 {"id":"d","key":"done","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo done {{rounds.iteration}} >> out.txt"}}}],
 "edges":[{"from":"l","to":"w","output":"LoopBody"},{"from":"w","to":"i"},{"from":"i","to":"o","output":"IfTrue"},{"from":"i","to":"e","output":"IfFalse"},
  {"from":"o","to":"e"},{"from":"e","to":"l"},{"from":"l","to":"d","output":"LoopDone"}]`

func TestRunWalksLikeTheRunner(t *testing.T) {
	e, dir := env(t)
	in := input(t, dir, loopIfWF)
	in.Source = runner.RunBySchedule
	e.ExecuteWorkflow(Run, in)
	res := result(t, e)
	if res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Error)
	}
	if res.Source != runner.RunBySchedule {
		t.Errorf("the result says the run was started by %q, its input by %q", res.Source, in.Source)
	}
	if got, want := read(t, dir, "out.txt"), "round 1\nodd\nround 2\nround 3\nodd\ndone 3\n"; got != want {
		t.Fatalf("out.txt = %q, want %q", got, want)
	}
	if res.Summary.Nodes != 6 || res.Summary.FirstAttemptSuccesses != 6 {
		t.Errorf("summary %+v", res.Summary)
	}
}

// failWF: a step that fails until fixed.txt exists, then one after it.
const failWF = `"nodes":[
 {"id":"a","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f fixed.txt"}},"retry":{"max_attempts":2,"backoff":{"initial_ms":10}}%s},
 {"id":"b","key":"after","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo after >> out.txt"}}}],
 "edges":[{"from":"a","to":"b"}]`

func TestRetriesThenEscalatesAndWaitsForAnAnswer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  runner.Response
		outcome runner.Outcome
		after   bool
	}{
		{"skip", runner.Response{Action: runner.ActSkip}, runner.OutcomePartial, true},
		{"abort", runner.Response{Action: runner.ActAbort}, runner.OutcomeAborted, false},
		{"fix", runner.Response{Action: runner.ActFix, Arguments: map[string]any{"command": "true"}}, runner.OutcomeSucceeded, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, dir := env(t)
			var seen State
			e.RegisterDelayedCallback(func() {
				v, err := e.QueryWorkflow(QueryState, int64(0))
				if err != nil {
					t.Error(err)
					return
				}
				if err := v.Get(&seen); err != nil {
					t.Error(err)
				}
				e.SignalWorkflow(SignalRespond, tc.answer)
			}, time.Hour) // long after both attempts: the run waits, durably, meanwhile
			e.ExecuteWorkflow(Run, input(t, dir, strings.Replace(failWF, "%s", "", 1)))
			res := result(t, e)
			if res.Outcome != tc.outcome {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Error, tc.outcome)
			}
			if seen.Phase != PhaseWaiting || seen.Escalation == nil || seen.Escalation.NodeKey != "check" || seen.Escalation.Attempts != 2 {
				t.Fatalf("state while waiting: %+v", seen)
			}
			if (read(t, dir, "out.txt") == "after\n") != tc.after {
				t.Errorf("out.txt %q", read(t, dir, "out.txt"))
			}
			if res.Summary.Escalations != 1 {
				t.Errorf("summary %+v", res.Summary)
			}
		})
	}
}

func TestOnErrorContinueAndBranch(t *testing.T) {
	e, dir := env(t)
	e.ExecuteWorkflow(Run, input(t, dir, strings.Replace(failWF, "%s", `,"on_error":"continue"`, 1)))
	res := result(t, e)
	if res.Outcome != runner.OutcomePartial || res.Summary.Handled != 1 || read(t, dir, "out.txt") != "after\n" {
		t.Fatalf("continue: %+v", res)
	}
	rec := res.Outputs["check"].(map[string]any)
	if rec["success"] != false || rec["error_record"] == nil {
		t.Errorf("outputs %v", rec)
	}
}

// A step a model wrote runs only when its exact content was approved.
func TestApprovalIsChecked(t *testing.T) {
	e, dir := env(t)
	in := input(t, dir, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch ran"}}}],"edges":[]`)
	w, _, _ := wf.Parse(in.Workflow)
	approval.Mark(&w.Nodes[0], approval.Provenance{Source: "model", Via: "plan"})
	in.Workflow, _ = wf.Marshal(w)
	e.ExecuteWorkflow(Run, in)
	res := result(t, e)
	if res.Outcome != runner.OutcomeFailed || !strings.Contains(res.Error, "approv") {
		t.Fatalf("unapproved: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Fatal("an unapproved step ran")
	}
	e2, dir2 := env(t)
	in.Approved = []string{approval.Fingerprint(&w.Nodes[0])}
	in.Dir = dir2
	e2.ExecuteWorkflow(Run, in)
	if res := result(t, e2); res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("approved: %+v", res)
	}
}

// The workflow's done_when is checked at the end, as the runner does: a
// condition that holds succeeds with its verdict; one that does not
// escalates, and accepting it makes the run partial, never a success.
func TestDoneWhen(t *testing.T) {
	doc := func(cond string) string {
		return `"done_when":{"condition":"` + cond + `"},"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 42"}}}],"edges":[]`
	}
	e, dir := env(t)
	e.ExecuteWorkflow(Run, input(t, dir, doc("trim(a.stdout) == '42'")))
	res := result(t, e)
	if res.Outcome != runner.OutcomeSucceeded || res.Verdict == nil || !res.Verdict.Approved || res.Verdict.CheckedBy != "condition" {
		t.Fatalf("met: %+v %+v", res, res.Verdict)
	}
	e2, dir2 := env(t)
	e2.RegisterDelayedCallback(func() { e2.SignalWorkflow(SignalRespond, runner.Response{Action: runner.ActSkip}) }, time.Minute)
	e2.ExecuteWorkflow(Run, input(t, dir2, doc("trim(a.stdout) == '7'")))
	res = result(t, e2)
	if res.Outcome != runner.OutcomePartial || res.Verdict == nil || res.Verdict.Approved || !res.Verdict.Accepted {
		t.Fatalf("not met, accepted: %+v %+v", res, res.Verdict)
	}
	// Criteria need a model: a worker without one cannot check, and says so
	// (aborted here), rather than pass.
	e3, dir3 := env(t)
	e3.RegisterDelayedCallback(func() { e3.SignalWorkflow(SignalRespond, runner.Response{Action: runner.ActAbort}) }, time.Minute)
	e3.ExecuteWorkflow(Run, input(t, dir3, `"done_when":{"criteria":"the answer is right"},"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}}],"edges":[]`))
	if res := result(t, e3); res.Outcome != runner.OutcomeAborted || !strings.Contains(res.Error, "needs a model") {
		t.Fatalf("criteria without a model: %+v", res)
	}
}
