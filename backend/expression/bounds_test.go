package expression_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/expression/exprtest"
)

// Every way of nesting (exprtest.Nesters), just inside the bounds,
// compiles and evaluates; one level past them is refused with a
// LimitError before it is parsed; and half a million levels, which
// overflowed the stack of expr's parser, are refused the same way.
func TestBoundsNesting(t *testing.T) {
	vars := map[string]any{"list": map[string]any{"count": 2.0}}
	const core = "list.count"
	for _, c := range exprtest.Nesters {
		n := c.Deepest(core, core)
		if n < 10 {
			t.Fatalf("%s: only %d levels fit", c.Name, n)
		}
		p, err := expression.Compile(c.Place(core, core, n))
		if err != nil {
			t.Fatalf("%s at %d levels: %v", c.Name, n, err)
		}
		v, err := p.Eval(context.Background(), vars, 0)
		if err != nil {
			t.Fatalf("%s at %d levels: %v", c.Name, n, err)
		}
		if c.Keeps && v != 2 && v != 2.0 {
			t.Errorf("%s at %d levels = %v, want 2", c.Name, n, v)
		}
		for _, over := range []int{n + 1, exprtest.Huge} {
			_, err := expression.Compile(c.Place(core, core, over))
			var le *expression.LimitError
			if !errors.As(err, &le) {
				t.Fatalf("%s at %d levels: %v, want a LimitError", c.Name, over, err)
			}
			if !strings.Contains(err.Error(), "characters long") && !strings.Contains(err.Error(), "nests brackets") {
				t.Errorf("%s at %d levels: %v", c.Name, over, err)
			}
		}
	}
}

func TestCheckBounds(t *testing.T) {
	deep := strings.Repeat("(", expression.MaxDepth+1) + "1" + strings.Repeat(")", expression.MaxDepth+1)
	for _, c := range []struct {
		src  string
		want string // "" passes
	}{
		{"a.n == 7", ""},
		{strings.Repeat("x", expression.MaxLength), ""},
		{strings.Repeat("é", expression.MaxLength), ""}, // characters, not bytes
		{strings.Repeat("x", expression.MaxLength+1), "2001 characters long"},
		{deep, "nests brackets 101 deep"},
		{strings.Repeat("(", expression.MaxDepth) + "1" + strings.Repeat(")", expression.MaxDepth), ""},
		// Brackets in string literals are text, not nesting.
		{`a.s == "` + strings.Repeat("(", 500) + `"`, ""},
		{`a.s == '` + strings.Repeat("[", 500) + `\'` + `'`, ""},
		{"a.s == `" + strings.Repeat("{", 500) + "`", ""},
		{`"\"" + ` + deep, "nests brackets"},
		// An unclosed literal hides nothing after it: there is nothing.
		{`"` + strings.Repeat("(", 500), ""},
	} {
		err := expression.CheckBounds(c.src)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%.40q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%.40q: %v, want %q", c.src, err, c.want)
		}
	}
}
