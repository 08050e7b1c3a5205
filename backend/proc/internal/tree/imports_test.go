package tree

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The supervisor's init runs early only while this package imports nothing
// that Go initialises late (doc.go): strings, slices, fmt or a package of
// Weft's would put most of a large program's initialisation before it.
func TestImportsInitialiseFirst(t *testing.T) {
	early := map[string]bool{"bytes": true, "errors": true, "os": true, "os/signal": true, "runtime": true, "strconv": true, "syscall": true, "time": true, "unsafe": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			if path, _ := strconv.Unquote(imp.Path.Value); !early[path] {
				t.Errorf("%s imports %s, which Go may initialise after most of a program", f, path)
			}
		}
	}
}
