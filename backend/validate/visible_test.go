package validate

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// refNames renders references as key.field (key alone for a step whose
// outputs are not known).
func refNames(rs []Reference) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Key
		if r.Field != "" {
			out[i] += "." + r.Field
		}
	}
	return out
}

func keysOf(rs []Reference) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Key) {
			out = append(out, r.Key)
		}
	}
	return out
}

func mustRefs(t *testing.T, w *workflow.Workflow, cat *tools.Catalog, id string, at Place) []Reference {
	t.Helper()
	rs, err := References(w, cat, id, at)
	if err != nil {
		t.Fatalf("References(%s, %q): %v", id, at, err)
	}
	return rs
}

func TestReferencesByShape(t *testing.T) {
	// fetch → loop [body: try → check(If) → yes | no → end] → after
	loopWF := wf(ns(cmd("fetch", "echo"), loop("loop", "try.exit_code == 0"), cmd("try", "echo"), ifn("check", "try.exit_code == 0"),
		cmd("yes", "echo"), cmd("no", "echo"), endl("end", "loop"), cmd("after", "echo")),
		e("fetch", "loop"), eo("loop", "try", lb), e("try", "check"), eo("check", "yes", ifT), eo("check", "no", ifF),
		e("yes", "end"), e("no", "end"), e("end", "loop"), eo("loop", "after", ld))
	loopWF.Inputs = json.RawMessage(testInputs)
	if r := Validate(loopWF, catalog); !r.Valid {
		dump(t, r)
		t.Fatal("the fixture is not valid")
	}
	cases := []struct {
		name, node string
		at         Place
		want       []string // the step keys offered, in order
	}{
		{"no upstream", "fetch", PlaceText, nil},
		{"a step's own verify reads itself", "fetch", PlaceVerify, []string{"fetch"}},
		{"the first step of a loop body", "try", PlaceText, []string{"fetch", "loop"}},
		{"after an If, one branch", "yes", PlaceText, []string{"fetch", "loop", "try"}},
		{"a branch does not see its sibling", "no", PlaceText, []string{"fetch", "loop", "try"}},
		{"after the loop, its body ran at least once", "after", PlaceText, []string{"fetch", "loop", "try", "yes", "no"}},
		{"the exit condition sees the body", "loop", PlaceExit, []string{"fetch", "loop", "try", "yes", "no"}},
		{"the If's condition", "check", PlaceText, []string{"fetch", "loop", "try"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rs := mustRefs(t, loopWF, catalog, c.node, c.at)
			var steps []Reference
			for _, r := range rs {
				if r.Key != "inputs" {
					steps = append(steps, r)
				}
			}
			if got := keysOf(steps); !slices.Equal(got, c.want) {
				t.Errorf("keys = %v, want %v", got, c.want)
			}
			// Every place sees the declared inputs, first.
			if got := refNames(rs[:3]); !slices.Equal(got, []string{"inputs.name", "inputs.cfg", "inputs.n"}) {
				t.Errorf("inputs = %v", got)
			}
		})
	}
	names := refNames(mustRefs(t, loopWF, catalog, "after", PlaceText))
	for _, want := range []string{"try.exit_code", "try.stdout", "try.success", "loop.iteration"} {
		if !slices.Contains(names, want) {
			t.Errorf("after: %s not offered (got %v)", want, names)
		}
	}
	if slices.Contains(names, "loop.success") || slices.Contains(names, "check.success") {
		t.Errorf("a Loop has no common outputs and an If none at all: %v", names)
	}
	rs := mustRefs(t, loopWF, catalog, "try", PlaceText)
	if i := slices.IndexFunc(rs, func(r Reference) bool { return r.Key == "fetch" && r.Field == "stdout" }); i < 0 || rs[i].NodeID != "fetch" || rs[i].Type != "string" || rs[i].Label != "Fetch" {
		t.Errorf("fetch.stdout described as %+v", rs)
	}
}

func TestReferencesEdgeCases(t *testing.T) {
	mcp := tools.NewCatalog(tools.Builtin().List()...)
	w := wf(ns(node("gh", workflow.TypeTool, workflow.Params{Tool: "gh.issue"}), node("ask", workflow.TypeAiStep, workflow.Params{Prompt: "hi"})), e("gh", "ask"))
	// A tool the catalog lacks: its key is offered without fields.
	if got := refNames(mustRefs(t, w, mcp, "ask", PlaceText)); !slices.Equal(got, []string{"gh"}) {
		t.Errorf("unknown tool: %v", got)
	}
	// A key two nodes share is an error: not offered.
	dupKey := wf(ns(cmd("a", "echo"), cmd("b", "echo"), cmd("c", "echo")), e("a", "b"), e("b", "c"))
	dupKey.Nodes[1].Key = "a"
	if got := keysOf(mustRefs(t, dupKey, catalog, "c", PlaceText)); len(got) != 0 {
		t.Errorf("duplicate key offered: %v", got)
	}
	if _, err := References(w, catalog, "nope", PlaceText); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown node: %v", err)
	}
	if _, err := References(w, catalog, "ask", "prompt"); err == nil {
		t.Error("an unknown place was accepted")
	}
	if _, err := References(w, catalog, "ask", PlaceExit); err == nil {
		t.Error("an exit condition of a step was accepted")
	}
	if _, err := References(wf(nil), catalog, "ask", PlaceText); err == nil {
		t.Error("a node of an empty workflow was found")
	}
	// A schema that does not parse offers no inputs (they are judged once it does).
	bad := wf(ns(cmd("a", "echo")))
	bad.Inputs = json.RawMessage(`{"type":"array"}`)
	if got := mustRefs(t, bad, catalog, "a", PlaceText); len(got) != 0 {
		t.Errorf("inputs of a bad schema: %v", got)
	}
}

// refCodes are the problems of a text reading what it may not.
var refCodes = []string{CodeUnknownVariable, CodeUnknownOutput, CodeUnknownInput, CodeOutputAlias}

// probe writes a text of node i at place that reads ref, replacing what
// that text read before; false when the node has no such text.
func probe(w *workflow.Workflow, i int, at Place, ref string) bool {
	cond := ref + " != nil"
	if i < 0 { // the workflow's own done_when
		if at != PlaceDoneWhen {
			return false
		}
		w.DoneWhen = &workflow.DoneWhen{Condition: cond}
		return true
	}
	n := &w.Nodes[i]
	switch at {
	case PlaceVerify:
		n.Verify = cond
	case PlaceDoneWhen:
		if !isStep(n.Type) {
			return false
		}
		n.DoneWhen = &workflow.DoneWhen{Condition: cond}
	case PlaceExit:
		if n.Type != workflow.TypeLoop {
			return false
		}
		n.Params.ExitCondition = cond
	default:
		switch n.Type {
		case workflow.TypeTool:
			n.Params.Arguments = map[string]any{"command": "echo {{ " + ref + " }}", "ok_exit_codes": []any{0.0, 64.0, 75.0}}
		case workflow.TypeIf:
			n.Params.Condition = cond
		case workflow.TypeAiStep:
			n.Params.Prompt = "say {{ " + ref + " }}"
		case workflow.TypeAiTransform:
			n.Params.Input = "{{ " + ref + " }}"
		case workflow.TypeWorkflow:
			n.Params.Inputs = map[string]any{"x": "{{ " + ref + " }}"}
		case workflow.TypeSwitch:
			cs := slices.Clone(n.Params.Cases)
			cs[0].Condition = cond
			n.Params.Cases = cs
		default:
			return false
		}
	}
	return true
}

func cloneWF(w *workflow.Workflow) *workflow.Workflow {
	c := *w
	c.Nodes = slices.Clone(w.Nodes)
	return &c
}

func refProblems(w *workflow.Workflow) []Problem {
	var out []Problem
	for _, p := range Validate(w, catalog).Problems {
		if slices.Contains(refCodes, p.Code) {
			out = append(out, p)
		}
	}
	return out
}

// TestReferencesAgreeWithValidate is the contract: at every node and place
// of a generated workflow (chains, If diamonds, a Switch, nested loops), a
// text that reads an offered reference validates clean, and one that reads
// any other step's output, or an undeclared input, is reported.
func TestReferencesAgreeWithValidate(t *testing.T) {
	base := genWorkflowOpt(28, false)
	base.Inputs = json.RawMessage(testInputs)
	if ps := refProblems(base); len(ps) > 0 {
		t.Fatalf("the generated workflow has reference problems: %v", ps)
	}
	tested := map[bool]int{}
	name := func(i int) string {
		if i < 0 {
			return "the workflow"
		}
		return base.Nodes[i].Key
	}
	for i := -1; i < len(base.Nodes); i++ {
		for _, at := range []Place{PlaceText, PlaceVerify, PlaceDoneWhen, PlaceExit} {
			id := ""
			if i >= 0 {
				id = base.Nodes[i].ID
			}
			rs, err := References(base, catalog, id, at)
			if !probe(cloneWF(base), i, at, "start.stdout") {
				if err == nil {
					t.Errorf("%s has no text at %q, but References answered", name(i), at)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%s at %q: %v", name(i), at, err)
			}
			offered := refNames(rs)
			var all []string
			for j := range base.Nodes {
				fs, known := (&validator{cat: catalog}).outputFields(&base.Nodes[j])
				if !known {
					t.Fatalf("%s: outputs not known", base.Nodes[j].Key)
				}
				for _, f := range fs {
					all = append(all, base.Nodes[j].Key+"."+f.Name)
				}
			}
			all = append(all, "inputs.name", "inputs.n", "inputs.nope")
			for _, ref := range all {
				w := cloneWF(base)
				probe(w, i, at, ref)
				ps := refProblems(w)
				ok := slices.Contains(offered, ref)
				tested[ok]++
				if ok && len(ps) > 0 {
					t.Errorf("%s at %q: %s is offered but validate says %s", name(i), at, ref, ps[0].Message)
				}
				if !ok && len(ps) == 0 {
					t.Errorf("%s at %q: %s is not offered but validates clean", name(i), at, ref)
				}
			}
		}
	}
	if tested[true] < 100 || tested[false] < 100 {
		t.Errorf("too few cases either way: %v", tested)
	}
}

// The workflow's done_when reads the run's inputs as a step's conditions
// do (the run gives it the same variables); it was reported as an unknown
// key while checkInputs judged the same reference.
func TestWorkflowDoneWhenReadsInputs(t *testing.T) {
	w := wf(ns(cmd("a", "echo")))
	w.Inputs = json.RawMessage(testInputs)
	w.DoneWhen = &workflow.DoneWhen{Condition: `inputs.name != "" && a.exit_code == 0`}
	if r := Validate(w, catalog); len(r.Problems) > 0 {
		dump(t, r)
		t.Fatal("a declared input in the workflow's done_when is a problem")
	}
	w.DoneWhen.Condition = "inputs.nope != nil"
	if r := Validate(w, catalog); !hasCode(r, CodeUnknownInput) || hasCode(r, CodeUnknownVariable) {
		dump(t, r)
		t.Fatal("an undeclared input is unknown_input, and only that")
	}
}

// BenchmarkReferences is one completion list on a large workflow: a whole
// validation (the same rules) plus one ancestry query per step.
func BenchmarkReferences(b *testing.B) {
	w := genWorkflowOpt(10_000, false)
	last := w.Nodes[len(w.Nodes)-1].ID
	b.ReportAllocs()
	for b.Loop() {
		if _, err := References(w, catalog, last, PlaceText); err != nil {
			b.Fatal(err)
		}
	}
}
