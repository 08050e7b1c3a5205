package planner

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestPlanOnErrorAndDoneWhen(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		check       func(t *testing.T, w *workflow.Workflow, warnings string)
	}{
		{"graph form with an Error edge", `{"name": "Fetch", "done_when": {"condition": "save.success", "criteria": "the page is saved"},
 "nodes": [
  {"id": "fetch", "step_type": "Tool", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://example.com"}, "on_error": "branch"},
  {"id": "save", "step_type": "Tool", "tool_name": "write_file", "arguments": {"path": "page.html", "content": "{{fetch.body}}"}},
  {"id": "report", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "failed: {{fetch.error}}"}}],
 "edges": [{"from": "fetch", "to": "save"}, {"from": "fetch", "to": "report", "output": {"type": "Error"}}]}`,
			func(t *testing.T, w *workflow.Workflow, _ string) {
				if n := w.NodeByKey("fetch"); n.OnError != workflow.OnErrorBranch {
					t.Errorf("on_error %q", n.OnError)
				}
				if w.DoneWhen == nil || w.DoneWhen.Condition != "save.success" || w.DoneWhen.Criteria != "the page is saved" {
					t.Errorf("done_when %+v", w.DoneWhen)
				}
			}},
		{"n8n names and an error label", `{"nodes": [
  {"id": "a", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "make"}, "onError": "continueErrorOutput"},
  {"id": "b", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "ok"}, "on_error": "continueRegularOutput"},
  {"id": "c", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{a.error}}"}}],
 "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c", "output": "error"}]}`,
			func(t *testing.T, w *workflow.Workflow, warnings string) {
				if w.NodeByKey("a").OnError != workflow.OnErrorBranch || w.NodeByKey("b").OnError != workflow.OnErrorContinue {
					t.Errorf("on_error %q %q", w.NodeByKey("a").OnError, w.NodeByKey("b").OnError)
				}
				if !strings.Contains(warnings, `label "error" read as Error`) {
					t.Errorf("warnings %s", warnings)
				}
			}},
		{"an Error edge implies branch", `{"nodes": [
  {"id": "a", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "make"}},
  {"id": "c", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{a.error}}"}}],
 "edges": [{"from": "a", "to": "c", "output": {"type": "Error"}}]}`,
			func(t *testing.T, w *workflow.Workflow, warnings string) {
				if w.NodeByKey("a").OnError != workflow.OnErrorBranch || !strings.Contains(warnings, `set its on_error to "branch"`) {
					t.Errorf("on_error %q warnings %s", w.NodeByKey("a").OnError, warnings)
				}
			}},
		{"flat form with error_steps and a done_when string", `{"done_when": "all tests pass", "steps": [
  {"id": "test", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "go test ./..."},
   "error_steps": [{"id": "tell", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{test.stderr}}"}}]},
  {"id": "done", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "ok"}}]}`,
			func(t *testing.T, w *workflow.Workflow, warnings string) {
				if w.NodeByKey("test").OnError != workflow.OnErrorBranch || w.DoneWhen == nil || w.DoneWhen.Criteria != "all tests pass" {
					t.Errorf("on_error %q done_when %+v\n%s", w.NodeByKey("test").OnError, w.DoneWhen, warnings)
				}
			}},
		{"bad values are dropped with a warning", `{"steps": [
  {"id": "a", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}, "on_error": "explode", "done_when": 5}]}`,
			func(t *testing.T, w *workflow.Workflow, warnings string) {
				if n := w.NodeByKey("a"); n.OnError != "" || n.DoneWhen != nil || !strings.Contains(warnings, `on_error "explode"`) {
					t.Errorf("%+v %s", n, warnings)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, warns, err := ParseOutput(tc.reply, ParseOptions{Catalog: tools.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			if v := validate.Validate(w, tools.Builtin()); !v.Valid {
				t.Fatalf("invalid: %+v\n%s", v.Errors(), strings.Join(ws, "\n"))
			}
			tc.check(t, w, strings.Join(ws, "\n"))
		})
	}
}
