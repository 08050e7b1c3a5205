package planner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// alignSources are the corpus replies the decoder reads as written: the
// tests below rewrite them the ways models do and expect the same plan.
func alignSources(t testing.TB) map[string]*vnode {
	files, err := filepath.Glob(filepath.Join(corpusDir, "valid_*.txt"))
	if err != nil || len(files) < 5 {
		t.Fatalf("corpus: %v, %d valid replies", err, len(files))
	}
	out := map[string]*vnode{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		js, _, err := ExtractJSON(string(text))
		if err != nil {
			t.Fatal(err)
		}
		fixed, _, err := RepairJSON(js)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".txt")] = fromGJSON(gjson.Parse(fixed), newAlignBudget(context.Background()), 0)
	}
	return out
}

// shape sums a parse up: node types and tools, in order, and the edge count.
func shape(t testing.TB, text string) (string, []Warning, error) {
	w, ws, err := ParseOutput(text, ParseOptions{Features: Features{true, true}, Catalog: testCatalog()})
	if err != nil {
		return "", ws, err
	}
	var parts []string
	for _, n := range w.Nodes {
		parts = append(parts, string(n.Type)+":"+n.Params.Tool)
	}
	return fmt.Sprintf("%s; %d edges", strings.Join(parts, ","), len(w.Edges)), ws, nil
}

func (n *vnode) json() string { return string(n.appendJSON(nil)) }

// clone copies a tree deeply.
func (n *vnode) clone() *vnode {
	c := *n
	c.keys = slices.Clone(n.keys)
	c.kids = make([]*vnode, len(n.kids))
	for i, k := range n.kids {
		c.kids[i] = k.clone()
	}
	c.inner, c.tried = nil, false
	return &c
}

// rename renames a key of every object in the tree.
func (n *vnode) rename(from, to string) {
	for i, k := range n.keys {
		if k == from {
			n.keys[i] = to
		}
	}
	for _, k := range n.kids {
		k.rename(from, to)
	}
}

// yaml renders a tree as block YAML.
func (n *vnode) yaml(b *strings.Builder, indent string) {
	switch n.kind {
	case vObj:
		for i, k := range n.keys {
			v := n.kids[i]
			if (v.kind == vObj || v.kind == vArr) && len(v.kids) > 0 {
				b.WriteString(indent + k + ":\n")
				v.yaml(b, indent+"  ")
				continue
			}
			b.WriteString(indent + k + ": " + v.yamlScalar() + "\n")
		}
	case vArr:
		for _, v := range n.kids {
			if (v.kind == vObj || v.kind == vArr) && len(v.kids) > 0 {
				var inner strings.Builder
				v.yaml(&inner, indent+"  ")
				b.WriteString(indent + "- " + strings.TrimPrefix(inner.String(), indent+"  "))
				continue
			}
			b.WriteString(indent + "- " + v.yamlScalar() + "\n")
		}
	}
}

func (n *vnode) yamlScalar() string {
	switch n.kind {
	case vStr:
		return strconv.Quote(n.s)
	case vObj:
		return "{}"
	case vArr:
		return "[]"
	}
	return n.json()
}

// The rewrites: each takes a plan the decoder reads and writes it as a
// model might, in a way the decoder cannot read.
var alignRewrites = map[string]func(plan *vnode) string{
	// Under envelopes, with the list under a name no table knows.
	"envelope": func(p *vnode) string {
		p.rename("steps", "actions")
		p.rename("nodes", "tasks")
		return `{"status": "ok", "result": {"workflow_definition": ` + p.json() + `}}`
	},
	// The whole plan as a JSON string (function-calling habits).
	"json string": func(p *vnode) string {
		q, _ := json.Marshal(p.json())
		return `{"response": ` + string(q) + `, "done": true}`
	},
	// Misspelt keys: one edit from the field's name.
	"typos": func(p *vnode) string {
		p.rename("step_type", "step_tpye")
		p.rename("tool_name", "tool_nme")
		p.rename("arguments", "argumnets")
		p.rename("steps", "stpes")
		p.rename("nodes", "nods")
		return p.json()
	},
	// Block YAML in a fence.
	"yaml": func(p *vnode) string {
		var b strings.Builder
		p.yaml(&b, "")
		return "Here is the plan:\n```yaml\n" + b.String() + "```\n"
	},
	// Every step a JSON value of its own, arguments as JSON strings.
	"json lines": func(p *vnode) string {
		list := p.get("steps")
		if list == nil || p.get("edges") != nil || len(list.kids) < 2 {
			return ""
		}
		var lines []string
		for _, st := range list.kids {
			st.rename("step_type", "steptype")
			for i, k := range st.keys {
				if k == "arguments" {
					st.kids[i] = strNode(st.kids[i].json())
				}
			}
			lines = append(lines, st.json())
		}
		return strings.Join(lines, "\n")
	},
}

// TestAlignReadsRewrites: every rewrite of every plan the decoder reads
// is read by the alignment stage as the same plan (types, tools, edges),
// with warnings that say it was.
func TestAlignReadsRewrites(t *testing.T) {
	for name, plan := range alignSources(t) {
		want, _, err := shape(t, plan.json())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for rw, f := range alignRewrites {
			text := f(plan.clone())
			if text == "" {
				continue
			}
			t.Run(name+"/"+rw, func(t *testing.T) {
				if _, _, _, err := readPlan(text); err == nil {
					t.Fatalf("the decoder reads the rewrite as written; it tests nothing:\n%s", text)
				}
				got, ws, err := shape(t, text)
				if err != nil {
					t.Fatalf("%v\n%s", err, text)
				}
				if got != want {
					t.Errorf("got %s\nwant %s\n%s", got, want, text)
				}
				if len(WarningsOf(ws, StageAlign)) < 2 {
					t.Errorf("the alignment says nothing: %v", ws)
				}
			})
		}
	}
}

// TestAlignKeyValueArguments: arguments written as text are read as the
// object they mean.
func TestAlignKeyValueArguments(t *testing.T) {
	for _, args := range []string{`path=notes.txt, mode=append`, "path: notes.txt\nmode: append", `path="notes.txt"; mode=append`} {
		q, _ := json.Marshal(args)
		text := `{"actions": [{"step_type": "Tool", "tool_name": "read_file", "arguments": ` + string(q) + `}, {"step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}}]}`
		w, ws, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()})
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if got := w.Nodes[0].Params.Arguments; got["path"] != "notes.txt" || got["mode"] != "append" {
			t.Errorf("%q: arguments %v; %v", args, got, ws)
		}
	}
}

// TestAlignEdgeReferences: edge ends by position, by name, in any case,
// as "a -> b" strings.
func TestAlignEdgeReferences(t *testing.T) {
	steps := `[{"name": "Check", "type": "Tool", "tool": "run_command", "args": {"command": "test -f x"}},
		{"id": "readIt", "type": "Tool", "tool": "read_file", "args": {"path": "x"}},
		{"id": "done", "type": "Tool", "tool": "log", "args": {"message": "ok"}}]`
	for _, edges := range []string{
		`["1 -> 2", "2 -> 3"]`, `["step_1 → step_2", "step2 => step3"]`, `[["check", "readit"], ["READIT", "done"]]`,
		`[{"source": "Check", "target": "readIt"}, {"src": "readIt", "dst": "done"}]`, `[{"frm": "0", "t0": "1"}, {"frm": "1", "t0": "2"}]`,
	} {
		text := `{"tasks": ` + steps + `, "wiring": ` + edges + `}`
		w, ws, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()})
		if err != nil {
			t.Fatalf("%s: %v", edges, err)
		}
		if len(w.Nodes) != 3 || len(w.Edges) != 2 {
			t.Errorf("%s: %d nodes, %d edges; %v", edges, len(w.Nodes), len(w.Edges), ws)
			continue
		}
		for i, e := range w.Edges {
			if e.From != w.Nodes[i].ID || e.To != w.Nodes[i+1].ID {
				t.Errorf("%s: edge %d joins the wrong nodes; %v", edges, i, ws)
			}
		}
	}
}

// TestAlignMargin: a reading that does not lead by the margin is no
// reading; the error names the candidates. One that leads wins.
func TestAlignMargin(t *testing.T) {
	step := func(msg string) string {
		return `{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "` + msg + `"}}`
	}
	tie := `{"draft": {"stps": [` + step("a") + `,` + step("b") + `]}, "final": {"stps": [` + step("c") + `,` + step("d") + `]}}`
	_, _, err := ParseOutput(tie, ParseOptions{Catalog: testCatalog()})
	var se *StageError
	if !errors.As(err, &se) || se.Stage != StageAlign || !strings.Contains(se.Msg, `"draft"`) || !strings.Contains(se.Msg, `"final"`) {
		t.Fatalf("want an align error naming both, got %v", err)
	}
	lead := `{"draft": {"stps": [` + step("a") + `]}, "final": {"stps": [` + step("b") + `,` + step("c") + `,` + step("d") + `]}}`
	w, _, err := ParseOutput(lead, ParseOptions{Catalog: testCatalog()})
	if err != nil || len(w.Nodes) != 3 {
		t.Fatalf("want the three-step reading, got %v", err)
	}
	// The same plan twice is one reading.
	twice := `{"a": {"stps": [` + step("a") + `]}, "b": {"stps": [` + step("a") + `]}}`
	if _, _, err := ParseOutput(twice, ParseOptions{Catalog: testCatalog()}); err != nil {
		t.Fatalf("a repeated plan: %v", err)
	}
	if alignLead(5) != alignMinLead || alignLead(100) != 100*alignRelLead {
		t.Errorf("alignLead does not follow docs/llm-format.md")
	}
}

// TestAlignRefusesNonPlans: replies with nothing that reads as steps keep
// the decoder's error.
func TestAlignRefusesNonPlans(t *testing.T) {
	for _, text := range []string{
		`{"answer": "run make test", "confidence": 0.8}`,
		`{"steps": [{"id": "s", "step_type": "Start"}, {"id": "e", "step_type": "End"}]}`,
		"name: weekly report\nowner: me\n",
		`[{"action": "open the browser"}, {"click": "Login"}]`,
		`{"steps": [{"id": "a", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "b", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "rm -rf /tmp/cache/pro`,
	} {
		_, ws, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()})
		if text[len(text)-1] == 'o' {
			// A cut-off reply is the decoder's: the cut step is dropped,
			// never read whole by the alignment.
			if err != nil || len(WarningsOf(ws, StageAlign)) > 0 {
				t.Errorf("cut-off reply: %v %v", err, ws)
			}
			continue
		}
		var se *StageError
		if !errors.As(err, &se) || se.Stage == StageAlign {
			t.Errorf("%s: want the decoder's error, got %v", text, err)
		}
	}
}

// TestAlignBounded: deep, wide and self-nested replies end, within the
// budget, with an error or a plan, and say when the budget ran out.
func TestAlignBounded(t *testing.T) {
	deep := strings.Repeat(`{"x": "`, 30) + `{\"steps\": 1}` + strings.Repeat(`"}`, 30)
	wide := "[" + strings.Repeat(`{"step_type": "Tool", "tool_nme": "log"},`, 50_000) + "1]"
	nested := strings.Repeat("[", 5000) + strings.Repeat("]", 5000)
	for name, text := range map[string]string{"deep": deep, "wide": wide, "nested": nested} {
		ctx, cancel := context.WithCancel(context.Background())
		best, _, err := alignReply(ctx, text, testCatalog())
		cancel()
		if best == nil && err == nil && name == "wide" {
			t.Errorf("%s: no reading", name)
		}
	}
	// A cancelled context stops the search at once.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := newAlignBudget(ctx)
	for i := 0; i < 1000 && b.spend(); i++ {
	}
	if !b.out {
		t.Errorf("a cancelled search goes on")
	}
}

// TestAlignOnlyWhenTheDecoderFails: a reply the decoder reads gets no
// alignment warning, so the strict path is what it was.
func TestAlignOnlyWhenTheDecoderFails(t *testing.T) {
	for _, file := range corpusFiles(t) {
		text, _ := os.ReadFile(file)
		if _, _, _, err := readPlan(string(text)); err != nil {
			continue
		}
		_, ws, _ := ParseOutput(string(text), ParseOptions{Features: Features{true, true}, Catalog: testCatalog()})
		if msgs := WarningsOf(ws, StageAlign); len(msgs) > 0 {
			t.Errorf("%s: %v", file, msgs)
		}
	}
}

// BenchmarkAlign is the alignment stage's cost on replies only it reads:
// a 200-step plan under an envelope with its list renamed, as a JSON
// string, and as block YAML (ParseOutput whole: the failed first
// reading, the search, then the usual stages).
func BenchmarkAlign(b *testing.B) {
	bud := newAlignBudget(context.Background())
	plan := fromGJSON(gjson.Parse(benchPlan(200, false)), bud, 0)
	for _, rw := range []string{"envelope", "json string", "yaml"} {
		text := alignRewrites[rw](plan.clone())
		b.Run(strings.ReplaceAll(rw, " ", "_"), func(b *testing.B) {
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

// TestAlignSaysWhatItRepaired: JSON the alignment repaired to read it is
// reported as the first reading reports it.
func TestAlignSaysWhatItRepaired(t *testing.T) {
	text := `{"tasks": [{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "a"},}, {"step_type": "Tool", "tool_name": "log", "arguments": {"message": "b"}},]}`
	w, ws, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()})
	if err != nil || len(w.Nodes) != 2 {
		t.Fatalf("%v %v", err, ws)
	}
	if len(WarningsOf(ws, StageRepair)) == 0 || len(WarningsOf(ws, StageAlign)) == 0 {
		t.Errorf("the repair or the alignment is not reported: %v", ws)
	}
}

// TestAlignToolCalls: replies written as function calls, in the shapes
// function-calling models use, alone or in lists, read as Tool steps of
// the catalog's tools; a name the catalog lacks is no call.
func TestAlignToolCalls(t *testing.T) {
	calls := map[string]func(tool, args string) string{
		"name/parameters": func(tool, args string) string { return `{"name": "` + tool + `", "parameters": ` + args + `}` },
		"name/arguments":  func(tool, args string) string { return `{"name": "` + tool + `", "arguments": ` + args + `}` },
		"string arguments": func(tool, args string) string {
			q, _ := json.Marshal(args)
			return `{"name": "` + tool + `", "arguments": ` + string(q) + `}`
		},
		"function envelope": func(tool, args string) string {
			return `{"type": "function", "function": {"name": "` + tool + `", "parameters": ` + args + `}}`
		},
		"action input": func(tool, args string) string { return `{"action": "` + tool + `", "action_input": ` + args + `}` },
		"tool map":     func(tool, args string) string { return `{"` + tool + `": ` + args + `}` },
		"foreign type": func(tool, args string) string {
			return `{"step_type": "processing", "title": "Do it", "function": "` + tool + `", "args": ` + args + `}`
		},
	}
	type step struct{ tool, args, py string }
	steps := []step{
		{"read_file", `{"path": "notes.txt"}`, `read_file(path="notes.txt")`},
		{"http_request", `{"method": "GET", "url": "https://example.com/a,b"}`, `http_request(method='GET', url="https://example.com/a,b")`},
		{"github.create_issue", `{"title": "x", "draft": true}`, `github.create_issue(title="x", draft=True)`},
	}
	check := func(t *testing.T, text string, want []step) {
		t.Helper()
		w, ws, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()})
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if len(w.Nodes) != len(want) {
			t.Fatalf("%d nodes, want %d; %v\n%s", len(w.Nodes), len(want), ws, text)
		}
		for i, s := range want {
			var args map[string]any
			_ = json.Unmarshal([]byte(s.args), &args)
			got, _ := json.Marshal(w.Nodes[i].Params.Arguments)
			exp, _ := json.Marshal(args)
			if w.Nodes[i].Params.Tool != s.tool || string(got) != string(exp) {
				t.Errorf("node %d: %s %s, want %s %s\n%s", i, w.Nodes[i].Params.Tool, got, s.tool, exp, text)
			}
		}
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			var list []string
			for _, s := range steps {
				c := call(s.tool, s.args)
				check(t, "```json\n"+c+"\n```", []step{s})
				list = append(list, c)
			}
			check(t, "["+strings.Join(list, ", ")+"]", steps)
			check(t, `{"action": [`+strings.Join(list, ", ")+`]}`, steps)
			check(t, strings.Join(list, "\n"), steps)
		})
	}
	t.Run("llama tags", func(t *testing.T) {
		var tags []string
		for _, s := range steps {
			tag := "<function=" + s.tool + ">" + s.args + "</function>"
			check(t, tag, []step{s})
			tags = append(tags, tag)
		}
		check(t, "I will call these:\n"+strings.Join(tags, "\n"), steps)
	})
	t.Run("python", func(t *testing.T) {
		var lines []string
		for _, s := range steps {
			check(t, s.py, []step{s})
			lines = append(lines, s.py)
		}
		check(t, strings.Join(lines, "\n"), steps)
		check(t, strings.Join(lines, "; "), steps)
		check(t, "1. `"+strings.Join(lines, "`\n2. `")+"`", steps)
	})
	// Calls written in chat-template notations, not JSON: each notation
	// alone, and the calls one after the other.
	tags := func(s step, open func(k string) string, close string) string {
		var b strings.Builder
		gjson.Parse(s.args).ForEach(func(k, v gjson.Result) bool {
			b.WriteString(open(k.String()) + v.String() + close + "\n")
			return true
		})
		return b.String()
	}
	notations := map[string]func(s step) string{
		"qwen xml": func(s step) string {
			return "<tool_call>\n<function=" + s.tool + ">\n" + tags(s, func(k string) string { return "<parameter=" + k + ">" }, "</parameter>") + "</function>\n</tool_call>"
		},
		"invoke xml": func(s step) string {
			return `<invoke name="` + s.tool + `">` + "\n" + tags(s, func(k string) string { return `<parameter name="` + k + `">` }, "</parameter>") + "</invoke>"
		},
		"invoke xml, closing tags lost": func(s step) string {
			return `<invoke name="` + s.tool + `"> ` + tags(s, func(k string) string { return `<parameter name="` + k + `">` }, "")
		},
		"kimi tokens": func(s step) string {
			return "<|tool_calls_section_begin|><|tool_call_begin|>functions." + s.tool + ":0<|tool_call_argument_begin|>" + s.args + "<|tool_call_end|><|tool_calls_section_end|>"
		},
		"action with parenthesised input": func(s step) string { return "Thought: next.\nAction: " + s.tool + " (" + s.args + ")" },
		"function_calls after prose naming the tool": func(s step) string {
			return "I will use " + s.tool + ". Then log.\n<function_calls>\n<invoke name=\"" + s.tool + "\">\n" + tags(s, func(k string) string { return `<parameter name="` + k + `">` }, "</parameter>") + "</invoke>\n</function_calls>"
		},
		"args marker": func(s step) string { return "[TOOL_CALLS]" + s.tool + "[ARGS]" + s.args },
		"react":       func(s step) string { return "Thought: this is next.\nAction: " + s.tool + "\nAction Input: " + s.args },
		"python":      func(s step) string { return s.py },
	}
	for name, write := range notations {
		t.Run(name, func(t *testing.T) {
			var all []string
			for _, s := range steps {
				check(t, write(s), []step{s})
				all = append(all, write(s))
			}
			check(t, strings.Join(all, "\n"), steps)
			check(t, strings.Join(all, "\n")+"\n\nI will report back once these ran.", steps)
		})
	}
	t.Run("python list", func(t *testing.T) {
		var all []string
		for _, s := range steps {
			all = append(all, s.py)
		}
		check(t, "["+strings.Join(all, ", ")+"]", steps)
	})
	t.Run("plan in JSON strings", func(t *testing.T) {
		var list []string
		for _, s := range steps {
			list = append(list, `{"step_type": "Tool", "tool_name": "`+s.tool+`", "arguments": `+s.args+`}`)
		}
		text := `{"steps": [` + strings.Join(list, ", ") + `]}`
		for layers := 1; layers <= 3; layers++ {
			q, _ := json.Marshal(text)
			text = string(q)
			check(t, text, steps)
		}
	})
	for _, text := range []string{`{"name": "send_fax", "parameters": {"to": "x"}}`, `send_fax(to="x")`, "use read_file to read the notes, then log (the rest)", "run_command is how: run_command then log."} {
		if _, _, err := ParseOutput(text, ParseOptions{Catalog: testCatalog()}); err == nil {
			t.Errorf("%s: read as a plan", text)
		}
	}
	if _, _, err := ParseOutput(`{"name": "read_file", "parameters": {"path": "x"}}`, ParseOptions{}); err == nil {
		t.Errorf("without a catalog any name would be a tool")
	}
}

// TestAlignNeverAFragmentOfValues: separate step values are read all
// together or not at all (past the stage's bound), never one of them
// alone; the same note about many items is one warning.
func TestAlignNeverAFragmentOfValues(t *testing.T) {
	step := `{"step_tpye": "Tool", "tool_name": "log", "arguments": {"message": "x"}}` + "\n"
	w, ws, err := ParseOutput(strings.Repeat(step, 50), ParseOptions{Catalog: testCatalog()})
	if err != nil || len(w.Nodes) != 50 {
		t.Fatalf("%v %v", err, ws)
	}
	if n := len(WarningsOf(ws, StageAlign)); n > 6 {
		t.Errorf("%d align warnings for one kind of note", n)
	}
	w, ws, err = ParseOutput(strings.Repeat(step, maxAlignValues+1), ParseOptions{Catalog: testCatalog()})
	if err == nil {
		t.Errorf("past the bound, read %d of %d steps", len(w.Nodes), maxAlignValues+1)
	}
	if !slices.ContainsFunc(ws, func(w Warning) bool { return strings.Contains(w.Message, "too large") }) {
		t.Errorf("the bound is not said: %v", ws)
	}
}

// TestAlignTieIsReaskedWithTheCandidates: the planner re-asks a reply whose
// readings tie, quoting where each was found, and takes the answer.
func TestAlignTieIsReaskedWithTheCandidates(t *testing.T) {
	step := func(msg string) string {
		return `{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "` + msg + `"}}`
	}
	tie := `{"draft": {"stps": [` + step("a") + `,` + step("b") + `]}, "final": {"stps": [` + step("c") + `,` + step("d") + `]}}`
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 2}, answer(tie), answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 2 {
		t.Fatalf("valid=%v calls=%d", res.Valid, res.LLMCalls)
	}
	if r := fake.lastUser(2); !strings.Contains(r, StageAlign) || !strings.Contains(r, `"draft"`) || !strings.Contains(r, `"final"`) {
		t.Errorf("the re-ask does not name the candidates:\n%s", r)
	}
}
