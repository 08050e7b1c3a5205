package render

import (
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/expression/exprtest"
	"github.com/weft-dev/weft/backend/quote"
)

// BenchmarkRenderBounds renders a run_command command whose placeholder
// is near the bounds of an expression (the deepest nesting that fits),
// one far past them (refused before parsing), and many placeholders, as a
// run does: expressions through package expression, each compiled once
// per run ("first", as the first render of a run) and evaluated every
// time ("again", as a loop's later iterations).
func BenchmarkRenderBounds(b *testing.B) {
	vars := mapEnv{"a": map[string]any{"n": 7.0}}
	nester := func(name string) exprtest.Nester {
		for _, c := range exprtest.Nesters {
			if c.Name == name {
				return c
			}
		}
		b.Fatalf("no nester %s", name)
		return exprtest.Nester{}
	}
	deepest := func(name string) string {
		c := nester(name)
		return "echo {{" + c.Place("a.n", "a.n", c.Deepest("a.n", "a.n")) + "}}"
	}
	for _, c := range []struct {
		name, tmpl string
		fails      bool
	}{
		{"path", "echo {{a.n}}", false},
		{"expression", "echo {{a.n * 2 + 1}}", false},
		{"parens at MaxDepth", deepest("parens"), false},
		{"calls at MaxDepth", deepest("calls"), false},
		{"ternaries at MaxLength", deepest("ternaries"), false},
		{"negations at MaxLength", deepest("negations"), false},
		{"parens 500000 deep", "echo {{a.n + " + nester("parens").Build("a.n", exprtest.Huge) + "}}", true},
		{"10000 placeholders", strings.Repeat("{{a.n}} ", 10_000), false},
	} {
		for _, first := range []bool{true, false} {
			mode := "again"
			if first {
				mode = "first"
			}
			b.Run(c.name+"/"+mode, func(b *testing.B) {
				env := newExprEnv(vars, time.Second)
				for b.Loop() {
					if first {
						env = newExprEnv(vars, time.Second)
					}
					_, err := Command(c.tmpl, env, quote.POSIX)
					if (err != nil) != c.fails {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
