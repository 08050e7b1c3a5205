// Package conformance measures Weft on other projects' published test
// tables, read from ../shared/peer (never copied here): `make conformance`
// (part of `make test`) sets WEFT_PEER_DIR and prints the scores; plain
// `go test` skips. A case that misses fails unless differences lists it.
// Clickweave's planner, assistant and validation tables are here.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func peerDir(t *testing.T) string {
	d := os.Getenv("WEFT_PEER_DIR")
	if d == "" {
		t.Skip("WEFT_PEER_DIR is not set (make conformance sets it to ../shared/peer)")
	}
	if _, err := os.Stat(d); err != nil {
		// Set means wanted: a wrong path must not pass as a skip.
		t.Fatalf("WEFT_PEER_DIR: the peer tables are not at %s: %v", d, err)
	}
	return d
}

// clickweaveCatalog holds Clickweave's desktop-automation tools under
// their bare names (as the ported tables write them), plus Weft's
// built-ins. Outputs
// are known for find_text only, as an MCP server with an output schema
// would declare them; the others' outputs are unknown (references to them
// are warnings, as for any MCP tool without an output schema).
func clickweaveCatalog() *tools.Catalog {
	obj := func(props ...string) json.RawMessage {
		m := map[string]any{}
		for _, p := range props {
			m[p] = map[string]any{}
		}
		b, _ := json.Marshal(map[string]any{"type": "object", "properties": m})
		return b
	}
	ts := []tools.Tool{
		{Name: "focus_window", InputSchema: obj("app_name", "window_id")},
		{Name: "launch_app", InputSchema: obj("app_name")},
		{Name: "take_screenshot", InputSchema: obj("mode", "app_name", "include_ocr")},
		{Name: "find_text", InputSchema: obj("text"), Outputs: []tools.Field{
			{Name: "found", Type: "boolean"}, {Name: "text", Type: "string"}, {Name: "matches", Type: "array"}}},
		{Name: "click", InputSchema: obj("x", "y", "target", "button")},
		{Name: "type_text", InputSchema: obj("text")},
		{Name: "press_key", InputSchema: obj("key", "modifiers")},
		{Name: "scroll", InputSchema: obj("delta_y")},
		{Name: "custom_tool", InputSchema: obj("foo")},
	}
	return tools.NewCatalog(append(tools.Builtin().List(), ts...)...)
}

// script is a fake model: it answers with the replies in turn, the last
// one again when they run out (as Clickweave's mocks do), and counts calls.
type script struct {
	replies []string
	calls   int
}

func (s *script) Chat(ctx context.Context, _ []llm.Message, _ llm.Options) (llm.Reply, error) {
	if err := ctx.Err(); err != nil {
		return llm.Reply{}, err
	}
	s.calls++
	r := s.replies[min(s.calls, len(s.replies))-1]
	return llm.Reply{Text: r, FinishReason: "stop"}, nil
}

func shortName(name string) string { return name[strings.LastIndex(name, ":")+1:] }

func readTable(t *testing.T, name string, v any) {
	b, err := os.ReadFile(filepath.Join(peerDir(t), "clickweave", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// expectation is one {"key": value} of a case's expect list.
type expectation struct {
	key string
	val json.RawMessage
}

func expectations(raw json.RawMessage) []expectation {
	var list []map[string]json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		var one map[string]json.RawMessage
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []map[string]json.RawMessage{one}
	}
	var out []expectation
	for _, m := range list {
		for k, v := range m {
			out = append(out, expectation{k, v})
		}
	}
	return out
}

func TestConformanceClickweave(t *testing.T) {
	all := newTally("clickweave")
	for _, part := range []struct {
		name string
		run  func(*testing.T, *tally)
	}{{"planner", plannerTable}, {"assistant", assistantTable}, {"validation", validationTable}} {
		passed, missed := len(all.passed), len(all.missed)
		part.run(t, all)
		passed = len(all.passed) - passed
		t.Logf("Clickweave %s table: Weft agrees on %d of %d", part.name, passed, passed+len(all.missed)-missed)
	}
	documented := all.check(t, os.Getenv("WEFT_PEER_MISSES") != "")
	total := len(all.passed) + len(all.missed)
	t.Logf("Clickweave tables: Weft agrees on %d of %d, differs for a documented reason on %d (agree or documented: %d of %d), misses %d",
		len(all.passed), total, documented, len(all.passed)+documented, total, len(all.missed)-documented)
}

// failure joins a case's failed expectations ("" when none failed).
func failure(failed []string) string { return strings.Join(failed, "; ") }

// ---- planner ----

type plannerCase struct {
	Name     string          `json:"name"`
	Kind     string          `json:"kind"`
	Input    string          `json:"input"`
	Replies  []string        `json:"replies"`
	Expect   json.RawMessage `json:"expect"`
	MaxRA    int             `json:"max_repair_attempts"`
	Features map[string]bool `json:"features"`
	Note     string          `json:"note"`
}

func plannerTable(t *testing.T, s *tally) {
	var table struct {
		Cases []plannerCase `json:"cases"`
	}
	readTable(t, "planner_cases.json", &table)
	cat := clickweaveCatalog()
	for _, c := range table.Cases {
		name := shortName(c.Name)
		if c.Kind == "extract" {
			s.add(name, failure(checkExtract(c)))
			continue
		}
		f := planner.Features{AllowAgentSteps: c.Features["agent_steps"], AllowAITransforms: c.Features["ai_transforms"]}
		sc := &script{replies: c.Replies}
		res, err := planner.PlanWorkflow(context.Background(), sc, "automate the desktop", planner.Config{
			MaxRepairAttempts: c.MaxRA, Features: f, Catalog: cat})
		if err != nil {
			s.add(name, "error: "+err.Error())
			continue
		}
		s.add(name, failure(checkPlan(c, res, sc.calls, cat)))
	}
}

func checkExtract(c plannerCase) []string {
	var failed []string
	got, _, err := planner.ExtractJSON(c.Input)
	for _, e := range expectations(c.Expect) {
		switch e.key {
		case "json":
			var want string
			json.Unmarshal(e.val, &want)
			if err != nil || !sameJSON(got, want) {
				failed = append(failed, fmt.Sprintf("json: got %q (%v), want %q", got, err, want))
			}
		case "nojson":
			if err == nil {
				failed = append(failed, fmt.Sprintf("nojson: got %q", got))
			}
		case "text":
			var want string
			json.Unmarshal(e.val, &want)
			if err != nil || got != want {
				failed = append(failed, fmt.Sprintf("text: got %q, want %q", got, want))
			}
		default:
			failed = append(failed, "unknown expectation "+e.key)
		}
	}
	return failed
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// findNode resolves a table's node reference: a name, or "type:Loop" for
// the (first) node of that type.
func findNode(w *workflow.Workflow, ref string) *workflow.Node {
	if w == nil {
		return nil
	}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if typ, ok := strings.CutPrefix(ref, "type:"); ok {
			if string(n.Type) == typ {
				return n
			}
		} else if n.Name == ref || n.ID == ref {
			return n
		}
	}
	return nil
}

func outLabel(e workflow.Edge) string {
	if e.Output == nil {
		return ""
	}
	return string(e.Output.Type)
}

func outEdges(w *workflow.Workflow, n *workflow.Node) []workflow.Edge {
	var out []workflow.Edge
	if w == nil || n == nil {
		return nil
	}
	for _, e := range w.Edges {
		if e.From == n.ID {
			out = append(out, e)
		}
	}
	return out
}

func checkPlan(c plannerCase, res planner.Result, calls int, cat *tools.Catalog) []string {
	var failed []string
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
	w := res.Workflow
	nodes := 0
	if w != nil {
		nodes = len(w.Nodes)
	}
	for _, e := range expectations(c.Expect) {
		var v any
		json.Unmarshal(e.val, &v)
		switch e.key {
		case "ok":
			if ok := res.Valid && w != nil; ok != v.(bool) {
				fail("ok: got %v (%s)", ok, res.Summary)
			}
		case "valid":
			if w == nil || validate.Validate(w, cat).Valid != v.(bool) {
				fail("valid: want %v", v)
			}
		case "nodes":
			if nodes != int(v.(float64)) {
				fail("nodes: got %d, want %v", nodes, v)
			}
		case "edges":
			if w == nil || len(w.Edges) != int(v.(float64)) {
				fail("edges: want %v", v)
			}
		case "calls":
			if calls != int(v.(float64)) {
				fail("calls: got %d, want %v", calls, v)
			}
		case "warnings_empty":
			if len(res.Warnings) != 0 {
				fail("warnings_empty: got %v", res.Warnings)
			}
		case "warnings_nonempty":
			if len(res.Warnings) == 0 {
				fail("warnings_nonempty: none")
			}
		case "warning_stage", "no_warnings_of_stage":
			n := len(planner.WarningsOf(res.Warnings, v.(string)))
			if (e.key == "warning_stage") != (n > 0) {
				fail("%s %v: %d warnings of that stage (%v)", e.key, v, n, res.Warnings)
			}
		case "tools_in_order":
			var got []string
			if w != nil {
				for _, n := range w.Nodes {
					if n.Type == workflow.TypeTool {
						got = append(got, n.Params.Tool)
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(v) {
				fail("tools_in_order: got %v, want %v", got, v)
			}
		case "node_type_present":
			found := false
			if w != nil {
				for _, n := range w.Nodes {
					found = found || string(n.Type) == v.(string)
				}
			}
			if !found {
				fail("node_type_present %v: absent", v)
			}
		case "node_type_at":
			a := v.([]any)
			i := int(a[0].(float64))
			if i >= nodes || string(w.Nodes[i].Type) != a[1].(string) {
				fail("node_type_at %v", a)
			}
		case "endloop_paired":
			loop, end := findNode(w, "type:Loop"), findNode(w, "type:EndLoop")
			if loop == nil || end == nil || end.Params.LoopID != loop.ID {
				fail("endloop_paired: not paired")
			}
		case "loop_max":
			loop := findNode(w, "type:Loop")
			if loop == nil || loop.Params.MaxIterations == nil || *loop.Params.MaxIterations != int(v.(float64)) {
				fail("loop_max: want %v", v)
			}
		case "edge", "edge_count":
			a := v.([]any)
			from, to := findNode(w, a[0].(string)), findNode(w, a[1].(string))
			label, want := "", 1
			if e.key == "edge" {
				label = a[2].(string)
			} else {
				want = int(a[2].(float64))
			}
			n := 0
			for _, ed := range outEdges(w, from) {
				if to != nil && ed.To == to.ID && (e.key == "edge_count" || outLabel(ed) == label) {
					n++
				}
			}
			if e.key == "edge" && n == 0 || e.key == "edge_count" && n != want {
				fail("%s %v: found %d", e.key, a, n)
			}
		case "out_count":
			a := v.([]any)
			if n := len(outEdges(w, findNode(w, a[0].(string)))); n != int(a[1].(float64)) {
				fail("out_count %v: got %d", a, n)
			}
		case "out_labels", "out_labels_include":
			a := v.([]any)
			var got []string
			for _, ed := range outEdges(w, findNode(w, a[0].(string))) {
				got = append(got, outLabel(ed))
			}
			sort.Strings(got)
			var want []string
			for _, l := range a[1].([]any) {
				want = append(want, l.(string))
			}
			sort.Strings(want)
			if e.key == "out_labels" && fmt.Sprint(got) != fmt.Sprint(want) || e.key == "out_labels_include" && !includes(got, want) {
				fail("%s %v: got %v", e.key, a, got)
			}
		default:
			fail("unknown expectation %s", e.key)
		}
	}
	return failed
}

func includes(have, want []string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

// ---- assistant ----

type assistantCase struct {
	Name    string          `json:"name"`
	WF      json.RawMessage `json:"workflow"`
	Replies []string        `json:"replies"`
	Expect  json.RawMessage `json:"expect"`
	MaxRA   int             `json:"max_repair_attempts"`
	Message string          `json:"message"`
	Note    string          `json:"note"`
}

func assistantTable(t *testing.T, s *tally) {
	var table struct {
		Cases []assistantCase `json:"cases"`
	}
	readTable(t, "assistant_cases.json", &table)
	cat := clickweaveCatalog()
	for _, c := range table.Cases {
		name := shortName(c.Name)
		w, _, err := workflow.Parse(c.WF)
		if err != nil {
			s.add(name, "workflow: "+err.Error())
			continue
		}
		sc := &script{replies: c.Replies}
		var repairing int
		res, err := assistant.Chat(context.Background(), sc, assistant.Request{Workflow: w, Message: c.Message},
			assistant.Config{MaxRepairAttempts: c.MaxRA, Catalog: cat, OnProgress: func(p assistant.Progress) {
				if p.Kind == assistant.ProgressRepairing {
					repairing++
				}
			}})
		if err != nil {
			s.add(name, "error: "+err.Error())
			continue
		}
		s.add(name, failure(checkAssistant(c, w, res, sc.calls, repairing, cat)))
	}
}

func checkAssistant(c assistantCase, before *workflow.Workflow, res *assistant.Result, calls, repairing int, cat *tools.Catalog) []string {
	var failed []string
	fail := func(format string, a ...any) { failed = append(failed, fmt.Sprintf(format, a...)) }
	p := res.Patch
	if p == nil {
		p = &assistant.WorkflowPatch{}
	}
	existing := map[string]bool{}
	for _, n := range before.Nodes {
		existing[n.ID] = true
	}
	added := map[string]bool{}
	for _, n := range p.AddedNodes {
		added[n.ID] = true
	}
	updated := func() *workflow.Node {
		if len(p.UpdatedNodes) == 0 {
			return nil
		}
		return &p.UpdatedNodes[0]
	}
	for _, e := range expectations(c.Expect) {
		var v any
		json.Unmarshal(e.val, &v)
		switch e.key {
		case "kind":
			if string(res.Kind) != v.(string) {
				fail("kind: got %s", res.Kind)
			}
		case "has_patch", "no_patch":
			if (res.Patch != nil) != (e.key == "has_patch") {
				fail("%s: patch %v", e.key, res.Patch != nil)
			}
		case "calls":
			if calls != int(v.(float64)) {
				fail("calls: got %d, want %v", calls, v)
			}
		case "repairing_events":
			if repairing != int(v.(float64)) {
				fail("repairing_events: got %d", repairing)
			}
		case "added_nodes":
			if len(p.AddedNodes) != int(v.(float64)) {
				fail("added_nodes: got %d, want %v (%v)", len(p.AddedNodes), v, res.Warnings)
			}
		case "added_edges", "min_added_edges":
			n := len(p.AddedEdges)
			if e.key == "added_edges" && n != int(v.(float64)) || e.key == "min_added_edges" && n < int(v.(float64)) {
				fail("%s: got %d, want %v", e.key, n, v)
			}
		case "added_tools":
			var got []string
			for _, n := range p.AddedNodes {
				got = append(got, n.Params.Tool)
			}
			if fmt.Sprint(got) != fmt.Sprint(v) {
				fail("added_tools: got %v", got)
			}
		case "added_types_include":
			var got []string
			for _, n := range p.AddedNodes {
				got = append(got, string(n.Type))
			}
			var want []string
			for _, x := range v.([]any) {
				want = append(want, x.(string))
			}
			if !includes(got, want) {
				fail("added_types_include: got %v", got)
			}
		case "added_edge_from_existing":
			found := false
			for _, ed := range p.AddedEdges {
				found = found || existing[ed.From] && added[ed.To]
			}
			if !found {
				fail("added_edge_from_existing: none")
			}
		case "removed":
			if fmt.Sprint(p.RemovedNodeIDs) != fmt.Sprint(v) {
				fail("removed: got %v", p.RemovedNodeIDs)
			}
		case "updated":
			if len(p.UpdatedNodes) != int(v.(float64)) {
				fail("updated: got %d", len(p.UpdatedNodes))
			}
		case "updated_name":
			if u := updated(); u == nil || u.Name != v.(string) {
				fail("updated_name: want %v", v)
			}
		case "updated_tool":
			if u := updated(); u == nil || u.Params.Tool != v.(string) {
				fail("updated_tool: want %v", v)
			}
		case "updated_arg":
			a := v.([]any)
			if u := updated(); u == nil || fmt.Sprint(u.Params.Arguments[a[0].(string)]) != fmt.Sprint(a[1]) {
				fail("updated_arg: want %v", a)
			}
		case "node_type_after":
			a := v.([]any)
			w := res.Workflow
			if w == nil {
				w = before
			}
			if n := findNode(w, a[0].(string)); n == nil || string(n.Type) != a[1].(string) {
				fail("node_type_after %v", a)
			}
		case "min_warnings":
			if len(res.Warnings) < int(v.(float64)) {
				fail("min_warnings: got %d", len(res.Warnings))
			}
		case "warnings_empty":
			if len(res.Warnings) != 0 {
				fail("warnings_empty: got %v", res.Warnings)
			}
		case "warning_contains":
			found := false
			for _, w := range res.Warnings {
				found = found || strings.Contains(w.Message, v.(string))
			}
			if !found {
				fail("warning_contains %q: %v", v, res.Warnings)
			}
		case "message_contains":
			if !strings.Contains(strings.ToLower(res.Message), strings.ToLower(v.(string))) {
				fail("message_contains %q: %q", v, res.Message)
			}
		case "valid":
			if res.Workflow == nil || validate.Validate(res.Workflow, cat).Valid != v.(bool) {
				fail("valid: want %v (%v)", v, res.Problems)
			}
		default:
			fail("unknown expectation %s", e.key)
		}
	}
	return failed
}

// ---- validation ----

func validationTable(t *testing.T, s *tally) {
	var table struct {
		Cases []struct {
			File      string          `json:"file"`
			Test      string          `json:"clickweave_test"`
			Clickweve string          `json:"clickweave"`
			Codes     json.RawMessage `json:"weft_codes"`
		} `json:"cases"`
	}
	readTable(t, filepath.Join("validate", "expect.json"), &table)
	cat := clickweaveCatalog()
	for _, c := range table.Cases {
		name := shortName(c.Test)
		data, err := os.ReadFile(filepath.Join(peerDir(t), "clickweave", "validate", c.File))
		if err != nil {
			t.Fatal(err)
		}
		w, _, err := workflow.Parse(data)
		if err != nil {
			s.add(name, "load: "+err.Error())
			continue
		}
		res := validate.Validate(w, cat)
		var errs []string
		for _, p := range res.Problems {
			if p.Severity == validate.SeverityError {
				errs = append(errs, p.Code)
			}
		}
		var codes []string
		if json.Unmarshal(c.Codes, &codes) != nil {
			// "valid"
			if !res.Valid {
				s.add(name, fmt.Sprintf("want valid, got errors %v", errs))
			} else {
				s.add(name, "")
			}
			continue
		}
		found := false
		for _, e := range errs {
			for _, want := range codes {
				found = found || e == want
			}
		}
		if !found {
			s.add(name, fmt.Sprintf("want one of %v, got errors %v", codes, errs))
		} else {
			s.add(name, "")
		}
	}
}
