package planner

import (
	"errors"
	"strings"
	"testing"
)

func TestExtractJSON(t *testing.T) {
	const plan = `{"steps": [{"id": "a", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "hi {x}"}}]}`
	tests := []struct {
		name     string
		in       string
		want     string   // the extracted text
		warnings []string // substrings, each in some warning
		quiet    bool     // no warnings at all
	}{
		{name: "bare JSON", in: plan, want: plan, quiet: true},
		{name: "surrounding whitespace", in: "\n\n  " + plan + "\n", want: plan, quiet: true},
		{name: "byte order mark", in: "\uFEFF" + plan, want: plan, quiet: true},
		{name: "json fence", in: "```json\n" + plan + "\n```", want: plan, warnings: []string{"code fence"}},
		{name: "bare fence", in: "```\n" + plan + "\n```\n", want: plan, warnings: []string{"code fence"}},
		{name: "prose around", in: "Here you go:\n" + plan + "\nHope it helps!", want: plan,
			warnings: []string{"ignored 12 characters of prose before and 14 after"}},
		{name: "prose with braces before", in: "Use {placeholders} and [lists] like this.\n" + plan, want: plan,
			warnings: []string{"took block 3 of 3"}},
		{name: "unbalanced prose brace before", in: "Note: the set {a, b is open\n```json\n" + plan + "\n```", want: plan,
			warnings: []string{"took block 2 of 2"}},
		{name: "unbalanced prose brace, no fence", in: "Note: the set {a, b is open\n" + plan, want: plan,
			warnings: []string{"ignored 27 characters of prose before"}},
		{name: "think block with draft", in: "<think>maybe {\"steps\": []} ... no</think>\n" + plan, want: plan,
			warnings: []string{"removed 1 <think> reasoning block"}},
		{name: "think block upper case", in: "<THINK>hmm</THINK>" + plan, want: plan, warnings: []string{"reasoning block"}},
		{name: "thinking tag", in: "<thinking>{\"steps\": [1]}</thinking>" + plan, want: plan, warnings: []string{"<thinking>"}},
		{name: "unterminated think", in: "<think>\nI will answer with:\n" + plan, want: plan, warnings: []string{"never closed"}},
		{name: "close tag only", in: "so the plan is {\"steps\": []}\n</think>\n\n" + plan, want: plan,
			warnings: []string{"its opening tag was not in the reply"}},
		{name: "answer only inside think", in: "<think>" + plan + "</think>\nDone.", want: plan,
			warnings: []string{"inside it"}},
		{name: "argument example then plan", in: "Arguments look like {\"command\": \"ls\"}.\n```json\n" + plan + "\n```",
			want: plan, warnings: []string{"took block 2 of 2"}},
		{name: "draft then final: last wins", in: `{"steps": [{"id": "draft"}]}` + "\nFixed:\n" + plan, want: plan,
			warnings: []string{"took block 2 of 2"}},
		{name: "complete plan beats a later cut-off one", in: plan + "\nAlternatively:\n{\"steps\": [{\"id\": \"b\"", want: plan,
			warnings: []string{"took block 1 of 2"}},
		{name: "cut off: runs to the end", in: "```json\n{\"steps\": [{\"id\": \"a\"", want: `{"steps": [{"id": "a"`,
			warnings: []string{"not closed (3 bracket(s)", "cut off"}},
		{name: "cut off before a closing fence", in: "```json\n{\"steps\": [{\"id\": \"a\"}\n```\nThat's it.", want: `{"steps": [{"id": "a"}`,
			warnings: []string{"not closed"}},
		{name: "braces inside strings", in: `{"steps": [{"id": "}", "name": "{[{"}]} trailing`, want: `{"steps": [{"id": "}", "name": "{[{"}]}`},
		{name: "escaped quote inside string", in: `{"steps": [{"name": "say \"}\""}]}`, want: `{"steps": [{"name": "say \"}\""}]}`, quiet: true},
		{name: "single-quoted strings", in: `{'steps': [{'name': '}'}]} ok`, want: `{'steps': [{'name': '}'}]}`},
		{name: "apostrophe in unquoted text", in: `{steps: [{name: don't}]}`, want: `{steps: [{name: don't}]}`, quiet: true},
		{name: "comment with a brace", in: "{\"steps\": [ // a } here\n{\"id\": \"a\"}]}", want: "{\"steps\": [ // a } here\n{\"id\": \"a\"}]}", quiet: true},
		{name: "bare array of steps", in: `[{"step_type": "Tool", "tool_name": "log"}]`, want: `[{"step_type": "Tool", "tool_name": "log"}]`, quiet: true},
		{name: "step list beats a footnote", in: `[1] see below: [{"tool_name": "log"}]`, want: `[{"tool_name": "log"}]`},
		{name: "no plan: largest block", in: `a {"x": 1} b {"answer": "use make", "more": true}`, want: `{"answer": "use make", "more": true}`,
			warnings: []string{`no JSON block holds "steps"`}},
		{name: "unquoted keys count as a plan", in: "x {y} " + `{steps: [{id: "a"}]}`, want: `{steps: [{id: "a"}]}`},
		{name: "cut off around a complete step: the outer block, not the fragment",
			in:       "```json\n{\"steps\": [{\"id\": \"a\", \"step_type\": \"Tool\", \"tool_name\": \"log\"}, {\"id\": \"b\", \"step_type\": \"Tool\", \"tool_name\": \"log\"}",
			want:     "{\"steps\": [{\"id\": \"a\", \"step_type\": \"Tool\", \"tool_name\": \"log\"}, {\"id\": \"b\", \"step_type\": \"Tool\", \"tool_name\": \"log\"}",
			warnings: []string{"cut off"}},
		{name: "cut off object holding a complete one", in: `json{"big": {"a": 11}, "nums": [{"a": 22`, want: `{"big": {"a": 11}, "nums": [{"a": 22`,
			warnings: []string{"cut off"}},
		{name: "a lone brace at the end is a cut-off reply", in: "Sure:\n{", want: "{", warnings: []string{"cut off"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ws, err := ExtractJSON(tt.in)
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			for _, sub := range tt.warnings {
				if !containsWarning(ws, StageExtract, sub) {
					t.Errorf("no extract warning contains %q; got %v", sub, ws)
				}
			}
			if tt.quiet && len(ws) > 0 {
				t.Errorf("want no warnings, got %v", ws)
			}
			for _, w := range ws {
				if w.Stage != StageExtract {
					t.Errorf("warning of stage %q from ExtractJSON", w.Stage)
				}
			}
		})
	}
}

func TestExtractJSONNoJSON(t *testing.T) {
	for _, in := range []string{"", "   ", "I can't help with that.", "<think>{\"x\"</think>", "a ] b } c"} {
		_, _, err := ExtractJSON(in)
		var se *StageError
		if !errors.As(err, &se) || se.Stage != StageExtract {
			t.Errorf("%q: want an extract StageError, got %v", in, err)
			continue
		}
		if !strings.Contains(se.Error(), `"steps"`) {
			t.Errorf("%q: the error should say what to send: %v", in, se)
		}
	}
}

// TestExtractJSONLinear: nested unclosed brackets do not make extraction
// quadratic.
func TestExtractJSONLinear(t *testing.T) {
	in := strings.Repeat("{[", 200000) + `{"steps": []}`
	if _, _, err := ExtractJSON(in); err != nil {
		t.Fatal(err)
	}
}

func containsWarning(ws []Warning, stage, sub string) bool {
	for _, w := range ws {
		if (stage == "" || w.Stage == stage) && strings.Contains(w.Message, sub) {
			return true
		}
	}
	return false
}
