package subflow

import (
	"errors"
	"fmt"
	"os"
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

// Gather reads each file a run reaches once (a cycle ends where it meets
// a file read already; the run refuses the cycle itself), judges each,
// records what cannot be read with why, and stops at MaxFiles.
func TestGather(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, calls ...string) {
		var nodes []string
		for i, c := range calls {
			nodes = append(nodes, fmt.Sprintf(`{"id":"n%d","key":"k%d","type":"Workflow","params":{"path":%q}}`, i, i, c))
		}
		doc := `{"format":"weft/v1","name":"` + name + `","nodes":[` + strings.Join(nodes, ",") + `],"edges":[]}`
		if err := os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.weft.json", "b.weft.json", "c.weft.json")
	write("b.weft.json", "a.weft.json", "missing.weft.json")
	write("c.weft.json", "b.weft.json")
	write("bad.weft.json")
	judged := map[string]int{}
	judge := func(w *workflow.Workflow, path string, data []byte) ([]string, bool, error) {
		judged[filepath.Base(path)]++
		if len(data) == 0 || w == nil {
			t.Errorf("%s judged without its content", path)
		}
		if filepath.Base(path) == "c.weft.json" {
			return nil, false, errors.New("keyring locked")
		}
		return []string{"fp-" + filepath.Base(path)}, true, nil
	}
	root, _, err := Load(filepath.Join(dir, "a.weft.json"))
	if err != nil {
		t.Fatal(err)
	}
	b := Gather(dir, root, judge)
	p := func(n string) string { return canonpathOf(t, filepath.Join(dir, n)) }
	if got := b.Calls["n0"].Path; got != p("b.weft.json") {
		t.Errorf("a's first call goes to %q", got)
	}
	if f := b.Files[p("a.weft.json")]; f.Workflow == nil || f.Approved[0] != "fp-a.weft.json" || !f.ReviewFile || f.Calls["n0"].Path != p("b.weft.json") {
		t.Errorf("a (reached from b) = %+v", f)
	}
	if f := b.Files[p("missing.weft.json")]; !strings.Contains(f.Error, "could not be read") || f.Workflow != nil {
		t.Errorf("missing = %+v", f)
	}
	if f := b.Files[p("c.weft.json")]; !strings.Contains(f.Error, "approvals of c.weft.json could not be read: keyring locked") || f.Calls != nil {
		t.Errorf("c = %+v", f)
	}
	for name, n := range judged {
		if n != 1 {
			t.Errorf("%s judged %d times", name, n)
		}
	}
	if got := b.Of(p("b.weft.json")).Calls["n1"].Path; got != p("missing.weft.json") {
		t.Errorf("b's own calls, seen from inside b: %q", got)
	}
	if (*Bundle)(nil).Of("x") != nil || Gather(dir, &workflow.Workflow{}, judge) != nil {
		t.Error("a workflow that calls nothing has no bundle")
	}
	// A template in a path is said at the call; past MaxFiles, the rest
	// are refused, not read.
	var many []string
	for i := 0; i < MaxFiles+3; i++ {
		name := fmt.Sprintf("m%d.weft.json", i)
		write(name)
		many = append(many, name)
	}
	write("wide.weft.json", append(many, "{{x}}.weft.json")...)
	wide, _, err := Load(filepath.Join(dir, "wide.weft.json"))
	if err != nil {
		t.Fatal(err)
	}
	b = Gather(dir, wide, judge)
	if len(b.Files) != MaxFiles+3 || !strings.Contains(b.Calls[fmt.Sprintf("n%d", MaxFiles+3)].Error, "template") {
		t.Fatalf("wide: %d files, template call %+v", len(b.Files), b.Calls[fmt.Sprintf("n%d", MaxFiles+3)])
	}
	refused := 0
	for _, f := range b.Files {
		if strings.Contains(f.Error, "more than") {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("%d files refused past the bound, want 3", refused)
	}
}

func canonpathOf(t *testing.T, p string) string {
	t.Helper()
	got, err := Path("", node(p, nil))
	if err != nil {
		t.Fatal(err)
	}
	return got
}
