package planner

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

func parseWF(t *testing.T, js string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// failingWF: "check" works, "run" runs a script that is not executable (a
// HIGH permission failure retrying cannot fix), "show" reads both.
const failingWF = `{"format":"weft/v1","id":"wf-7","name":"Build report","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"log","arguments":{"message":"starting"}},"retry":{"max_attempts":2}},
 {"id":"b","key":"run","name":"Run script","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./build.sh"}},"verify":"run.exit_code == 0","timeout_ms":5000},
 {"id":"c","key":"show","name":"Show","type":"Tool","params":{"tool":"log","arguments":{"message":"{{check.success}} {{run.stdout}}"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`

// replanValid keeps check and show, runs the script with sh and keeps the
// key "run" so show's template stays meaningful.
const replanValid = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check", "tool_name": "log", "arguments": {"message": "starting"}},
  {"id": "run", "step_type": "Tool", "name": "Run script with sh", "tool_name": "run_command", "arguments": {"command": "sh ./build.sh"}, "verify": "run.exit_code == 0"},
  {"id": "show", "step_type": "Tool", "name": "Show", "tool_name": "log", "arguments": {"message": "{{check.success}} {{run.stdout}}"}}
],
"edges": [{"from": "check", "to": "run"}, {"from": "run", "to": "show"}]}`

// replanBadRef refers to a step that does not exist.
const replanBadRef = `{"steps": [
  {"id": "check", "step_type": "Tool", "name": "Check", "tool_name": "log", "arguments": {"message": "starting"}},
  {"id": "run", "step_type": "Tool", "name": "Run", "tool_name": "run_command", "arguments": {"command": "sh ./build.sh"}},
  {"id": "show", "step_type": "If", "name": "Worked?", "condition": "build.exit_code == 0"}
]}`

func failureRequest(t *testing.T) failure.ReplanRequest {
	w := parseWF(t, failingWF)
	return failure.ReplanRequest{
		Workflow:   w,
		FailedNode: *w.NodeByKey("run"),
		Failures: []failure.Record{{Attempt: 1, FailureType: failure.FailVerification,
			Error: "verify `run.exit_code == 0` is false", OutputSummary: `exit_code: 126, stderr: "sh: ./build.sh: Permission denied"`,
			Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatPermission, SuggestedFix: "Make the file executable or run it with its interpreter."}}},
		Outputs:   map[string]any{"check": map[string]any{"success": true, "error": "", "note": strings.Repeat("x", 2000)}},
		Completed: []string{"a"},
		Patterns: []failure.Pattern{{Tool: "run_command", Category: failure.CatPermission, Error: "sh: ./deploy.sh: Permission denied",
			Resolution: "fix", Fix: `{"command": "sh ./deploy.sh"}`, Count: 2}},
	}
}

func TestReplanPromptGolden(t *testing.T) {
	req := failureRequest(t)
	got := ReplanPrompt(req, req.Patterns)
	checkGolden(t, "replan_prompt.txt", got)
	for _, want := range []string{`"id":"check"`, `"from":"check","to":"run"`, "# Failed step", "severity HIGH, category permission, retrying cannot fix it",
		"Permission denied", "suggested fix: Make the file", "These steps finished before the failure: check.", "(1437 more bytes)",
		`run_command: "sh: ./deploy.sh: Permission denied" (permission, 2 times); fixed with: {"command": "sh ./deploy.sh"}`,
		"Keep the completed steps as they are, with the same ids"} {
		if !strings.Contains(got, want) {
			t.Errorf("the prompt lacks %q", want)
		}
	}
}

func TestReplanKeepsCompletedStepsAndIDs(t *testing.T) {
	req := failureRequest(t)
	fake := &scripted{t: t, replies: []scriptedReply{answer(replanValid)}}
	var got Result
	p := &Replanner{Client: fake, Config: Config{MaxRepairAttempts: 3}, OnResult: func(r Result) { got = r }}
	nw, err := p.Replan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Valid || got.LLMCalls != 1 {
		t.Fatalf("result %+v", got)
	}
	msgs := fake.calls[0]
	if len(msgs) != 2 || !strings.Contains(msgs[0].Content, "You plan automation workflows") || !strings.Contains(msgs[1].Content, "# Failed step") {
		t.Fatalf("messages %+v", msgs)
	}
	if nw.ID != "wf-7" || nw.Name != "Build report" {
		t.Errorf("id %q name %q", nw.ID, nw.Name)
	}
	check, run, show := nw.NodeByKey("check"), nw.NodeByKey("run"), nw.NodeByKey("show")
	if check == nil || run == nil || show == nil {
		t.Fatalf("keys lost: %+v", nw.Nodes)
	}
	if check.ID != "a" || run.ID != "b" || show.ID != "c" {
		t.Errorf("ids %s %s %s: kept steps keep their ids", check.ID, run.ID, show.ID)
	}
	if check.Retry == nil || check.Retry.MaxAttempts != 2 || run.TimeoutMs != 5000 {
		t.Errorf("retry %+v timeout %d: settings the reply cannot carry are kept", check.Retry, run.TimeoutMs)
	}
	if nw.Edges[0].From != "a" || nw.Edges[0].To != "b" {
		t.Errorf("edges %+v", nw.Edges)
	}
	if vr := validate.Validate(nw, tools.Builtin()); !vr.Valid {
		t.Fatalf("invalid: %+v", vr.Problems)
	}
	d := versions.Compare(req.Workflow, nw)
	if len(d.AddedNodes)+len(d.RemovedNodes)+len(d.AddedEdges)+len(d.RemovedEdges) != 0 || len(d.ModifiedNodes) != 1 || d.ModifiedNodes[0].Key != "run" {
		t.Fatalf("diff %s", d.Summary())
	}
}

func TestReplanReasksOnInvalidReply(t *testing.T) {
	fake := &scripted{t: t, replies: []scriptedReply{answer(replanBadRef), answer(replanValid)}}
	res, err := ReplanWorkflow(context.Background(), fake, failureRequest(t), Config{MaxRepairAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 2 || res.Attempts[0].Error == "" {
		t.Fatalf("result %+v", res)
	}
	if fb := fake.lastUser(2); !strings.Contains(fb, "could not be used") || !strings.Contains(fb, "build") {
		t.Fatalf("re-ask:\n%s", fb)
	}
	// The conversation keeps the replan prompt.
	if !strings.Contains(fake.calls[1][1].Content, "# Failed step") {
		t.Fatal("the re-ask lost the replan prompt")
	}
	if res.Workflow.NodeByKey("check").ID != "a" {
		t.Fatal("ids not adopted")
	}
}

func TestReplanFailsWithoutValidPlan(t *testing.T) {
	fake := &scripted{t: t, replies: []scriptedReply{answer(replanBadRef), answer("no idea")}}
	p := &Replanner{Client: fake, Config: Config{MaxRepairAttempts: 2}}
	if _, err := p.Replan(context.Background(), failureRequest(t)); err == nil || !strings.Contains(err.Error(), "no valid new plan") {
		t.Fatalf("err %v", err)
	}
	if _, err := (&Replanner{}).Replan(context.Background(), failureRequest(t)); err == nil {
		t.Fatal("no client must fail")
	}
}

// The runner asks the planner when a step fails (AutoReplan) and ends
// with the new version, marked as replanned.
func TestRunnerReplansWithPlanner(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "build.sh"), []byte("echo built\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fake := &scripted{t: t, replies: []scriptedReply{answer(replanBadRef), answer(replanValid)}}
	s := settings.Defaults()
	s.Run.DefaultRetries = 0
	s.Run.AutoReplan.Enabled = true
	pats := &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}
	rn := runner.New(runner.Options{Settings: s, Dir: dir, RunsDir: filepath.Join(dir, "runs"), Patterns: pats,
		Replanner: &Replanner{Client: fake, Config: Config{MaxRepairAttempts: 3, Patterns: pats}}})
	res, err := rn.Run(context.Background(), parseWF(t, failingWF))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != runner.OutcomeReplanned || res.Replanned == nil {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Error)
	}
	if info, ok := failure.ReplanInfoOf(res.Replanned); !ok || !info.Auto || info.FailedNode != "run" {
		t.Fatalf("mark %+v", info)
	}
	if res.Replanned.NodeByKey("check").ID != "a" || !strings.Contains(fake.lastUser(1), "These steps finished before the failure: check.") {
		t.Fatal("completed steps not kept")
	}
	steps := approval.Pending(res.Replanned, approval.Scope{Dir: dir}, nil)
	if len(steps) != 1 || steps[0].Key != "run" {
		t.Fatalf("approval %+v", steps)
	}
	// The replanned version needs approval, then runs.
	if _, err := rn.Run(context.Background(), res.Replanned); err == nil || !strings.Contains(err.Error(), "approval") {
		t.Fatalf("ran without approval: %v", err)
	}
	approved := runner.New(runner.Options{Settings: s, Dir: dir, RunsDir: filepath.Join(dir, "runs"), Patterns: pats,
		Approvals: approval.Set{steps[0].Fingerprint: true}})
	res2, err := approved.Run(context.Background(), res.Replanned)
	if err != nil || res2.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("approved run: %v %+v", err, res2)
	}
	// The replan was learned; a later plan's prompt shows it.
	plan := &scripted{t: t, replies: []scriptedReply{answer(replyValidFlat)}}
	if _, err := PlanWorkflow(context.Background(), plan, "build", Config{MaxRepairAttempts: 1, Patterns: pats}); err != nil {
		t.Fatal(err)
	}
	if sys := plan.calls[0][0].Content; !strings.Contains(sys, "# Known failure patterns") || !strings.Contains(sys, "replanned: changed the step to run (run_command") {
		t.Fatalf("system prompt lacks the pattern:\n%s", sys[max(0, len(sys)-800):])
	}
}

// WorkflowPrompt is the planner's own format: parsing it back gives the
// same workflow.
func TestWorkflowPromptRoundTrip(t *testing.T) {
	w := parseWF(t, `{"format":"weft/v1","id":"wf","name":"All types","nodes":[
 {"id":"1","key":"list","name":"List","type":"Tool","params":{"tool":"list_files","arguments":{"path":".","pattern":"*.txt"}},"timeout_ms":900,"verify":"list.count > 0"},
 {"id":"2","key":"each","name":"Each","type":"Loop","params":{"exit_condition":"each.iteration >= list.count","max_iterations":10}},
 {"id":"3","key":"sum","name":"Summarize","type":"AiTransform","params":{"kind":"summarize","input":"{{list.files}}"}},
 {"id":"4","key":"kind","name":"Kind","type":"AiTransform","params":{"kind":"classify","input":"{{sum.text}}","labels":["a","b"]}},
 {"id":"5","key":"end","name":"End","type":"EndLoop","params":{"loop_id":"2"}},
 {"id":"6","key":"route","name":"Route","type":"Switch","params":{"cases":[{"name":"many","condition":"list.count > 5"}]}},
 {"id":"7","key":"agent","name":"Agent","type":"AiStep","params":{"prompt":"tidy up","allowed_tools":["read_file"],"max_tool_calls":3}},
 {"id":"8","key":"ok","name":"Ok?","type":"If","params":{"condition":"agent.success"}},
 {"id":"9","key":"yes","name":"Yes","type":"Tool","params":{"tool":"log","arguments":{"message":"yes"}}},
 {"id":"10","key":"no","name":"No","type":"Tool","params":{"tool":"log","arguments":{"message":"no"}}},
 {"id":"11","key":"few","name":"Few","type":"Tool","params":{"tool":"log","arguments":{"message":"few"}}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3","output":{"type":"LoopBody"}},{"from":"3","to":"4"},{"from":"4","to":"5"},{"from":"5","to":"2"},
 {"from":"2","to":"6","output":{"type":"LoopDone"}},{"from":"6","to":"7","output":{"type":"SwitchCase","name":"many"}},{"from":"6","to":"11","output":{"type":"SwitchDefault"}},
 {"from":"7","to":"8"},{"from":"8","to":"9","output":{"type":"IfTrue"}},{"from":"8","to":"10","output":{"type":"IfFalse"}}]}`)
	f := Features{AllowAITransforms: true, AllowAgentSteps: true}
	if vr := validate.Validate(w, tools.Builtin()); !vr.Valid {
		t.Fatalf("fixture invalid: %+v", vr.Errors())
	}
	text := WorkflowPrompt(w)
	back, warnings, err := ParseOutput(text, ParseOptions{Features: f, Catalog: tools.Builtin()})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for _, wn := range warnings {
		if wn.Stage != StageLayout {
			t.Errorf("warning %s", wn)
		}
	}
	adoptVersion(w, back)
	if d := versions.Compare(w, back); !d.Empty() {
		t.Fatalf("round trip changed: %s\n%s", d.Summary(), text)
	}
	if back.NodeByKey("end").Params.LoopID != "2" {
		t.Fatal("loop_id not adopted")
	}
}

func TestPatternsSectionGolden(t *testing.T) {
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	ps := []failure.Pattern{
		{Time: at, Tool: "http_request", Category: failure.CatNetwork, Error: "dial tcp 10.0.0.1:443: connect: connection refused", Resolution: "retry", Count: 1},
		{Time: at.Add(time.Hour), Tool: "run_command", Category: failure.CatPermission, Error: "exit 126: ./x.sh: Permission denied", Resolution: "fix", Fix: `{"command":"sh ./x.sh"}`, Count: 3},
		{Time: at.Add(2 * time.Hour), Tool: "AiTransform/extract", Category: failure.CatLogic, Error: "the reply is not a JSON object", Resolution: "user_retry", Count: 1},
		{Time: at, Tool: "read_file", Category: failure.CatNotFound, Error: "open notes.txt: no such file or directory", Resolution: "skip", Count: 2},
		{Time: at, Tool: "write_file", Category: failure.CatPermission, Error: "open /etc/x: permission denied", Resolution: "replan", Fix: "the planner changed the step to save (write_file {\"path\":\"x\"})", Count: 1},
	}
	checkGolden(t, "patterns_section.txt", PatternsSection(ps, 4))
	if PatternsSection(nil, 4) != "" {
		t.Fatal("no patterns, no section")
	}
}

func TestPlanPromptKnownPatterns(t *testing.T) {
	dir := t.TempDir()
	store := &failure.PatternStore{Path: filepath.Join(dir, "p.jsonl")}
	for i := 0; i < 3; i++ {
		store.Record(failure.Pattern{Time: time.Now(), Tool: "run_command", Category: failure.CatPermission, Error: "exit 126: Permission denied", Resolution: "fix", Fix: "chmod"})
	}
	store.Record(failure.Pattern{Time: time.Now(), Tool: "AiStep", Category: failure.CatLogic, Error: "too many tool calls", Resolution: "retry"})
	store.Record(failure.Pattern{Time: time.Now(), Tool: "not_in_catalog", Error: "x", Resolution: "retry"})

	fake, _, err := planWith(t, Config{MaxRepairAttempts: 1, Patterns: store}, answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	sys := fake.calls[0][0].Content
	if !strings.Contains(sys, `- run_command: "exit 126: Permission denied" (permission, 3 times); fixed with: chmod`) {
		t.Fatalf("system prompt:\n%s", sys[strings.Index(sys, "# Rules"):])
	}
	if strings.Contains(sys, "too many tool calls") || strings.Contains(sys, "not_in_catalog") {
		t.Fatal("patterns of tools the plan cannot use are left out (AiStep is off)")
	}
	// Without a source the prompt is unchanged.
	fake2, _, _ := planWith(t, Config{MaxRepairAttempts: 1}, answer(replyValidFlat))
	if strings.Contains(fake2.calls[0][0].Content, "Known failure patterns") {
		t.Fatal("no source, no section")
	}
}

func TestReplanRefusesPlanThatLeavesStepsOut(t *testing.T) {
	reply := `{"steps": [{"id": "check", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "true"}}],
 "more_steps": [{"id": "report", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "done"}}]}`
	fake := &scripted{t: t, replies: []scriptedReply{answer(reply)}}
	p := &Replanner{Client: fake, Config: Config{MaxRepairAttempts: 1}}
	if _, err := p.Replan(context.Background(), failureRequest(t)); err == nil || !strings.Contains(err.Error(), "more_steps[0]") {
		t.Fatalf("err %v", err)
	}
}

// A replanned version keeps the canvas's notes and groups (the model never
// sees them); a group keeps the nodes the version still has, under their
// adopted ids.
func TestReplanKeepsAnnotations(t *testing.T) {
	old := parseWF(t, `{"format":"weft/v1","id":"wf","name":"n","nodes":[
 {"id":"1","key":"list","name":"List","type":"Tool","params":{"tool":"list_files","arguments":{"path":"."}}},
 {"id":"2","key":"yes","name":"Yes","type":"Tool","params":{"tool":"log","arguments":{"message":"yes"}}}],
 "edges":[{"from":"1","to":"2"}],
 "notes":[{"id":"n1","text":"SECRET PLAN: ask Ana","position":{"x":0,"y":0},"size":{"width":100,"height":100}}],
 "groups":[{"id":"g1","title":"G","position":{"x":0,"y":0},"size":{"width":100,"height":100},"nodes":["1","2"]}]}`)
	if p := WorkflowPrompt(old); strings.Contains(p, "SECRET PLAN") || strings.Contains(p, "g1") {
		t.Fatalf("the planner's prompt holds a note or group:\n%s", p)
	}
	nw := parseWF(t, `{"format":"weft/v1","nodes":[
 {"id":"fresh","key":"list","name":"List","type":"Tool","params":{"tool":"list_files","arguments":{"path":"src"}}}],"edges":[]}`)
	adoptVersion(old, nw)
	if len(nw.Notes) != 1 || nw.Notes[0].Text != "SECRET PLAN: ask Ana" || len(nw.Groups) != 1 || !reflect.DeepEqual(nw.Groups[0].Nodes, []string{"1"}) {
		t.Fatalf("notes %+v groups %+v", nw.Notes, nw.Groups)
	}
	if !reflect.DeepEqual(old.Groups[0].Nodes, []string{"1", "2"}) {
		t.Fatal("the old workflow's group changed")
	}
}
