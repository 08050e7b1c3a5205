package failure_test

import (
	"bufio"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The layering this package exists for: the planner and the runner both
// build on failure, and neither imports the other (a replanner is handed a
// failure.ReplanRequest, not a run).
func TestLayers(t *testing.T) {
	g := loadGraph(t)
	rules := []struct {
		from, to string
	}{
		{"backend/planner", "backend/runner"},
		{"backend/runner", "backend/planner"},
		{"backend/failure", "backend/runner"},
		{"backend/failure", "backend/planner"},
	}
	for _, r := range rules {
		if path := g.path(r.from, r.to); path != nil {
			t.Errorf("%s must not import %s, but does: %s", r.from, r.to, strings.Join(path, " → "))
		}
	}
	// That failure itself stays a leaf is backend/layers_test.go's rule
	// for every leaf.
	// The walk must see the edges it is meant to forbid, or the rules
	// above pass for nothing.
	for _, want := range [][2]string{{"backend/runner", "backend/failure"}, {"backend/planner", "backend/failure"}, {"backend/runner", "backend/workflow"}} {
		if g.path(want[0], want[1]) == nil {
			t.Errorf("the import walk misses %s → %s: it reads the wrong tree", want[0], want[1])
		}
	}
}

// graph holds the non-test imports inside the module, by directory
// relative to the module root.
type graph struct {
	edges map[string][]string
}

func loadGraph(t *testing.T) *graph {
	t.Helper()
	root, module := moduleRoot(t)
	g := &graph{edges: map[string][]string{}}
	var load func(rel string)
	load = func(rel string) {
		if _, done := g.edges[rel]; done {
			return
		}
		g.edges[rel] = nil
		pkg, err := build.Default.ImportDir(filepath.Join(root, filepath.FromSlash(rel)), 0)
		if err != nil {
			t.Fatalf("read package %s: %v", rel, err)
		}
		for _, imp := range pkg.Imports {
			if dep, ok := strings.CutPrefix(imp, module+"/"); ok {
				g.edges[rel] = append(g.edges[rel], dep)
				load(dep)
			}
		}
	}
	for _, p := range []string{"backend/planner", "backend/runner", "backend/failure"} {
		load(p)
	}
	return g
}

// path is an import chain from → … → to, or nil when there is none.
func (g *graph) path(from, to string) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == to {
			var out []string
			for p := cur; p != ""; p = prev[p] {
				out = append([]string{p}, out...)
			}
			return out
		}
		for _, next := range g.edges[cur] {
			if _, seen := prev[next]; !seen {
				prev[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// moduleRoot finds go.mod above the test's directory and its module path.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		f, err := os.Open(filepath.Join(dir, "go.mod"))
		if err == nil {
			defer f.Close()
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if m, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
					return dir, strings.Trim(strings.TrimSpace(m), `"`)
				}
			}
			t.Fatalf("no module line in %s/go.mod (%v)", dir, sc.Err())
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}
