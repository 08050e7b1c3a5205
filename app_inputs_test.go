package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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
	st, err := a.StartRunWithInputs(w, path, nil, "", map[string]string{"n": "four"}, nil)
	if err != nil || st.Started || len(st.InputProblems) != 2 {
		t.Fatalf("bad inputs: %+v %v", st, err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a step ran")
	}
	st, err = a.StartRunWithInputs(w, path, nil, "", map[string]string{"who": "Ada `x`"}, nil)
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

// A secret input given a stored secret from the form: the form lists the
// stored secrets by name; the run gets the reference, the command the
// value (through its environment), the run's record neither.
func TestDesktopRunWithStoredSecretInput(t *testing.T) {
	a, ev := runApp(t)
	t.Setenv("WEFT_KEYRING", "off")
	const value = "pw-Stored_93jd82hd"
	if err := a.SetSecret("DB_PASSWORD", value, nil, []string{"run_command"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	w, path := runFile(t, "wf-secret-input", [2]string{"use", "printf '%s' {{inputs.pw}} > " + out})
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"pw":{"type":"string","format":"password"}},"required":["pw"]}`)
	if form := a.WorkflowInputs(w); len(form.Secrets) != 1 || form.Secrets[0] != "DB_PASSWORD" {
		t.Fatalf("the form's stored secrets: %+v", form)
	}
	st, err := a.StartRunWithInputs(w, path, nil, "", nil, map[string]string{"pw": "DB_PASSWORD"})
	if err != nil || !st.Started {
		t.Fatalf("start: %+v %v", st, err)
	}
	fin := ev.next(t, EventRunFinished).(service.Finished)
	if fin.Outcome != "succeeded" {
		t.Fatalf("finished %+v", fin)
	}
	if b, _ := os.ReadFile(out); string(b) != value {
		t.Fatalf("the command wrote %q", b)
	}
	rec, _ := json.Marshal(fin)
	if strings.Contains(string(rec), value) {
		t.Fatalf("the value is in the run's end: %s", rec)
	}
}
