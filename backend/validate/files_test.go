package validate

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// go test ./backend/validate -run TestInvalidFiles -update rewrites
// testdata/workflows/invalid/ from the failing cases of codeCases.
var update = flag.Bool("update", false, "rewrite testdata/workflows/invalid from the table cases")

const workflowsDir = "../../testdata/workflows"

func load(t *testing.T, path string) *workflow.Workflow {
	t.Helper()
	w, warnings, err := workflow.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) > 0 {
		t.Errorf("%s: load warnings: %v", path, warnings)
	}
	return w
}

func TestValidFiles(t *testing.T) {
	want := []string{"linear.json", "if_else.json", "switch_default.json", "nested_loops.json", "terminal_loop.json", "loop_with_if.json"}
	for _, name := range want {
		if _, err := os.Stat(filepath.Join(workflowsDir, "valid", name)); err != nil {
			t.Errorf("missing sample: %v", err)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(workflowsDir, "valid", "*.json"))
	paths = append(paths, filepath.Join(workflowsDir, "sample.json"))
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			r := Validate(load(t, p), catalog)
			if !r.Valid || len(r.Problems) > 0 {
				t.Errorf("want no problems, got %v", codes(r))
				dump(t, r)
			}
		})
	}
}

// TestSampleLayout checks the start-up sample draws cleanly: every node
// placed, none on top of another, flowing left to right.
func TestSampleLayout(t *testing.T) {
	w := load(t, filepath.Join(workflowsDir, "sample.json"))
	if n := len(w.Nodes); n < 8 || n > 12 {
		t.Errorf("%d nodes; want 8-12", n)
	}
	seen := map[workflow.Position]string{}
	for _, n := range w.Nodes {
		if n.Position == nil {
			t.Fatalf("%s has no position", n.ID)
		}
		if o, ok := seen[*n.Position]; ok {
			t.Errorf("%s and %s share a position", o, n.ID)
		}
		seen[*n.Position] = n.ID
	}
	for _, e := range w.Edges {
		from, to := w.NodeByID(e.From), w.NodeByID(e.To)
		back := from.Type == workflow.TypeEndLoop
		if !back && to.Position.X <= from.Position.X {
			t.Errorf("edge %s → %s runs right to left", e.From, e.To)
		}
	}
}

func TestInvalidFiles(t *testing.T) {
	dir := filepath.Join(workflowsDir, "invalid")
	if *update {
		for _, c := range codeCases() {
			w := c.bad
			w.Name = "Invalid: " + c.code
			data, err := workflow.Marshal(w)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, c.code+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, code := range allCodes {
		t.Run(code, func(t *testing.T) {
			w := load(t, filepath.Join(dir, code+".json"))
			if r := Validate(w, catalog); !hasCode(r, code) {
				t.Errorf("%s not reported; got %v", code, codes(r))
			}
		})
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	known := map[string]bool{}
	for _, c := range allCodes {
		known[c] = true
	}
	for _, p := range paths {
		if code := strings.TrimSuffix(filepath.Base(p), ".json"); !known[code] {
			t.Errorf("%s is not named after a problem code", p)
		}
	}
}
