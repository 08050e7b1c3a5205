package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/testcase"
)

// chatCases expect fetch's two steps in order, mocked.
const chatCases = `{"cases":[{"name":"one","mocks":{"commands":[
 {"command":"curl -O https://example.com/a.zip","answer":{"exit_code":0}},
 {"command":"unzip a.zip","answer":{"exit_code":0}}]},
 "expect":{"outcome":"succeeded","path":["a","b"]}}]}`

// weft chat shows the workflow's cases played against the change: a
// wait between the steps changes the path, which is shown (not asked
// again), in the review and in --json.
func TestChatCLIShowsTheTests(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply(chatInsertWait)))
	file := chatFile(t)
	if err := os.WriteFile(testcase.PathFor(file), []byte(chatCases), 0o644); err != nil {
		t.Fatal(err)
	}
	env := planEnv(t, srv, "3")
	code, out, errOut := run(t, env, "chat", file, "--message", "insert a wait between download and unzip")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	for _, want := range []string{"tests: 0 of 1 pass\n", `case "one" differs:`, "the steps ran in another order"} {
		if !strings.Contains(out, want) {
			t.Errorf("the review does not say %q:\n%s", want, out)
		}
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls: a different path is not asked again", srv.Calls())
	}
	code, out, errOut = run(t, env, "chat", file, "--message", "insert a wait between download and unzip", "--json")
	if code != exitOK {
		t.Fatalf("--json: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	var got struct{ Tests *reask.Tests }
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Tests == nil || got.Tests.Line != "tests: 0 of 1 pass" ||
		len(got.Tests.Cases) != 1 || got.Tests.Cases[0].Errored || len(got.Tests.Cases[0].Differences) == 0 {
		t.Errorf("--json tests: %+v (%v)\n%s", got.Tests, err, out)
	}
}

// weft plan --out plays the cases beside FILE against the plan.
func TestPlanCLIOutShowsTheTests(t *testing.T) {
	plan := func(cmd string) string {
		return `{"steps":[{"id":"say","step_type":"Tool","name":"Say","tool_name":"run_command","arguments":{"command":"` + cmd + `"}},
		 {"id":"save","step_type":"Tool","name":"Save","tool_name":"write_file","arguments":{"path":"out.txt","content":"{{say.stdout}}"}}]}`
	}
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(plan("echo bye")), llmtest.Reply(plan("echo hi"))))
	out := filepath.Join(t.TempDir(), "greet.json")
	cases := `{"cases":[{"name":"greets","mocks":{"commands":[{"command":"echo hi","answer":{"exit_code":0,"stdout":"hi"}}]},
	 "expect":{"outcome":"succeeded","files":{"out.txt":{"equals":"hi"}}}}]}`
	if err := os.WriteFile(testcase.PathFor(out), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut := run(t, planEnv(t, srv, "3"), "plan", "--goal", "greet into out.txt", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, errOut)
	}
	for _, want := range []string{"attempt 1: under the workflow's test cases", "tests: 1 of 1 pass\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout)
		}
	}
	srv.Enqueue(llmtest.Reply(plan("echo hi")))
	code, stdout, errOut = run(t, planEnv(t, srv, "3"), "plan", "--goal", "greet into out.txt", "--out", out, "--json", "--force")
	var got struct{ Tests *reask.Tests }
	if err := json.Unmarshal([]byte(stdout), &got); code != exitOK || err != nil || got.Tests == nil || got.Tests.Line != "tests: 1 of 1 pass" {
		t.Errorf("--json: exit %d, tests %+v (%v)\n%s\n%s", code, got.Tests, err, stdout, errOut)
	}
}
