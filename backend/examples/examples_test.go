package examples

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Every example is valid without a single problem, declares what a person
// must choose as inputs, and ships with cases that pass with nothing
// acting: a broken example fails here, not in someone's first run.
func TestEveryExampleValidatesAndPassesItsCases(t *testing.T) {
	list, err := List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) < 4 {
		t.Fatalf("%d examples, want the four of the gallery", len(list))
	}
	for _, ex := range list {
		t.Run(ex.File, func(t *testing.T) {
			if ex.Name == "" || ex.Goal == "" {
				t.Errorf("name %q, goal %q: the gallery shows both", ex.Name, ex.Goal)
			}
			path, err := filepath.Abs(ex.File)
			if err != nil {
				t.Fatal(err)
			}
			w, warnings, err := workflow.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) > 0 {
				t.Errorf("load warnings: %v", warnings)
			}
			if w.Inputs == nil {
				t.Errorf("declares no inputs: what a person must choose (a folder, a page) is an input")
			}
			res := validate.ValidateWith(w, tools.Builtin(), validate.Options{Dir: filepath.Dir(path)})
			for _, p := range res.Problems {
				t.Errorf("%s %s: %s", p.Severity, p.Code, p.Message)
			}
			cases, err := testcase.Load(testcase.PathFor(path))
			if err != nil {
				t.Fatal(err)
			}
			rep, err := testcase.Run(context.Background(), w, path, cases, testcase.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Cases) < 2 {
				t.Errorf("%d cases; want the usual path and a failure at least", len(rep.Cases))
			}
			for _, cr := range rep.Cases {
				if !cr.Passed {
					t.Errorf("case %q: %s %v", cr.Name, cr.Error, cr.Failures)
				}
			}
		})
	}
}

// The embedded files are the ones on disk, each workflow with its cases.
func TestEveryFileIsAnExampleWithCases(t *testing.T) {
	onDisk, err := filepath.Glob("*.json")
	if err != nil {
		t.Fatal(err)
	}
	list, err := List()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, ex := range list {
		listed[ex.File] = true
	}
	for _, name := range onDisk {
		if testcase.IsCaseFile(name) {
			if !listed[testcase.WorkflowFor(name)] {
				t.Errorf("%s: no example beside it", name)
			}
			continue
		}
		if !listed[name] {
			t.Errorf("%s is not in the gallery", name)
		}
		if _, err := os.Stat(testcase.PathFor(name)); err != nil {
			t.Errorf("%s has no cases: %v", name, err)
		}
	}
}

func TestOpenGivesAFreshUnsavedWorkflow(t *testing.T) {
	a, _, err := Open("watch_page.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := Open("watch_page.json")
	if err != nil {
		t.Fatal(err)
	}
	if a.ID == "" || a.ID == b.ID {
		t.Errorf("ids %q and %q: each opening is a new workflow", a.ID, b.ID)
	}
}

func TestOpenRefusesWhatIsNoExample(t *testing.T) {
	for _, name := range []string{"", "nope.json", "watch_page.tests.json", "../examples/watch_page.json", "examples.go", `a\b.json`, "watch_page"} {
		if _, _, err := Open(name); err == nil {
			t.Errorf("Open(%q) = nil error", name)
		}
	}
}
