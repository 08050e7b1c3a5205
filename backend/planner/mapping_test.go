package planner

import (
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

func mapOf(t *testing.T, in string, cat *tools.Catalog) (*workflow.Workflow, []Warning) {
	t.Helper()
	p, _, err := DecodePlan(in)
	if err != nil {
		t.Fatal(err)
	}
	w, ws := MapPlan(p, cat)
	return w, ws
}

func TestMapPlanKeysAndNames(t *testing.T) {
	w, ws := mapOf(t, `{"steps": [
		{"id": "check_file", "tool_name": "run_command", "arguments": {"command": "ls"}},
		{"id": "n2", "tool_name": "run_command", "arguments": {"command": "ls"}},
		{"id": "if", "step_type": "If", "condition": "check_file.exit_code == 0"},
		{"id": "checkFile", "step_type": "If", "condition": "checkFile.exit_code == 0 && xcheckFile.a", "name": "Check again"},
		{"id": "check_file", "tool_name": "log", "arguments": {"message": "{{checkFile.stdout}}"}, "name": "Dup"},
		{"step_type": "Loop", "exit_condition": "x"},
		{"id": "n7", "step_type": "AiTransform", "kind": "summarize", "input": "x"},
		{"id": "w", "step_type": "Tool", "tool_name": "github.list_issues"}
	]}`, testCatalog())
	want := []struct{ key, name string }{
		{"check_file", "Check file"}, {"n2", "Run command"}, {"if_step", "If"}, {"check_again", "Check again"},
		{"dup", "Dup"}, {"loop", "Loop"}, {"n7", "Summarize"}, {"w", "W"},
	}
	if len(w.Nodes) != len(want) {
		t.Fatalf("%d nodes", len(w.Nodes))
	}
	ids := map[string]bool{}
	for i, n := range w.Nodes {
		if n.Key != want[i].key || n.Name != want[i].name {
			t.Errorf("node %d: key %q name %q, want %q %q", i, n.Key, n.Name, want[i].key, want[i].name)
		}
		if ids[n.ID] || len(n.ID) != 36 {
			t.Errorf("node %d: id %q not a fresh uuid", i, n.ID)
		}
		ids[n.ID] = true
	}
	if w.Format != workflow.Format || w.ID == "" {
		t.Errorf("workflow header %q %q", w.Format, w.ID)
	}
	if got := w.Nodes[3].Params.Condition; got != "check_again.exit_code == 0 && xcheckFile.a" {
		t.Errorf("condition not rewritten: %q", got)
	}
	if got := w.Nodes[4].Params.Arguments["message"]; got != "{{check_again.stdout}}" {
		t.Errorf("template not rewritten: %q", got)
	}
	if w.Nodes[5].LoopMax() != workflow.DefaultMaxIterations || w.Nodes[5].Params.MaxIterations == nil {
		t.Errorf("loop max not defaulted")
	}
	for _, sub := range []string{`id "if" is a reserved word`, `id "checkFile" is not an identifier`, `id "check_file" is used twice`,
		`rewrote 2 reference(s) to "checkFile" as "check_again"`} {
		if !containsWarning(ws, StageMap, sub) {
			t.Errorf("no map warning contains %q; got %v", sub, ws)
		}
	}
}

func TestMapPlanTools(t *testing.T) {
	tests := []struct {
		tool, name string
		nilCat     bool
		want       string
		enabled    bool
		warning    string
	}{
		{tool: "log", want: "log", enabled: true},
		{tool: "Run_Command", want: "run_command", enabled: true, warning: `tool "Run_Command" read as "run_command"`},
		{tool: "github/create_issue", want: "github.create_issue", enabled: true, warning: "read as"},
		{tool: "github__create_issue", want: "github.create_issue", enabled: true, warning: "read as"},
		{tool: "create_issue", want: "github.create_issue", enabled: true, warning: `tool "create_issue" read as "github.create_issue"`},
		{tool: "functions.read_file", want: "read_file", enabled: true, warning: "read as"},
		{tool: "send_email", want: "send_email", enabled: true, warning: `unknown tool "send_email"`},
		{tool: "bash", want: "run_command", enabled: true, warning: `tool "bash" read as "run_command"`},
		{tool: "Fetch", want: "http_request", enabled: true, warning: `tool "Fetch" read as "http_request"`},
		{tool: "send_email", nilCat: true, want: "send_email", enabled: true},
		{name: "wait", want: "wait", enabled: true, warning: `read the name "wait" as the tool`},
		{name: "Wait a bit", want: "", enabled: true, warning: "no tool_name"},
	}
	for _, tt := range tests {
		cat := testCatalog()
		if tt.nilCat {
			cat = nil
		}
		p := &Plan{Steps: []Step{{Path: "steps[0]", Type: workflow.TypeTool, Name: tt.name, Params: workflow.Params{Tool: tt.tool}, node: -1}}, Skipped: map[string]string{}}
		w, ws := MapPlan(p, cat)
		n := w.Nodes[0]
		if n.Params.Tool != tt.want || n.IsEnabled() != tt.enabled {
			t.Errorf("%q/%q: tool %q enabled %v, want %q %v", tt.tool, tt.name, n.Params.Tool, n.IsEnabled(), tt.want, tt.enabled)
		}
		if tt.warning != "" && !containsWarning(ws, StageMap, tt.warning) {
			t.Errorf("%q: no warning contains %q; got %v", tt.tool, tt.warning, ws)
		}
		if tt.warning == "" && len(ws) > 0 {
			t.Errorf("%q: unexpected warnings %v", tt.tool, ws)
		}
		for _, wn := range ws {
			if wn.NodeID != n.ID {
				t.Errorf("warning %q does not name the node", wn.Message)
			}
		}
	}
}

func TestMapPlanLoopID(t *testing.T) {
	w, ws := mapOf(t, `{"nodes": [{"id": "l", "step_type": "Loop", "exit_condition": "x"}, {"id": "e", "step_type": "EndLoop", "loop_id": "l"},
		{"id": "e2", "step_type": "EndLoop", "loop_id": "nope"}], "edges": [{"from": "l", "to": "e"}]}`, nil)
	if w.Nodes[1].Params.LoopID != w.Nodes[0].ID {
		t.Errorf("loop_id %q, want the loop's node id", w.Nodes[1].Params.LoopID)
	}
	if w.Nodes[2].Params.LoopID != "" || !containsWarning(ws, StageMap, `loop_id "nope" is not the id of a Loop step`) {
		t.Errorf("bad loop_id kept: %q %v", w.Nodes[2].Params.LoopID, ws)
	}
}

func TestRenameRefsOnlyInExpressionsAndTemplates(t *testing.T) {
	w, _ := mapOf(t, `{"steps": [
		{"id": "getPage", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://x"}},
		{"id": "if", "step_type": "If", "condition": "getPage.status == 200"},
		{"id": "say", "tool_name": "run_command", "arguments": {"command": "echo getPage.status is {{getPage.status}} and {{ getPage.body }}"}, "verify": "getPage.status > 0"}
	]}`, nil)
	if got := w.Nodes[1].Params.Condition; got != "get_page.status == 200" {
		t.Errorf("condition %q", got)
	}
	if got := w.Nodes[2].Params.Arguments["command"]; got != "echo getPage.status is {{get_page.status}} and {{ get_page.body }}" {
		t.Errorf("command %q", got)
	}
	if got := w.Nodes[2].Verify; got != "get_page.status > 0" {
		t.Errorf("verify %q", got)
	}
}

func TestHumanize(t *testing.T) {
	for in, want := range map[string]string{
		"check_file": "Check file", "checkFile": "Check file", "fetch-page": "Fetch page", "x": "X", "HTTPGet": "HTTP get", "getURL": "Get URL", "step2": "Step2", "a__b": "A b",
	} {
		if got := humanize(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
