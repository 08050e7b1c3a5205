package validate

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestNilWorkflow(t *testing.T) {
	r := Validate(nil, nil)
	if r.Valid || len(r.Problems) != 1 || r.Problems[0].Code != CodeNoNodes {
		t.Fatalf("got %+v", r)
	}
}

func TestJSONShape(t *testing.T) {
	r := Validate(ifWF("check.exit_code == 0"), catalog)
	b, _ := json.Marshal(r)
	if string(b) != `{"valid":true,"problems":[]}` {
		t.Errorf("valid result: %s", b)
	}
	r = Validate(wf(ns(cmd("a", "x"), cmd("b", "y")), e("a", "b"), e("a", "b")), catalog)
	r2 := Validate(wf(nil), nil)
	for _, res := range []Result{r, r2} {
		b, _ = json.Marshal(res)
		if strings.Contains(string(b), "null") {
			t.Errorf("null in %s", b)
		}
	}
}

func TestSortedAndDeterministic(t *testing.T) {
	nodes := ns(
		cmd("a", "echo {{nobody.x}}"),
		ifn("b", ""),
		cmd("c", "echo c"),
		node("d", workflow.TypeTool, workflow.Params{Tool: "teleport"}),
	)
	w := wf(nodes, e("a", "b"), eo("b", "c", ifT), e("c", "d"), e("d", "gone"), e("x", "y"))
	first := Validate(w, catalog)
	for k := 0; k < 20; k++ {
		if got := Validate(w, catalog); !reflect.DeepEqual(got, first) {
			t.Fatalf("run %d differs", k)
		}
	}
	dump(t, first)
	seenWarning := false
	for _, p := range first.Problems {
		if p.Severity == SeverityWarning {
			seenWarning = true
		} else if seenWarning {
			t.Errorf("error %s after a warning", p.Code)
		}
	}
	for _, c := range []string{CodeBadCondition, CodeIfMissingBranch, CodeDanglingEdge, CodeUnknownVariable, CodeUnknownTool} {
		if !hasCode(first, c) {
			t.Errorf("missing %s", c)
		}
	}
}

func TestCheckCondition(t *testing.T) {
	ok := []string{
		"check.exit_code == 0",
		"check.exit_code == 0 && len(check.stdout) > 0",
		`fetch.body contains "ok"`,
		"all(files.files, # != '')",
		"let n = files.count; n > 0 and n < 10",
		"count.total > 1", // a node keyed like a builtin shadows it
		"x.ok",            // unknown type: may be a bool at run time
		"not check.success",
	}
	for _, s := range ok {
		if err := CheckCondition(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	bad := map[string]string{
		"":                        "empty",
		"   ":                     "empty",
		"check.exit_code ==":      "column 18",
		"1 + 2":                   "expected bool",
		`1 + "a" == 2`:            `"+" cannot combine a number with text (column 3)`,
		"check.exit_code = 0":     `a single "=" cannot compare: write "==" ("x == 1") (column 17)`,
		"a.b === 1":               `"===" is JavaScript: write "=="`,
		"a.b <> 1":                `write "!=" for "not equal"`,
		"(a.b == 1":               `a "(" is never closed: add ")"`,
		"a.b == 1)":               `")" closes nothing`,
		"a.b == 'x":               "a quoted text is never closed",
		"a.b == 1 and":            `the condition ends too early: something is missing after "and"`,
		"if a.b then 1":           `unexpected word "then"`,
		"a.b ! = 1":               `write "!="`,
		"a.b => 1":                `write ">=" for "at least"`,
		"a..b == 1":               `"==" cannot compare a list`,
		`x.y matches "("`:         "regexp",
		"len(1) > 0":              "invalid argument",
		"a ==\n  b +":             "line 2",
		strings.Repeat("a", 2001): "2001 characters",
	}
	for s, want := range bad {
		err := CheckCondition(s)
		var ce *ConditionError
		if !errors.As(err, &ce) {
			t.Errorf("%q: want *ConditionError, got %v", s, err)
			continue
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %q does not mention %q", s, err, want)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: multi-line error %q", s, err)
		}
	}
}

func TestReservedKeys(t *testing.T) {
	for _, w := range []string{"true", "false", "nil", "not", "in", "and", "or", "matches", "contains", "let", "if", "else"} {
		if err := CheckCondition(w + ".x == 1"); err == nil {
			t.Errorf("%s: expected the key to be unusable in a condition", w)
		}
		n := cmd("a", "echo")
		n.Key = w
		if r := Validate(wf(ns(n)), nil); !hasCode(r, CodeBadKey) {
			t.Errorf("%s: no bad_key", w)
		}
	}
	n := cmd("count", "echo")
	r := Validate(wf(ns(n, ifn("more", "count.exit_code == 0"), logn("y", "y"), logn("z", "z")),
		e("count", "more"), eo("more", "y", ifT), eo("more", "z", ifF)), catalog)
	if len(r.Problems) != 0 {
		t.Errorf("builtin-named key: %v", codes(r))
		dump(t, r)
	}
}

// refWF: start → split(If) → left | right → merge → loop{ body1 → body2 } → after
func refWF(mod func(map[string]*workflow.Node)) *workflow.Workflow {
	nodes := ns(
		cmd("start", "echo"),
		ifn("split", "start.exit_code == 0"),
		cmd("left", "echo left"),
		cmd("right", "echo right"),
		cmd("merge", "echo merge"),
		loopMax("again", "", 3),
		cmd("body1", "echo 1"),
		cmd("body2", "echo 2"),
		endl("again_end", "again"),
		cmd("after", "echo after"),
	)
	m := map[string]*workflow.Node{}
	for i := range nodes {
		m[nodes[i].ID] = &nodes[i]
	}
	mod(m)
	return wf(nodes,
		e("start", "split"), eo("split", "left", ifT), eo("split", "right", ifF), e("left", "merge"), e("right", "merge"),
		e("merge", "again"), eo("again", "body1", lb), e("body1", "body2"), e("body2", "again_end"), e("again_end", "again"), eo("again", "after", ld))
}

func TestUpstream(t *testing.T) {
	arg := func(id, text string) func(map[string]*workflow.Node) {
		return func(m map[string]*workflow.Node) { m[id].Params.Arguments = map[string]any{"command": text} }
	}
	cases := []struct {
		name string
		mod  func(map[string]*workflow.Node)
		warn bool
	}{
		{"previous step", arg("merge", "echo {{left.stdout}} {{ right.stdout }}"), false},
		{"sibling branch", arg("left", "echo {{right.stdout}}"), true},
		{"later step", arg("start", "echo {{after.stdout}}"), true},
		{"own output", arg("start", "echo {{start.stdout}}"), true},
		{"unknown key", arg("after", "echo {{nobody.stdout}}"), true},
		{"nested argument", func(m map[string]*workflow.Node) {
			m["after"].Params.Arguments = map[string]any{"command": "x", "env": map[string]any{"A": []any{"{{nobody.x}}"}}}
		}, true},
		{"not a key", arg("start", "docker ps --format '{{.Names}}' {{ }}"), false},
		{"loop key in body", arg("body1", "echo {{again.iteration}}"), false},
		{"earlier body step", arg("body2", "echo {{body1.stdout}}"), false},
		{"later body step", arg("body1", "echo {{body2.stdout}}"), true},
		{"body after the loop", arg("after", "echo {{body2.stdout}}"), false},
		{"exit condition reads body", func(m map[string]*workflow.Node) {
			m["again"].Params.ExitCondition = "body2.exit_code == 0 || again.iteration > 2"
		}, false},
		{"exit condition reads after", func(m map[string]*workflow.Node) { m["again"].Params.ExitCondition = "after.exit_code == 0" }, true},
		{"verify reads own key", func(m map[string]*workflow.Node) { m["left"].Verify = "left.exit_code == 0 && start.success" }, false},
		{"verify reads sibling", func(m map[string]*workflow.Node) { m["left"].Verify = "right.exit_code == 0" }, true},
		{"if reads itself", func(m map[string]*workflow.Node) { m["split"].Params.Condition = "split" }, true},
		{"builtins, let, predicates and $env", func(m map[string]*workflow.Node) {
			m["split"].Params.Condition = "let n = len(start.stdout); n > 0 && all(split(start.stdout, ','), # != '') && $env != nil"
		}, false},
		{"ai step prompt", func(m map[string]*workflow.Node) {
			*m["after"] = node("after", workflow.TypeAiStep, workflow.Params{Prompt: "Summarise {{body2.stdout}} and {{later.text}}"})
		}, true},
		{"ai transform input", func(m map[string]*workflow.Node) {
			*m["after"] = node("after", workflow.TypeAiTransform, workflow.Params{Kind: "summarize", Input: "{{merge.stdout}}"})
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Validate(refWF(c.mod), catalog)
			if !r.Valid {
				t.Fatalf("not valid: %v", codes(r))
			}
			if got := hasCode(r, CodeUnknownVariable); got != c.warn {
				t.Errorf("unknown_variable = %v, want %v", got, c.warn)
			}
			dump(t, r)
		})
	}
}

func TestNoCascades(t *testing.T) {
	cases := []struct {
		name string
		w    *workflow.Workflow
		want []string
	}{
		{"deleted middle node", wf(ns(cmd("a", "x"), cmd("c", "z")), e("a", "b"), e("b", "c")),
			[]string{CodeDanglingEdge, CodeDanglingEdge}},
		{"deleted first node", wf(ns(cmd("b", "x"), cmd("c", "z")), e("a", "b"), e("b", "c")),
			[]string{CodeDanglingEdge}},
		{"duplicate If branch", func() *workflow.Workflow {
			w := ifWF("check.exit_code == 0")
			w.Edges = append(w.Edges, eo("exists", "copy", ifT))
			return w
		}(), []string{CodeDuplicateEdge}},
		{"If branch to a missing node", func() *workflow.Workflow {
			w := ifWF("check.exit_code == 0")
			w.Edges[2].To = "gone" // the IfFalse edge
			w.Edges = w.Edges[:4]  // and create → done
			w.Nodes = append(w.Nodes[:3:3], w.Nodes[4])
			return w
		}(), []string{CodeDanglingEdge}},
		{"EndLoop edge to the wrong node", wf(retryLoop("attempt.exit_code == 0"),
			e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "retry_end"), e("retry_end", "attempt"), eo("retry", "report", ld)),
			[]string{CodeEndloopEdgeMismatch}},
		{"unlabelled edge out of a plain node into a loop body", wf(retryLoop("attempt.exit_code == 0"), with(retryEdges, e("report", "attempt"))...),
			[]string{CodeEdgeEntersLoop}},
		{"bad condition is not also unknown_variable", ifWF("chek.exit_code == = 0"), []string{CodeBadCondition}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Validate(c.w, catalog)
			if got := codes(r); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
				dump(t, r)
			}
		})
	}
}

func TestChoices(t *testing.T) {
	check := func(t *testing.T, w *workflow.Workflow, want ...string) {
		t.Helper()
		r := Validate(w, catalog)
		if got := codes(r); !reflect.DeepEqual(got, want) {
			t.Errorf("got %v, want %v", got, want)
			dump(t, r)
		}
	}
	t.Run("empty If condition", func(t *testing.T) { check(t, ifWF("  "), CodeBadCondition) })
	t.Run("empty case condition", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), sw("s", "one="), logn("b", "b")), e("a", "s"), ec("s", "b", "one")), CodeBadCondition)
	})
	t.Run("empty exit condition runs to max_iterations", func(t *testing.T) {
		check(t, wf(retryLoop(""), retryEdges...))
	})
	t.Run("absent max_iterations uses the default", func(t *testing.T) {
		ns := retryLoop("")
		ns[1].Params.MaxIterations = nil
		check(t, wf(ns, retryEdges...))
	})
	t.Run("max_iterations upper bound", func(t *testing.T) {
		ns := retryLoop("")
		m := MaxIterationsLimit
		ns[1].Params.MaxIterations = &m
		check(t, wf(ns, retryEdges...))
		m2 := MaxIterationsLimit + 1
		ns[1].Params.MaxIterations = &m2
		check(t, wf(ns, retryEdges...), CodeBadMaxIterations)
	})
	t.Run("terminal loop", func(t *testing.T) {
		check(t, wf(retryLoop("attempt.exit_code == 0")[:4], retryEdges[:4]...))
	})
	t.Run("loop whose body is only its EndLoop", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), loopMax("l", "", 2), endl("l_end", "l")), e("a", "l"), eo("l", "l_end", lb), e("l_end", "l")))
	})
	t.Run("loop first in the workflow, body starts with a loop", func(t *testing.T) {
		check(t, wf(ns(loopMax("outer", "", 2), loopMax("inner", "", 2), cmd("x", "x"), endl("inner_end", "inner"), endl("outer_end", "outer")),
			eo("outer", "inner", lb), eo("inner", "x", lb), e("x", "inner_end"), e("inner_end", "inner"), eo("inner", "outer_end", ld), e("outer_end", "outer")))
	})
	t.Run("switch default is optional", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), sw("s", "one=a.exit_code == 0"), logn("b", "b")), e("a", "s"), ec("s", "b", "one")))
	})
	t.Run("unlabelled edge from a Switch", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), sw("s", "one=a.exit_code == 0"), logn("b", "b"), logn("c", "c")), e("a", "s"), ec("s", "b", "one"), e("s", "c")), CodeSwitchUnknownOutput)
	})
	t.Run("If label on a Switch", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), sw("s", "one=a.exit_code == 0"), logn("b", "b"), logn("c", "c")), e("a", "s"), ec("s", "b", "one"), eo("s", "c", ifT)), CodeBadOutputLabel)
	})
	t.Run("unknown label", func(t *testing.T) {
		check(t, wf(ns(cmd("a", "x"), cmd("b", "y")), eo("a", "b", "Sideways")), CodeBadOutputLabel)
	})
	t.Run("nil catalog skips unknown tools", func(t *testing.T) {
		w := wf(ns(node("a", workflow.TypeTool, workflow.Params{Tool: "mcp.thing"})))
		if r := Validate(w, nil); len(r.Problems) != 0 {
			t.Errorf("got %v", codes(r))
		}
		if r := Validate(w, catalog); !r.Valid || !hasCode(r, CodeUnknownTool) {
			t.Errorf("with catalog: got %v valid=%v", codes(r), r.Valid)
		}
	})
	t.Run("AiStep allowed_tools", func(t *testing.T) {
		n := node("a", workflow.TypeAiStep, workflow.Params{Prompt: "Tidy the folder", AllowedTools: []string{"list_files", "shred"}})
		r := Validate(wf(ns(n)), catalog)
		if !r.Valid || len(r.Problems) != 1 || r.Problems[0].Code != CodeUnknownTool || !strings.Contains(r.Problems[0].Message, "'shred'") {
			t.Errorf("got %v", codes(r))
			dump(t, r)
		}
	})
	t.Run("Tool without a tool", func(t *testing.T) {
		r := Validate(wf(ns(node("a", workflow.TypeTool, workflow.Params{}))), nil)
		if r.Valid || !hasCode(r, CodeUnknownTool) {
			t.Errorf("got %v valid=%v", codes(r), r.Valid)
		}
	})
	t.Run("empty key", func(t *testing.T) {
		n := cmd("a", "x")
		n.Key = ""
		check(t, wf(ns(n)), CodeBadKey)
	})
	t.Run("dead end inside a loop body", func(t *testing.T) {
		ns := append(retryLoop("attempt.exit_code == 0"), ifn("ok", "attempt.exit_code == 0"), logn("give_up", "no"))
		check(t, wf(ns, e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "ok"), eo("ok", "retry_end", ifT), eo("ok", "give_up", ifF),
			e("retry_end", "retry"), eo("retry", "report", ld)), CodeEdgeLeavesLoop)
	})
	t.Run("EndLoop outside its body", func(t *testing.T) {
		r := Validate(wf(retryLoop(""), e("start", "retry"), eo("retry", "attempt", lb), eo("retry", "report", ld), e("report", "retry_end"), e("retry_end", "retry")), catalog)
		errs := r.Errors()
		if len(errs) != 1 || errs[0].Code != CodeLoopUnpaired {
			t.Errorf("got %v", codes(r))
		}
	})
	t.Run("second back edge is a cycle", func(t *testing.T) {
		// The EndLoop, now without an incoming edge, is a second entry.
		check(t, wf(retryLoop(""), with(retryEdges[:2], e("attempt", "retry"), e("retry_end", "retry"), eo("retry", "report", ld))...),
			CodeMultipleEntries, CodeCycle, CodeLoopUnpaired)
	})
}

func TestNestedLoopsCrossing(t *testing.T) {
	// outer{ a → inner{ b → inner_end } → c → outer_end }, with a jump from
	// b (inner body) to c (outer body): leaves the inner loop only.
	nodes := ns(cmd("s", "x"), loopMax("outer", "", 2), cmd("a", "a"), loopMax("inner", "", 2), ifn("b", "a.exit_code == 0"),
		endl("inner_end", "inner"), cmd("c", "c"), endl("outer_end", "outer"))
	edges := []workflow.Edge{e("s", "outer"), eo("outer", "a", lb), e("a", "inner"), eo("inner", "b", lb), eo("b", "inner_end", ifT),
		e("inner_end", "inner"), eo("inner", "c", ld), e("c", "outer_end"), e("outer_end", "outer")}
	ok := Validate(wf(nodes, with(edges, eo("b", "inner_end", ifF))...), catalog)
	if len(ok.Problems) != 0 {
		t.Fatalf("valid nested loops: %v", codes(ok))
	}
	r := Validate(wf(nodes, with(edges, eo("b", "c", ifF))...), catalog)
	if got := codes(r); !reflect.DeepEqual(got, []string{CodeEdgeLeavesLoop}) {
		t.Fatalf("got %v", got)
	}
	if !strings.Contains(r.Problems[0].Message, "Loop 'Inner'") {
		t.Errorf("message: %s", r.Problems[0].Message)
	}
}

func TestValidKeyFastPath(t *testing.T) {
	keys := []string{"", "a", "_", "a1", "1a", "A", "a-b", "a b", "é", "check_file", "_x9", strings.Repeat("a", 64), strings.Repeat("a", 65), "a\n", "ab_"}
	for c := 0; c < 256; c++ {
		keys = append(keys, "k"+string(rune(c)), string(rune(c)))
	}
	for _, k := range keys {
		if validKey(k) != workflow.ValidKey(k) {
			t.Errorf("%q: fast path %v, ValidKey %v", k, validKey(k), workflow.ValidKey(k))
		}
	}
}

// TestShapeCache checks that compiling a batch (which reuses the result of
// a condition for later ones of the same shape) gives exactly what
// compiling each condition on its own gives.
func TestShapeCache(t *testing.T) {
	shapes := []string{
		"%s.exit_code == 0", "%s.x == 0 && %s.y", "%s.x == %s.y", "let v = %s.x; v > 0",
		"%s.x ==", `%s.s matches "("`, `%s.s matches "a+"`, "len(%s.files) > 0", "%s.x in [1, 2]",
		"%s?.x ?? %s", "all(%s.files, # != '')", "{a: %s.x}.a == 1", "%s.ok ? %s.a : %s.b", "1 + 2",
		"%s.s startsWith 'x' and not %s.t", "%s(%s.x)", "%s[%s.k] == 1", "%s.x > 1 // note", "$env.%s == 1",
		`%s.s matches "(%s"`, `%s.s == '%s \' %s'`, "%s.s == `%s`", `%s.b == b"%s"`, "%s . /* c */ %s == 1",
		"%s.x > 1e3", "1..%s.n", "%s.é == 1 && é%s", "%s[0:%s.n]", "%s ? %s : %s", "#%s", "%s | len()",
	}
	names := []string{"a", "b", "check", "count", "len", "v", "now", "fetch_2", "_x", "date", "map", "true", "nil", "not", "(", "x1", "é"}
	rng := rand.New(rand.NewPCG(3, 4))
	var js []condJob
	for k := 0; k < 20000; k++ {
		s := shapes[rng.IntN(len(shapes))]
		var args []any
		for range strings.Count(s, "%s") {
			args = append(args, names[rng.IntN(len(names))])
		}
		js = append(js, condJob{text: fmt.Sprintf(s, args...)})
	}
	compileJobs(js)
	cfg := newExprConfig()
	for _, j := range js {
		want, werr := compileCondition(cfg, j.text)
		if (werr == nil) != (j.err == nil) {
			t.Fatalf("%q: batch error %v, alone %v", j.text, j.err, werr)
		}
		if werr != nil {
			if werr.Error() != j.err.Error() {
				t.Errorf("%q: batch error %q, alone %q", j.text, j.err, werr)
			}
			continue
		}
		if !slices.Equal(want.idents, j.res.idents) {
			t.Errorf("%q: batch reads %v, alone %v", j.text, j.res.idents, want.idents)
		}
	}
}
