package planner

import (
	"errors"
	"github.com/weft-dev/weft/backend/tools"
	"reflect"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/workflow"
)

func intp(n int) *int { return &n }

func TestDecodeStep(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     Step     // Path and node are not compared
		warnings []string // substrings, each in some warning
		quiet    bool
		err      string // substring of the error, when the step is skipped
	}{
		{name: "canonical tool", in: `{"id": "check", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "ls"}, "name": "Check"}`,
			want: Step{ID: "check", Name: "Check", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "ls"}}}, quiet: true},
		{name: "type, tool, args", in: `{"id": "a", "type": "tool", "tool": "log", "args": {"message": "m"}}`,
			want:     Step{ID: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "m"}}},
			warnings: []string{`read "type" as "step_type"`, `step_type "tool" read as "Tool"`, `read "tool" as "tool_name"`, `read "args" as "arguments"`}},
		{name: "camelCase keys", in: `{"stepType": "Tool", "toolName": "log", "arguments": {}}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}}, warnings: []string{`read "stepType" as "step_type"`, `read "toolName" as "tool_name"`}},
		{name: "input as arguments on a Tool", in: `{"step_type": "Tool", "tool_name": "read_file", "input": {"path": "x"}}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "read_file", Arguments: map[string]any{"path": "x"}}}, warnings: []string{`read "input" as "arguments"`}},
		{name: "parameters", in: `{"step_type": "Tool", "tool_name": "wait", "parameters": {"ms": 5}}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "wait", Arguments: map[string]any{"ms": 5.0}}}, warnings: []string{`read "parameters" as "arguments"`}},
		{name: "missing step_type with tool_name", in: `{"tool_name": "log", "arguments": {"message": "x"}}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "x"}}}, warnings: []string{"no step_type; read as Tool"}},
		{name: "arguments as a JSON string", in: `{"step_type": "Tool", "tool_name": "log", "arguments": "{\"message\": \"hi\"}"}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}}, warnings: []string{"arguments was a JSON string"}},
		{name: "arguments a bare value (the map stage gives it to the one required argument)", in: `{"step_type": "Tool", "tool_name": "log", "arguments": "hello"}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}, BareArguments: "hello"}},
		{name: "arguments a list", in: `{"step_type": "Tool", "tool_name": "log", "arguments": ["hello"]}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}}, warnings: []string{"arguments must be an object, got an array"}},
		{name: "arguments at the top level", in: `{"step_type": "Tool", "tool_name": "write_file", "path": "a.txt", "content": "x", "description": "writes"}`,
			want:     Step{Type: workflow.TypeTool, Name: "writes", Params: workflow.Params{Tool: "write_file", Arguments: map[string]any{"path": "a.txt", "content": "x"}}},
			warnings: []string{`moved the field(s) "path", "content" into arguments`}},
		{name: "function-call object", in: `{"step_type": "Tool", "tool_name": {"name": "log", "arguments": {"message": "m"}}}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "m"}}}, warnings: []string{"tool_name is an object"}},
		{name: "weft node shape", in: `{"id": "n1", "key": "ls", "type": "Tool", "params": {"tool": "list_files", "arguments": {"path": "."}}}`,
			want: Step{ID: "n1", Key: "ls", Type: workflow.TypeTool, Params: workflow.Params{Tool: "list_files", Arguments: map[string]any{"path": "."}}}},
		{name: "numeric id", in: `{"id": 3, "step_type": "Tool", "tool_name": "log"}`,
			want: Step{ID: "3", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}}, quiet: true},
		{name: "ai transform keeps kind and input", in: `{"step_type": "AiTransform", "kind": "summarize", "input": "{{a.stdout}}"}`,
			want: Step{Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "summarize", Input: "{{a.stdout}}"}}, quiet: true},
		{name: "kind names the step type", in: `{"kind": "Tool", "tool_name": "log"}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}}, warnings: []string{`read "kind" as "step_type"`}},
		{name: "kind names a transform", in: `{"kind": "classify", "input": "x", "labels": ["a", "b"]}`,
			want:     Step{Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "classify", Input: "x", Labels: []string{"a", "b"}}},
			warnings: []string{`read as AiTransform because its kind is "classify"`}},
		{name: "transform kind variant", in: `{"step_type": "ai_transform", "kind": "Summary", "input": "x"}`,
			want: Step{Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "summarize", Input: "x"}}, warnings: []string{`kind "Summary" read as "summarize"`, `"ai_transform" read as "AiTransform"`}},
		{name: "transform object input", in: `{"step_type": "AiTransform", "kind": "extract", "input": {"a": 1}}`,
			want: Step{Type: workflow.TypeAiTransform, Params: workflow.Params{Kind: "extract", Input: `{"a": 1}`}}, warnings: []string{"input should be a string"}},
		{name: "transform bad kind", in: `{"step_type": "AiTransform", "kind": "translate", "input": "x"}`, err: `kind "translate" is not summarize`},
		{name: "agent step with coercions", in: `{"step_type": "agent", "prompt": "do it", "allowed_tools": "log, wait", "max_tool_calls": "4"}`,
			want:     Step{Type: workflow.TypeAiStep, Params: workflow.Params{Prompt: "do it", AllowedTools: []string{"log", "wait"}, MaxToolCalls: 4}},
			warnings: []string{"allowed_tools should be a list", `max_tool_calls sent as the string "4"`}},
		{name: "agent step without prompt", in: `{"step_type": "AiStep"}`, err: "AiStep needs a prompt"},
		{name: "if", in: `{"id": "ok", "step_type": "if", "condition": "a.exit_code == 0"}`,
			want: Step{ID: "ok", Type: workflow.TypeIf, Params: workflow.Params{Condition: "a.exit_code == 0"}}, warnings: []string{`step_type "if" read as "If"`}},
		{name: "if without condition is kept", in: `{"step_type": "If"}`, want: Step{Type: workflow.TypeIf}, warnings: []string{"If has no condition"}},
		{name: "loop with string max", in: `{"step_type": "Loop", "exit_condition": "x.done", "max_iterations": "5"}`,
			want: Step{Type: workflow.TypeLoop, Params: workflow.Params{ExitCondition: "x.done", MaxIterations: intp(5)}}, warnings: []string{`max_iterations sent as the string "5"`}},
		{name: "loop float max and until", in: `{"step_type": "Loop", "until": "x.done", "max_iterations": 3.0}`,
			want: Step{Type: workflow.TypeLoop, Params: workflow.Params{ExitCondition: "x.done", MaxIterations: intp(3)}}, warnings: []string{`read "until" as "exit_condition"`}},
		{name: "loop bad max", in: `{"step_type": "Loop", "exit_condition": "x", "max_iterations": "lots"}`,
			want: Step{Type: workflow.TypeLoop, Params: workflow.Params{ExitCondition: "x"}}, warnings: []string{"max_iterations must be a whole number"}},
		{name: "end loop spellings", in: `{"step_type": "End_Loop", "loop_id": 7}`,
			want: Step{Type: workflow.TypeEndLoop, Params: workflow.Params{LoopID: "7"}}, warnings: []string{`"End_Loop" read as "EndLoop"`}},
		{name: "endloop lower", in: `{"step_type": "endloop"}`, want: Step{Type: workflow.TypeEndLoop}, warnings: []string{`"endloop" read as "EndLoop"`}},
		{name: "switch cases", in: `{"step_type": "Switch", "cases": [{"name": "a", "condition": "x == 1"}, "b", {"condition": "x == 3"}]}`,
			want:     Step{Type: workflow.TypeSwitch, Params: workflow.Params{Cases: []workflow.SwitchCase{{Name: "a", Condition: "x == 1"}, {Name: "b"}, {Name: "case_3", Condition: "x == 3"}}}},
			warnings: []string{"case 1 is a bare string", `named it "case_3"`}},
		{name: "switch cases as an object", in: `{"step_type": "Switch", "cases": {"hi": "x > 5", "lo": "x <= 5"}}`,
			want:     Step{Type: workflow.TypeSwitch, Params: workflow.Params{Cases: []workflow.SwitchCase{{Name: "hi", Condition: "x > 5"}, {Name: "lo", Condition: "x <= 5"}}}},
			warnings: []string{"cases is an object"}},
		{name: "timeout and verify", in: `{"step_type": "Tool", "tool_name": "log", "timeout_ms": 500, "verify": "log.success"}`,
			want: Step{Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}, TimeoutMs: 500, Verify: "log.success"}, quiet: true},
		{name: "unknown fields", in: `{"step_type": "If", "condition": "x", "colour": "red"}`,
			want: Step{Type: workflow.TypeIf, Params: workflow.Params{Condition: "x"}}, warnings: []string{`ignored unknown field(s) "colour"`}},
		{name: "not an object", in: `"check the file"`, err: "a step must be a JSON object, got a string"},
		{name: "unknown type", in: `{"id": "x", "step_type": "Click"}`, err: `unknown step_type "Click"`},
		{name: "start pseudo step", in: `{"id": "s", "step_type": "START"}`, err: `"START" is not a step type`},
		{name: "no type at all", in: `{"id": "x", "name": "Something"}`, err: "no step_type"},
		{name: "step_type not a string", in: `{"step_type": 3}`, err: "step_type must be a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, ws, err := DecodeStep(gjson.Parse(tt.in), "steps[0]")
			if tt.err != "" {
				var se *StageError
				if !errors.As(err, &se) || se.Stage != StageDecode || !strings.Contains(se.Msg, tt.err) || !strings.HasPrefix(se.Path, "steps[0]") {
					t.Fatalf("want a decode error containing %q, got %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			st.Path, st.node = "", 0
			tt.want.node = 0
			if len(st.Branches) == 0 {
				st.Branches = nil
			}
			if !reflect.DeepEqual(st, tt.want) {
				t.Errorf("got  %+v\nwant %+v", st, tt.want)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageDecode, sub) {
					t.Errorf("no warning contains %q; got %v", sub, ws)
				}
			}
			if tt.quiet && len(ws) > 0 {
				t.Errorf("want no warnings, got %v", ws)
			}
		})
	}
}

func TestDecodeStepBranches(t *testing.T) {
	in := `{"id": "gate", "step_type": "If", "condition": "x", "then": [{"tool_name": "log"}, "junk"], "else": {"step_type": "Tool", "tool_name": "wait"}}`
	st, ws, err := DecodeStep(gjson.Parse(in), "steps[2]")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Branches) != 2 || st.Branches[0].Output.Type != workflow.OutIfTrue || st.Branches[1].Output.Type != workflow.OutIfFalse {
		t.Fatalf("branches %+v", st.Branches)
	}
	if len(st.Branches[0].Steps) != 1 || st.Branches[0].Steps[0].Path != "steps[2].then[0]" || len(st.Branches[1].Steps) != 1 {
		t.Fatalf("then %+v else %+v", st.Branches[0].Steps, st.Branches[1].Steps)
	}
	if !containsWarning(ws, StageDecode, "skipped steps[2].then[1]: a step must be a JSON object") {
		t.Errorf("warnings %v", ws)
	}
	// A Loop body, and Switch case lists with a default.
	st, _, err = DecodeStep(gjson.Parse(`{"step_type": "Loop", "exit_condition": "x", "body": [{"tool_name": "log"}]}`), "steps[0]")
	if err != nil || len(st.Branches) != 1 || st.Branches[0].Output.Type != workflow.OutLoopBody {
		t.Fatalf("loop: %+v %v", st, err)
	}
	st, _, err = DecodeStep(gjson.Parse(`{"step_type": "Switch", "cases": [{"name": "a", "condition": "x", "steps": [{"tool_name": "log"}]}], "default": [{"tool_name": "wait"}]}`), "steps[0]")
	if err != nil || len(st.Branches) != 2 || st.Branches[0].Output != (workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: "a"}) || st.Branches[1].Output.Type != workflow.OutSwitchDefault {
		t.Fatalf("switch: %+v %v", st, err)
	}
}

func TestDecodeEdge(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     PlanEdge // Path not compared
		warnings []string
		err      string
	}{
		{name: "plain", in: `{"from": "a", "to": "b"}`, want: PlanEdge{From: "a", To: "b"}},
		{name: "object label", in: `{"from": "a", "to": "b", "output": {"type": "IfTrue"}}`, want: PlanEdge{From: "a", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutIfTrue}}},
		{name: "string label", in: `{"from": "a", "to": "b", "output": "LoopDone"}`, want: PlanEdge{From: "a", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutLoopDone}}},
		{name: "switch case object", in: `{"from": "s", "to": "b", "output": {"type": "SwitchCase", "name": "x"}}`, want: PlanEdge{From: "s", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: "x"}}},
		{name: "case shorthand", in: `{"from": "s", "to": "b", "output": {"case": "x"}}`, want: PlanEdge{From: "s", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: "x"}}},
		{name: "non-canonical string kept for resolving", in: `{"from": "a", "to": "b", "output": "yes"}`, want: PlanEdge{From: "a", To: "b", Label: "yes"}},
		{name: "boolean label", in: `{"from": "a", "to": "b", "output": false}`, want: PlanEdge{From: "a", To: "b", Label: "false"}},
		{name: "label key", in: `{"from": "a", "to": "b", "label": "IfFalse"}`, want: PlanEdge{From: "a", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutIfFalse}}, warnings: []string{`read "label" as "output"`}},
		{name: "source target", in: `{"source": 1, "target": 2}`, want: PlanEdge{From: "1", To: "2"}, warnings: []string{`read "source" as "from"`, `read "target" as "to"`}},
		{name: "array form", in: `["a", "b", "IfTrue"]`, want: PlanEdge{From: "a", To: "b", Output: &workflow.EdgeOutput{Type: workflow.OutIfTrue}}, warnings: []string{"edge written as an array"}},
		{name: "object with lowercase type", in: `{"from": "a", "to": "b", "output": {"type": "loop_body"}}`, want: PlanEdge{From: "a", To: "b", Label: "loop_body"}},
		{name: "no to", in: `{"from": "a"}`, err: `no "to"`},
		{name: "no from", in: `{"to": "a"}`, err: `no "from"`},
		{name: "empty endpoint", in: `{"from": "", "to": "a"}`, err: "empty endpoint"},
		{name: "string", in: `"a -> b"`, err: "an edge must be an object"},
		{name: "short array", in: `["a"]`, err: "[from, to]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ws, err := DecodeEdge(gjson.Parse(tt.in), "edges[0]")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("want error %q, got %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			e.Path = ""
			if !reflect.DeepEqual(e, tt.want) {
				t.Errorf("got %+v (output %v), want %+v (output %v)", e, e.Output, tt.want, tt.want.Output)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageDecode, sub) {
					t.Errorf("no warning contains %q; got %v", sub, ws)
				}
			}
		})
	}
}

func TestResolveOutput(t *testing.T) {
	cases := []workflow.SwitchCase{{Name: "high_priority"}, {Name: "Low"}}
	tests := []struct {
		from     workflow.NodeType
		label    string
		name     string
		output   *workflow.EdgeOutput
		want     string // EdgeOutput.String() of the result, "" for unlabelled
		warnings []string
	}{
		{from: workflow.TypeIf, label: "true", want: "IfTrue", warnings: []string{`output "true" read as IfTrue`}},
		{from: workflow.TypeIf, label: "No", want: "IfFalse"},
		{from: workflow.TypeIf, label: "else", want: "IfFalse"},
		{from: workflow.TypeIf, label: "if_true", want: "IfTrue"},
		{from: workflow.TypeIf, label: "IFFALSE", want: "IfFalse"},
		{from: workflow.TypeIf, label: "maybe", want: "", warnings: []string{`cannot read output "maybe" on a If`}},
		{from: workflow.TypeLoop, label: "body", want: "LoopBody"},
		{from: workflow.TypeLoop, label: "loop_body", want: "LoopBody"},
		{from: workflow.TypeLoop, label: "done", want: "LoopDone"},
		{from: workflow.TypeLoop, label: "Exit", want: "LoopDone"},
		{from: workflow.TypeSwitch, label: "default", want: "SwitchDefault"},
		{from: workflow.TypeSwitch, label: "high_priority", want: `SwitchCase("high_priority")`},
		{from: workflow.TypeSwitch, label: "High Priority", want: `SwitchCase("high_priority")`},
		{from: workflow.TypeSwitch, label: "low", want: `SwitchCase("Low")`},
		{from: workflow.TypeSwitch, label: "case: low", want: `SwitchCase("Low")`},
		{from: workflow.TypeSwitch, label: "switch_case", name: "LOW", want: `SwitchCase("Low")`},
		{from: workflow.TypeSwitch, output: &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: "low"}, want: `SwitchCase("Low")`, warnings: []string{`case "low" read as "Low"`}},
		{from: workflow.TypeSwitch, output: &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: "default"}, want: "SwitchDefault"},
		{from: workflow.TypeTool, label: "success", want: "", warnings: []string{"a Tool step has a single plain output; dropped the label"}},
		{from: workflow.TypeTool, output: &workflow.EdgeOutput{Type: workflow.OutIfTrue}, want: ""},
		{from: workflow.TypeEndLoop, output: &workflow.EdgeOutput{Type: workflow.OutLoopBody}, want: ""},
		{from: workflow.TypeIf, output: &workflow.EdgeOutput{Type: workflow.OutIfTrue}, want: "IfTrue"},
	}
	for _, tt := range tests {
		e := PlanEdge{Path: "edges[0]", From: "a", To: "b", Label: tt.label, LabelName: tt.name, Output: tt.output}
		ws := e.ResolveOutput(tt.from, cases)
		if got := e.Output.String(); got != tt.want {
			t.Errorf("%s %q: got %q, want %q", tt.from, tt.label, got, tt.want)
		}
		if e.Label != "" || e.LabelName != "" {
			t.Errorf("%s %q: label left behind", tt.from, tt.label)
		}
		for _, sub := range tt.warnings {
			if !containsWarning(ws, StageDecode, sub) {
				t.Errorf("%s %q: no warning contains %q; got %v", tt.from, tt.label, sub, ws)
			}
		}
	}
}

func TestDecodePlan(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		graph    bool
		steps    int
		edges    int
		warnings []string
		err      string // substring of the StageError
	}{
		{name: "flat", in: `{"steps": [{"tool_name": "log"}, {"tool_name": "wait"}]}`, steps: 2},
		{name: "graph", in: `{"nodes": [{"id": "a", "tool_name": "log"}, {"id": "b", "tool_name": "log"}], "edges": [{"from": "a", "to": "b"}]}`, graph: true, steps: 2, edges: 1},
		{name: "bare array", in: `[{"tool_name": "log"}]`, steps: 1, warnings: []string{"bare list"}},
		{name: "single step", in: `{"step_type": "Tool", "tool_name": "log"}`, steps: 1, warnings: []string{"single step"}},
		{name: "nodes without edges", in: `{"nodes": [{"tool_name": "log"}, {"tool_name": "wait"}]}`, steps: 2, warnings: []string{"nodes without edges"}},
		{name: "steps with edges", in: `{"steps": [{"id": "a", "tool_name": "log"}, {"id": "b", "tool_name": "log"}], "edges": [["a", "b"]]}`, graph: true, steps: 2, edges: 1, warnings: []string{`"steps" came with "edges"`}},
		{name: "empty nodes, steps given", in: `{"nodes": [], "steps": [{"tool_name": "log"}]}`, steps: 1},
		{name: "skips bad items", in: `{"steps": [1, {"tool_name": "log"}, {"step_type": "Start"}]}`, steps: 1, warnings: []string{"skipped steps[0]", "skipped steps[2]"}},
		{name: "same fix merged", in: `{"steps": [{"type": "Tool", "tool_name": "log"}, {"type": "Tool", "tool_name": "log"}]}`, steps: 2,
			warnings: []string{`read "type" as "step_type" (steps[0], steps[1])`}},
		{name: "graph labels resolved by source type", in: `{"nodes": [{"id": "c", "step_type": "If", "condition": "x"}, {"id": "t", "tool_name": "log"}], "edges": [{"from": "c", "to": "t", "output": "yes"}]}`,
			graph: true, steps: 2, edges: 1, warnings: []string{`output "yes" read as IfTrue`}},
		{name: "graph drops nested lists", in: `{"nodes": [{"id": "c", "step_type": "If", "condition": "x", "then": [{"tool_name": "log"}]}], "edges": [{"from": "c", "to": "c"}]}`,
			graph: true, steps: 1, edges: 1, warnings: []string{"nested step lists"}},
		{name: "empty steps", in: `{"steps": []}`, err: `"steps" is empty`},
		{name: "no steps", in: `{"answer": 42}`, err: `no "steps" array`},
		{name: "steps not a list", in: `{"steps": "do it"}`, err: "must be an array of step objects"},
		{name: "nothing usable", in: `{"steps": [{"step_type": "Start"}, {"step_type": "Teleport"}]}`, err: `no usable steps: steps[0]: "Start" is not a step type`},
		{name: "a string", in: `"plan"`, err: "got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, ws, err := DecodePlan(tt.in)
			if tt.err != "" {
				var se *StageError
				if !errors.As(err, &se) || se.Stage != StageDecode || !strings.Contains(se.Error(), tt.err) {
					t.Fatalf("want a decode error containing %q, got %v", tt.err, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Graph != tt.graph || len(p.Steps) != tt.steps || len(p.Edges) != tt.edges {
				t.Errorf("graph %v steps %d edges %d; want %v %d %d", p.Graph, len(p.Steps), len(p.Edges), tt.graph, tt.steps, tt.edges)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageDecode, sub) {
					t.Errorf("no warning contains %q; got %v", sub, ws)
				}
			}
		})
	}
}

func TestNormalizeStepType(t *testing.T) {
	for in, want := range map[string]workflow.NodeType{
		"Tool": workflow.TypeTool, "tool": workflow.TypeTool, "TOOL": workflow.TypeTool, "if": workflow.TypeIf,
		"end_loop": workflow.TypeEndLoop, "EndLoop": workflow.TypeEndLoop, "endloop": workflow.TypeEndLoop, "End-Loop": workflow.TypeEndLoop,
		"ai_step": workflow.TypeAiStep, "AiTransform": workflow.TypeAiTransform, "switch": workflow.TypeSwitch, "loop": workflow.TypeLoop,
	} {
		if got, ok := NormalizeStepType(in); !ok || got != want {
			t.Errorf("%q: got %q %v, want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"Start", "End", "Action", "", "click"} {
		if _, ok := NormalizeStepType(in); ok {
			t.Errorf("%q read as a step type", in)
		}
	}
}

// Items that carry nothing to run are skipped with a warning, not kept to
// fail validation: an EndLoop in a plan without a Loop, a Tool step with
// nothing in it, an edge whose output type is no output at all.
func TestDecodeDropsWhatCannotRun(t *testing.T) {
	for _, c := range []struct{ in, warning string }{
		{`{"steps": [{"tool_name": "log", "arguments": {"message": "x"}}, {"id": "e", "step_type": "EndLoop"}]}`, "an EndLoop in a plan without a Loop"},
		{`{"steps": [{"tool_name": "log", "arguments": {"message": "x"}}, {"step_type": "Tool"}]}`, "a Tool step with no tool_name, name or arguments"},
	} {
		p, ws, err := DecodePlan(c.in)
		if err != nil || len(p.Steps) != 1 {
			t.Fatalf("%s: %v %v", c.in, p, err)
		}
		if !containsWarning(ws, StageDecode, c.warning) {
			t.Errorf("%s: no warning %q in %v", c.in, c.warning, ws)
		}
	}
	// An EndLoop without loop_id stays when there is a Loop to pair it with.
	if p, _, _ := DecodePlan(`{"steps": [{"step_type": "Loop", "exit_condition": "true"}, {"tool_name": "log", "arguments": {"message": "x"}}, {"step_type": "EndLoop"}]}`); len(p.Steps) != 3 {
		t.Errorf("the EndLoop of a Loop was dropped")
	}
	p, _, _ := DecodePlan(`{"nodes": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}],
		"edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a", "output": {"type": "LoopCondition"}}]}`)
	w, _ := MapPlan(p, tools.Builtin())
	if ws := BuildEdges(p, w); len(w.Edges) != 1 || !containsWarning(ws, StageEdges, `output type "LoopCondition" is no output of any step`) {
		t.Errorf("edges %v, warnings %v", w.Edges, ws)
	}
}

// A plan has no sub-workflows (a model cannot see the file it would
// name): the types a bad step_type is told to choose from are those read.
func TestStepTypeListIsWhatIsRead(t *testing.T) {
	list := typeList()
	if strings.Contains(list, string(workflow.TypeWorkflow)) || !strings.Contains(list, string(workflow.TypeAiTransform)) {
		t.Errorf("typeList() = %q", list)
	}
	for _, name := range strings.Split(list, ", ") {
		if _, ok := NormalizeStepType(name); !ok {
			t.Errorf("%q is listed but not read", name)
		}
	}
}
