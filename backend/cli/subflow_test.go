package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const subflowParent = `{"format":"weft/v1","id":"p","name":"parent","inputs":{"type":"object","properties":{"who":{"type":"string"}}},
 "nodes":[{"id":"s","key":"sub","type":"Workflow","params":{"path":"child.weft.json","inputs":{"name":"{{inputs.who}}"}}},
          {"id":"o","key":"out","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{sub.outputs.echo.stdout}}"}}}],
 "edges":[{"from":"s","to":"o"}]}`

const subflowChild = `{"format":"weft/v1","id":"c","name":"child","inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
 "nodes":[{"id":"e","key":"echo","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}}"}}}],"edges":[]}`

// weft validate looks for a Workflow node's file beside the workflow and
// checks the inputs it gives; weft run runs it, its input as data.
func TestSubflowValidateAndRun(t *testing.T) {
	dir := t.TempDir()
	parent := filepath.Join(dir, "parent.weft.json")
	if err := os.WriteFile(parent, []byte(subflowParent), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, nil, "validate", "--json", parent); code != exitInvalid || !strings.Contains(out, `"unknown_workflow"`) {
		t.Fatalf("no child: exit %d: %s", code, out)
	}
	child := strings.Replace(subflowChild, `"required":["name"]`, `"required":["name","age"]`, 1)
	child = strings.Replace(child, `"name":{"type":"string"}}`, `"name":{"type":"string"},"age":{"type":"integer"}}`, 1)
	if err := os.WriteFile(filepath.Join(dir, "child.weft.json"), []byte(child), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, nil, "validate", "--json", parent); code != exitInvalid || !strings.Contains(out, `"bad_workflow_inputs"`) || !strings.Contains(out, "age") {
		t.Fatalf("a required input not given: exit %d: %s", code, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "child.weft.json"), []byte(subflowChild), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, nil, "validate", parent); code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
	hostile := "x; touch MARK $(touch MARK2)"
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	if code, out, errOut := run(t, env, "run", parent, "--input", "who="+hostile); code != exitOK {
		t.Fatalf("run: exit %d: %s %s", code, out, errOut)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	if err != nil || string(got) != hostile {
		t.Fatalf("out.txt = %q (%v), want %q", got, err, hostile)
	}
	for _, m := range []string{"MARK", "MARK2"} {
		if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
			t.Errorf("%s exists: an input ran as code", m)
		}
	}
}
