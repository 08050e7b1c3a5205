package planner

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestFastRepair(t *testing.T) {
	tests := []struct {
		in    string
		want  string // the repaired JSON, compared as values
		kinds []string
	}{
		{`{"a": 1,}`, `{"a": 1}`, []string{"trailing commas"}},
		{`[1, 2,]`, `[1, 2]`, []string{"trailing commas"}},
		{`[1 2]`, `[1, 2]`, []string{"missing commas"}},
		{`{"a": 1 "b": 2}`, `{"a": 1, "b": 2}`, []string{"missing commas"}},
		{`{"a": {} "b": []}`, `{"a": {}, "b": []}`, []string{"missing commas"}},
		{`[1,, 2]`, `[1, 2]`, []string{"doubled commas"}},
		{`{"a" 1}`, `{"a": 1}`, []string{"missing colons"}},
		{`{"a": }`, `{"a": null}`, []string{"missing values"}},
		{`{"a":, "b": 2}`, `{"a": null, "b": 2}`, []string{"missing values"}},
		{`{"cmd": "echo "hi" there"}`, `{"cmd": "echo \"hi\" there"}`, []string{"quotes inside strings"}},
		{`{ "height": "(5'3")" }`, `{"height": "(5'3\")"}`, []string{"quotes inside strings"}},
		{`['it's', 'x']`, `["it's", "x"]`, []string{"quotes inside strings"}},
		{`{"a":"b,c,"d":"e"}`, `{"a": "b,c", "d": "e"}`, []string{"missing closing quote"}},
		{`{"a": "x" + 'y' +` + "\n" + `"z"}`, `{"a": "xyz"}`, []string{"concatenated"}},
		{`{"a": 01, "b": 1., "c": .5, "d": 0.0.1, "e": -}`, `{"a": "01", "b": 1.0, "c": 0.5, "d": "0.0.1", "e": 0}`, []string{"malformed numbers"}},
		{`callback({"a": 1});`, `{"a": 1}`, []string{"JSONP"}},
		{"{\"a\":\u00a0\"x\"}", `{"a": "x"}`, []string{"spaces outside strings"}},
		{`[1],`, `[1]`, []string{"trailing commas"}},
		{"{“a”: “b, c”, ‘d’: ‘don’t’}", `{"a": "b, c", "d": "don’t"}`, []string{"typographic quotes"}},
		{"{\"msg\": “He said ”hi” there”}", `{"msg": "He said ”hi” there"}`, []string{"typographic quotes", "quotes inside strings"}},
		{"{a: first line\n  second line,\n b: 2}", `{"a": "first line\n  second line", "b": 2}`, []string{"unquoted string values"}},
		{"{\"a\": 1 // c\n}", `{"a": 1}`, []string{"comments"}},
		{"{/* c */ \"a\": 1} # done", `{"a": 1}`, []string{"comments"}},
		{`{'a': 'it\'s "x"'}`, `{"a": "it's \"x\""}`, []string{"single quotes"}},
		{`{a: 1, $b: 2, _c: 3}`, `{"a": 1, "$b": 2, "_c": 3}`, []string{"unquoted keys"}},
		{`[True, False, None]`, `[true, false, null]`, []string{"Python literals"}},
		{`[undefined, NaN]`, `[null, null]`, []string{"non-JSON literals"}},
		{"[\"a\nb\", \"c\td\"]", `["a\nb", "c\td"]`, []string{"control characters"}},
		{`["C:\Users\x", "\d+"]`, `["C:\\Users\\x", "\\d+"]`, []string{"backslashes"}},
		{`["\u00e9\n"]`, `["é\n"]`, nil},
		{`[1, 2, ...]`, `[1, 2]`, []string{"placeholders"}},
		{`[...]`, `[]`, []string{"placeholders"}},
		{`{"a": 1}}`, `{"a": 1}`, []string{"extra closing"}},
		{`{"a": [1}`, `{"a": [1]}`, []string{"mismatched"}},
		{`{"a": [{"b": "cu`, `{"a": [{"b": "cu"}]}`, []string{"unterminated string", "missing closing brackets"}},
		{`{"a": [1, `, `{"a": [1]}`, []string{"missing closing brackets"}},
		{`{"a"`, `{"a": null}`, []string{"missing values", "missing closing brackets"}},
		{`{"a": -1.5e3, "b": 0}`, `{"a": -1500, "b": 0}`, nil},
	}
	for _, tt := range tests {
		out, fixes, ok := fastRepair(tt.in)
		if !ok {
			t.Errorf("%q: gave up", tt.in)
			continue
		}
		var got, want any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Errorf("%q: output %q is not JSON", tt.in, out)
			continue
		}
		if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %s, want %s", tt.in, out, tt.want)
		}
		desc := fixes.describe(tt.in)
		for _, k := range tt.kinds {
			if !strings.Contains(desc, k) {
				t.Errorf("%q: fixes %q do not name %q", tt.in, desc, k)
			}
		}
		if len(tt.kinds) == 0 && desc != "" {
			t.Errorf("%q: unexpected fixes %q", tt.in, desc)
		}
	}
}

// TestFastRepairGivesUp: what it cannot be sure of goes to the library.
func TestFastRepairGivesUp(t *testing.T) {
	for _, in := range []string{
		`{"a": hello "world"}`, // an unquoted value with quotes in it
		`{"a", "b": 2}`,        // a key with no colon: refused, not guessed
		`{"a" ]`, `{"a": +1}`,
		`{"a": 1} {"b": 2}`, // two values
		`{"a": 1 = 2}`, "", "   ",
	} {
		if out, _, ok := fastRepair(in); ok {
			t.Errorf("%q: repaired to %q; want the library to decide", in, out)
		}
	}
	// …and the library does it.
	out, ws, err := RepairJSON(`{"a": <b>}`)
	if err != nil || !json.Valid([]byte(out)) || len(ws) != 1 {
		t.Errorf("fallback: %q %v %v", out, ws, err)
	}
}

// Unquoted values are read in linear time, up to the next comma, closing
// bracket or line end.
func TestFastRepairUnquotedValues(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": hello world}`:                          `{"a": "hello world"}`,
		`{"command": ls -la /tmp, "x": 1}`:            `{"command": "ls -la /tmp", "x": 1}`,
		`{"steps": [{"cmd": cat file.txt | grep x}]}`: `{"steps": [{"cmd": "cat file.txt | grep x"}]}`,
		"{\"a\": first line\n, \"b\": 2}":             `{"a": "first line", "b": 2}`,
		`{"url": https://example.com/a?b=c}`:          `{"url": "https://example.com/a?b=c"}`,
	} {
		out, fixes, ok := fastRepair(in)
		if !ok || !sameJSON(out, want) || fixes.count[fixUnquotedValue] == 0 {
			t.Errorf("%q: %q %v", in, out, ok)
		}
	}
}

// TestFastRepairKeepsValidJSON: on valid JSON the linear pass changes no
// value and reports no fix.
func TestFastRepairKeepsValidJSON(t *testing.T) {
	for _, file := range corpusFiles(t) {
		text := readFile(t, file)
		js, _, err := ExtractJSON(text)
		if err != nil || !json.Valid([]byte(js)) {
			continue
		}
		out, fixes, ok := fastRepair(js)
		if !ok {
			t.Errorf("%s: gave up on valid JSON", file)
			continue
		}
		var a, b any
		json.Unmarshal([]byte(js), &a)
		json.Unmarshal([]byte(out), &b)
		if !reflect.DeepEqual(a, b) || fixes.describe(js) != "" {
			t.Errorf("%s: changed valid JSON (%s)", file, fixes.describe(js))
		}
	}
}
