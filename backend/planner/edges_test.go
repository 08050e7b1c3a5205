package planner

import (
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

func TestBuildEdges(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     []string // by key
		nodes    int
		warnings []string // substrings, each in some edges warning
		valid    bool
	}{
		{name: "flat chain", in: `{"steps": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "c", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"a>b", "b>c"}, nodes: 3, valid: true},
		{name: "bracket loop", in: `{"steps": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "l", "step_type": "Loop", "exit_condition": "b.success"},
			{"id": "b", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "e", "step_type": "EndLoop"}, {"id": "c", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"a>l", "l>b:LoopBody", "b>e", "e>l", "l>c:LoopDone"}, nodes: 5, valid: true},
		{name: "nested brackets", in: `{"steps": [{"id": "o", "step_type": "Loop", "exit_condition": "x.success"}, {"id": "i", "step_type": "Loop", "exit_condition": "x.success"},
			{"id": "x", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "ie", "step_type": "EndLoop"}, {"id": "oe", "step_type": "EndLoop"}]}`,
			want: []string{"o>i:LoopBody", "i>x:LoopBody", "x>ie", "ie>i", "i>oe:LoopDone", "oe>o"}, nodes: 5, valid: true},
		{name: "endloop loop_id disagrees with nesting", in: `{"steps": [{"id": "o", "step_type": "Loop", "exit_condition": "x.success"}, {"id": "i", "step_type": "Loop", "exit_condition": "x.success"},
			{"id": "x", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "ie", "step_type": "EndLoop", "loop_id": "o"}, {"id": "oe", "step_type": "EndLoop", "loop_id": "i"}]}`,
			want: []string{"o>i:LoopBody", "i>x:LoopBody", "x>ie", "ie>i", "i>oe:LoopDone", "oe>o"}, nodes: 5, warnings: []string{"closes \"I\" by nesting order"}, valid: true},
		{name: "loop never closed", in: `{"steps": [{"id": "l", "step_type": "Loop", "exit_condition": "b.success"}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"l>b:LoopBody", "b>end_l", "end_l>l"}, nodes: 3, warnings: []string{"has no EndLoop"}, valid: true},
		{name: "empty loop never closed", in: `{"steps": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "l", "step_type": "Loop", "exit_condition": "a.success"}]}`,
			want: []string{"a>l", "l>end_l:LoopBody", "end_l>l"}, nodes: 3, warnings: []string{"has no EndLoop"}},
		{name: "endloop without loop", in: `{"steps": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "e", "step_type": "EndLoop"}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"a>b"}, nodes: 2}, // dropped at decode: TestDecodeDropsWhatCannotRun
		{name: "if with then and else", in: `{"steps": [{"id": "c", "step_type": "If", "condition": "true", "then": [{"id": "t1", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "t2", "tool_name": "log", "arguments": {"message": "x"}}],
			"else": [{"id": "f", "tool_name": "log", "arguments": {"message": "x"}}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"c>t1:IfTrue", "t1>t2", "c>f:IfFalse", "t2>j", "f>j"}, nodes: 5, valid: true},
		{name: "if with then only: false goes on", in: `{"steps": [{"id": "c", "step_type": "If", "condition": "true", "then": [{"id": "t", "tool_name": "log", "arguments": {"message": "x"}}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"c>t:IfTrue", "t>j", "c>j:IfFalse"}, nodes: 3, valid: true},
		{name: "if with empty then", in: `{"steps": [{"id": "c", "step_type": "If", "condition": "true", "then": [], "else": [{"id": "f", "tool_name": "log", "arguments": {"message": "x"}}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"c>f:IfFalse", "c>j:IfTrue", "f>j"}, nodes: 3, valid: true},
		{name: "flat if without lists", in: `{"steps": [{"id": "c", "step_type": "If", "condition": "true"}, {"id": "t", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"c>t:IfTrue"}, nodes: 2, warnings: []string{"no IfFalse branch"}},
		{name: "loop body list", in: `{"steps": [{"id": "l", "step_type": "Loop", "exit_condition": "b.success", "body": [{"id": "b", "tool_name": "log", "arguments": {"message": "x"}}]}, {"id": "z", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"l>b:LoopBody", "b>end_l", "end_l>l", "l>z:LoopDone"}, nodes: 4, valid: true},
		{name: "loop body list ending in its EndLoop", in: `{"steps": [{"id": "l", "step_type": "Loop", "exit_condition": "b.success", "body": [{"id": "b", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "e", "step_type": "EndLoop"}]}]}`,
			want: []string{"l>b:LoopBody", "b>e", "e>l"}, nodes: 3, valid: true},
		{name: "loop in a branch", in: `{"steps": [{"id": "c", "step_type": "If", "condition": "true", "then": [{"id": "l", "step_type": "Loop", "exit_condition": "b.success"}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "e", "step_type": "EndLoop"}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"c>l:IfTrue", "l>b:LoopBody", "b>e", "e>l", "l>j:LoopDone", "c>j:IfFalse"}, nodes: 5, valid: true},
		{name: "switch lists", in: `{"steps": [{"id": "s", "step_type": "Switch", "cases": [{"name": "a", "condition": "true", "steps": [{"id": "x", "tool_name": "log", "arguments": {"message": "x"}}]}, {"name": "b", "condition": "true"}],
			"default": [{"id": "d", "tool_name": "log", "arguments": {"message": "x"}}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"s>x:case=a", "s>d:SwitchDefault", "x>j", "d>j", "s>j:case=b"}, nodes: 4, valid: true},
		{name: "flat switch without lists", in: `{"steps": [{"id": "s", "step_type": "Switch", "cases": [{"name": "a", "condition": "true"}]}, {"id": "j", "tool_name": "log", "arguments": {"message": "x"}}]}`,
			want: []string{"s>j:SwitchDefault"}, nodes: 2, warnings: []string{"flat Switch without step lists"}},
		{name: "graph remap and drops", in: `{"nodes": [{"id": "a", "tool_name": "log", "name": "First", "arguments": {"message": "x"}}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "st", "step_type": "Start"}],
			"edges": [{"from": "START", "to": "a"}, {"from": "st", "to": "a"}, {"from": "First", "to": "b"}, {"from": "a", "to": "b"}, {"from": "b", "to": "b"}, {"from": "b", "to": "END"}, {"from": "b", "to": "ghost"}]}`,
			want: []string{"a>b"}, nodes: 2,
			warnings: []string{`"st" was dropped ("Start" is not a step type)`, "matched the node by its name",
				"the same edge appears twice", "an edge from a step to itself", `"ghost" is not the id of any step`}, valid: true},
		{name: "edges from START and to END or DONE: dropped, nothing lost, no warning", in: `{"nodes": [{"id": "a", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "b", "tool_name": "log", "arguments": {"message": "x"}}],
			"edges": [{"from": "START", "to": "a"}, {"from": "a", "to": "b"}, {"from": "b", "to": "END"}, {"from": "b", "to": "done"}]}`,
			want: []string{"a>b"}, nodes: 2, valid: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := DecodePlan(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := MapPlan(p, tools.Builtin())
			ws := BuildEdges(p, w)
			if got := edgeList(w); !sameEdges(got, tt.want) {
				t.Errorf("edges\n got  %v\n want %v", got, tt.want)
			}
			if len(w.Nodes) != tt.nodes {
				t.Errorf("%d nodes, want %d", len(w.Nodes), tt.nodes)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageEdges, sub) {
					t.Errorf("no edges warning contains %q; got %v", sub, ws)
				}
			}
			if len(tt.warnings) == 0 && len(ws) > 0 {
				t.Errorf("unexpected warnings %v", ws)
			}
			if tt.valid {
				if iw := InferControlFlowEdges(w); len(iw) > 0 {
					t.Errorf("inference still had work: %v", iw)
				}
				if res := validate.Validate(w, tools.Builtin()); !res.Valid {
					t.Errorf("invalid: %+v", res.Errors())
				}
			}
		})
	}
}
