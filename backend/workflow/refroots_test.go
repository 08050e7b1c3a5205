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
