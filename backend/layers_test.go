// Package backend holds no code: its test keeps the lower packages below
// the ones that use them (README.md, Layout).
package backend

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/weft-dev/weft/"

// leaves are the packages every engine, adapter and model loop builds on.
// A leaf (with its subpackages) imports only leaves, so nothing above them
// (runner, mcp, service, temporal, cli, validate, planner, assistant,
// critic…) is ever reachable from one, and validate, mcp or schedule
// quote, render and start commands without depending on the engine.
var leaves = []string{
	"backend/appdirs",
	"backend/atomicfile",
	"backend/canonpath",
	"backend/expression",
	"backend/failure",
	"backend/flow",
	"backend/inputs",
	"backend/proc",
	"backend/quote",
	"backend/redact",
	"backend/render",
	"backend/workflow",
}

func TestLeavesImportOnlyLeaves(t *testing.T) {
	bad, err := layerViolations(".", leaves)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// The check itself finds a leaf inside another package, an import from
// above, one from a sibling of a leaf's path, one in a subpackage and one
// in a file another platform builds; it passes test files, which may reach
// above, and testdata.
func TestLayerViolationsFinds(t *testing.T) {
	dir := t.TempDir()
	write := func(name, imports string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		src := "package x\n\nimport (\n" + imports + ")\n"
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("low/a.go", "\t\"strings\"\n\t\""+module+"backend/low/sub\"\n\t\""+module+"backend/other\"\n")
	write("low/sub/b_windows.go", "\t\""+module+"backend/runner\"\n")
	write("low/c.go", "\t\""+module+"backend/lowest\"\n")
	write("low/c_test.go", "\t\""+module+"backend/service\"\n")
	write("low/testdata/d.go", "\t\""+module+"backend/service\"\n")
	write("lowest/e.go", "\t\""+module+"backend/lower\"\n")
	write("runner/low/f.go", "")
	got, err := layerViolations(dir, []string{"backend/low", "backend/lowest", "backend/low/sub", "backend/runner/low"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"backend/low/a.go imports backend/other, which is not a leaf",
		"backend/low/sub/b_windows.go imports backend/runner, which is not a leaf",
		"backend/lowest/e.go imports backend/lower, which is not a leaf",
		"backend/runner/low lies inside backend/runner, which is not a leaf",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// layerViolations lists each leaf that lies inside a package other than a
// leaf, and each import of a Weft package outside leaves by a non-test Go
// file of a leaf under root (the backend directory). It reads
// import lines rather than asking go list so that files of every platform
// count, not only this one's.
func layerViolations(root string, leaves []string) ([]string, error) {
	isLeaf := func(pkg string) bool {
		return slices.ContainsFunc(leaves, func(l string) bool { return pkg == l || strings.HasPrefix(pkg, l+"/") })
	}
	var bad []string
	for _, leaf := range leaves {
		if parent := path.Dir(leaf); parent != "backend" && !isLeaf(parent) {
			bad = append(bad, leaf+" lies inside "+parent+", which is not a leaf")
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(leaf, "backend/")))
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				// A leaf inside a leaf is walked on its own.
				if p != dir && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || slices.Contains(leaves, "backend/"+filepath.ToSlash(rel))) {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				imported, err := strconv.Unquote(imp.Path.Value)
				if err != nil {
					return err
				}
				if pkg, ok := strings.CutPrefix(imported, module); ok && !isLeaf(pkg) {
					bad = append(bad, "backend/"+filepath.ToSlash(rel)+" imports "+pkg+", which is not a leaf")
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("leaf %s (moved or renamed? update leaves): %w", leaf, err)
		}
	}
	slices.Sort(bad)
	return bad, nil
}
