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
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/workflow"
)

// buildWF runs a script that is not executable: a HIGH permission failure
// that retrying cannot fix, which auto-replanning reacts to.
const buildWF = `{"format":"weft/v1","id":"wf-build","name":"Build","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"log","arguments":{"message":"starting"}}},
 {"id":"b","key":"run","name":"Run script","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./build.sh"}},"verify":"run.exit_code == 0"},
 {"id":"c","key":"show","name":"Show","type":"Tool","params":{"tool":"log","arguments":{"message":"built: {{run.stdout}}"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`

// replanBad refers to a step that does not exist; replanGood runs the
// script with sh and keeps the other steps and their ids.
const (
	replanBad = `{"steps": [
  {"id": "check", "step_type": "Tool", "name": "Check", "tool_name": "log", "arguments": {"message": "starting"}},
  {"id": "ok", "step_type": "If", "name": "Built?", "condition": "build.exit_code == 0"}
]}`
	replanGood = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check", "tool_name": "log", "arguments": {"message": "starting"}},
  {"id": "run", "step_type": "Tool", "name": "Run script", "tool_name": "run_command", "arguments": {"command": "sh ./build.sh"}, "verify": "run.exit_code == 0"},
  {"id": "show", "step_type": "Tool", "name": "Show", "tool_name": "log", "arguments": {"message": "built: {{run.stdout}}"}}
],
"edges": [{"from": "check", "to": "run"}, {"from": "run", "to": "show"}]}`
)

// replanEnv is a model (the fake server), private settings and data dirs,
// and auto-replanning switched on.
func replanEnv(t *testing.T, srv *llmtest.Server) map[string]string {
	env := map[string]string{
		"XDG_CONFIG_HOME":   t.TempDir(),
		"XDG_DATA_HOME":     t.TempDir(),
		"WEFT_LLM_BASE_URL": srv.URL,
		"WEFT_LLM_MODEL":    "fake-model",
	}
	if code, _, errOut := run(t, env, "settings", "set", "run.auto_replan.enabled", "true"); code != exitOK {
		t.Fatalf("settings set: %s", errOut)
	}
	return env
}

func buildFile(t *testing.T) string {
	wf := writeFile(t, buildWF)
	if err := os.WriteFile(filepath.Join(filepath.Dir(wf), "build.sh"), []byte("echo done\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return wf
}

func TestRunReplanSavesVersion(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(replanBad), llmtest.Reply(replanGood)))
	env := replanEnv(t, srv)
	wf := buildFile(t)
	code, out, errOut := run(t, env, "run", wf)
	if code != exitInvalid {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if srv.Calls() != 2 {
		t.Fatalf("model calls %d: the invalid replan is re-asked", srv.Calls())
	}
	newFile := filepath.Join(filepath.Dir(wf), "wf.replanned-v2.json")
	for _, want := range []string{"Run replanned", "Replanned: version 2 of \"Build\" (the run was of version 1)", "written to " + newFile,
		"changes: 1 step modified (run: arguments.command)", "~ step run (run_command): arguments.command",
		"needs your approval before it runs:", "[1/1] run (Run script) · run_command · runs a shell command; decides whether it succeeded (verify) · replanned after a failure", "command: sh ./build.sh", "weft versions " + wf + " --diff 1 2"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "replanning: asking the model") {
		t.Errorf("stderr:\n%s", errOut)
	}
	nw, _, err := workflow.Load(newFile)
	if err != nil {
		t.Fatal(err)
	}
	info, ok := failure.ReplanInfoOf(nw)
	if !ok || !info.Auto || info.FromVersion != 1 || info.FailedNode != "run" || nw.ID != "wf-build" || nw.NodeByKey("check").ID != "a" {
		t.Fatalf("replanned file: mark %+v, id %s", info, nw.ID)
	}
	for _, n := range []string{"v1.json", "v2.json", "index.json"} {
		if _, err := os.Stat(filepath.Join(env["XDG_DATA_HOME"], "weft", "versions", "wf-build", n)); err != nil {
			t.Error(err)
		}
	}

	// The new version does not run without approval…
	code, out, errOut = run(t, env, "run", newFile)
	if code != exitInvalid || !strings.Contains(errOut, "waits for your approval") || !strings.Contains(errOut, "--approve") || strings.Contains(out, "▸") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	// …and runs with it.
	code, out, errOut = run(t, env, "run", newFile, "--approve")
	if code != exitOK || !strings.Contains(errOut, "command: sh ./build.sh") || !strings.Contains(errOut, "approved (--approve)") || !strings.Contains(out, "│ built: done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}

	// weft versions lists and compares them.
	code, out, errOut = run(t, env, "versions", wf)
	if code != exitOK || !strings.Contains(out, "v1") || !strings.Contains(out, "manual save") || !strings.Contains(out, "replan ") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, env, "versions", "--json", newFile)
	var list versionsListJSON
	if code != exitOK || json.Unmarshal([]byte(out), &list) != nil || len(list.Versions) != 2 || list.Versions[1].Reason != "replan" {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, out, _ = run(t, env, "versions", wf, "--diff", "1", "2")
	if code != exitOK || !strings.Contains(out, "1 → 2: 1 step modified (run: arguments.command)") || !strings.Contains(out, "~ step run (run_command): arguments.command") {
		t.Fatalf("exit %d: %s", code, out)
	}
	code, out, _ = run(t, env, "versions", wf, "--diff", "v2", "file", "--json")
	var d versionsDiffJSON
	if code != exitOK || json.Unmarshal([]byte(out), &d) != nil || len(d.Diff.ModifiedNodes) != 1 {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, _, errOut := run(t, env, "versions", wf, "--diff", "1", "9"); code != exitInvalid || !strings.Contains(errOut, "no such version") || !strings.Contains(errOut, "v1–v2") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, bad := range [][]string{{"versions"}, {"versions", wf, "--diff", "1"}, {"versions", wf, "--diff", "x", "1"}, {"versions", filepath.Join(t.TempDir(), "none.json")}} {
		if code, _, _ := run(t, env, bad...); code == exitOK {
			t.Errorf("%v: exit 0", bad)
		}
	}
}

func TestRunReplanJSON(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(replanGood)))
	env := replanEnv(t, srv)
	code, out, errOut := run(t, env, "run", "--json", buildFile(t))
	if code != exitInvalid {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	var types []string
	var rep replannedJSON
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not JSON: %s", sc.Text())
		}
		types = append(types, m["type"].(string))
		if m["type"] == "replanned" {
			json.Unmarshal(sc.Bytes(), &rep)
		}
	}
	if n := len(types); n < 2 || types[n-2] != "replanned" || types[n-1] != "result" {
		t.Fatalf("types %v", types)
	}
	if rep.Version != 2 || rep.FromVersion != 1 || !strings.HasSuffix(rep.File, "wf.replanned-v2.json") || len(rep.NeedsApproval) != 1 || len(rep.Changes.ModifiedNodes) != 1 {
		t.Fatalf("replanned %+v", rep)
	}
	if strings.Contains(errOut, "replanning: asking") {
		t.Errorf("--json keeps stderr quiet: %s", errOut)
	}
}

func TestRunReplannedAsksOnTerminal(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "build.sh"), []byte("echo done\n"), 0o644)
	w, _, err := workflow.Parse([]byte(buildWF))
	if err != nil {
		t.Fatal(err)
	}
	w.NodeByKey("run").Params.Arguments["command"] = "sh ./build.sh"
	failure.MarkReplanned(w, failure.ReplanInfo{Replans: 1})
	// As the runner marks a replanned version: the step it changed.
	approval.Mark(w.NodeByKey("run"), approval.Provenance{Source: approval.SourceModel, Via: approval.ViaReplan})
	file := filepath.Join(dir, "wf.replanned-v2.json")
	if err := workflow.Save(file, w); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := withTerminal(t, context.Background(), "n\n", "run", file)
	if code != exitInvalid || !strings.Contains(errOut, "approve this step?") || !strings.Contains(errOut, "the run did not start") || strings.Contains(out, "▸") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = withTerminal(t, context.Background(), "y\n", "run", file)
	if code != exitOK || !strings.Contains(out, "│ built: done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
