package workflow

import (
	"strings"
	"testing"
)

// A file written before secrets and inputs were reserved keeps working:
// the node is renamed and what read it reads the new key; text that only
// looks alike is left as written.
func TestReferenceRootKeysAreMigrated(t *testing.T) {
	w, warnings, err := Parse([]byte(`{"format":"weft/v1","id":"w","name":"old","nodes":[
 {"id":"a","key":"secrets","type":"Tool","params":{"tool":"run_command","arguments":{"command":"cat secrets.txt"}}},
 {"id":"i","key":"inputs","type":"If","params":{"condition":"secrets.exit_code == 0 && secrets['stdout'] != \"secrets.\""}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"http_request","arguments":{"method":"POST","url":"https://x.example/{{secrets.stdout}}","body":{"n":["{{ raw secrets.stdout }} keep my secrets.", "{{inputs.x}}"]}}}},
 {"id":"c","key":"secrets_step","type":"AiStep","params":{"prompt":"Read {{secrets.stdout}}; secrets.stdout stays"}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.Nodes[0].Key != "secrets_step_2" || w.Nodes[1].Key != "inputs_step" {
		t.Fatalf("keys %s %s", w.Nodes[0].Key, w.Nodes[1].Key)
	}
	if len(warnings) != 2 || !strings.Contains(warnings[0], `"secrets" is reserved`) {
		t.Fatalf("warnings %q", warnings)
	}
	for got, want := range map[string]string{
		w.Nodes[0].Params.Arguments["command"].(string):                               "cat secrets.txt",
		w.Nodes[1].Params.Condition:                                                   `secrets_step_2.exit_code == 0 && secrets_step_2['stdout'] != "secrets."`,
		w.Nodes[2].Params.Arguments["url"].(string):                                   "https://x.example/{{secrets_step_2.stdout}}",
		w.Nodes[2].Params.Arguments["body"].(map[string]any)["n"].([]any)[0].(string): "{{ raw secrets_step_2.stdout }} keep my secrets.",
		w.Nodes[2].Params.Arguments["body"].(map[string]any)["n"].([]any)[1].(string): "{{inputs_step.x}}",
		w.Nodes[3].Params.Prompt:                                                      "Read {{secrets_step_2.stdout}}; secrets.stdout stays",
	} {
		if got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
	for _, k := range ReferenceRoots {
		if ReferenceRoot(KeyFromName(k)) {
			t.Errorf("KeyFromName(%q) is reserved", k)
		}
	}
}

// A file that declares inputs was written after the key was reserved: a
// node keyed inputs is renamed, and {{inputs.…}} keeps reading the inputs.
func TestInputsKeyInFileWithInputs(t *testing.T) {
	w, warnings, err := Parse([]byte(`{"format":"weft/v1","id":"w","name":"new","inputs":{"type":"object","properties":{"x":{"type":"string"}}},"nodes":[
 {"id":"a","key":"inputs","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo {{inputs.x}}"}}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if w.Nodes[0].Key != "inputs_step" || w.Nodes[0].Params.Arguments["command"] != "echo {{inputs.x}}" {
		t.Fatalf("key %s, command %v", w.Nodes[0].Key, w.Nodes[0].Params.Arguments["command"])
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "still reads the inputs") {
		t.Fatalf("warnings %q", warnings)
	}
}

// The inputs schema is kept as written: its property order is the order
// a form asks in, and a save must not sort it.
func TestInputsRoundTripInOrder(t *testing.T) {
	src := `{"format":"weft/v1","id":"w","name":"n","inputs":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"integer","default":12345678901234567}},"required":["zeta"]},"nodes":[],"edges":[]}`
	for _, data := range []string{src, " " + src} {
		w, _, err := Parse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		out, err := Marshal(w.Clone())
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if z, a := strings.Index(s, `"zeta"`), strings.Index(s, `"alpha"`); z < 0 || a < z || !strings.Contains(s, "12345678901234567") {
			t.Fatalf("inputs not kept as written:\n%s", s)
		}
	}
	w, _, _ := Parse([]byte(`{"format":"weft/v1","id":"w","name":"n","nodes":[],"edges":[]}`))
	if out, _ := Marshal(w); strings.Contains(string(out), "inputs") {
		t.Fatalf("a workflow without inputs saved some:\n%s", out)
	}
}
