package approval

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/reveal"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// hostile is a model-written step whose command shows as
// `cp out/usage.log out/backup.log` where bidi and zero-width characters
// are rendered, while it holds others.
const hostile = `{"id":"x","key":"co\u200bpy","provenance":{"source":"model"},"name":"Back up\u2066 the log","type":"Tool","verify":"a\u202eb","x-note":"x\u2066",
	"params":{"tool":"run_command","arguments":{"command":"cp out/usage.log out/\u202egol.pukcab","env\u200b":{"X":"\u2066y"},"timeout_s":30}}}`

func stepOf(t *testing.T, js string) Step {
	t.Helper()
	w := &workflow.Workflow{Nodes: []workflow.Node{*node(t, js)}}
	steps := Pending(w, Scope{Catalog: tools.Builtin(), Dir: t.TempDir()}, func(string) bool { return false })
	if len(steps) != 1 {
		t.Fatalf("%s: %d steps to approve", js, len(steps))
	}
	return steps[0]
}

// strs calls f with every string of v's JSON form, by path.
func strs(v any, path string, f func(path, s string)) {
	switch t := v.(type) {
	case string:
		f(path, t)
	case []any:
		for i, e := range t {
			strs(e, path+"["+string(rune('0'+i%10))+"]", f)
		}
	case map[string]any:
		for k, e := range t {
			f(path+".(key)", k)
			strs(e, path+"."+k, f)
		}
	}
}

// shown fails when a string of the display (as the desktop receives it)
// holds a character that would not show.
func shown(t *testing.T, d Display) {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	strs(v, "display", func(path, s string) {
		if strings.ContainsFunc(s, reveal.Hidden) {
			t.Errorf("%s = %q hides characters", path, s)
		}
	})
}

func TestDisplayEscapesEverythingShown(t *testing.T) {
	st := stepOf(t, hostile)
	d := st.Display()
	shown(t, d)
	if !d.Escaped || d.Note != reveal.Note {
		t.Errorf("escaped %v, note %q", d.Escaped, d.Note)
	}
	if d.Key != `co\u200Bpy` || d.Name != `Back up\u2066 the log` {
		t.Errorf("key %q, name %q", d.Key, d.Name)
	}
	want := []Field{
		{Name: "command", Value: `cp out/usage.log out/\u202Egol.pukcab`, Escaped: true},
		{Name: `env\u200B`, Value: "{\n  \"X\": \"\\u2066y\"\n}", JSON: true, Escaped: true},
		{Name: "timeout_s", Value: "30", JSON: true},
	}
	if !reflect.DeepEqual(d.Arguments, want) {
		t.Errorf("arguments\n%#v\nwant\n%#v", d.Arguments, want)
	}
	other := map[string]Field{}
	for _, f := range d.Other {
		other[f.Name] = f
	}
	if other["verify"] != (Field{Name: "verify", Value: `a\u202Eb`, Escaped: true}) || other["x-note"] != (Field{Name: "x-note", Value: `x\u2066`, Escaped: true}) {
		t.Errorf("other %#v", d.Other)
	}
	// The content shown is JSON for exactly what approval covers.
	var a, b any
	if json.Unmarshal([]byte(st.Content), &a) != nil || json.Unmarshal([]byte(d.Content), &b) != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("content %s reads differently from %s", d.Content, st.Content)
	}
	if !strings.Contains(d.Content, `out/\u202Egol`) {
		t.Errorf("content %s", d.Content)
	}
}

func TestDisplayOfPlainStep(t *testing.T) {
	st := stepOf(t, `{"id":"x","key":"go","name":"Go","type":"AiStep","provenance":{"source":"model"},"params":{"prompt":"a && b > c \\ d","allowed_tools":["run_command"]}}`)
	d := st.Display()
	if d.Escaped || d.Note != "" {
		t.Errorf("a plain step is escaped: %#v", d)
	}
	if d.Prompt != `a && b > c \ d` || d.Content != st.Content || !reflect.DeepEqual(d.Tools, st.Tools) {
		t.Errorf("display %#v", d)
	}
	// A prompt with a hidden character is escaped, and its backslash doubled.
	st.Prompt += "\u200b"
	if d := st.Display(); d.Prompt != `a && b > c \\ d\u200B` || !d.Escaped {
		t.Errorf("prompt %q, escaped %v", d.Prompt, d.Escaped)
	}
}

// A condition a model wrote is shown escaped wherever it appears: in the
// reason, as params.condition, and where the node leads; so is what a
// file's step was when last reviewed.
func TestDisplayOfControlFlow(t *testing.T) {
	w := &workflow.Workflow{Nodes: []workflow.Node{
		*node(t, `{"id":"i","key":"passed","type":"If","provenance":{"source":"model"},"params":{"condition":"tests.ok \u202e|| true"}}`),
		*node(t, `{"id":"d","key":"deploy\u200b","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}`),
	}, Edges: []workflow.Edge{{From: "i", To: "d", Output: &workflow.EdgeOutput{Type: workflow.OutIfTrue}}}}
	steps := Pending(w, Scope{Catalog: tools.Builtin(), Dir: t.TempDir()}, func(string) bool { return false })
	if len(steps) != 1 {
		t.Fatalf("steps %+v", steps)
	}
	st := steps[0]
	st.Previous = `{"params": {"condition": "tests.ok\u2066"}}`
	d := st.Display()
	shown(t, d)
	other := map[string]Field{}
	for _, f := range d.Other {
		other[f.Name] = f
	}
	if !strings.Contains(d.Reason, `tests.ok \u202E|| true`) || other["params.condition"].Value != `tests.ok \u202E|| true` ||
		!strings.Contains(other["next"].Value, `deploy\u200B`) || d.Previous != `{"params": {"condition": "tests.ok\u2066"}}` || !d.Escaped {
		t.Errorf("display %#v", d)
	}
}

// Every Step sent as JSON (to the desktop, in --json output) carries its
// display; its own fields stay as they were.
func TestStepJSONCarriesDisplay(t *testing.T) {
	st := stepOf(t, hostile)
	b, err := json.Marshal([]Step{st})
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		Step
		Display Display `json:"display"`
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got[0].Display, st.Display()) {
		t.Errorf("display %#v", got[0].Display)
	}
	var back []Step
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back[0].Arguments["command"], st.Arguments["command"]) || back[0].Content != st.Content {
		t.Errorf("step fields changed: %v %#v", err, back)
	}
}

// FuzzStepDisplay: whatever a model writes into any part of a step, the
// display holds no character that would not show.
func FuzzStepDisplay(f *testing.F) {
	for _, s := range []string{"", "cp a b", "\u202e", "\u200b\u2066", "\xff", "a\\b\u202e", "\r\x1b[2K"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		st := Step{Key: s, Name: s, Tool: s, Reason: s, Prompt: s, Tools: []string{s},
			Arguments: map[string]any{s: s, "n": map[string]any{s: []any{s, 1.5, true, nil}}}}
		c, _ := json.Marshal(map[string]any{s: s, "params": map[string]any{"x": s}})
		st.Content, st.Previous = string(c), string(c)
		d := st.Display()
		shown(t, d)
		if hidden := strings.ContainsFunc(s, reveal.Hidden); (hidden || s != strings.ToValidUTF8(s, "")) && !d.Escaped {
			t.Fatalf("%q: not marked escaped", s)
		}
	})
}

// Where a step leads is shown as words, not JSON.
func TestDisplayNext(t *testing.T) {
	w := parseWF(t, flowWF)
	for _, c := range []struct{ key, want string }{
		{"passed", "IfFalse → note; IfTrue → deploy"},
		{"tests", "→ passed"},
		{"deploy", "nowhere: the run ends after it"},
	} {
		var got string
		for _, s := range Required(w, Scope{Dir: t.TempDir(), File: true}) {
			if s.Key == c.key {
				for _, f := range s.Display().Other {
					if f.Name == "next" {
						got = f.Value
					}
				}
			}
		}
		if got != c.want {
			t.Errorf("%s: next %q, want %q", c.key, got, c.want)
		}
	}
}
