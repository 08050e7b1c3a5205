package planner

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestMeasureFastPathAgrees: the measure's fast path (one scan, keys
// inside a step matched exactly as stepLike matches them there) never
// says nothing can be left out of a reply the full measure finds steps
// left out of: over the corpus, the tune files and generated neighbours
// of a valid plan with step-like objects put where a reading leaves them
// (an argument, a step's own list of steps, an unknown key, under a key
// spelled one edit off).
func TestMeasureFastPathAgrees(t *testing.T) {
	opts := ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: testCatalog()}
	var replies []string
	for _, f := range corpusFiles(t) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		replies = append(replies, string(raw))
	}
	for _, half := range tuneSets {
		for _, c := range loadHeldout(t, half) {
			replies = append(replies, c.Reply)
		}
	}
	replies = append(replies, fastPathNeighbours()...)
	checked := 0
	for _, r := range replies {
		w, _, err := ParseOutput(r, opts)
		if err != nil {
			continue
		}
		fast := MeasureUnused(r, w.Nodes, w.Edges, opts.Features)
		full := measureUnused(r, w.Nodes, w.Edges, opts.Features, false)
		if !slices.Equal(fast.Steps, full.Steps) || fast.Text != full.Text {
			t.Errorf("fast path %+v, full measure %+v, reply:\n%s", fast, full, r)
		}
		// ReadReply, which skips the measure on a reading without a
		// warning, never passes what the full measure finds left out.
		if w2, _, u, err := ReadReply(context.Background(), r, opts); err == nil && !u.Dropped() {
			if f2 := measureUnused(r, w2.Nodes, w2.Edges, opts.Features, false); f2.Dropped() {
				t.Errorf("ReadReply passes a reading the full measure finds %v left out of:\n%s", f2.Steps, r)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d replies read", checked)
	}
}

// fastPathNeighbours are valid plans with one step-like object more in a
// place the decoder does not read steps from, by each key spelling that
// may make it one.
func fastPathNeighbours() []string {
	base := BenchSyntheticPlan(4)
	var hidden []string
	for _, key := range []string{"tool_name", "tool_nmae", "tool", "step_type", "steptype", "prompt", "promt", "loop_id", "cases", "kind"} {
		val := `"run_command"`
		switch key {
		case "step_type", "steptype", "kind":
			val = `"Tool"`
		case "cases":
			val = `[{"value": "a"}]`
		}
		hidden = append(hidden, `{"id": "extra", `+`"`+key+`": `+val+`, "arguments": {"command": "rm -rf build"}}`)
	}
	var out []string
	for _, h := range hidden {
		// in a step's arguments, before and after what makes it a step
		out = append(out,
			strings.Replace(base, `"arguments": {"command": "echo 1"}`, `"arguments": {"command": "echo 1", "then": `+h+`}`, 1),
			strings.Replace(base, `{"id": "s1", "step_type": "Tool"`, `{"id": "s1", "next": `+h+`, "step_type": "Tool"`, 1),
			// a step that holds a list of steps is a plan, not a step
			strings.Replace(base, `"arguments": {"command": "echo 1"}`, `"arguments": {"command": "echo 1"}, "steps": [`+h+`, `+h+`]`, 1),
			strings.Replace(base, `"arguments": {"command": "echo 1"}`, `"arguments": {"command": "echo 1", "steps": [`+h+`]}`, 1),
			// beside the plan
			strings.Replace(base, `{"nodes": [`, `{"later": `+h+`, "nodes": [`, 1),
			strings.Replace(base, `{"nodes": [`, `{"later": `+strconv.Quote(h)+`, "nodes": [`, 1),
			strings.Replace(base, `{"nodes": [`, `{"name": `+strconv.Quote(`{"steps": [`+h+`]}`)+`, "nodes": [`, 1),
			// after it, in prose: the reading warns, and the measure decides
			base+"\n\nAnd one more step: "+h,
			// in an edge, and in a step's string fields
			strings.Replace(base, `{"from": "s1", "to": "s2"`, `{"from": "s1", "to": "s2", "also": `+h, 1),
			strings.Replace(base, `"name": "Step 1"`, `"name": `+strconv.Quote(h), 1),
			strings.Replace(base, `"arguments": {"command": "echo 1"}`, `"arguments": {"command": `+strconv.Quote(h)+`}`, 1),
		)
	}
	return out
}
