package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/service"
)

// The desktop's Run form: the declared inputs in the file's order, and a
// start with the form's texts through the one check (input_problems when
// they do not fit, nothing run).
func TestDesktopRunWithInputs(t *testing.T) {
	a, ev := runApp(t)
	out := filepath.Join(t.TempDir(), "out")
	w, path := runFile(t, "wf-inputs", [2]string{"say", "printf '%s|%s' {{inputs.who}} {{inputs.n}} > " + out})
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"who":{"type":"string","title":"Who"},"n":{"type":"integer","default":4},"pw":{"type":"string","format":"password"}},"required":["who"]}`)
	form := a.WorkflowInputs(w)
	if len(form.Problems) != 0 || len(form.Fields) != 3 || form.Fields[0].Name != "who" || !form.Fields[0].Required || form.Fields[1].Name != "n" || !form.Fields[2].Secret {
		t.Fatalf("form %+v", form)
	}
	st, err := a.StartRunWithInputs(w, path, nil, "", map[string]string{"n": "four"})
	if err != nil || st.Started || len(st.InputProblems) != 2 {
		t.Fatalf("bad inputs: %+v %v", st, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a step ran")
	}
	st, err = a.StartRunWithInputs(w, path, nil, "", map[string]string{"who": "Ada `x`"})
	if err != nil || !st.Started {
		t.Fatalf("start: %+v %v", st, err)
	}
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Result == nil || fin.Result.Inputs["who"] != "Ada `x`" {
		t.Fatalf("finished %+v", fin)
	}
	if b, _ := os.ReadFile(out); string(b) != "Ada `x`|4" {
		t.Fatalf("out = %q", b)
	}
	if f := a.WorkflowInputs(w); len(f.Fields) != 3 {
		t.Fatal("the form changed")
	}
	w.Inputs = json.RawMessage(`{"type":"string"}`)
	if f := a.WorkflowInputs(w); len(f.Problems) == 0 || f.Fields == nil {
		t.Fatalf("unusable schema: %+v", f)
	}
}
