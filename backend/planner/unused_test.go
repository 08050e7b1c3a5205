package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// threeSteps are the steps of the known case: a reply that held three
// steps and became a "valid" one-step plan.
var threeSteps = []string{
	`{"id": "fetch", "step_type": "Tool", "tool_name": "http_request", "arguments": {"method": "GET", "url": "https://example.com/feed"}}`,
	`{"id": "save", "step_type": "Tool", "tool_name": "write_file", "arguments": {"path": "feed.xml", "content": "{{fetch.body}}"}}`,
	`{"id": "report", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "saved {{fetch.status}}"}}`,
}

// placements put the second and third step somewhere a reading may miss
// them: under another key, nested, inside a JSON string, in another
// top-level value, with or without fences and prose.
func placements() map[string]string {
	a, b, c := threeSteps[0], threeSteps[1], threeSteps[2]
	quoted := func(s string) string { q, _ := json.Marshal(s); return string(q) }
	out := map[string]string{
		"three top-level values":       a + "\n" + b + "\n" + c,
		"three fenced values":          "```json\n" + a + "\n```\nthen\n```json\n" + b + "\n```\nand\n```json\n" + c + "\n```",
		"steps then two top-level":     `{"steps": [` + a + `]}` + "\n" + b + "\n" + c,
		"two plans, disjoint":          `{"steps": [` + a + `]}` + "\n\n" + `{"steps": [` + b + `, ` + c + `]}`,
		"nested steps list":            `{"steps": [` + a + `, {"steps": [` + b + `, ` + c + `]}]}`,
		"step under next":              `{"steps": [` + strings.TrimSuffix(a, "}") + `, "next": ` + b + `}, ` + c + `]}`,
		"steps inside arguments":       `{"steps": [` + strings.Replace(a, `"url"`, `"then": [`+b+`, `+c+`], "url"`, 1) + `]}`,
		"step as a JSON string":        `{"steps": [` + a + `, ` + quoted(b) + `, ` + c + `]}`,
		"list as a JSON string":        `{"steps": [` + a + `], "more": ` + quoted("["+b+", "+c+"]") + `}`,
		"plan wrapper and a sibling":   `{"plan": {"steps": [` + a + `]}, "then": [` + b + `, ` + c + `]}`,
		"deep under an envelope":       `{"result": {"data": {"steps": [` + a + `]}, "extra": {"more": [` + b + `, ` + c + `]}}}`,
		"nodes with edges and a spare": `{"nodes": [` + a + `, ` + b + `], "edges": [{"from": "fetch", "to": "save"}], "also": [` + c + `]}`,
	}
	for _, key := range []string{"more_steps", "tasks", "actions", "todo", "extra", "followups"} {
		out["steps and "+key] = `{"steps": [` + a + `], "` + key + `": [` + b + `, ` + c + `]}`
		out[key+" then steps"] = `{"` + key + `": [` + b + `, ` + c + `], "steps": [` + a + `]}`
	}
	return out
}

// TestNoSilentFragment: whatever the reading, a plan from a reply that held
// three steps either has the three or says which it left out; the loop
// never returns it as a usable plan unseen.
func TestNoSilentFragment(t *testing.T) {
	for name, reply := range placements() {
		t.Run(name, func(t *testing.T) {
			_, res, err := planWith(t, Config{MaxRepairAttempts: 1}, answer(reply))
			if err != nil {
				t.Fatal(err)
			}
			if res.Workflow == nil {
				return // no plan at all: nothing used unseen
			}
			n := len(res.Workflow.Nodes)
			switch {
			case n == 3 && !res.Unused.Dropped():
			case n < 3 && len(res.Unused.Steps) >= 3-n:
				if res.Valid && !strings.Contains(res.Summary, "not in the plan") {
					t.Errorf("summary does not say steps were left out: %q", res.Summary)
				}
				if len(WarningsOf(res.Warnings, StageUnused)) == 0 {
					t.Errorf("no %q warning: %v", StageUnused, res.Warnings)
				}
			default:
				t.Errorf("%d nodes, %d steps named as left out (%v); the reply held 3\n%s", n, len(res.Unused.Steps), res.Unused.Steps, reply)
			}
		})
	}
}

// TestDroppedStepsAreReasked: the re-ask names what was left out, and the
// complete answer is taken.
func TestDroppedStepsAreReasked(t *testing.T) {
	a, b, c := threeSteps[0], threeSteps[1], threeSteps[2]
	first := `{"steps": [` + a + `], "more_steps": [` + b + `, ` + c + `]}`
	fixed := `{"steps": [` + a + `, ` + b + `, ` + c + `]}`
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(first), answer(fixed))
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) != 2 {
		t.Fatalf("%d calls, want 2 (a re-ask for the left-out steps)", len(fake.calls))
	}
	reask := fake.lastUser(2)
	for _, want := range []string{"2 steps of it were left out", `more_steps[0] (tool_name "write_file", id "save")`, `more_steps[1] (tool_name "log", id "report")`} {
		if !strings.Contains(reask, want) {
			t.Errorf("re-ask lacks %q:\n%s", want, reask)
		}
	}
	if !res.Valid || res.Unused.Dropped() || len(res.Workflow.Nodes) != 3 {
		t.Errorf("valid %v, unused %v, %d nodes; want the complete plan", res.Valid, res.Unused.Steps, len(res.Workflow.Nodes))
	}
}

// TestDroppedStepsAfterLastAttempt: when every attempt leaves steps out,
// the plan is valid but says so, in Unused, the summary and the attempts.
func TestDroppedStepsAfterLastAttempt(t *testing.T) {
	reply := `{"steps": [` + threeSteps[0] + `], "tasks": [` + threeSteps[1] + `]}`
	_, res, err := planWith(t, Config{MaxRepairAttempts: 2}, answer(reply), answer(reply))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || len(res.Unused.Steps) != 1 || !strings.Contains(res.Summary, "1 step of the reply is not in the plan") {
		t.Errorf("valid %v, unused %v, summary %q", res.Valid, res.Unused.Steps, res.Summary)
	}
	if len(res.Attempts) != 2 || !strings.Contains(res.Attempts[0].Error, `tasks[0]`) {
		t.Errorf("attempts %+v", res.Attempts)
	}
}

// TestCompletedFromTheReply: three top-level steps are read as one plan
// (the alignment's reading of the whole reply), with no re-ask.
func TestCompletedFromTheReply(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(strings.Join(threeSteps, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) != 1 || !res.Valid || res.Unused.Dropped() || len(res.Workflow.Nodes) != 3 {
		t.Errorf("%d calls, valid %v, unused %v, %d nodes", len(fake.calls), res.Valid, res.Unused.Steps, len(res.Workflow.Nodes))
	}
}

// TestUnusedNothingOnCompleteReplies: replies read whole are never said to
// have left steps out: the corpus, the tune half of the held-out set, and
// the shapes the measure must see as one step (Weft's node shape, a
// mention of a tool in prose, a draft the answer repeats).
func TestUnusedNothingOnCompleteReplies(t *testing.T) {
	opts := ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: testCatalog()}
	type reply struct{ name, text string }
	var replies []reply
	for _, f := range corpusFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, reply{filepath.Base(f), string(b)})
	}
	for _, c := range loadHeldout(t, "tune") {
		if !c.Expect.Reask {
			replies = append(replies, reply{c.ID, c.Reply})
		}
	}
	a, b := threeSteps[0], threeSteps[1]
	replies = append(replies,
		reply{"draft then answer", `{"steps": [` + a + `]}` + "\nActually, also save it:\n" + `{"steps": [` + a + `, ` + b + `]}`},
		reply{"tool named in prose", "I will use {tool_name: http_request} first.\n" + `{"steps": [` + a + `, ` + b + `]}`},
		reply{"node shape", `{"nodes": [{"id": "x", "type": "Tool", "params": {"tool": "log", "arguments": {"message": "hi"}}}], "edges": []}`},
	)
	for _, r := range replies {
		w, _, err := ParseOutput(r.text, opts)
		if err != nil {
			continue
		}
		if u := MeasureUnused(r.text, w.Nodes, w.Edges, opts.Features); u.Dropped() {
			t.Errorf("%s: %d nodes, yet %s", r.name, len(w.Nodes), u.Summary())
		}
	}
}

// TestUnusedCountsEveryPlacement: the measure alone, on many steps placed
// in many ways: exactly the steps the plan lacks are named.
func TestUnusedCountsEveryPlacement(t *testing.T) {
	step := func(i int) string {
		return fmt.Sprintf(`{"id": "s%d", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "echo %d"}}`, i, i)
	}
	for n := 2; n <= 6; n++ {
		var rest []string
		for i := 1; i < n; i++ {
			rest = append(rest, step(i))
		}
		for _, key := range []string{"more", "then", "steps2", "x"} {
			text := `{"steps": [` + step(0) + `], "` + key + `": [` + strings.Join(rest, ", ") + `]}`
			w, _, err := ParseOutput(text, ParseOptions{})
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			u := MeasureUnused(text, w.Nodes, w.Edges, Features{})
			if len(w.Nodes)+len(u.Steps) != n {
				t.Errorf("%d steps under %q: %d nodes + %d named left out", n, key, len(w.Nodes), len(u.Steps))
			}
			for _, s := range u.Steps {
				if !strings.Contains(s, strconv.Quote(key)) && !strings.Contains(s, key+"[") {
					t.Errorf("%q does not say where: %s", key, s)
				}
			}
		}
	}
}

// BenchmarkReadReply is what the re-ask loop runs on a reply: ParseOutput
// and the measure of what it left out. Compare with
// BenchmarkParseOutputSteps and BenchmarkParseOutputSloppy (the same
// plans) for the measure's cost.
func BenchmarkReadReply(b *testing.B) {
	for _, sloppy := range []bool{false, true} {
		for _, n := range []int{20, 200, 2000} {
			text := benchPlan(n, sloppy)
			b.Run(fmt.Sprintf("sloppy=%v/steps=%d", sloppy, n), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				b.ReportAllocs()
				for b.Loop() {
					if _, _, u, err := ReadReply(context.Background(), text, benchParseOptions); err != nil || u.Dropped() {
						b.Fatal(err, u.Steps)
					}
				}
			})
		}
	}
}

// BenchmarkMeasureUnused is the measure alone, on a reply already read.
func BenchmarkMeasureUnused(b *testing.B) {
	for _, sloppy := range []bool{false, true} {
		text := benchPlan(200, sloppy)
		w, _, err := ParseOutput(text, benchParseOptions)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("sloppy=%v/steps=200", sloppy), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				MeasureUnused(text, w.Nodes, w.Edges, benchParseOptions.Features)
			}
		})
	}
}

// TestUnusedEdgesAndText: an edge of the reply the plan does not connect
// (not even through one node between) is named; prose outside the JSON is
// counted, fences and reasoning are not.
func TestUnusedEdgesAndText(t *testing.T) {
	step := func(id string) string {
		return `{"id": "` + id + `", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "step ` + id + `"}}`
	}
	nodes := `"nodes": [` + step("a") + `, ` + step("b") + `, ` + step("c") + `, ` + step("d") + `]`
	for _, tc := range []struct {
		name, reply string
		edges       []string
		text        int
	}{
		// nodes without edges are chained a → b → c → d: a → d is three hops
		{"edges under an unknown key", `{` + nodes + `, "wiring": [{"from": "a", "to": "d"}, {"from": "a", "to": "c"}]}`, []string{"a → d"}, 0},
		{"edges read", `{` + nodes + `, "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}, {"from": "c", "to": "d"}]}`, nil, 0},
		{"prose, fence and reasoning", "<think>let me see</think>Here it is:\n```json\n{" + nodes + "}\n```\nDone.", nil, len("Here it is:") + len("Done.")},
	} {
		w, _, err := ParseOutput(tc.reply, ParseOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		u := MeasureUnused(tc.reply, w.Nodes, w.Edges, Features{})
		if fmt.Sprint(u.Edges) != fmt.Sprint(tc.edges) || u.Text != tc.text || u.Dropped() {
			t.Errorf("%s: edges %q (want %q), text %d (want %d), steps %v", tc.name, u.Edges, tc.edges, u.Text, tc.text, u.Steps)
		}
	}
}

// FuzzMeasureUnused: no reply makes the measure panic or name more steps
// than the reply could hold, whatever result it is compared with.
func FuzzMeasureUnused(f *testing.F) {
	for _, reply := range placements() {
		f.Add(reply)
	}
	for _, s := range []string{"", "{", `{"steps": "[{\"tool_name\": \"x\"}]"}`, `[[[[{"tool": "a"}]]]]`, "```\n{\"tool_name\": 1}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, reply string) {
		w, _, err := ParseOutput(reply, ParseOptions{})
		var u Unused
		if err == nil {
			u = MeasureUnused(reply, w.Nodes, w.Edges, Features{})
		} else {
			u = MeasureUnused(reply, nil, nil, Features{})
		}
		if len(u.Steps)+len(u.Drafts) > strings.Count(reply, "{") {
			t.Fatalf("%d steps named in a reply with %d objects", len(u.Steps)+len(u.Drafts), strings.Count(reply, "{"))
		}
	})
}

// BenchmarkPipelineRead is BenchmarkPipeline as the re-ask loop runs it
// now: ReadReply (ParseOutput and the measure of what it left out), then
// Validate, on the same valid replies. Issue 24 holds it within 20% of
// BenchmarkPipeline at the commit before the schema-aligned work
// (docs/benchmarks.md, "What a reading left out").
func BenchmarkPipelineRead(b *testing.B) {
	for _, n := range []int{20, 200, 2000} {
		text := BenchSyntheticPlan(n)
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w, _, u, err := ReadReply(context.Background(), text, benchOptions)
				if err != nil || u.Dropped() {
					b.Fatal(err, u.Steps)
				}
				if !validate.Validate(w, tools.Builtin()).Valid {
					b.Fatal("invalid")
				}
			}
		})
	}
}
