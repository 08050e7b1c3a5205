package planner

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRepairJSONLeavesValidJSONAlone(t *testing.T) {
	for _, in := range []string{
		`{}`, `[]`, `{"steps":[]}`,
		"{\n  \"steps\" : [ ] ,\n\t\"name\":\"x\"\n}",
		`{"a": "ünïcödé ✓ \u00e9 \"quoted\" \\ /", "n": -1.5e+3, "t": true, "z": null}`,
		`{"a": "True", "b": "None", "c": "// not a comment", "d": "trailing,]"}`,
		`  {"padded": 1}  `,
	} {
		out, ws, err := RepairJSON(in)
		if err != nil || out != in || len(ws) != 0 {
			t.Errorf("%q: changed to %q, warnings %v, err %v", in, out, ws, err)
		}
	}
}

func TestRepairJSON(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		kinds    []string // fix kinds the warning names
		position string   // "line L, column C" of the strict error
		check    func(t *testing.T, v map[string]any)
	}{
		{name: "trailing commas", in: "{\"steps\": [1, 2,],\n \"x\": {\"a\": 1,},}", kinds: []string{"trailing commas removed", "3 places"}, position: "line 1, column 17"},
		{name: "missing comma between items", in: `{"steps": [{"id": "a"} {"id": "b"}]}`, kinds: []string{"missing commas inserted"},
			check: func(t *testing.T, v map[string]any) {
				if n := len(v["steps"].([]any)); n != 2 {
					t.Errorf("%d steps, want 2", n)
				}
			}},
		{name: "missing comma between fields", in: "{\"a\": 1\n\"b\": 2}", kinds: []string{"missing commas"}, position: "line 2, column 1"},
		{name: "line comment", in: "{\"a\": 1 // one\n}", kinds: []string{"comments removed"}},
		{name: "block comment", in: "{/* steps */ \"a\": 1}", kinds: []string{"comments removed"}, position: "line 1, column 2"},
		{name: "single quotes", in: `{'a': 'it\'s', 'b': "x"}`, kinds: []string{"single quotes"}},
		{name: "unquoted keys", in: `{steps: [], name: "x"}`, kinds: []string{"unquoted keys quoted (line 1, column 2; 2 places)"}},
		{name: "python literals", in: `{"a": True, "b": False, "c": None}`, kinds: []string{"Python literals"},
			check: func(t *testing.T, v map[string]any) {
				if v["a"] != true || v["b"] != false || v["c"] != nil {
					t.Errorf("got %v", v)
				}
			}},
		{name: "js literals", in: `{"a": undefined}`, kinds: []string{"NaN/undefined"}},
		{name: "truncated in a string", in: `{"steps": [{"id": "a", "name": "Chec`, kinds: []string{"unterminated string", "missing closing brackets"}, position: "line 1, column 37"},
		{name: "truncated after a comma", in: "{\"steps\": [{\"id\": \"a\"},\n", kinds: []string{"missing closing brackets"}},
		{name: "raw newline in a string", in: "{\"c\": \"a\nb\"}", kinds: []string{"control characters"},
			check: func(t *testing.T, v map[string]any) {
				if v["c"] != "a\nb" {
					t.Errorf("got %q", v["c"])
				}
			}},
		{name: "unquoted value", in: `{"a": hello}`, kinds: []string{"unquoted string values"}},
		{name: "ellipsis", in: `{"steps": [1, 2, ...]}`, kinds: []string{"placeholders"}},
		{name: "combination", in: "{steps: [{'id': 'a', ok: True,},]  // end\n", kinds: []string{"comments", "single quotes", "Python", "unquoted keys", "trailing commas", "missing closing"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, ws, err := RepairJSON(tt.in)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			var v any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("repaired text is not JSON: %q", out)
			}
			if len(ws) != 1 || ws[0].Stage != StageRepair {
				t.Fatalf("want one repair warning, got %v", ws)
			}
			msg := ws[0].Message
			for _, k := range tt.kinds {
				if !strings.Contains(msg, k) {
					t.Errorf("warning %q does not name %q", msg, k)
				}
			}
			if !strings.Contains(msg, "the JSON did not parse (line ") {
				t.Errorf("warning %q does not quote the strict error", msg)
			}
			if tt.position != "" && !strings.Contains(msg, "did not parse ("+tt.position+":") {
				t.Errorf("warning %q: want the strict error at %s", msg, tt.position)
			}
			if tt.check != nil {
				m, _ := v.(map[string]any)
				tt.check(t, m)
			}
		})
	}
}

func TestRepairJSONFailure(t *testing.T) {
	for _, tt := range []struct {
		in         string
		line, col  int
		msgContain string
	}{
		{in: "{\"a\": 1}\n}}}} {{{{ :: ", line: 2, col: 1, msgContain: "invalid JSON"},
		{in: "{\n  \"a\" 1 2 3}", line: 2, col: 7, msgContain: "local repair failed: colon expected"},
		{in: `{:}`, line: 1, col: 2, msgContain: "object key expected"},
	} {
		_, _, err := RepairJSON(tt.in)
		var se *StageError
		if !errors.As(err, &se) {
			t.Errorf("%q: want a StageError, got %v", tt.in, err)
			continue
		}
		if se.Stage != StageRepair || se.Line != tt.line || se.Column != tt.col || !strings.Contains(se.Msg, tt.msgContain) {
			t.Errorf("%q: got %#v", tt.in, se)
		}
		if !strings.HasPrefix(se.Error(), "repair: line ") {
			t.Errorf("Error() = %q", se.Error())
		}
	}
}

func TestStrictErrorPosition(t *testing.T) {
	for _, tt := range []struct {
		in        string
		line, col int
	}{
		{`{"a": N}`, 1, 7},
		{"{\n  \"a\": 1,\n}", 3, 1},
		{`{"a": 1`, 1, 8},
		{"{\"a\": \"x\ny\"}", 1, 9},
	} {
		line, col, _ := strictError(tt.in)
		if line != tt.line || col != tt.col {
			t.Errorf("%q: line %d column %d, want %d:%d", tt.in, line, col, tt.line, tt.col)
		}
	}
}

func TestFindTruncation(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want truncation
	}{
		{`{"steps": [{"id": "a"}, {"id": "b", "name": "x`, truncation{"steps", 1, cutInside}},
		{`{"steps": [{"id": "a"}, {"id": "b"}, `, truncation{"steps", 2, cutAfterComma}}, // promised, never began
		{`{"steps": [{"id": "a"}, {"id": "b"}`, truncation{"steps", 2, cutOpenList}},     // the list never closed
		{`{"steps": [{"id": "a"}, {"id": "b"}]`, truncation{}},                           // only the object's closer missing
		{`{"steps": [{"id": "a", "arguments": {"command": "ls`, truncation{"steps", 0, cutInside}},
		{`{"nodes": [{"id": "a"}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to`, truncation{"edges", 1, cutInside}},
		{`[{"id": "a"}, {"id": "b"`, truncation{"steps", 1, cutInside}},
		{`{"name": "cut in the na`, truncation{}},
		{`{"steps": [{"id": "a", "then": [{"id": "b"`, truncation{"steps", 0, cutInside}},
		{`{"steps": [{"id": "a"}]}`, truncation{}},
	} {
		if got := findTruncation(tt.in); got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseOutputDropsTheCutItem(t *testing.T) {
	in := `{"steps": [{"id": "a", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}},
	{"id": "b", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "rm -rf /tmp/cache/pro`
	w, ws, err := ParseOutput(in, ParseOptions{Catalog: testCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Nodes) != 1 || w.Nodes[0].Key != "a" {
		t.Fatalf("want only step a, got %d nodes", len(w.Nodes))
	}
	if !containsWarning(ws, StageTruncation, `cut off inside steps[1] ("b")`) {
		t.Errorf("no warning about the cut step: %v", ws)
	}
	// The only step cut: nothing is left.
	_, _, err = ParseOutput(`{"steps": [{"id": "a", "step_type": "Tool", "tool_name": "lo`, ParseOptions{})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageDecode {
		t.Errorf("want a decode StageError, got %v", err)
	}
}
