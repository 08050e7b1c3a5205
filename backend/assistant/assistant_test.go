package assistant

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// scripted is an llm.Client that answers from a script and records what
// it was sent. A step is a reply text, an llm.Reply, an error, or a func.
type scripted struct {
	mu       sync.Mutex
	steps    []any
	requests [][]llm.Message
}

func script(steps ...any) *scripted { return &scripted{steps: steps} }

func (s *scripted) Chat(ctx context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	s.mu.Lock()
	s.requests = append(s.requests, append([]llm.Message(nil), msgs...))
	if len(s.steps) == 0 {
		s.mu.Unlock()
		return llm.Reply{}, errors.New("script exhausted")
	}
	st := s.steps[0]
	s.steps = s.steps[1:]
	s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return llm.Reply{}, err
	}
	switch v := st.(type) {
	case string:
		return llm.Reply{Text: v, FinishReason: "stop", Usage: llm.Usage{TotalTokens: 10}}, nil
	case llm.Reply:
		return v, nil
	case error:
		return llm.Reply{}, v
	case func(context.Context, []llm.Message) (llm.Reply, error):
		return v(ctx, msgs)
	}
	panic("bad script step")
}

func (s *scripted) calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

func (s *scripted) request(i int) []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[i]
}

func lastUser(msgs []llm.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

// pipeline is download → unzip → notify.
func pipeline() *workflow.Workflow {
	w := workflow.New("Fetch archive")
	w.ID = "wf-1"
	add := func(key, name, tool string, args map[string]any, y float64) {
		w.Nodes = append(w.Nodes, workflow.Node{ID: "id_" + key, Key: key, Name: name, Type: workflow.TypeTool,
			Params: workflow.Params{Tool: tool, Arguments: args}, Position: &workflow.Position{X: 0, Y: y}})
	}
	add("download", "Download", "run_command", map[string]any{"command": "curl -O https://example.com/a.zip"}, 0)
	add("unzip", "Unzip", "run_command", map[string]any{"command": "unzip a.zip"}, 130)
	add("notify", "Notify", "log", map[string]any{"message": "done"}, 260)
	w.Edges = []workflow.Edge{edge("id_download", "id_unzip", ""), edge("id_unzip", "id_notify", "")}
	return w
}

// branching is check → ok? (If) → yes / no.
func branching() *workflow.Workflow {
	w := pipeline()
	w.Nodes = w.Nodes[:1]
	w.Edges = nil
	w.Nodes = append(w.Nodes,
		workflow.Node{ID: "id_ok", Key: "ok", Name: "Downloaded?", Type: workflow.TypeIf, Params: workflow.Params{Condition: "download.exit_code == 0"}},
		workflow.Node{ID: "id_yes", Key: "yes", Name: "Say yes", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "yes"}}},
		workflow.Node{ID: "id_no", Key: "no", Name: "Say no", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "no"}}},
	)
	w.Edges = []workflow.Edge{edge("id_download", "id_ok", ""), edge("id_ok", "id_yes", workflow.OutIfTrue), edge("id_ok", "id_no", workflow.OutIfFalse)}
	return w
}

type progressLog struct {
	mu     sync.Mutex
	events []Progress
}

func (p *progressLog) add(e Progress) { p.mu.Lock(); p.events = append(p.events, e); p.mu.Unlock() }

func (p *progressLog) count(k ProgressKind) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, e := range p.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func cfg(max int) (Config, *progressLog) {
	pl := &progressLog{}
	return Config{MaxRepairAttempts: max, Features: planner.Features{AllowAITransforms: true}, OnProgress: pl.add,
		Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}, pl
}

func chat(t *testing.T, c llm.Client, w *workflow.Workflow, msg string, conf Config) *Result {
	t.Helper()
	res, err := Chat(context.Background(), c, Request{Workflow: w, Message: msg}, conf)
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	return res
}

func hasWarning(res *Result, stage, substr string) bool {
	for _, w := range res.Warnings {
		if (stage == "" || w.Stage == stage) && strings.Contains(w.Message, substr) {
			return true
		}
	}
	return false
}

func mustWarn(t *testing.T, res *Result, stage, substr string) {
	t.Helper()
	if !hasWarning(res, stage, substr) {
		t.Errorf("no %s warning containing %q in %v", stage, substr, res.Warnings)
	}
}

func merged(t *testing.T, res *Result) *workflow.Workflow {
	t.Helper()
	if res.Workflow == nil {
		t.Fatal("no merged workflow")
	}
	return res.Workflow
}

const validUpdate = `{"message": "The notification now says where the files are.", "update": [{"node_id": "notify", "arguments": {"message": "unzipped into ."}}]}`

func TestValidPatchInOneCall(t *testing.T) {
	c := script(validUpdate)
	conf, pl := cfg(3)
	w := pipeline()
	res := chat(t, c, w, "make the notification say where the files are", conf)
	if res.Kind != KindPatch || !res.Valid || !res.Validated || res.Attempts != 1 || res.LLMCalls != 1 {
		t.Fatalf("result = kind %s valid %v validated %v attempts %d calls %d; warnings %v", res.Kind, res.Valid, res.Validated, res.Attempts, res.LLMCalls, res.Warnings)
	}
	if res.Message != "The notification now says where the files are." {
		t.Errorf("message = %q", res.Message)
	}
	if len(res.Patch.UpdatedNodes) != 1 || res.Patch.UpdatedNodes[0].ID != "id_notify" {
		t.Fatalf("patch = %+v", res.Patch)
	}
	if pl.count(ProgressThinking) != 1 || pl.count(ProgressRepairing) != 0 {
		t.Errorf("progress = %+v", pl.events)
	}
	if w.Nodes[2].Params.Arguments["message"] != "done" {
		t.Error("Chat modified the request's workflow")
	}
	if got := res.Diff.ModifiedNodeIDs; len(got) != 1 || got[0] != "id_notify" {
		t.Errorf("diff = %+v", res.Diff)
	}
	// The review shows the argument's old and new value.
	if cs := res.Changes; cs == nil || len(cs.UpdatedNodes) != 1 || len(cs.UpdatedNodes[0].Fields) != 1 ||
		cs.UpdatedNodes[0].Fields[0].Old.Text != "done" || cs.UpdatedNodes[0].Fields[0].New.Text != "unzipped into ." {
		t.Errorf("changes = %+v", res.Changes)
	}
	// The conversation records the exchange.
	if n := len(res.Conversation.Messages); n != 2 || res.Conversation.Messages[1].Patch == nil {
		t.Errorf("conversation = %+v", res.Conversation.Messages)
	}
}

func TestIfWithOneBranchFixedOnSecondCall(t *testing.T) {
	oneBranch := `{"message": "Check the archive first.",
	 "add_nodes": [{"id": "big", "step_type": "If", "name": "Archive big?", "condition": "download.exit_code == 0"}],
	 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": {"type": "IfTrue"}}],
	 "remove_edges": [{"from": "download", "to": "unzip"}]}`
	fixed := `{"message": "Check the archive first; log when it failed.",
	 "add_nodes": [{"id": "big", "step_type": "If", "name": "Archive big?", "condition": "download.exit_code == 0"},
	               {"id": "failed", "step_type": "Tool", "name": "Log failure", "tool_name": "log", "arguments": {"message": "download failed"}}],
	 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": {"type": "IfTrue"}},
	               {"from": "big", "to": "failed", "output": {"type": "IfFalse"}}],
	 "remove_edges": [{"from": "download", "to": "unzip"}]}`
	c := script(oneBranch, fixed)
	conf, pl := cfg(3)
	res := chat(t, c, pipeline(), "only unzip when the download worked", conf)
	if !res.Valid || res.Attempts != 2 || c.calls() != 2 {
		t.Fatalf("valid %v attempts %d calls %d warnings %v", res.Valid, res.Attempts, c.calls(), res.Warnings)
	}
	if pl.count(ProgressRepairing) != 1 || pl.count(ProgressThinking) != 1 {
		t.Errorf("progress = %+v", pl.events)
	}
	fb := lastUser(c.request(1))
	for _, want := range []string{"if_missing_branch", "Archive big?", "IfFalse", "against the workflow"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
	// The re-ask is the first request plus its feedback.
	req := c.request(1)
	if len(req) != len(c.request(0))+1 || req[len(req)-1].Role != llm.RoleUser {
		t.Errorf("the re-ask should be the first request plus its feedback, got %d messages", len(req))
	}
}

func TestFeedbackListsEveryProblem(t *testing.T) {
	// Two Ifs without IfFalse and a Tool without a tool: three errors.
	bad := `{"add_nodes": [
	  {"id": "c1", "step_type": "If", "name": "First check", "condition": "download.success"},
	  {"id": "c2", "step_type": "If", "name": "Second check", "condition": "download.success"}],
	 "add_edges": [{"from": "notify", "to": "c1"}, {"from": "c1", "to": "c2", "output": "IfTrue"}]}`
	c := script(bad, validUpdate)
	conf, _ := cfg(2)
	res := chat(t, c, pipeline(), "add checks", conf)
	if !res.Valid {
		t.Fatalf("not valid: %v", res.Warnings)
	}
	fb := lastUser(c.request(1))
	for _, want := range []string{"First check", "Second check", "1. ", "2. "} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
}

const danglingPatch = `{"add_nodes": [{"id": "x", "step_type": "If", "name": "Never fixed", "condition": "download.success"}], "add_edges": [{"from": "notify", "to": "x"}]}`

func TestAlwaysInvalidExhaustsAttempts(t *testing.T) {
	c := script(danglingPatch, danglingPatch, danglingPatch, danglingPatch)
	conf, pl := cfg(3)
	res := chat(t, c, pipeline(), "add a check", conf)
	if res.Valid || res.Attempts != 3 || c.calls() != 3 || res.LLMCalls != 3 {
		t.Fatalf("valid %v attempts %d calls %d", res.Valid, res.Attempts, c.calls())
	}
	if res.Patch == nil || len(res.Patch.AddedNodes) != 1 {
		t.Fatalf("the invalid patch is not returned: %+v", res.Patch)
	}
	mustWarn(t, res, planner.StageValidate, "Never fixed")
	if len(res.Problems) == 0 || len(res.Patch.Warnings) == 0 {
		t.Error("problems are not visible on the result and the patch")
	}
	if pl.count(ProgressRepairing) != 2 {
		t.Errorf("progress = %+v", pl.events)
	}
	if ev := pl.events[len(pl.events)-1]; ev.Attempt != 3 || ev.Max != 3 {
		t.Errorf("last event = %+v", ev)
	}
}

func TestMaxZeroSkipsValidation(t *testing.T) {
	c := script(danglingPatch, validUpdate)
	conf, _ := cfg(0)
	res := chat(t, c, pipeline(), "add a check", conf)
	if c.calls() != 1 || res.Validated || !res.Valid || len(res.Problems) != 0 {
		t.Fatalf("calls %d validated %v valid %v problems %v", c.calls(), res.Validated, res.Valid, res.Problems)
	}
}

func TestMaxOneValidatesWithoutRetry(t *testing.T) {
	c := script(danglingPatch, validUpdate)
	conf, pl := cfg(1)
	res := chat(t, c, pipeline(), "add a check", conf)
	if c.calls() != 1 || !res.Validated || res.Valid || res.Attempts != 1 {
		t.Fatalf("calls %d validated %v valid %v", c.calls(), res.Validated, res.Valid)
	}
	if pl.count(ProgressRepairing) != 0 {
		t.Error("repairing with max 1")
	}
}

func TestProseIsConversation(t *testing.T) {
	c := script("<think>the loop has no exit</think>The loop never ends because its exit_condition is never true: `count.value > 10` reads a key that does not exist.")
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "why does this loop never end?", conf)
	if res.Kind != KindConversation || !res.Valid || res.Patch != nil || res.Workflow != nil {
		t.Fatalf("result = %+v", res)
	}
	if strings.Contains(res.Message, "think") || !strings.HasPrefix(res.Message, "The loop never ends") {
		t.Errorf("message = %q", res.Message)
	}
}

func TestProseWithExampleJSONIsConversation(t *testing.T) {
	c := script("A Loop's max_iterations caps it, for example {\"max_iterations\": 10}. Set it lower to stop sooner.")
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "how do I cap a loop?", conf)
	if res.Kind != KindConversation || c.calls() != 1 {
		t.Fatalf("kind %s calls %d", res.Kind, c.calls())
	}
}

func TestMessageOnlyJSONIsConversation(t *testing.T) {
	c := script(`{"message": "It downloads, unzips and logs."}`)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "what does it do?", conf)
	if res.Kind != KindConversation || res.Message != "It downloads, unzips and logs." {
		t.Fatalf("result = %s %q", res.Kind, res.Message)
	}
}

func TestFencedAndBrokenJSONRepairedLocally(t *testing.T) {
	reply := "Sure, here is the change:\n```json\n{'message': 'Louder notification', update: [{node_id: 'notify', arguments: {message: 'DONE',},},],}\n```\nLet me know!"
	c := script(reply)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "make it louder", conf)
	if !res.Valid || c.calls() != 1 || res.Kind != KindPatch {
		t.Fatalf("valid %v calls %d kind %s warnings %v", res.Valid, c.calls(), res.Kind, res.Warnings)
	}
	mustWarn(t, res, planner.StageRepair, "repaired locally")
	mustWarn(t, res, planner.StageExtract, "code fence")
	if n := merged(t, res).NodeByKey("notify"); n.Params.Arguments["message"] != "DONE" {
		t.Errorf("notify = %+v", n.Params)
	}
}

func TestUnrepairableJSONIsReasked(t *testing.T) {
	// The planner's local repair keeps getting better: use the first
	// patch it cannot fix.
	broken := ""
	for _, s := range []string{
		`{"update": [{"node_id": "notify", "arguments": {[ "message": "x"}]}]}`,
		`{"update": {[}]}`,
		"{\"update\": \x00\x01}",
	} {
		if _, _, err := planner.RepairJSON(s); err != nil {
			broken = s
			break
		}
	}
	if broken == "" {
		t.Skip("the local repair fixes every candidate")
	}
	c := script(broken, validUpdate)
	conf, pl := cfg(3)
	res := chat(t, c, pipeline(), "change it", conf)
	if c.calls() != 2 || !res.Valid || pl.count(ProgressRepairing) != 1 {
		t.Fatalf("calls %d valid %v warnings %v", c.calls(), res.Valid, res.Warnings)
	}
	fb := lastUser(c.request(1))
	for _, want := range []string{"repair stage", "line 1, column"} {
		if !strings.Contains(fb, want) {
			t.Errorf("feedback lacks %q:\n%s", want, fb)
		}
	}
}

func TestUnclosedPatchIsStillAPatch(t *testing.T) {
	c := script("{update: [{node_id: notify, arguments: {message: 'x'}}]")
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "change it", conf)
	if res.Kind != KindPatch || !res.Valid || c.calls() != 1 {
		t.Fatalf("kind %s valid %v warnings %v", res.Kind, res.Valid, res.Warnings)
	}
}

func TestPlaceholderThatRepairsToNothingIsReasked(t *testing.T) {
	c := script(`{"add": <steps>}`, validUpdate)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "change it", conf)
	if c.calls() != 2 || !res.Valid {
		t.Fatalf("calls %d valid %v warnings %v", c.calls(), res.Valid, res.Warnings)
	}
}

func TestPatchThatCannotBeReadIsReasked(t *testing.T) {
	c := script(`{"update": [{"node_id": "ghost", "name": "x"}]}`, validUpdate)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "rename ghost", conf)
	if c.calls() != 2 || !res.Valid {
		t.Fatalf("calls %d valid %v", c.calls(), res.Valid)
	}
	if fb := lastUser(c.request(1)); !strings.Contains(fb, `"ghost"`) {
		t.Errorf("feedback does not name the missing node:\n%s", fb)
	}
}

func TestTruncatedReplyIsReasked(t *testing.T) {
	c := script(llm.Reply{Text: `{"update": [{"node_id": "notify", "arguments": {"mess`, FinishReason: "length"}, validUpdate)
	conf, _ := cfg(2)
	res := chat(t, c, pipeline(), "change it", conf)
	if c.calls() != 2 || !res.Valid {
		t.Fatalf("calls %d valid %v", c.calls(), res.Valid)
	}
	if fb := lastUser(c.request(1)); !strings.Contains(fb, "cut off") {
		t.Errorf("feedback = %s", fb)
	}
}

func TestPlanForNonEmptyWorkflowExtends(t *testing.T) {
	plan := `{"name": "Archive it", "steps": [
	  {"id": "archive", "step_type": "Tool", "name": "Archive", "tool_name": "run_command", "arguments": {"command": "mv a.zip old/"}},
	  {"id": "report", "step_type": "Tool", "name": "Report", "tool_name": "log", "arguments": {"message": "archived"}}]}`
	c := script(plan)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "then archive the zip and report", conf)
	if res.Kind != KindPatch || !res.Valid {
		t.Fatalf("kind %s valid %v warnings %v", res.Kind, res.Valid, res.Warnings)
	}
	mustWarn(t, res, StageClassify, "extension")
	if s := shape(merged(t, res)); s != "download,unzip,notify,archive,report | download>unzip unzip>notify archive>report notify>archive" {
		t.Errorf("shape = %s", s)
	}
	if len(res.Patch.RemovedNodeIDs) != 0 {
		t.Error("an extension removed nodes")
	}
	if m := merged(t, res); m.Name != "Fetch archive" {
		t.Errorf("an extension renamed the workflow to %q", m.Name)
	}
}

func TestPlanForNonEmptyWorkflowReplaces(t *testing.T) {
	plan := `{"name": "Fetch with wget", "steps": [
	  {"id": "download", "step_type": "Tool", "name": "Download", "tool_name": "run_command", "arguments": {"command": "wget https://example.com/a.zip"}},
	  {"id": "unzip", "step_type": "Tool", "name": "Unzip", "tool_name": "run_command", "arguments": {"command": "unzip -o a.zip"}}]}`
	c := script(plan)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "use wget and drop the notification", conf)
	if res.Kind != KindPatch || !res.Valid {
		t.Fatalf("kind %s valid %v warnings %v", res.Kind, res.Valid, res.Warnings)
	}
	mustWarn(t, res, StageClassify, "replacement")
	m := merged(t, res)
	if s := shape(m); s != "download,unzip | download>unzip" {
		t.Errorf("shape = %s", s)
	}
	if m.NodeByKey("download").ID != "id_download" {
		t.Error("a kept step lost its id")
	}
	if m.Name != "Fetch with wget" {
		t.Errorf("a replacing plan's name was not applied: %q", m.Name)
	}
	if len(res.Diff.RemovedNodeIDs) != 1 || res.Diff.RemovedNodeIDs[0] != "id_notify" || len(res.Diff.ModifiedNodeIDs) != 2 {
		t.Errorf("diff = %+v", res.Diff)
	}
}

func TestPlanForEmptyWorkflow(t *testing.T) {
	plan := `{"name": "Say hello", "steps": [{"id": "hello", "step_type": "Tool", "name": "Hello", "tool_name": "log", "arguments": {"message": "hi"}}]}`
	c := script(plan)
	conf, _ := cfg(3)
	empty := workflow.New("new")
	res := chat(t, c, empty, "log hi", conf)
	if res.Kind != KindPlan || !res.Valid || len(res.Patch.AddedNodes) != 1 {
		t.Fatalf("result = %s %v %+v", res.Kind, res.Valid, res.Patch)
	}
	if m := merged(t, res); m.Name != "Say hello" {
		t.Errorf("the plan's name was not applied: %q", m.Name)
	}
	if sys := c.request(0)[0].Content; !strings.Contains(sys, "You plan automation workflows") || !strings.Contains(sys, "plain prose") {
		t.Error("an empty workflow does not get the planner prompt")
	}
}

func TestInsertBetweenRewires(t *testing.T) {
	forgot := `{"message": "Added a wait.", "add_nodes": [{"id": "pause", "step_type": "Tool", "name": "Wait", "tool_name": "wait", "arguments": {"ms": 500}}],
	 "add_edges": [{"from": "download", "to": "pause"}, {"from": "pause", "to": "unzip"}]}`
	c := script(forgot)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "insert a wait between download and unzip", conf)
	if !res.Valid || c.calls() != 1 {
		t.Fatalf("valid %v calls %d warnings %v", res.Valid, c.calls(), res.Warnings)
	}
	mustWarn(t, res, StagePatch, "direct edge between them was kept")
	if s := shape(merged(t, res)); s != "download,unzip,notify,pause | unzip>notify download>pause pause>unzip" {
		t.Errorf("shape = %s", s)
	}
	// The new node is placed next to download, not at the origin.
	p := res.Patch.AddedNodes[0].Position
	if p == nil || p.X <= 0 && p.Y <= 0 {
		t.Errorf("position = %+v", p)
	}
}

func TestInsertBetweenKeepsBranchLabel(t *testing.T) {
	forgot := `{"add_nodes": [{"id": "pause", "step_type": "Tool", "name": "Wait", "tool_name": "wait", "arguments": {"ms": 500}}],
	 "add_edges": [{"from": "ok", "to": "pause"}, {"from": "pause", "to": "no"}]}`
	c := script(forgot)
	conf, _ := cfg(3)
	res := chat(t, c, branching(), "wait before saying no", conf)
	if !res.Valid {
		t.Fatalf("invalid: %v", res.Warnings)
	}
	if s := shape(merged(t, res)); s != "download,ok,yes,no,pause | download>ok ok>yes:IfTrue ok>pause:IfFalse pause>no" {
		t.Errorf("shape = %s", s)
	}
}

func TestFlatAddAfterInsertsBetween(t *testing.T) {
	add := `{"message": "Wait first.", "after": "download", "add": [{"step_type": "Tool", "tool_name": "wait", "name": "Pause", "arguments": {"ms": 100}}]}`
	c := script(add)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "insert a wait between download and unzip", conf)
	if !res.Valid {
		t.Fatalf("invalid: %v", res.Warnings)
	}
	if s := shape(merged(t, res)); s != "download,unzip,notify,pause | unzip>notify download>pause pause>unzip" {
		t.Errorf("shape = %s", s)
	}
}

func TestFlatAddWithoutAfterAppends(t *testing.T) {
	add := `{"add": [{"id": "done_log", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{unzip.stdout}}"}}]}`
	c := script(add)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "add a step that logs the result", conf)
	if !res.Valid {
		t.Fatalf("invalid: %v", res.Warnings)
	}
	if s := shape(merged(t, res)); s != "download,unzip,notify,done_log | download>unzip unzip>notify notify>done_log" {
		t.Errorf("shape = %s", s)
	}
}

func TestFlatAddAfterIfFillsBothBranches(t *testing.T) {
	// A flat If without else: its open IfFalse goes to the old successor.
	add := `{"after": "download", "add": [{"id": "big", "step_type": "If", "condition": "download.exit_code == 0", "then": [{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "ok"}}]}]}`
	c := script(add)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "log when the download worked", conf)
	if !res.Valid {
		t.Fatalf("invalid: %v", res.Warnings)
	}
	m := merged(t, res)
	big := m.NodeByKey("big")
	var labels []string
	for _, e := range m.Edges {
		if e.From == big.ID {
			labels = append(labels, e.Output.String())
		}
	}
	if len(labels) != 2 {
		t.Errorf("If edges = %v (%s)", labels, shape(m))
	}
}

func TestMixedFlatAndGraphGraphWins(t *testing.T) {
	mixed := `{"add": [{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "flat"}}],
	 "add_nodes": [{"id": "g", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "graph"}}],
	 "add_edges": [{"from": "notify", "to": "g"}]}`
	c := script(mixed)
	conf, _ := cfg(1)
	res := chat(t, c, pipeline(), "add logging", conf)
	mustWarn(t, res, StagePatch, "used the graph form")
	if len(res.Patch.AddedNodes) != 1 || res.Patch.AddedNodes[0].Params.Arguments["message"] != "graph" {
		t.Fatalf("added = %+v", res.Patch.AddedNodes)
	}
	// The flat step is left out, and the change says so: valid, but not
	// usable without asking (with more attempts, the model is asked again).
	if !res.Valid || res.Usable() || len(res.Unused.Steps) != 1 || !strings.Contains(res.Unused.Steps[0], "add[0]") {
		t.Errorf("valid %v usable %v unused %v", res.Valid, res.Usable(), res.Unused.Steps)
	}
}

// A patch that leaves steps of the reply out is asked again, naming them.
func TestPatchLeftOutStepsReasked(t *testing.T) {
	first := `{"add_nodes": [{"id": "g", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "one"}}],
	 "more_nodes": [{"id": "h", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "two"}}],
	 "add_edges": [{"from": "notify", "to": "g"}]}`
	fixed := `{"add_nodes": [{"id": "g", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "one"}},
	 {"id": "h", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "two"}}],
	 "add_edges": [{"from": "notify", "to": "g"}, {"from": "g", "to": "h"}]}`
	c := script(first, fixed)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "log twice", conf)
	if c.calls() != 2 || !res.Usable() || len(res.Patch.AddedNodes) != 2 {
		t.Fatalf("calls %d, usable %v, added %d, unused %v", c.calls(), res.Usable(), len(res.Patch.AddedNodes), res.Unused.Steps)
	}
	if reask := lastUser(c.request(1)); !strings.Contains(reask, `more_nodes[0] (tool_name "log", id "h")`) || !strings.Contains(reask, `"add_nodes"`) {
		t.Errorf("the re-ask does not name the step left out and where it goes:\n%s", reask)
	}
}

func TestUpdateWithOnlyArgumentsKeepsTool(t *testing.T) {
	c := script(`{"update": [{"node_id": "unzip", "arguments": {"command": "unzip -o a.zip"}}]}`)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "overwrite files when unzipping", conf)
	if !res.Valid || len(res.Patch.UpdatedNodes) != 1 {
		t.Fatalf("valid %v patch %+v warnings %v", res.Valid, res.Patch, res.Warnings)
	}
	n := res.Patch.UpdatedNodes[0]
	if n.Type != workflow.TypeTool || n.Params.Tool != "run_command" || n.Params.Arguments["command"] != "unzip -o a.zip" || n.Name != "Unzip" || n.Key != "unzip" {
		t.Errorf("updated = %+v", n)
	}
}

func TestUpdateConditionKeepsOtherFields(t *testing.T) {
	c := script(`{"update": [{"node_id": "ok", "condition": "download.exit_code == 0 && download.success"}]}`)
	conf, _ := cfg(3)
	res := chat(t, c, branching(), "also check success", conf)
	if !res.Valid || len(res.Patch.UpdatedNodes) != 1 {
		t.Fatalf("valid %v warnings %v", res.Valid, res.Warnings)
	}
	n := res.Patch.UpdatedNodes[0]
	if n.Type != workflow.TypeIf || n.Name != "Downloaded?" || !strings.Contains(n.Params.Condition, "&&") {
		t.Errorf("updated = %+v", n)
	}
}

func TestDisallowedAiStepUpdateRejected(t *testing.T) {
	c := script(`{"update": [{"node_id": "notify", "step_type": "AiStep", "prompt": "write a nice message"}, {"node_id": "unzip", "name": "Extract"}]}`)
	conf, _ := cfg(3) // agent steps off
	res := chat(t, c, pipeline(), "let an agent write the message", conf)
	mustWarn(t, res, StageFeatures, "AiStep")
	if len(res.Patch.UpdatedNodes) != 1 || res.Patch.UpdatedNodes[0].Key != "unzip" {
		t.Fatalf("updated = %+v", res.Patch.UpdatedNodes)
	}
	if merged(t, res).NodeByKey("notify").Type != workflow.TypeTool {
		t.Error("the disallowed update was applied")
	}
}

func TestDisallowedAiStepAddRejected(t *testing.T) {
	c := script(`{"add": [{"step_type": "AiStep", "prompt": "summarise the files"}, {"step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}}]}`)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "add an agent", conf)
	mustWarn(t, res, planner.StageFeatures, "AiStep")
	for _, n := range res.Patch.AddedNodes {
		if n.Type == workflow.TypeAiStep {
			t.Fatal("a disallowed AiStep was added")
		}
	}
}

func TestRemoveMissingNodeWarns(t *testing.T) {
	c := script(`{"message": "Removed the notification.", "remove_node_ids": ["notify", "ghost"]}`)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "remove the notification", conf)
	if !res.Valid || len(res.Patch.RemovedNodeIDs) != 1 {
		t.Fatalf("valid %v patch %+v", res.Valid, res.Patch)
	}
	mustWarn(t, res, StagePatch, `cannot remove node "ghost"`)
}

func TestTransportErrorIsNotAnAttempt(t *testing.T) {
	boom := errors.New("connection refused")
	c := script(boom, validUpdate)
	conf, _ := cfg(3)
	_, err := Chat(context.Background(), c, Request{Workflow: pipeline(), Message: "x"}, conf)
	if !errors.Is(err, boom) || c.calls() != 1 {
		t.Fatalf("err = %v calls %d", err, c.calls())
	}
}

func TestCancellationMidRetry(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelling := func(ctx context.Context, _ []llm.Message) (llm.Reply, error) {
		cancel()
		<-ctx.Done()
		return llm.Reply{}, ctx.Err()
	}
	c := script(danglingPatch, cancelling, validUpdate)
	conf, pl := cfg(3)
	_, err := Chat(ctx, c, Request{Workflow: pipeline(), Message: "x"}, conf)
	if !errors.Is(err, context.Canceled) || c.calls() != 2 {
		t.Fatalf("err = %v calls %d", err, c.calls())
	}
	if pl.count(ProgressRepairing) != 1 {
		t.Errorf("progress = %+v", pl.events)
	}
}

func TestPatcherPromptShowsEdgeLabelsAndRuns(t *testing.T) {
	c := script("ok")
	conf, _ := cfg(3)
	req := Request{Workflow: branching(), Message: "why?", RunResults: map[string]NodeRun{
		"download": {Status: "failed", Error: "curl: (6) Could not resolve host"},
		"ok":       {Status: "ok", Outputs: map[string]any{"result": false}},
	}}
	if _, err := Chat(context.Background(), c, req, conf); err != nil {
		t.Fatal(err)
	}
	sys := c.request(0)[0].Content
	for _, want := range []string{"ok → yes [IfTrue]", "ok → no [IfFalse]", "download → ok\n", "key download, id id_download: Tool \"Download\"",
		"# The latest run", "download: failed; error: curl: (6)", `ok: ok; outputs: {"result":false}`, "# Tools", "run_command", "# Rules of a valid workflow", "remove_edges"} {
		if !strings.Contains(sys, want) {
			t.Errorf("patcher prompt lacks %q", want)
		}
	}
}

func conversationOf(n int) *Conversation {
	c := NewConversation("wf-1")
	for i := 0; i < n; i++ {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		c.Messages = append(c.Messages, ChatMessage{Role: role, Content: "message " + string(rune('a'+i))})
	}
	return c
}

func TestHistorySummarised(t *testing.T) {
	c := script("The user builds a download pipeline.", "Fine.")
	conf, pl := cfg(3)
	conv := conversationOf(10)
	res, err := Chat(context.Background(), c, Request{Workflow: pipeline(), Message: "and now?", Conversation: conv}, conf)
	if err != nil {
		t.Fatal(err)
	}
	if c.calls() != 2 || res.LLMCalls != 2 || res.Attempts != 1 || pl.count(ProgressSummarizing) != 1 {
		t.Fatalf("calls %d llm_calls %d attempts %d", c.calls(), res.LLMCalls, res.Attempts)
	}
	if sum := lastUser(c.request(0)); !strings.Contains(sum, "message a") || !strings.Contains(sum, "message d") || strings.Contains(sum, "message e") {
		t.Errorf("summarised text = %q", sum)
	}
	main := c.request(1)
	if !strings.Contains(main[0].Content, "The user builds a download pipeline.") {
		t.Error("the summary is not in the system prompt")
	}
	if len(main) != 1+6+1 || main[1].Content != "message e" || main[len(main)-1].Content != "and now?" {
		t.Errorf("messages sent = %d: %+v", len(main), main)
	}
	if res.Conversation.SummaryCovers != 4 || len(res.Conversation.Messages) != 12 || len(conv.Messages) != 10 {
		t.Errorf("conversation covers %d, %d messages (request's: %d)", res.Conversation.SummaryCovers, len(res.Conversation.Messages), len(conv.Messages))
	}
	// The next message reuses the summary: the two newer older turns are
	// sent verbatim until a batch of four has gathered.
	c2 := script("Sure.")
	res2, err := Chat(context.Background(), c2, Request{Workflow: pipeline(), Message: "x", Conversation: res.Conversation}, conf)
	if err != nil || c2.calls() != 1 || res2.Conversation.SummaryCovers != 4 || len(c2.request(0)) != 1+8+1 {
		t.Fatalf("err %v calls %d", err, c2.calls())
	}
	c3 := script("Summary two.", "Sure.")
	res3, err := Chat(context.Background(), c3, Request{Workflow: pipeline(), Message: "y", Conversation: res2.Conversation}, conf)
	if err != nil || c3.calls() != 2 || res3.Conversation.SummaryCovers != 8 || !strings.Contains(lastUser(c3.request(0)), "The user builds a download pipeline.") {
		t.Fatalf("err %v calls %d covers %d", err, c3.calls(), res3.Conversation.SummaryCovers)
	}
}

func TestHistorySummaryFailureFallsBackToTruncation(t *testing.T) {
	c := script(errors.New("HTTP 500"), "Fine.")
	conf, _ := cfg(3)
	res, err := Chat(context.Background(), c, Request{Workflow: pipeline(), Message: "and now?", Conversation: conversationOf(10)}, conf)
	if err != nil {
		t.Fatalf("a failed summary is fatal: %v", err)
	}
	mustWarn(t, res, StageHistory, "could not summarise")
	if main := c.request(1); len(main) != 1+6+1 {
		t.Errorf("sent %d messages", len(main))
	}
}

func TestExhaustedWithParseFailureOnly(t *testing.T) {
	c := script(`{"update": [{"node_id": "ghost"}]}`, `{"update": [{"node_id": "ghost2"}]}`)
	conf, _ := cfg(2)
	res := chat(t, c, pipeline(), "x", conf)
	if res.Valid || res.Patch != nil || c.calls() != 2 {
		t.Fatalf("valid %v patch %+v calls %d", res.Valid, res.Patch, c.calls())
	}
	mustWarn(t, res, StagePatch, "could not be used")
}

func TestValidatePackageAgrees(t *testing.T) {
	// The fixtures are valid as they are, so every failure above comes from the patch.
	for _, w := range []*workflow.Workflow{pipeline(), branching()} {
		if res := validate.Validate(w, nil); !res.Valid {
			t.Fatalf("fixture invalid: %+v", res.Problems)
		}
	}
}

func TestFlatAddLoopAfterNode(t *testing.T) {
	add := `{"after": "download", "add": [{"id": "retry", "step_type": "Loop", "exit_condition": "probe.exit_code == 0", "max_iterations": 5,
	  "body": [{"id": "probe", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "test -f a.zip"}}]}]}`
	c := script(add)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "wait until the file exists", conf)
	if !res.Valid {
		t.Fatalf("invalid: %v", res.Warnings)
	}
	m := merged(t, res)
	loop := m.NodeByKey("retry")
	var done string
	for _, e := range m.Edges {
		if e.From == loop.ID && e.Output != nil && e.Output.Type == workflow.OutLoopDone {
			done = m.NodeByID(e.To).Key
		}
	}
	if done != "unzip" {
		t.Errorf("LoopDone goes to %q; shape %s", done, shape(m))
	}
}

func TestGraphAddInfersControlFlowLabels(t *testing.T) {
	// Unlabelled Loop edges: inference labels them by structure.
	add := `{"add_nodes": [
	  {"id": "again", "step_type": "Loop", "exit_condition": "probe.exit_code == 0", "max_iterations": 3},
	  {"id": "probe", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "true"}},
	  {"id": "again_end", "step_type": "EndLoop", "loop_id": "again"},
	  {"id": "after", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "ok"}}],
	 "add_edges": [{"from": "notify", "to": "again"}, {"from": "again", "to": "probe"}, {"from": "probe", "to": "again_end"},
	   {"from": "again_end", "to": "again"}, {"from": "again", "to": "after"}]}`
	c := script(add)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "retry at the end", conf)
	if !res.Valid || c.calls() != 1 {
		t.Fatalf("valid %v calls %d warnings %v problems %v", res.Valid, c.calls(), res.Warnings, res.Problems)
	}
	mustWarn(t, res, planner.StageInfer, "")
	s := shape(merged(t, res))
	if !strings.Contains(s, "again>probe:LoopBody") || !strings.Contains(s, "again>after:LoopDone") {
		t.Errorf("shape = %s", s)
	}
}

func TestExistingAiStepMayBeRenamedWithFeatureOff(t *testing.T) {
	w := pipeline()
	w.Nodes[2] = workflow.Node{ID: "id_notify", Key: "notify", Name: "Agent", Type: workflow.TypeAiStep, Params: workflow.Params{Prompt: "write a note"}}
	c := script(`{"update": [{"node_id": "notify", "name": "Note writer"}, {"node_id": "notify", "prompt": "write two notes"}]}`)
	conf, _ := cfg(0)
	res := chat(t, c, w, "rename the agent", conf)
	// The second update changes the prompt: rejected; the rename stays.
	mustWarn(t, res, StageFeatures, "rejected the update")
	if res.Patch == nil || len(res.Patch.UpdatedNodes) != 1 || res.Patch.UpdatedNodes[0].Name != "Note writer" || res.Patch.UpdatedNodes[0].Params.Prompt != "write a note" {
		t.Fatalf("patch = %+v", res.Patch)
	}
}

func TestNoOpUpdateIsSaidAndReasked(t *testing.T) {
	c := script(`{"update": [{"node_id": "notify", "arguments": {"message": "done"}}]}`, validUpdate)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "x", conf)
	if c.calls() != 2 || !res.Valid {
		t.Fatalf("calls %d valid %v", c.calls(), res.Valid)
	}
	if fb := lastUser(c.request(1)); !strings.Contains(fb, "changes nothing") {
		t.Errorf("feedback:\n%s", fb)
	}
}

// A tool the patch names must be in the catalog: the model is asked again
// with the tools there are, nearest first.
func TestPatchWithUnknownToolIsReasked(t *testing.T) {
	bad := `{"message": "Mail the result.",
	 "add_nodes": [{"id": "mail", "step_type": "Tool", "name": "Mail", "tool_name": "send_mail", "arguments": {"to": "me"}}],
	 "add_edges": [{"from": "notify", "to": "mail"}]}`
	good := `{"message": "Log the result instead.",
	 "add_nodes": [{"id": "mail", "step_type": "Tool", "name": "Mail", "tool_name": "log", "arguments": {"message": "done"}}],
	 "add_edges": [{"from": "notify", "to": "mail"}]}`
	c := script(bad, good)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "mail me the result", conf)
	if !res.Valid || c.calls() != 2 {
		t.Fatalf("valid %v calls %d warnings %v", res.Valid, c.calls(), res.Warnings)
	}
	if fb := lastUser(c.request(1)); !strings.Contains(fb, `send_mail`) || !strings.Contains(fb, "use one of the catalog's tools") {
		t.Errorf("feedback:\n%s", fb)
	}
	// What the first reply got wrong stays visible, though the second was fine.
	if len(res.Tries) != 1 || res.Tries[0].Attempt != 1 || len(res.Tries[0].Why) == 0 || !strings.Contains(strings.Join(res.Tries[0].Why, " "), "send_mail") {
		t.Errorf("tries %+v", res.Tries)
	}
}

func TestTriesSayWhatWasFixedLocally(t *testing.T) {
	// First reply: single quotes (fixed locally) and an unknown tool (asked again).
	bad := `{'message': 'Mail it.', 'add_nodes': [{'id': 'mail', 'step_type': 'Tool', 'name': 'Mail', 'tool_name': 'send_mail', 'arguments': {'to': 'me'}}], 'add_edges': [{'from': 'notify', 'to': 'mail'}]}`
	c := script(bad, validUpdate)
	conf, _ := cfg(3)
	res := chat(t, c, pipeline(), "mail me", conf)
	if len(res.Tries) != 1 || !strings.Contains(strings.Join(res.Tries[0].Fixed, " "), "single quotes") {
		t.Fatalf("tries %+v", res.Tries)
	}
	// A reply used at once has no tries.
	c2 := script(validUpdate)
	if res2 := chat(t, c2, pipeline(), "change it", conf); len(res2.Tries) != 0 {
		t.Errorf("tries %+v", res2.Tries)
	}
}
