package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/workflow"
)

// proposalFlow is a workflow that greets and saves the greeting, and
// three cases that expect the file to hold the mocked greeting.
const proposalFlow = `{"format":"weft/v1","id":"w","name":"greet","nodes":[
 {"id":"say","key":"say","name":"Say hi","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi"}}},
 {"id":"save","key":"save","name":"Save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{say.stdout}}"}}}],
 "edges":[{"from":"say","to":"save"}]}`

func proposalCases() string {
	var cs []string
	for _, n := range []string{"a", "b", "c"} {
		cs = append(cs, `{"name":"`+n+`","mocks":{"commands":[{"command":"echo hi","answer":{"exit_code":0,"stdout":"hi"}}]},
		 "expect":{"outcome":"succeeded","path":["say","save"],"files":{"out.txt":{"equals":"hi"}}}}`)
	}
	return `{"cases":[` + strings.Join(cs, ",") + `]}`
}

// proposalService is a service whose model is srv, and the workflow's
// file (with its cases unless noCases).
func proposalService(t *testing.T, srv *llmtest.Server, noCases bool, repairs ...int) (*Service, string, *workflow.Workflow) {
	t.Helper()
	st := settings.Defaults()
	st.LLM.BaseURL, st.LLM.Model = srv.URL, "m"
	st.MaxRepairAttempts = 3
	if len(repairs) > 0 {
		st.MaxRepairAttempts = repairs[0]
	}
	s := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) { return st, nil, nil }
		d.ListTools = nil
	})
	path := filepath.Join(t.TempDir(), "greet.json")
	if err := os.WriteFile(path, []byte(proposalFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	if !noCases {
		if err := os.WriteFile(testcase.PathFor(path), []byte(proposalCases()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path, w
}

const (
	renamePatch  = `{"message":"Renamed.","update":[{"node_id":"save","name":"Save the greeting"}]}`
	byePatch     = `{"message":"Says bye.","update":[{"node_id":"say","arguments":{"command":"echo bye"}}]}`
	excitedPatch = `{"message":"More excited.","update":[{"node_id":"save","arguments":{"path":"out.txt","content":"{{say.stdout}}!"}}]}`
)

func TestChatProposalPassingItsCases(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(renamePatch)))
	s, path, w := proposalService(t, srv, false)
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "rename the save step"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.Tests == nil || res.Tests.Line != "tests: 3 of 3 pass" || len(res.Tests.Cases) != 0 {
		t.Fatalf("valid %v, tests %+v; want tests: 3 of 3 pass", res.Valid, res.Tests)
	}
	if res.Attempts != 1 || srv.Calls() != 1 {
		t.Errorf("%d attempts, %d calls; want one", res.Attempts, srv.Calls())
	}
	// Played in memory: the workflow's file and folder are untouched.
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the proposal wrote out.txt: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != proposalFlow {
		t.Errorf("the workflow's file changed")
	}
}

func TestChatProposalErroringUnderItsCasesIsAskedAgain(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(byePatch), llmtest.Reply(renamePatch)))
	s, path, w := proposalService(t, srv, false)
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "rename the save step"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 || res.Attempts != 2 {
		t.Fatalf("%d calls, %d attempts; want the patch asked again once", srv.Calls(), res.Attempts)
	}
	reask := srv.Requests()[1].LastUser()
	for _, want := range []string{`would run run_command "echo bye"`, "no mock", `Test cases "a", "b", "c"`, "patch"} {
		if !strings.Contains(reask, want) {
			t.Errorf("the re-ask does not say %q:\n%s", want, reask)
		}
	}
	if res.Message != "Renamed." || res.Tests == nil || res.Tests.Line != "tests: 3 of 3 pass" {
		t.Errorf("result %q with tests %+v; want the second reply, passing", res.Message, res.Tests)
	}
	if len(res.Tries) != 1 || !strings.Contains(strings.Join(res.Tries[0].Why, " "), "test cases") {
		t.Errorf("tries %+v; want the first reply's, saying the tests", res.Tries)
	}
}

func TestChatProposalChangingAnOutputIsShownNotAskedAgain(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(excitedPatch), llmtest.Reply(renamePatch)))
	s, path, w := proposalService(t, srv, false)
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "add an exclamation mark"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || res.Message != "More excited." {
		t.Fatalf("%d calls, message %q; want the one reply, not asked again", srv.Calls(), res.Message)
	}
	tests := res.Tests
	if tests == nil || tests.Line != "tests: 0 of 3 pass" || len(tests.Cases) != 3 {
		t.Fatalf("tests %+v; want 0 of 3 with the three cases", tests)
	}
	c := tests.Cases[0]
	if c.Errored || len(c.Differences) != 1 || !strings.Contains(c.Differences[0], `out.txt: expected "hi", got "hi!"`) {
		t.Errorf("case %+v; want the file's difference, not an error", c)
	}
}

func TestChatProposalWithoutCasesShowsNoTests(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(byePatch)))
	s, path, w := proposalService(t, srv, true)
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "say bye"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tests != nil || srv.Calls() != 1 || !res.Valid {
		t.Errorf("tests %+v after %d calls; want none, one call", res.Tests, srv.Calls())
	}
	// Nor does an unsaved workflow, whose cases cannot be found.
	srv.Enqueue(llmtest.Reply(byePatch))
	res, err = s.Chat(context.Background(), ChatRequest{Workflow: w, Message: "say bye"})
	if err != nil || res.Tests != nil {
		t.Errorf("unsaved: tests %+v, %v; want none", res.Tests, err)
	}
}

// A plan for a workflow with cases is checked the same way, through the
// planner's loop: the one that errors under them is asked again.
func TestPlanForAWorkflowWithCasesIsChecked(t *testing.T) {
	plan := func(cmd string) string {
		return `{"steps":[{"id":"say","step_type":"Tool","name":"Say","tool_name":"run_command","arguments":{"command":"` + cmd + `"}},
		 {"id":"save","step_type":"Tool","name":"Save","tool_name":"write_file","arguments":{"path":"out.txt","content":"{{say.stdout}}"}}]}`
	}
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(plan("echo bye")), llmtest.Reply(plan("echo hi"))))
	s, path, _ := proposalService(t, srv, true)
	// Cases that name no step: a plan's steps are new.
	cases := `{"cases":[{"name":"one","mocks":{"commands":[{"command":"echo hi","answer":{"exit_code":0,"stdout":"hi"}}]},
	 "expect":{"outcome":"succeeded","files":{"out.txt":{"equals":"hi"}}}}]}`
	if err := os.WriteFile(testcase.PathFor(path), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Plan(context.Background(), PlanRequest{Goal: "greet into out.txt", Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 || !strings.Contains(srv.Requests()[1].LastUser(), `would run run_command "echo bye"`) {
		t.Fatalf("%d calls; want the plan asked again with the error", srv.Calls())
	}
	if !res.Valid || res.Tests == nil || res.Tests.Line != "tests: 1 of 1 pass" {
		t.Errorf("valid %v, tests %+v; want the second plan, passing", res.Valid, res.Tests)
	}
	if len(res.Attempts) != 2 || !strings.Contains(res.Attempts[0].Error, "test cases") {
		t.Errorf("attempts %+v; want the first saying the tests", res.Attempts)
	}
	// Without a path, nothing is played.
	srv.Enqueue(llmtest.Reply(plan("echo bye")))
	if res, err := s.Plan(context.Background(), PlanRequest{Goal: "greet"}); err != nil || res.Tests != nil {
		t.Errorf("no path: tests %+v, %v", res.Tests, err)
	}
}

// A replan's review carries the cases played against the reviewed
// workflow.
func TestReplanProposalShowsItsTests(t *testing.T) {
	srv := llmtest.Start(t)
	s, path, w := proposalService(t, srv, false)
	nw := w.Clone()
	nw.NodeByID("save").Params.Arguments["content"] = "{{say.stdout}}!"
	rp := s.proposal(context.Background(), w, &runner.Result{RunID: "r", Replanned: nw}, path)
	if rp.Tests == nil || rp.Tests.Line != "tests: 0 of 3 pass" || rp.Tests.Cases[0].Errored {
		t.Errorf("tests %+v; want 0 of 3, differing", rp.Tests)
	}
}

// A case that errs before the change too is the workflow's, not the
// proposal's: shown, never asked about (a stale case would otherwise cost
// every attempt).
func TestChatProposalDoesNotAskAboutACaseThatErredBefore(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply(renamePatch)))
	s, path, w := proposalService(t, srv, false)
	stale := strings.ReplaceAll(proposalCases(), `"command":"echo hi"`, `"command":"echo hello"`)
	if err := os.WriteFile(testcase.PathFor(path), []byte(stale), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "rename the save step"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || res.Tests == nil || res.Tests.Line != "tests: 0 of 3 pass (3 errors)" {
		t.Fatalf("%d calls, tests %+v; want one call, the errors shown", srv.Calls(), res.Tests)
	}
	if d := strings.Join(res.Tests.Cases[0].Differences, "\n"); !strings.Contains(d, "errs before the change too") {
		t.Errorf("differences %q; want it said the case erred before", d)
	}
}

// With max_repair_attempts 0 (one call, not validated) the cases are
// still played and shown; nothing is asked again.
func TestChatProposalUnvalidatedStillShowsTheTests(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply(byePatch)))
	s, path, w := proposalService(t, srv, false, 0)
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "say bye"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || res.Tests == nil || res.Tests.Line != "tests: 0 of 3 pass (3 errors)" || !res.Tests.Cases[0].Errored {
		t.Errorf("%d calls, tests %+v; want one call, the errors shown", srv.Calls(), res.Tests)
	}
}

// A case file that cannot be used is said in the review, never asked
// about: the model did not write it.
func TestChatProposalWithAnUnusableCaseFileSaysSo(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply(byePatch)))
	s, path, w := proposalService(t, srv, true)
	if err := os.WriteFile(testcase.PathFor(path), []byte(`{"cases": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := s.Chat(context.Background(), ChatRequest{Workflow: w, Path: path, Message: "say bye"})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || res.Tests == nil || res.Tests.Error == "" || !strings.HasPrefix(res.Tests.Line, "tests: not played: ") {
		t.Errorf("%d calls, tests %+v; want one call, the case file's error shown", srv.Calls(), res.Tests)
	}
}
