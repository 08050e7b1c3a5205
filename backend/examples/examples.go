// Package examples is the gallery of workflows the desktop offers to start
// from: each a real weft/v1 file beside its test cases (NAME.tests.json),
// embedded so the built app has them wherever it runs. An example opens
// as a new unsaved workflow: it has no id (each opening gets a fresh one)
// and no path, so nothing the person has is overwritten.
package examples

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/workflow"
)

//go:embed *.json
var files embed.FS

// Example is one entry of the gallery.
type Example struct {
	// File names the example (OpenExample's argument): "watch_page.json".
	File string `json:"file"`
	Name string `json:"name"`
	Goal string `json:"goal"`
}

// List returns the examples in file name order.
func List() ([]Example, error) {
	names, err := fs.Glob(files, "*.json")
	if err != nil {
		return nil, fmt.Errorf("examples: %w", err)
	}
	sort.Strings(names)
	out := []Example{}
	for _, name := range names {
		if testcase.IsCaseFile(name) {
			continue
		}
		w, _, err := Open(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Example{File: name, Name: w.Name, Goal: w.Goal})
	}
	return out, nil
}

// Open parses the example named file (as List names it).
func Open(file string) (*workflow.Workflow, []string, error) {
	if testcase.IsCaseFile(file) || strings.ContainsAny(file, `/\`) || !strings.HasSuffix(file, ".json") {
		return nil, nil, fmt.Errorf("examples: no example %q", file)
	}
	b, err := files.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("examples: no example %q", file)
	}
	w, warnings, err := workflow.Parse(b)
	if err != nil {
		return nil, nil, fmt.Errorf("example %s: %w", file, err)
	}
	return w, warnings, nil
}
