package planner

import (
	"encoding/json"
	"strings"
	"testing"
)

// Defects models write that used to come back wrong or silently empty.
func TestRepairClasses(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the repaired value, compared as JSON
		warn     string
	}{
		{"triple-quoted command", "{\"command\": \"\"\"ls -la\necho \"hi\" \"\"\", \"x\": 1}", `{"command": "ls -la\necho \"hi\" ", "x": 1}`, "triple-quoted"},
		{"single triple quotes", "{\"prompt\": '''two\nlines'''}", `{"prompt": "two\nlines"}`, "triple-quoted"},
		{"escaped apostrophe", `{"message": "Don\'t stop"}`, `{"message": "Don't stop"}`, `\' read as '`},
		{"backslash before a line break", "{\"a\": \"first\\\nsecond\"}", `{"a": "first\nsecond"}`, "line breaks"},
		{"missing quote before the brackets", `{"url": "https://example.com/}`, `{"url": "https://example.com/"}`, "missing closing quote"},
		{"missing quote at the line end", "[\"abc\n]", `["abc"]`, "missing closing quote"},
		{"cut-off escape", `{"a": "snow \u26`, `{"a": "snow"}`, "cut off"},
		{"cut-off key ends before its spaces", "{\"s \\ud", `{"s": null}`, "cut off"},
		{"cut-off value ends before its spaces", "[\"echo hi  ", `["echo hi"]`, "cut off"},
		{"a real cut-off keeps its text", `{"steps": [{"id": "a", "prompt": "Summarise the`, `{"steps": [{"id": "a", "prompt": "Summarise the"}]}`, "cut off"},
		{"unknown escape keeps its backslash", `{"path": "C:\Users\me"}`, `{"path": "C:\\Users\\me"}`, "backslashes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ws, err := RepairJSON(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(got, tc.want) {
				t.Fatalf("got %s, want %s", got, tc.want)
			}
			var all []string
			for _, w := range ws {
				all = append(all, w.Message)
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.warn) {
				t.Errorf("warnings %q lack %q", all, tc.warn)
			}
		})
	}
	// Valid JSON is never altered.
	for _, v := range []string{`{"a": "Don't"}`, `{"a": "\"\"\"x\"\"\""}`, `["\u2603"]`} {
		if got, ws, err := RepairJSON(v); err != nil || got != v || len(ws) != 0 || !json.Valid([]byte(got)) {
			t.Errorf("%s altered: %s %v %v", v, got, ws, err)
		}
	}
}
