package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

const (
	planValid = `{"steps": [
  {"id": "list", "step_type": "Tool", "name": "List notes", "tool_name": "list_files", "arguments": {"path": ".", "pattern": "*.txt"}},
  {"id": "report", "step_type": "Tool", "name": "Report count", "tool_name": "log", "arguments": {"message": "{{list.count}} notes"}}
]}`
	planIfOneBranch = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt"}},
  {"id": "exists", "step_type": "If", "name": "File exists", "condition": "check.exit_code == 0"},
  {"id": "read", "step_type": "Tool", "name": "Read notes", "tool_name": "read_file", "arguments": {"path": "notes.txt"}}
],
"edges": [
  {"from": "check", "to": "exists"},
  {"from": "exists", "to": "read", "output": {"type": "IfTrue"}}
]}`
)

// planEnv points the CLI at a fake server with private config and data dirs.
func planEnv(t *testing.T, srv *llmtest.Server, maxAttempts string) map[string]string {
	env := map[string]string{
		"XDG_DATA_HOME":            t.TempDir(),
		"XDG_STATE_HOME":           t.TempDir(),
		"WEFT_LLM_BASE_URL":        srv.URL,
		"WEFT_LLM_MODEL":           "fake-model",
		"WEFT_LLM_API_KEY":         "sk-test",
		"WEFT_MAX_REPAIR_ATTEMPTS": maxAttempts,
	}
	return env
}

func TestPlanCLIValid(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planValid)))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "plan", "--goal", "count my notes")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	// stdout is the workflow alone, ready to save.
	w, _, err := workflow.Parse([]byte(out))
	if err != nil {
		t.Fatalf("stdout is not a workflow: %v\n%s", err, out)
	}
	if len(w.Nodes) != 2 || srv.Calls() != 1 {
		t.Fatalf("nodes=%d calls=%d", len(w.Nodes), srv.Calls())
	}
	if !strings.Contains(errOut, "attempt 1: ok") || !strings.Contains(errOut, "valid plan") {
		t.Errorf("stderr should report the attempt:\n%s", errOut)
	}
	req, _ := srv.LastRequest()
	if req.Model != "fake-model" || !strings.Contains(req.LastUser(), "count my notes") || !strings.Contains(req.System(), "run_command") {
		t.Errorf("request: model %q, user %q", req.Model, req.LastUser())
	}
}

func TestPlanCLIJSONReaskThenValid(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planIfOneBranch), llmtest.Reply("```json\n"+planValid+"\n```")))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "plan", "--json", "--goal", "read my notes")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var got struct {
		Valid    bool            `json:"valid"`
		Workflow json.RawMessage `json:"workflow"`
		Warnings []struct {
			Stage, Message string
			NodeID         string `json:"node_id"`
		} `json:"warnings"`
		Attempts []struct {
			N     int    `json:"n"`
			Error string `json:"error"`
		} `json:"attempts"`
		Problems []json.RawMessage `json:"problems"`
		LLMCalls int               `json:"llm_calls"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	if !got.Valid || got.LLMCalls != 2 || len(got.Attempts) != 2 || got.Attempts[1].Error != "" ||
		!strings.Contains(got.Attempts[0].Error, "if_missing_branch") || got.Warnings == nil || got.Problems == nil {
		t.Fatalf("result %+v", got)
	}
	if len(got.Warnings) == 0 || got.Warnings[0].Stage != "extract" || !strings.Contains(out, `"node_id": ""`) {
		t.Errorf("the fence warning should be listed with its node_id key: %+v", got.Warnings)
	}
	if _, _, err := workflow.Parse(got.Workflow); err != nil {
		t.Fatalf("workflow field: %v", err)
	}
	if reask := srv.Requests()[1].LastUser(); !strings.Contains(reask, "'File exists'") {
		t.Errorf("re-ask sent to the server lacks the problem:\n%s", reask)
	}
}

func TestPlanCLIInvalidWritesDraft(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planIfOneBranch), llmtest.Reply(planIfOneBranch)))
	outFile := filepath.Join(t.TempDir(), "plan.json")
	code, out, errOut := run(t, planEnv(t, srv, "2"), "plan", "--goal", "read my notes", "--out", outFile)
	if code != exitInvalid {
		t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitInvalid, out, errOut)
	}
	if srv.Calls() != 2 {
		t.Fatalf("calls %d, want 2", srv.Calls())
	}
	if _, _, err := workflow.Load(outFile); err != nil {
		t.Fatalf("the best draft should be written: %v", err)
	}
	for _, want := range []string{"INVALID", "if_missing_branch", "wrote the INVALID best draft"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestPlanCLINoModel(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir(), "WEFT_LLM_MODEL": ""}
	code, _, errOut := run(t, env, "plan", "--goal", "x")
	if code != exitUnusable || !strings.Contains(errOut, "no model configured") || !strings.Contains(errOut, "WEFT_LLM_MODEL") {
		t.Fatalf("exit %d stderr %q", code, errOut)
	}
}

func TestPlanCLITransportError(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Fault(401, "bad key")))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "plan", "--json", "--goal", "x")
	if code != exitUnusable || srv.Calls() != 1 {
		t.Fatalf("exit %d calls %d\nstderr: %s", code, srv.Calls(), errOut)
	}
	var got struct {
		Valid bool   `json:"valid"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Valid || !strings.Contains(got.Error, "rejected") {
		t.Fatalf("json %q (%v)", out, err)
	}
}

func TestPlanCLIUsage(t *testing.T) {
	for _, args := range [][]string{{"plan"}, {"plan", "--goal", " "}, {"plan", "--goal", "x", "extra"}} {
		if code, _, _ := run(t, nil, args...); code != exitUnusable {
			t.Errorf("%q: exit %d", args, code)
		}
	}
}

func TestPlanCLICancel(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Hang()))
	for k, v := range planEnv(t, srv, "3") {
		t.Setenv(k, v)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("WEFT_KEYRING", "off")
	ctx, cancel := context.WithCancel(context.Background())
	var errb strings.Builder
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errb, getenv: os.Getenv,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	go func() {
		for srv.Calls() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel() // what Ctrl+C does through signal.NotifyContext
	}()
	done := make(chan int)
	go func() { done <- c.main(ctx, []string{"plan", "--goal", "x"}) }()
	select {
	case code := <-done:
		if code != exitCanceled || !strings.Contains(errb.String(), "canceled") {
			t.Fatalf("exit %d stderr %q", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("plan did not stop on cancel")
	}
}

func TestPlanCLIRecordsMemoryAndStats(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planIfOneBranch), llmtest.Reply(planValid), llmtest.Reply(planValid)))
	env := planEnv(t, srv, "3")
	if code, _, errOut := run(t, env, "plan", "--goal", "a"); code != exitOK {
		t.Fatalf("plan 1: %d %s", code, errOut)
	}
	// The second plan's prompt carries the lesson of the first.
	if code, _, errOut := run(t, env, "plan", "--goal", "b"); code != exitOK {
		t.Fatalf("plan 2: %d %s", code, errOut)
	}
	if sys := srv.Requests()[2].System(); !strings.Contains(sys, "Mistakes to avoid") || !strings.Contains(sys, "IfFalse") {
		t.Errorf("plan 2's system prompt lacks the mistakes list:\n%s", sys)
	}

	code, out, errOut := run(t, env, "stats")
	if code != exitOK || !strings.Contains(out, "fake-model") || !strings.Contains(out, "problem:if_missing_branch (1)") {
		t.Fatalf("stats exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, env, "stats", "--json")
	var got statsJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != exitOK {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	if got.Plans != 2 || len(got.Models) != 1 {
		t.Fatalf("stats %+v", got)
	}
	m := got.Models[0]
	if m.Model != "fake-model" || m.Plans != 2 || m.ValidRate != 1 || m.MeanLLMCalls != 1.5 || m.ReaskRate != 0.5 {
		t.Errorf("model stats %+v", m)
	}
}

func TestStatsCLIEmpty(t *testing.T) {
	code, out, _ := run(t, map[string]string{"XDG_DATA_HOME": t.TempDir()}, "stats")
	if code != exitOK || !strings.Contains(out, "no plans recorded yet") {
		t.Fatalf("exit %d: %s", code, out)
	}
}

// A rate limit is named as one, with the wait, on stderr; one that asks
// for longer than Weft waits fails at once saying when to retry.
func TestPlanCLIRateLimit(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("0.2"), llmtest.Reply(planValid)))
	code, out, errOut := run(t, planEnv(t, srv, "3"), "plan", "--goal", "count my notes")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "rate limited by the model server (429 Too Many Requests)") || !strings.Contains(errOut, "retrying in 200ms (attempt 2 of 4") {
		t.Errorf("stderr:\n%s", errOut)
	}

	srv = llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("3600"), llmtest.Reply(planValid)))
	start := time.Now()
	code, out, errOut = run(t, planEnv(t, srv, "3"), "plan", "--goal", "count my notes")
	if code == exitOK || time.Since(start) > 10*time.Second {
		t.Fatalf("exit %d after %v\n%s\n%s", code, time.Since(start), out, errOut)
	}
	if !strings.Contains(errOut, "rate limited the request") || !strings.Contains(errOut, "it asks to retry after") || strings.Contains(errOut, "unreachable") {
		t.Errorf("stderr:\n%s", errOut)
	}
}

// A valid plan that left steps of the reply out is not used unseen: exit 1
// and a LEFT OUT verdict naming them, unless --allow-dropped accepts it.
func TestPlanCLIDroppedSteps(t *testing.T) {
	reply := `{"steps": [{"id": "list", "step_type": "Tool", "tool_name": "list_files", "arguments": {"path": "."}}],
 "more_steps": [{"id": "report", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{list.count}} notes"}}]}`
	for _, tc := range []struct {
		args []string
		code int
	}{
		{nil, exitInvalid},
		{[]string{"--allow-dropped"}, exitOK},
	} {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(reply)))
		args := append([]string{"plan", "--goal", "count my notes", "--json"}, tc.args...)
		code, out, errOut := run(t, planEnv(t, srv, "1"), args...)
		if code != tc.code {
			t.Fatalf("%v: exit %d, want %d\nstdout: %s\nstderr: %s", tc.args, code, tc.code, out, errOut)
		}
		var got struct {
			Valid  bool `json:"valid"`
			Unused struct {
				Steps []string `json:"steps"`
			} `json:"unused"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("stdout is not JSON: %v\n%s", err, out)
		}
		if !got.Valid || len(got.Unused.Steps) != 1 || !strings.Contains(got.Unused.Steps[0], "more_steps[0]") {
			t.Errorf("%v: valid %v, unused %v", tc.args, got.Valid, got.Unused.Steps)
		}
	}
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(reply)))
	code, _, errOut := run(t, planEnv(t, srv, "1"), "plan", "--goal", "count my notes")
	if code != exitInvalid || !strings.Contains(errOut, "LEFT OUT") || !strings.Contains(errOut, "--allow-dropped") {
		t.Errorf("exit %d; the report should say what was left out and how to accept it:\n%s", code, errOut)
	}
}

// A plan that still errors under the test cases beside --out (after the
// re-asks) is a failure: exit 1, and the file there is not replaced (the
// plan goes beside it), saying why.
func TestPlanCLIErringUnderTestsIsAFailure(t *testing.T) {
	const planCmd = `{"steps": [{"id": "hi", "step_type": "Tool", "name": "Say hi", "tool_name": "run_command", "arguments": {"command": "echo hi > made"}}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planCmd), llmtest.Reply(planCmd)))
	dir := t.TempDir()
	out := filepath.Join(dir, "flow.json")
	old := `{"format":"weft/v1","id":"w","name":"before","nodes":[],"edges":[]}`
	if err := os.WriteFile(out, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// The case mocks no command: a plan that runs one errors under it.
	if err := os.WriteFile(filepath.Join(dir, "flow.tests.json"), []byte(`{"cases":[{"name":"quiet","expect":{"outcome":"succeeded"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, planEnv(t, srv, "2"), "plan", "--goal", "say hi", "--out", out)
	if code != exitInvalid {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, errOut)
	}
	if !strings.Contains(stdout, "FAILS ITS TESTS: the plan errors under 1 of its test cases") || !strings.Contains(stdout, "was NOT replaced") {
		t.Errorf("report:\n%s", stdout)
	}
	if b, _ := os.ReadFile(out); string(b) != old {
		t.Errorf("%s was replaced:\n%s", out, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("the plan's command ran")
	}
}
