package planner

import (
	"testing"
)

func TestApplyFeatures(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		f        Features
		steps    int
		edges    []string // "from>to[:Label]" by step id, graph plans only
		warnings []string
	}{
		{name: "all allowed", in: `{"steps": [{"tool_name": "log"}, {"step_type": "AiStep", "prompt": "p"}, {"step_type": "AiTransform", "kind": "summarize", "input": "x"}]}`,
			f: Features{true, true}, steps: 3},
		{name: "flat: agent removed", in: `{"steps": [{"tool_name": "log"}, {"id": "ag", "step_type": "AiStep", "prompt": "p"}, {"tool_name": "wait"}]}`,
			f: Features{AllowAITransforms: true}, steps: 2, warnings: []string{`removed steps[1] ("ag"): AiStep (agent) steps are disabled; the steps around it are connected directly`}},
		{name: "flat: transform removed from a branch", in: `{"steps": [{"step_type": "If", "condition": "x", "then": [{"step_type": "AiTransform", "kind": "summarize", "input": "x"}, {"tool_name": "log"}]}]}`,
			f: Features{AllowAgentSteps: true}, steps: 1, warnings: []string{"removed steps[0].then[0]: AiTransform steps are disabled"}},
		{name: "graph: bridged, keeping the incoming label", in: `{"nodes": [
			{"id": "c", "step_type": "If", "condition": "x"}, {"id": "ai", "step_type": "AiTransform", "kind": "summarize", "input": "x"},
			{"id": "b", "tool_name": "log"}, {"id": "f", "tool_name": "log"}],
			"edges": [{"from": "c", "to": "ai", "output": "IfTrue"}, {"from": "ai", "to": "b"}, {"from": "c", "to": "f", "output": "IfFalse"}]}`,
			steps: 3, edges: []string{"c>b:IfTrue", "c>f:IfFalse"}, warnings: []string{"connected c to b directly"}},
		{name: "graph: two successors, edges dropped", in: `{"nodes": [
			{"id": "a", "tool_name": "log"}, {"id": "ai", "step_type": "AiStep", "prompt": "p"}, {"id": "b", "tool_name": "log"}, {"id": "c", "tool_name": "log"}],
			"edges": [{"from": "a", "to": "ai"}, {"from": "ai", "to": "b"}, {"from": "ai", "to": "c"}]}`,
			steps: 3, edges: []string{}, warnings: []string{"dropped its 3 edge(s)"}},
		{name: "graph: no edges at all", in: `{"nodes": [{"id": "a", "tool_name": "log"}, {"id": "ai", "step_type": "AiStep", "prompt": "p"}], "edges": [{"from": "a", "to": "a"}]}`,
			steps: 1, edges: []string{"a>a"}, warnings: []string{`removed nodes[1] ("ai"): AiStep (agent) steps are disabled`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := DecodePlan(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			ws := ApplyFeatures(p, tt.f)
			if len(p.Steps) != tt.steps {
				t.Errorf("%d steps left, want %d", len(p.Steps), tt.steps)
			}
			if tt.edges != nil {
				var got []string
				for _, e := range p.Edges {
					s := e.From + ">" + e.To
					if e.Output != nil {
						s += ":" + string(e.Output.Type)
					}
					got = append(got, s)
				}
				if !sameEdges(got, tt.edges) {
					t.Errorf("edges %v, want %v", got, tt.edges)
				}
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageFeatures, sub) {
					t.Errorf("no features warning contains %q; got %v", sub, ws)
				}
			}
			if len(tt.warnings) == 0 && len(ws) > 0 {
				t.Errorf("unexpected warnings %v", ws)
			}
		})
	}
}
