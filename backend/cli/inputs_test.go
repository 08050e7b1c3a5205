package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// inputsWF writes its inputs, one per line, to out.txt beside it.
const inputsWF = `{"format":"weft/v1","id":"w","name":"inputs","inputs":{"type":"object","properties":{
  "name":{"type":"string","description":"who to greet"},
  "count":{"type":"integer","default":2},
  "loud":{"type":"boolean"},
  "cfg":{"type":"object"},
  "tags":{"type":"array","items":{"type":"string"}}},"required":["name"]},
 "nodes":[{"id":"a","key":"say","name":"Say","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt",
  "content":"{{inputs.name}}|{{inputs.count}}|{{inputs.loud}}|{{inputs.cfg.depth}}|{{inputs.tags}}"}}}],"edges":[]}`

func TestRunInputs(t *testing.T) {
	cases := []struct {
		name string
		args []string
		out  string
	}{
		{"texts per type", []string{"--input", "name=Ada; rm -rf / $(x) `y`", "--input", "count=5", "--input", "loud=true", "--input", `cfg={"depth":3}`, "--input", `tags=["a","b"]`},
			`Ada; rm -rf / $(x) ` + "`y`" + `|5|true|3|["a","b"]`},
		{"json with texts over it", []string{"--inputs", `{"name":"json","loud":false,"cfg":{"depth":1},"tags":[]}`, "--input", "name=text"},
			"text|2|false|1|[]"},
		{"string keeps an equals sign", []string{"--input", "name=a=b", "--inputs", `{"loud":true,"cfg":{"depth":0},"tags":["x"]}`},
			`a=b|2|true|0|["x"]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wf := writeFile(t, inputsWF)
			code, out, errOut := run(t, runEnv(t), append([]string{"run", wf}, c.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(wf), "out.txt"))
			if string(b) != c.out {
				t.Fatalf("out.txt = %q, want %q", b, c.out)
			}
		})
	}
}

// Inputs that do not fit refuse the run (exit 2) before anything acts,
// naming the input and what it wants.
func TestRunInputsRefused(t *testing.T) {
	cases := []struct {
		name string
		args []string
		msg  string
	}{
		{"required", nil, "input name is required: a string — who to greet"},
		{"not an integer", []string{"--input", "name=a", "--input", "count=two"}, `input count wants an integer, written as JSON; "two" is not`},
		{"not a boolean", []string{"--input", "name=a", "--input", "loud=yes"}, "input loud wants a boolean (true or false)"},
		{"bad object", []string{"--input", "name=a", "--input", "cfg=[1]"}, "input cfg does not fit"},
		{"undeclared", []string{"--input", "name=a", "--input", "nmae=b"}, "declares no input nmae"},
		{"json wrong type", []string{"--inputs", `{"name": 3}`}, "input name does not fit"},
		{"json not an object", []string{"--inputs", `[1]`}, "--inputs: give one JSON object"},
		{"json invalid", []string{"--inputs", `{`}, "--inputs: give one JSON object"},
		{"no equals", []string{"--input", "name"}, "write NAME=VALUE"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wf := writeFile(t, inputsWF)
			code, out, errOut := run(t, runEnv(t), append([]string{"run", wf}, c.args...)...)
			if code != exitUnusable || !strings.Contains(errOut, c.msg) {
				t.Fatalf("exit %d, want %d with %q\n%s\n%s", code, exitUnusable, c.msg, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(wf), "out.txt")); err == nil {
				t.Fatal("the step ran")
			}
		})
	}
	code, out, _ := run(t, runEnv(t), "run", "--json", writeFile(t, inputsWF), "--input", "count=x")
	var m struct {
		Type     string `json:"type"`
		Problems []struct {
			Input   string `json:"input"`
			Message string `json:"message"`
		} `json:"input_problems"`
	}
	if code != exitUnusable || json.Unmarshal([]byte(out), &m) != nil || m.Type != "error" || len(m.Problems) != 2 || m.Problems[0].Input != "count" || m.Problems[1].Input != "name" {
		t.Fatalf("exit %d, --json output %q", code, out)
	}
}

// weft validate checks the inputs schema and what reads it.
func TestValidateInputs(t *testing.T) {
	bad := strings.Replace(inputsWF, "{{inputs.name}}", "{{inputs.nmae}}", 1)
	code, out, _ := run(t, nil, "validate", "--json", writeFile(t, bad))
	if code != exitInvalid || !strings.Contains(out, `"unknown_input"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	bad = strings.Replace(inputsWF, `"count":{"type":"integer","default":2}`, `"count":{"type":"integer","default":"two"}`, 1)
	code, out, _ = run(t, nil, "validate", "--json", writeFile(t, bad))
	if code != exitInvalid || !strings.Contains(out, `"bad_inputs_schema"`) {
		t.Fatalf("exit %d: %s", code, out)
	}
	if code, out, _ := run(t, nil, "validate", writeFile(t, inputsWF)); code != exitOK {
		t.Fatalf("exit %d: %s", code, out)
	}
}
