package planner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// benchPlan is a generated reply of n steps in the graph form: tool steps
// with arguments and templates, and per block of 10 steps an If with both
// branches, a Loop with a two-step body and its EndLoop. With sloppy set
// it carries the defects local models make (fence and prose, trailing
// commas, Python literals, "type" for "step_type", bare-string labels), so
// the repair and coercion paths are measured too.
func benchPlan(n int, sloppy bool) string {
	var nodes, edges []string
	node := func(s string) { nodes = append(nodes, s) }
	edge := func(from, to int, out string) {
		switch {
		case out == "":
			edges = append(edges, fmt.Sprintf(`{"from": "s%d", "to": "s%d"}`, from, to))
		case sloppy:
			edges = append(edges, fmt.Sprintf(`{"from": "s%d", "to": "s%d", "output": %q}`, from, to, map[string]string{
				"IfTrue": "true", "IfFalse": "false", "LoopBody": "body", "LoopDone": "done"}[out]))
		default:
			edges = append(edges, fmt.Sprintf(`{"from": "s%d", "to": "s%d", "output": {"type": %q}}`, from, to, out))
		}
	}
	typ := `"step_type"`
	if sloppy {
		typ = `"type"`
	}
	tool := func(i int) {
		flag := "true"
		if sloppy {
			flag = "True"
		}
		node(fmt.Sprintf(`{"id": "s%d", %s: "Tool", "tool_name": "write_file", "name": "Write part %d", "arguments": {"path": "out/%d.txt", "content": "part %d of {{s0.stdout}}", "append": %s}}`, i, typ, i, i, i, flag))
	}
	node(fmt.Sprintf(`{"id": "s0", %s: "Tool", "tool_name": "run_command", "name": "Prepare", "arguments": {"command": "mkdir -p out && date"}}`, typ))
	prev := 0
	i := 1
	for i < n {
		if n-i >= 10 {
			// If s(i) → s(i+1) | s(i+2) → join s(i+3); Loop s(i+4) body s(i+5), s(i+6), EndLoop s(i+7); then s(i+8), s(i+9)
			edge(prev, i, "")
			node(fmt.Sprintf(`{"id": "s%d", %s: "If", "name": "Ready %d?", "condition": "s0.exit_code == 0"}`, i, typ, i))
			tool(i + 1)
			tool(i + 2)
			tool(i + 3)
			edge(i, i+1, "IfTrue")
			edge(i, i+2, "IfFalse")
			edge(i+1, i+3, "")
			edge(i+2, i+3, "")
			node(fmt.Sprintf(`{"id": "s%d", %s: "Loop", "name": "Repeat %d", "exit_condition": "s%d.success", "max_iterations": 3}`, i+4, typ, i, i+6))
			edge(i+3, i+4, "")
			tool(i + 5)
			tool(i + 6)
			node(fmt.Sprintf(`{"id": "s%d", %s: "EndLoop", "loop_id": "s%d"}`, i+7, typ, i+4))
			edge(i+4, i+5, "LoopBody")
			edge(i+5, i+6, "")
			edge(i+6, i+7, "")
			edge(i+7, i+4, "")
			tool(i + 8)
			tool(i + 9)
			edge(i+4, i+8, "LoopDone")
			edge(i+8, i+9, "")
			prev, i = i+9, i+10
			continue
		}
		tool(i)
		edge(prev, i, "")
		prev, i = i, i+1
	}
	sep := ",\n  "
	if sloppy {
		sep = ",\n  "
		return "Sure! Here is the workflow:\n```json\n{\"nodes\": [\n  " + strings.Join(nodes, sep) + ",\n],\n\"edges\": [\n  " +
			strings.Join(edges, sep) + ",\n]}\n```\nLet me know if you need changes."
	}
	return "{\"nodes\": [\n  " + strings.Join(nodes, sep) + "\n],\n\"edges\": [\n  " + strings.Join(edges, sep) + "\n]}"
}

var benchParseOptions = ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: tools.Builtin()}

// BenchmarkParseOutputSteps is ParseOutput, every local stage, on a valid
// generated plan of 20, 200 and 2,000 steps (BenchmarkParseOutput, one
// 200-step plan, is the re-ask loop's).
func BenchmarkParseOutputSteps(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		text := benchPlan(n, false)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ParseOutput(text, benchParseOptions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseOutputSloppy is the same plans written sloppily: every
// reply goes through repair and coercion.
func BenchmarkParseOutputSloppy(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		text := benchPlan(n, true)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := ParseOutput(text, benchParseOptions); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLocalStage splits a 200-step plan's cost by stage.
func BenchmarkLocalStage(b *testing.B) {
	text := benchPlan(200, true)
	js, _, _ := ExtractJSON(text)
	fixed, _, _ := RepairJSON(js)
	w, _, _ := ParseOutput(text, benchParseOptions)
	b.Run("extract", func(b *testing.B) {
		for b.Loop() {
			ExtractJSON(text)
		}
	})
	b.Run("repair", func(b *testing.B) {
		for b.Loop() {
			RepairJSON(js)
		}
	})
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			DecodePlan(fixed)
		}
	})
	b.Run("map+edges", func(b *testing.B) {
		for b.Loop() {
			p, _, _ := DecodePlan(fixed)
			w, _ := MapPlan(p, benchParseOptions.Catalog)
			BuildEdges(p, w)
		}
	})
	b.Run("infer", func(b *testing.B) {
		for b.Loop() {
			InferControlFlowEdges(w)
		}
	})
	b.Run("layout", func(b *testing.B) {
		for b.Loop() {
			Layout(w)
		}
	})
}

func TestBenchPlansAreValid(t *testing.T) {
	for _, n := range []int{20, 200, 2000} {
		for _, sloppy := range []bool{false, true} {
			w, ws, err := ParseOutput(benchPlan(n, sloppy), benchParseOptions)
			if err != nil {
				t.Fatalf("%d sloppy=%v: %v", n, sloppy, err)
			}
			if len(w.Nodes) != n {
				t.Errorf("%d sloppy=%v: %d nodes", n, sloppy, len(w.Nodes))
			}
			if !sloppy && len(ws) > 0 {
				t.Errorf("%d: warnings on a clean plan: %v", n, ws[:min(3, len(ws))])
			}
			if sloppy && len(WarningsOf(ws, StageRepair)) == 0 {
				t.Errorf("%d: the sloppy plan needed no repair", n)
			}
			if res := validate.Validate(w, benchParseOptions.Catalog); !res.Valid {
				t.Errorf("%d sloppy=%v: invalid: %v", n, sloppy, res.Errors()[0].Message)
			}
		}
	}
}
