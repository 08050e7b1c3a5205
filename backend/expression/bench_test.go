package expression

import (
	"context"
	"testing"

	"github.com/expr-lang/expr"
)

// BenchmarkEval compares one evaluation of everyday conditions through
// expr directly (no bounds, as Weft did before) and through this package
// (bounds, budget state, goroutine and timer per evaluation).
func BenchmarkEval(b *testing.B) {
	vars := env()
	for _, c := range []struct{ name, src string }{
		{"compare", `check.exit_code == 0 && fetch.status >= 400`},
		{"strings", `check.stdout + "!" != "" && upper(check.stdout) != ""`},
		{"loop1000", `all(xs, # > 0)`},
	} {
		b.Run(c.name+"/expr", func(b *testing.B) {
			p, err := expr.Compile(c.src)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := expr.Run(p, vars); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/bounded", func(b *testing.B) {
			p, err := Compile(c.src)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if _, err := p.Eval(context.Background(), vars, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
