package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/expression/exprtest"
)

// A placeholder's expression is held to the bounds of every expression,
// in every kind of text a run renders: every way of nesting just inside
// them validates, one level past them and half a million levels (which
// overflowed the run's stack) are bad_template errors naming the place,
// with a message of reasonable length.
func TestTemplateBounds(t *testing.T) {
	const core = "count.exit_code"
	for _, c := range exprtest.Nesters {
		n := c.Deepest(core, core)
		for _, pl := range exprtest.Places {
			for _, levels := range []int{n, n + 1, exprtest.Huge} {
				tmpl := "{{" + c.Place(core, core, levels) + "}}"
				w := wf(ns(cmd("count", "wc -l < notes.txt"), pl.Node("report", tmpl)), e("count", "report"))
				r := Validate(w, catalog)
				var msg string
				for _, p := range r.Problems {
					if p.Code == CodeBadTemplate {
						msg = p.Message
					}
				}
				switch {
				case levels == n && msg != "":
					t.Errorf("%s in %s at %d levels (the most that fit): %s", c.Name, pl.Name, levels, msg)
				case levels > n && msg == "":
					t.Errorf("%s in %s at %d levels: no bad_template; got %v", c.Name, pl.Name, levels, codes(r))
				case levels > n && (!strings.Contains(msg, pl.Where+" 'report'") || len(msg) > 400 || r.Valid):
					t.Errorf("%s in %s at %d levels: %.500s (valid %v)", c.Name, pl.Name, levels, msg, r.Valid)
				}
			}
		}
	}
}

// Text that only looks like deep nesting is not an expression of ours:
// {{{…}}} and placeholders that do not start with a key are left as text,
// and so are not refused, however long; many placeholders within bounds
// are fine.
func TestTemplateBoundsNotOurs(t *testing.T) {
	for _, text := range []string{
		strings.Repeat("{", exprtest.Huge) + "count.exit_code" + strings.Repeat("}", exprtest.Huge),
		"{{ (" + strings.Repeat("(", exprtest.Huge) + " }}",
		"{{ nothing." + strings.Repeat("(", exprtest.Huge) + " }}",
		strings.Repeat("{{count.exit_code}} ", 100_000),
	} {
		w := wf(ns(cmd("count", "wc -l < notes.txt"), logn("report", text)), e("count", "report"))
		if r := Validate(w, catalog); hasCode(r, CodeBadTemplate) {
			t.Errorf("%.60q…: %v", text, codes(r))
		}
	}
}
