package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

// A model's plan whose command hides its payload past 120 characters.
var longCommand = "echo " + strings.Repeat("x", 140) + "; touch pwned"

func planWithCommand() string {
	b, _ := json.Marshal(longCommand)
	return `{"steps": [
  {"id": "clean", "step_type": "Tool", "name": "Clean temp", "tool_name": "run_command", "arguments": {"command": ` + string(b) + `}},
  {"id": "report", "step_type": "Tool", "name": "Report", "tool_name": "log", "arguments": {"message": "done"}}
]}`
}

// planned writes a model's plan with weft plan --out and returns its path
// and the environment (one XDG data dir: one approvals file).
func planned(t *testing.T) (string, map[string]string) {
	t.Helper()
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(planWithCommand())))
	env := planEnv(t, srv, "1")
	env["XDG_CONFIG_HOME"] = t.TempDir()
	file := filepath.Join(t.TempDir(), "plan.json")
	if code, out, errOut := run(t, env, "plan", "--goal", "clean up", "--out", file); code != exitOK {
		t.Fatalf("plan: exit %d\n%s\n%s", code, out, errOut)
	}
	w, _, err := workflow.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := approval.Of(w.NodeByKey("clean")); !ok || p.Via != approval.ViaPlan || p.Model != "fake-model" {
		t.Fatalf("the plan's steps are not marked as the model's: %+v %v", p, ok)
	}
	return file, env
}

func pwned(t *testing.T, file string) bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(file), "pwned"))
	return err == nil
}

func TestPlannedWorkflowNeedsApprovalWithoutTerminal(t *testing.T) {
	file, env := planned(t)
	code, out, errOut := run(t, env, "run", file)
	if code != exitInvalid || pwned(t, file) || strings.Contains(out, "▸") {
		t.Fatalf("a planned command ran unapproved: exit %d\n%s\n%s", code, out, errOut)
	}
	// Listed in full: the payload past 120 characters is there to read.
	for _, want := range []string{"waits for your approval", "clean (Clean temp) · run_command", "command: " + longCommand, "weft approve FILE", "--approve"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "report") {
		t.Errorf("a log step needs no approval:\n%s", errOut)
	}
	// --json lists what needs approval.
	code, out, _ = run(t, env, "run", "--json", file)
	var line struct {
		Type          string          `json:"type"`
		NeedsApproval []approval.Step `json:"needs_approval"`
	}
	if code != exitInvalid || json.Unmarshal([]byte(strings.TrimSpace(out)), &line) != nil || line.Type != "error" ||
		len(line.NeedsApproval) != 1 || line.NeedsApproval[0].Arguments["command"] != longCommand || line.NeedsApproval[0].Fingerprint == "" {
		t.Fatalf("exit %d: %s", code, out)
	}
	if pwned(t, file) {
		t.Fatal("ran")
	}
}

func TestApproveCommand(t *testing.T) {
	file, env := planned(t)
	// --list only lists.
	code, out, errOut := run(t, env, "approve", "--list", file)
	if code != exitInvalid || !strings.Contains(out, "command: "+longCommand) {
		t.Fatalf("approve --list: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, _, _ := run(t, env, "run", file); code != exitInvalid || pwned(t, file) {
		t.Fatal("--list approved something")
	}
	code, out, errOut = run(t, env, "approve", "--json", file)
	var got struct {
		Approved []approval.Step `json:"approved"`
		Pending  []approval.Step `json:"pending"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &got) != nil || len(got.Approved) != 1 || len(got.Pending) != 0 {
		t.Fatalf("approve: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := run(t, env, "approve", file); code != exitOK || !strings.Contains(out, "nothing waits") {
		t.Fatalf("approve again: exit %d %s", code, out)
	}
	// Approved content runs, without asking, in a later process.
	if code, out, errOut := run(t, env, "run", file); code != exitOK || !pwned(t, file) {
		t.Fatalf("approved run: exit %d\n%s\n%s", code, out, errOut)
	}
	// A model changes the approved step (here: the file is edited to what a
	// patch would leave, still marked): asked again.
	w, _, _ := workflow.Load(file)
	w.NodeByKey("clean").Params.Arguments["command"] = "rm -rf ./tmp"
	if err := workflow.Save(file, w); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, env, "run", file); code != exitInvalid || !strings.Contains(errOut, "command: rm -rf ./tmp") {
		t.Fatalf("a changed step ran on an old approval: exit %d\n%s", code, errOut)
	}
	for _, bad := range [][]string{{"approve"}, {"approve", filepath.Join(t.TempDir(), "none.json")}} {
		if code, _, _ := run(t, env, bad...); code != exitUnusable {
			t.Errorf("%v: exit %d", bad, code)
		}
	}
}

func TestRunApproveFlag(t *testing.T) {
	file, env := planned(t)
	code, out, errOut := run(t, env, "run", "--approve", file)
	if code != exitOK || !pwned(t, file) || !strings.Contains(errOut, "command: "+longCommand) || !strings.Contains(errOut, "approved (--approve)") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	b, err := os.ReadFile(filepath.Join(env["XDG_DATA_HOME"], "weft", approval.StoreFile))
	if err != nil || !strings.Contains(string(b), `"by": "cli --approve"`) {
		t.Fatalf("approvals file: %v\n%s", err, b)
	}
}

func TestRunAsksPerStepOnTerminal(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(`{"steps": [
  {"id": "one", "step_type": "Tool", "name": "One", "tool_name": "run_command", "arguments": {"command": "touch one"}},
  {"id": "two", "step_type": "Tool", "name": "Two", "tool_name": "write_file", "arguments": {"path": "two.txt", "content": "2"}}
]}`)))
	env := planEnv(t, srv, "1")
	file := filepath.Join(t.TempDir(), "plan.json")
	if code, _, errOut := run(t, env, "plan", "--goal", "x", "--out", file); code != exitOK {
		t.Fatal(errOut)
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	// withTerminal sets its own XDG dirs; keep the same ones across calls.
	old := runEnvHook
	runEnvHook = func(*testing.T) map[string]string { return map[string]string{"XDG_DATA_HOME": env["XDG_DATA_HOME"]} }
	t.Cleanup(func() { runEnvHook = old })
	// yes to the first, no to the second: nothing runs, the first is kept.
	code, out, errOut := withTerminal(t, context.Background(), "y\nn\n", "run", file)
	if code != exitInvalid || strings.Contains(out, "▸") || !strings.Contains(errOut, "[2/2] two (Two) · write_file") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// Asked again, only about the second.
	code, out, errOut = withTerminal(t, context.Background(), "y\n", "run", file)
	sc := bufio.NewScanner(strings.NewReader(errOut))
	asked := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "[") {
			asked++
		}
	}
	if code != exitOK || asked != 1 || !strings.Contains(errOut, "[1/1] two") {
		t.Fatalf("exit %d asked %d\n%s\n%s", code, asked, out, errOut)
	}
}

// hiddenStep is a model-written step that, where bidi and zero-width
// characters are rendered, shows as `cp out/usage.log out/backup.log`.
const hiddenStep = `{"format": "weft/v1", "id": "b5c1e0a4-9d7e-4f0e-8a52-6c1f0d2e3a41", "name": "Back up",
  "nodes": [{"id": "cp", "key": "backup", "name": "Back up\u200b the log", "type": "Tool", "provenance": {"source": "model", "via": "plan"},
    "params": {"tool": "run_command", "arguments": {"command": "cp out/usage.log out/\u202egol.pukcab\u2066 \\ x", "env": {"A\u200b": "1"}}}}],
  "edges": []}`

// The terminal lists a step as the desktop's dialog shows it: what would
// not show is escaped, and it says so.
func TestApprovalListingEscapesHiddenCharacters(t *testing.T) {
	file := filepath.Join(t.TempDir(), "backup.json")
	if err := os.WriteFile(file, []byte(hiddenStep), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"XDG_DATA_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir()}
	for _, args := range [][]string{{"approve", "--list", file}, {"run", file}} {
		_, out, errOut := run(t, env, args...)
		all := out + errOut
		if strings.ContainsAny(all, "\u202e\u200b\u2066") {
			t.Errorf("%v: raw hidden characters: %q", args, all)
		}
		for _, want := range []string{
			"backup (Back up\\u200B the log) · run_command",
			"(invisible characters are shown as \\u escapes)",
			`command: cp out/usage.log out/\u202Egol.pukcab\u2066 \\ x`,
			`"A\u200B": "1"`,
		} {
			if !strings.Contains(all, want) {
				t.Errorf("%v lacks %q:\n%s", args, want, all)
			}
		}
	}
}
