package workflow

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const minimal = `{"format":"weft/v1","id":"w1","name":"t","nodes":[{"id":"n1","name":"Check file","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}}],"edges":[]}`

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, in, want string
		line, col      int
	}{
		{"syntax", "{\n  \"format\": \"weft/v1\",\n  \"nodes\": [,]\n}", "invalid JSON", 3, 13},
		{"truncated", `{"format":"weft/v1","nodes":[`, "unexpected end", 1, 30},
		{"not object", `[1]`, "expected", 1, 1},
		{"null", `null`, "expected a JSON object", 1, 1},
		{"missing format", `{"nodes":[],"edges":[]}`, "format: missing", 0, 0},
		{"wrong format", `{"format":"weft/v2","nodes":[],"edges":[]}`, `format: got "weft/v2"`, 0, 0},
		{"missing nodes", `{"format":"weft/v1","edges":[]}`, "nodes: missing", 0, 0},
		{"missing edges", `{"format":"weft/v1","nodes":[]}`, "edges: missing", 0, 0},
		{"nodes not array", `{"format":"weft/v1","nodes":{},"edges":[]}`, "nodes: must be an array", 0, 0},
		{"wrong type", "{\"format\":\"weft/v1\",\"edges\":[],\n\"nodes\":[{\"id\":\"a\",\"type\":\"Loop\",\"params\":{\"max_iterations\":\"ten\"}}]}", "nodes[0].params.max_iterations: expected a whole number, got JSON string", 2, 65},
		{"trailing data", `{"format":"weft/v1","nodes":[],"edges":[]} {}`, "unexpected data after", 1, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse([]byte(c.in))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want *ParseError, got %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			if c.line != 0 && pe.Line != c.line {
				t.Fatalf("line %d want %d (%v)", pe.Line, c.line, err)
			}
			if c.col != 0 && pe.Column != c.col {
				t.Fatalf("column %d want %d (%v)", pe.Column, c.col, err)
			}
		})
	}
}

func TestParseDefaults(t *testing.T) {
	in := `{"format":"weft/v1","name":"t","nodes":[
	  {"id":"a","name":"Check file","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}},
	  {"id":"b","name":"Check file","type":"Loop","params":{}},
	  {"name":"9 lives!","type":"Tool","params":{}}
	],"edges":[{"from":"a","to":"b"}]}`
	w, warnings, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if w.ID == "" {
		t.Fatal("no workflow id assigned")
	}
	if w.Nodes[0].Key != "check_file" || w.Nodes[1].Key != "check_file_2" || w.Nodes[2].Key != "n_9_lives" {
		t.Fatalf("keys: %q %q %q", w.Nodes[0].Key, w.Nodes[1].Key, w.Nodes[2].Key)
	}
	if w.Nodes[2].ID == "" {
		t.Fatal("no node id assigned")
	}
	if w.Nodes[1].LoopMax() != DefaultMaxIterations || !w.Nodes[0].IsEnabled() {
		t.Fatal("defaults not applied")
	}
	if len(warnings) != 4 { // one id, three keys
		t.Fatalf("warnings: %v", warnings)
	}
}

func TestUnknownFieldsSurviveRoundTrip(t *testing.T) {
	in := `{"format":"weft/v1","id":"w","name":"t","x_meta":{"a":1},
	"nodes":[{"id":"n1","key":"k","name":"N","type":"If","ui":{"color":"red"},
	  "params":{"condition":"true","future":[1,2]}}],
	"edges":[{"from":"n1","to":"n1","output":"IfTrue","style":"dashed"}]}`
	w, _, err := Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if w.Edges[0].Output == nil || w.Edges[0].Output.Type != OutIfTrue {
		t.Fatal("bare string output label not accepted")
	}
	out, err := Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	node := m["nodes"].([]any)[0].(map[string]any)
	edge := m["edges"].([]any)[0].(map[string]any)
	if m["x_meta"] == nil || node["ui"] == nil || node["params"].(map[string]any)["future"] == nil || edge["style"] != "dashed" {
		t.Fatalf("unknown fields lost:\n%s", out)
	}
	// Stable: a second round trip is byte-identical.
	w2, _, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	out2, _ := Marshal(w2)
	if string(out) != string(out2) {
		t.Fatalf("round trip not stable:\n%s\n%s", out, out2)
	}
}

func TestSaveLoadAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "wf.json")
	w, _, err := Parse([]byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(path, w); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Nodes[0].Params.Arguments["command"] != "true" || got.Nodes[0].Key != "check_file" {
		t.Fatalf("round trip: %+v", got.Nodes[0])
	}
	// A value JSON cannot encode makes Save fail and leaves the file alone.
	before, _ := os.ReadFile(path)
	got.Nodes[0].Params.Arguments["bad"] = func() {}
	if err := Save(path, got); err == nil {
		t.Fatal("save of unencodable workflow succeeded")
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("failed save changed the file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "broken.json")
	os.WriteFile(path, []byte("{\n\"format\": \"weft/v1\",\n\"nodes\": [}\n"), 0o644)
	_, _, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "broken.json: line 3") {
		t.Fatalf("got %v", err)
	}
	if _, _, err := Load(filepath.Join(dir, "missing.json")); err == nil {
		t.Fatal("missing file loaded")
	}
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("dir: %v", err)
	}
}

func TestKeyFromName(t *testing.T) {
	for in, want := range map[string]string{
		"Check file": "check_file", "  Hello,  World!! ": "hello_world", "": "node", "123": "n_123",
		"Ünïcode näme": "n_code_n_me", "already_ok": "already_ok",
	} {
		got := KeyFromName(in)
		if in == "Ünïcode näme" {
			if !ValidKey(got) {
				t.Errorf("%q → %q not valid", in, got)
			}
			continue
		}
		if got != want || !ValidKey(got) {
			t.Errorf("KeyFromName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCloneIsDeep(t *testing.T) {
	w, _, _ := Parse([]byte(minimal))
	c := w.Clone()
	c.Nodes[0].Params.Arguments["command"] = "false"
	c.Nodes[0].Name = "x"
	if w.Nodes[0].Params.Arguments["command"] != "true" || w.Nodes[0].Name != "Check file" {
		t.Fatal("clone aliases the original")
	}
}

// A saved workflow shows shell and HTML characters as written (a diff of
// a command is readable), and every string survives the round trip,
// whatever it holds: the neighbours of &&, < and > included.
func TestMarshalWritesCharactersAsWritten(t *testing.T) {
	values := []string{"make && make test > out.txt 2>&1 < /dev/null", "<script>&amp;</script>", `a\u0026b`, `\\u003c`,
		"\u2028\u2029", "\u202e", "tab\tnl\n", `"quoted"`, "ü → ✓", "\x00\x1f", "&", "<", ">", ""}
	for _, v := range values {
		w := &Workflow{Name: v, Nodes: []Node{{ID: "n", Key: "k", Type: TypeTool, Name: v,
			Params: Params{Tool: "run_command", Arguments: map[string]any{"command": v, v: v}}}}}
		b, err := Marshal(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, esc := range []string{`\u0026`, `\u003c`, `\u003e`} {
			if strings.Contains(strings.ReplaceAll(string(b), `\\`, ""), esc) {
				t.Errorf("%q: saved as %s", v, b)
			}
		}
		again, _, err := Parse(b)
		if err != nil {
			t.Fatalf("%q: %v", v, err)
		}
		if again.Name != v || again.Nodes[0].Name != v || again.Nodes[0].Params.Arguments["command"] != v || again.Nodes[0].Params.Arguments[v] != v {
			t.Errorf("%q did not survive the round trip: %s", v, b)
		}
	}
	b, _ := Marshal(&Workflow{Name: "x && y"})
	if !strings.Contains(string(b), `"x && y"`) {
		t.Errorf("&& not written as itself: %s", b)
	}
}
