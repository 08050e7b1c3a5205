package validate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func subNode(path string, in map[string]any) workflow.Node {
	return node("sub", workflow.TypeWorkflow, workflow.Params{Path: path, Inputs: in})
}

// A Workflow node's file, relative to the workflow's folder (Options.Dir),
// must exist and be a workflow (unknown_workflow); its literal inputs must
// fit the file's declared inputs (bad_workflow_inputs), a template's value
// being the run's to check; its path is a literal (bad_workflow_path),
// checked without a folder too. Its inputs' templates and what reads its
// outputs are checked as a Tool's arguments are.
func TestSubflowProblems(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("child.weft.json", `{"format":"weft/v1","name":"child","inputs":{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","minimum":1}},"required":["name"]},
 "nodes":[{"id":"c","key":"c","type":"Tool","params":{"tool":"log","arguments":{"message":"{{inputs.name}}"}}}],"edges":[]}`)
	write("broken.weft.json", `{"format":"weft/v1","nodes":[`)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	write("sub/deep.weft.json", `{"format":"weft/v1","name":"deep","nodes":[{"id":"c","key":"c","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}],"edges":[]}`)
	name := map[string]any{"name": "x"}
	for _, c := range []struct {
		what  string
		n     workflow.Node
		dir   string
		want  string // "" for no problem at all
		words string // in the message
	}{
		{"fits", subNode("child.weft.json", map[string]any{"name": "a; rm -rf /", "n": 2.0}), dir, "", ""},
		{"in a sub-folder", subNode("sub/deep.weft.json", nil), dir, "", ""},
		{"templates are the run's", subNode("child.weft.json", map[string]any{"name": "{{first.stdout}}", "n": "{{first.exit_code}}"}), dir, "", ""},
		{"no folder: left to the run", subNode("missing.weft.json", nil), "", "", ""},
		{"no path", subNode("", nil), dir, CodeBadWorkflowPath, "params.path"},
		{"templated path", subNode("{{first.stdout}}.weft.json", name), dir, CodeBadWorkflowPath, "literal"},
		{"templated path without a folder", subNode("{{first.stdout}}", name), "", CodeBadWorkflowPath, "literal"},
		{"missing file", subNode("missing.weft.json", nil), dir, CodeUnknownWorkflow, "missing.weft.json"},
		{"not a workflow", subNode("broken.weft.json", nil), dir, CodeUnknownWorkflow, "not a workflow"},
		{"undeclared input", subNode("child.weft.json", map[string]any{"name": "x", "nope": 1.0}), dir, CodeBadWorkflowInputs, "nope"},
		{"undeclared input by template", subNode("child.weft.json", map[string]any{"name": "x", "nope": "{{first.stdout}}"}), dir, CodeBadWorkflowInputs, "nope"},
		{"required input missing", subNode("child.weft.json", nil), dir, CodeBadWorkflowInputs, "required"},
		{"wrong type", subNode("child.weft.json", map[string]any{"name": "x", "n": "two"}), dir, CodeBadWorkflowInputs, "n"},
		{"out of bounds", subNode("child.weft.json", map[string]any{"name": "x", "n": 0.0}), dir, CodeBadWorkflowInputs, "minimum"},
		{"template reads nothing", subNode("child.weft.json", map[string]any{"name": "{{nobody.stdout}}"}), dir, CodeUnknownVariable, "nobody"},
		{"a secret is not passed", subNode("child.weft.json", map[string]any{"name": "{{secrets.TOKEN}}"}), dir, CodeBadSecretRef, "only be used in a Tool step"},
		{"template reads an undeclared input", subNode("child.weft.json", map[string]any{"name": "{{inputs.nope}}"}), dir, CodeUnknownInput, "nope"},
		{"template reads an unknown output", subNode("child.weft.json", map[string]any{"name": "{{first.stdot}}"}), dir, CodeUnknownOutput, "stdot"},
	} {
		t.Run(c.what, func(t *testing.T) {
			w := wf(ns(failOnNonZero("first", "echo hi"), c.n, logn("after", "{{sub.outputs}} {{sub.run_id}} {{sub.outcome}}")), e("first", "sub"), e("sub", "after"))
			res := ValidateWith(w, catalog, Options{Dir: c.dir})
			if c.want == "" {
				if len(res.Problems) != 0 {
					t.Fatalf("want no problems, got %v", res.Problems)
				}
				return
			}
			mine := strings.Contains(c.want, "workflow") // errors; a template's reads are checked as a Tool's
			if !hasCode(res, c.want) || mine && res.Valid {
				t.Fatalf("want %s, got %v", c.want, res.Problems)
			}
			for _, p := range res.Problems {
				if p.Code == c.want && !strings.Contains(p.Message, c.words) {
					t.Errorf("%s does not say %q: %s", p.Code, c.words, p.Message)
				}
			}
		})
	}
	w := wf(ns(subNode("child.weft.json", name), logn("after", "{{sub.outptus}}")), e("sub", "after"))
	if res := Validate(w, catalog); !hasCode(res, CodeUnknownOutput) {
		t.Errorf("a read of a Workflow node's unknown output: %v", res.Problems)
	}
}
