package planner

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestParseOutputContract(t *testing.T) {
	in := "Here:\n```json\n" + `{"name": "Notes", "steps": [
		{"id": "check", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt"}, "name": "Check file"},
		{"id": "ok", "step_type": "If", "condition": "check.exit_code == 0", "then": [{"id": "read", "tool_name": "read_file", "arguments": {"path": "notes.txt"}}]},
		{"id": "done", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "done"}}
	]}` + "\n```"
	w, ws, err := ParseOutput(in, ParseOptions{Catalog: testCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	if w.Format != workflow.Format || w.ID == "" || w.Name != "Notes" {
		t.Errorf("header %q %q %q", w.Format, w.ID, w.Name)
	}
	if len(w.Nodes) != 4 || w.NodeByKey("check") == nil || w.NodeByKey("read") == nil {
		t.Fatalf("nodes %+v", w.Nodes)
	}
	if c := w.NodeByKey("check"); c.ID == "check" || c.Name != "Check file" || c.Position == nil {
		t.Errorf("node %+v", c)
	}
	if got := strings.Join(edgeList(w), " "); got != "check>ok ok>read:IfTrue read>done ok>done:IfFalse" {
		t.Errorf("edges %s", got)
	}
	for _, x := range ws {
		if x.Stage == "" || x.Message == "" {
			t.Errorf("bad warning %+v", x)
		}
	}
	// Each call gives fresh ids.
	w2, _, _ := ParseOutput(in, ParseOptions{Catalog: testCatalog()})
	if w2.ID == w.ID || w2.Nodes[0].ID == w.Nodes[0].ID {
		t.Error("ids reused between calls")
	}
}

func TestParseOutputWarningsNameNodes(t *testing.T) {
	w, ws, err := ParseOutput(`{"steps": [{"id": "a", "type": "Tool", "tool_name": "log", "arguments": {"message": "x"}},
		{"id": "b", "step_type": "Tool", "tool_name": "nope"}]}`, ParseOptions{Catalog: testCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ws {
		want := ""
		switch {
		case strings.Contains(x.Message, `read "type"`):
			want = w.NodeByKey("a").ID
		case strings.Contains(x.Message, `unknown tool "nope"`):
			want = w.NodeByKey("b").ID
		}
		if x.NodeID != want {
			t.Errorf("%s: node %q, want %q", x, x.NodeID, want)
		}
	}
}

func TestStageErrorText(t *testing.T) {
	for _, tt := range []struct {
		e    StageError
		want string
	}{
		{StageError{Stage: "repair", Msg: "bad", Line: 3, Column: 7}, "repair: line 3, column 7: bad"},
		{StageError{Stage: "decode", Msg: "no usable steps", Path: "steps"}, "decode: steps: no usable steps"},
		{StageError{Stage: "extract", Msg: "no JSON"}, "extract: no JSON"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	_, ws, err := ParseOutput("```json\n{\"steps\": [}\n```", ParseOptions{})
	var se *StageError
	if !errors.As(err, &se) {
		t.Fatalf("want a StageError, got %v", err)
	}
	if len(ws) == 0 || ws[0].Stage != StageExtract {
		t.Errorf("warnings before the failure should come back: %v", ws)
	}
}

// TestParseOutputAdversarial: inputs that would make a careless stage
// quadratic stay fast.
func TestParseOutputAdversarial(t *testing.T) {
	n := func(s string, k int) string { return strings.Repeat(s, k) }
	graph := func(k int, node, edge func(i int) string) string {
		var ns, es []string
		for i := 0; i < k; i++ {
			ns = append(ns, node(i))
			if e := edge(i); e != "" {
				es = append(es, e)
			}
		}
		return `{"nodes": [` + strings.Join(ns, ",") + `], "edges": [` + strings.Join(es, ",") + `]}`
	}
	inputs := map[string]string{
		"deep arrays":         n("[", 100000),
		"deep objects":        n(`{"a":`, 50000),
		"many empty blocks":   n("{} ", 50000),
		"same name, no ids":   `{"steps": [` + n(`{"tool_name": "log", "type": "Tool"},`, 20000) + `]}`,
		"unclosed strings":    n(`{"steps": "`, 20000),
		"open think tags":     n("<think>", 20000) + `{"steps": []}`,
		"close think tags":    n("</think>", 20000) + `{"steps": []}`,
		"deeply nested then":  n(`{"step_type": "If", "condition": "x", "then": [`, 2000) + n("]}", 2000),
		"unclosed flat loops": `{"steps": [` + n(`{"step_type": "Loop", "exit_condition": "x"},`, 5000) + `{"tool_name": "log"}]}`,
		"unpaired endloops":   `{"steps": [` + n(`{"step_type": "EndLoop"},`, 5000) + `{"tool_name": "log"}]}`,
		"duplicate edges":     `{"nodes": [{"id": "a", "tool_name": "log"}, {"id": "b", "tool_name": "log"}], "edges": [` + n(`{"from": "a", "to": "b"},`, 20000) + `{"from": "b", "to": "a"}]}`,
		"loops all back to the first": graph(3000, func(i int) string {
			return fmt.Sprintf(`{"id": "l%d", "step_type": "Loop", "exit_condition": "x"}`, i)
		}, func(i int) string {
			if i == 0 {
				return `{"from": "l0", "to": "l0"}`
			}
			return fmt.Sprintf(`{"from": "l%d", "to": "l%d"}, {"from": "l%d", "to": "l0"}`, i-1, i, i)
		}),
		"endloops without loop ids": graph(3000, func(i int) string {
			return fmt.Sprintf(`{"id": "l%d", "step_type": "Loop"}, {"id": "e%d", "step_type": "EndLoop"}`, i, i)
		}, func(i int) string {
			if i == 0 {
				return `{"from": "l0", "to": "e0"}`
			}
			return fmt.Sprintf(`{"from": "l%d", "to": "e%d"}, {"from": "e%d", "to": "l%d"}`, i, i, i-1, i)
		}),
	}
	for name, in := range inputs {
		start := time.Now()
		ParseOutput(in, ParseOptions{Features: Features{true, true}, Catalog: testCatalog()})
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s (%d KB): %v", name, len(in)>>10, d)
		}
	}
}
