package subflow

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func node(path string, in map[string]any) *workflow.Node {
	return &workflow.Node{ID: "s", Key: "sub", Type: workflow.TypeWorkflow, Params: workflow.Params{Path: path, Inputs: in}}
}

// The path is a literal, relative to the caller's folder; an unsaved
// caller has none.
func TestPath(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "x.weft.json")
	for _, c := range []struct {
		dir, path, want, err string
	}{
		{dir, "child.weft.json", filepath.Join(dir, "child.weft.json"), ""},
		{dir, " sub/../child.weft.json ", filepath.Join(dir, "child.weft.json"), ""},
		{"", abs, abs, ""},
		{dir, "", "", "names no workflow file"},
		{dir, "  ", "", "names no workflow file"},
		{dir, "{{pick.text}}", "", "holds a template"},
		{dir, "a{{x}}.weft.json", "", "holds a template"},
		{"", "child.weft.json", "", "not saved"},
	} {
		got, err := Path(c.dir, node(c.path, nil))
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Path(%q, %q) error %v, want %q", c.dir, c.path, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("Path(%q, %q) = %q, %v; want %q", c.dir, c.path, got, err, c.want)
		}
	}
}

// Every cycle is refused wherever it closes, and every chain up to the
// bound is allowed, one more refused; the message names the chain.
func TestChainEnter(t *testing.T) {
	for depth := 1; depth <= MaxDepth+1; depth++ {
		var c Chain
		var err error
		for i := 0; i < depth && err == nil; i++ {
			c, err = c.Enter(fmt.Sprintf("/w/f%d.weft.json", i))
		}
		if depth <= MaxDepth && err != nil {
			t.Fatalf("depth %d refused: %v", depth, err)
		}
		if depth > MaxDepth && (err == nil || !strings.Contains(err.Error(), "f0.weft.json → f1.weft.json")) {
			t.Fatalf("depth %d: %v", depth, err)
		}
	}
	for n := 1; n < MaxDepth; n++ {
		for back := 0; back < n; back++ {
			var c Chain
			for i := 0; i < n; i++ {
				c, _ = c.Enter(fmt.Sprintf("/w/f%d.weft.json", i))
			}
			before := c.String()
			_, err := c.Enter(fmt.Sprintf("/w/f%d.weft.json", back))
			if err == nil || !strings.Contains(err.Error(), "cycle") || !strings.HasSuffix(err.Error(), fmt.Sprintf("f%d.weft.json", back)) {
				t.Fatalf("chain of %d back to %d: %v", n, back, err)
			}
			if c.String() != before {
				t.Fatalf("Enter changed the chain it was called on: %s, was %s", c, before)
			}
		}
	}
}

// Literal values are checked by the inputs check; a template's value is
// the run's to check, but an input the file does not declare is refused
// whatever gives it.
func TestCheckInputs(t *testing.T) {
	child := &workflow.Workflow{Inputs: []byte(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","maximum":3}},"required":["name","n"]}`)}
	for _, c := range []struct {
		in   map[string]any
		want []string // inputs named by problems
	}{
		{map[string]any{"name": "x", "n": 2.0}, nil},
		{map[string]any{"name": "{{a.text}}", "n": "{{a.count}}"}, nil},
		{map[string]any{"name": "x"}, []string{"n"}},
		{map[string]any{"name": "x", "n": 4.0}, []string{"n"}},
		{map[string]any{"name": "x", "n": "{{a.count}}", "other": "{{a.text}}"}, []string{"other"}},
		{map[string]any{"name": 1.0, "n": 1.0}, []string{"name"}},
		{nil, []string{"name", "n"}},
	} {
		var got []string
		for _, p := range CheckInputs(child, c.in) {
			got = append(got, p.Input)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("CheckInputs(%v) names %v, want %v", c.in, got, c.want)
		}
	}
}
