package planner

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestSurfaceDamage: one plan, written with each kind of surface damage
// models add around or over JSON (and two of them at once), reads as the
// same steps; the damages that cut the reply make a plan that says what
// it left out, never a silent fragment.
func TestSurfaceDamage(t *testing.T) {
	plans := []string{
		`{"steps": [{"id": "pack", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "tar czf n.tgz notes"}}, {"id": "say", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{pack.stdout}}"}}]}`,
		`{"nodes": [{"id": "get", "step_type": "Tool", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://example.com/"}}, {"id": "save", "step_type": "Tool", "tool_name": "write_file", "arguments": {"path": "index.html", "content": "{{get.body}}"}}, {"id": "done", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "saved"}}], "edges": [{"from": "get", "to": "save"}, {"from": "save", "to": "done"}]}`,
	}
	enc := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	whole := map[string]func(string) string{
		"as is":          func(s string) string { return s },
		"fenced":         func(s string) string { return "```json\n" + s + "\n```" },
		"prose around":   func(s string) string { return "Here is the plan:\n" + s + "\nLet me know." },
		"JSON string":    enc,
		"JSON string x2": func(s string) string { return enc(enc(s)) },
		"markdown escapes": func(s string) string {
			return strings.NewReplacer("{", `\{`, "}", `\}`, "[", `\[`, "]", `\]`).Replace(s)
		},
		"doubled opening": func(s string) string { return `{"` + s },
		"think block":     func(s string) string { return "<think>first the archive, then the log</think>\n" + s },
		"escaped quotes":  func(s string) string { return strings.ReplaceAll(s, `"`, `\"`) + `\n` },
		"written newlines": func(s string) string {
			return strings.ReplaceAll(strings.ReplaceAll(s, "[{", "[\\n  {"), "}, {", "},\\n  {")
		},
		"began again": func(s string) string { return s[:57] + "\n" + s },
		"extra brace": func(s string) string { return strings.Replace(s, "}}, {", "}}}, {", 1) },
		"arguments as Python dicts": func(s string) string {
			return regexp.MustCompile(`"arguments": (\{[^{}]*\})`).ReplaceAllStringFunc(s, func(m string) string {
				q, _ := json.Marshal(strings.ReplaceAll(m[len(`"arguments": `):], `"`, "'"))
				return `"arguments": ` + string(q)
			})
		},
		"missing closer": func(s string) string { return strings.TrimSuffix(s, "}") }, // the list closed, the object not
	}
	cut := map[string]func(string) string{
		"cut in the last step": func(s string) string { return s[:strings.LastIndex(s, `"tool_name"`)+8] },
		"cut after a comma":    func(s string) string { return s[:strings.LastIndex(s, `}, {"id"`)+3] },
		"items elided":         func(s string) string { return strings.Replace(s, `}}, {"id"`, `}}, ..., {"id"`, 1) },
		"cut after an item":    func(s string) string { return s[:strings.LastIndex(s, `}, {"id"`)+1] },
	}
	opts := ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: testCatalog()}
	read := func(text string) (int, Unused, error) {
		w, _, u, err := ReadReply(context.Background(), text, opts)
		if err != nil {
			return 0, u, err
		}
		return len(w.Nodes), u, nil
	}
	for pi, plan := range plans {
		want, _, err := read(plan)
		if err != nil {
			t.Fatal(err)
		}
		for name, f := range whole {
			for name2, g := range map[string]func(string) string{"": func(s string) string { return s }, " in a fence": whole["fenced"]} {
				text := g(f(plan))
				n, u, err := read(text)
				if err != nil || n != want || u.Dropped() {
					t.Errorf("plan %d, %s%s: %d steps (want %d), left out %v, err %v\n%s", pi, name, name2, n, want, u.Steps, err, text)
				}
			}
		}
		for name, f := range cut {
			text := f(plan)
			n, u, err := read(text)
			if err == nil && !u.Dropped() {
				t.Errorf("plan %d, %s: a plan of %d steps that says nothing is left out\n%s", pi, name, n, text)
			}
		}
	}
}

// TestBareArguments: arguments written as one value go to the tool's one
// required argument; a tool with several required arguments gets none,
// and the warning names the value.
func TestBareArguments(t *testing.T) {
	opts := ParseOptions{Catalog: testCatalog()}
	for _, v := range []string{`"ls -l"`, `"Desktop; rm -rf /"`, `42`, `true`} {
		w, _, err := ParseOutput(`{"steps": [{"step_type": "Tool", "tool_name": "run_command", "arguments": `+v+`}]}`, opts)
		if err != nil {
			t.Fatal(err)
		}
		if got := w.Nodes[0].Params.Arguments["command"]; got != strings.Trim(v, `"`) {
			t.Errorf("%s: command = %#v", v, got)
		}
	}
	w, ws, err := ParseOutput(`{"steps": [{"step_type": "Tool", "tool_name": "http_request", "arguments": "https://example.com"}]}`, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Nodes[0].Params.Arguments) != 0 || !containsWarning(ws, StageMap, `the value "https://example.com" was ignored`) {
		t.Errorf("http_request has two required arguments: %v %v", w.Nodes[0].Params.Arguments, ws)
	}
}

// TestElidedEdges: "..." among a graph's edges is said about its edges,
// not counted as steps left out.
func TestElidedEdges(t *testing.T) {
	text := `{"nodes": [{"id": "a", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "a"}}, {"id": "b", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "b"}}], "edges": [{"from": "a", "to": "b"}, ...]}`
	_, _, u, err := ReadReply(context.Background(), text, ParseOptions{Catalog: testCatalog()})
	if err != nil {
		t.Fatal(err)
	}
	if u.Dropped() || len(u.Edges) == 0 || !strings.Contains(strings.Join(u.Edges, ";"), "edges list") {
		t.Errorf("steps %v, edges %v", u.Steps, u.Edges)
	}
}
