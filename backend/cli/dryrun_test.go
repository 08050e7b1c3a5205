package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact/redacttest"
)

// dryFolder writes a workflow that checks for a file named by its input,
// then creates a file (IfTrue) or sends a token it names as a secret
// (IfFalse), and a case file with one case per branch; pinned gives the
// check pinned data.
func dryFolder(t *testing.T, pinned string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	wf := `{"format":"weft/v1","id":"w","name":"dry",
	 "inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
	 "nodes":[
	 {"id":"check","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f {{inputs.name}}.txt","ok_exit_codes":[0,1]}}},
	 {"id":"has","key":"has","type":"If","params":{"condition":"check.exit_code == 0"}},
	 {"id":"make","key":"make","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch created-by-dry-run"}}},
	 {"id":"send","key":"send","type":"Tool","params":{"tool":"run_command","arguments":{"command":"curl -H \"Authorization: Bearer {{secrets.API_TOKEN}}\" https://example.test/{{inputs.name}}"}}}],
	 "edges":[{"from":"check","to":"has"},{"from":"has","to":"make","output":"IfTrue"},{"from":"has","to":"send","output":"IfFalse"}]` + pinned + `}`
	cases := `{"cases":[
	 {"name":"absent","inputs":{"name":"notes"},"mocks":{"commands":[
	   {"command":"test -f 'notes'.txt","answer":{"exit_code":1}},
	   {"command":"curl -H \"Authorization: Bearer {{secrets.API_TOKEN}}\" https://example.test/'notes'","answer":{"exit_code":0,"stdout":"sent"}}]}},
	 {"name":"present","inputs":{"name":"notes"},"mocks":{"commands":[
	   {"command":"test -f 'notes'.txt","answer":{"exit_code":0}}]}}]}`
	if err := os.WriteFile(path, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "flow.tests.json"), []byte(cases), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A dry run plays the walk on a case's mocks: the branch follows the
// mocked exit code, templates are filled in from the inputs, a secret
// stays its reference (its stored value is never read or printed), and
// a step with no mock is shown as what would run, and does not run.
func TestDryRunFollowsTheMocks(t *testing.T) {
	const token = "tok-dryRun_5a4b3c2d1e0f9876"
	data := t.TempDir()
	if code, _, errb := secretsCmd(t, data, token+"\n", "set", "API_TOKEN", "--host", "example.test"); code != exitOK {
		t.Fatalf("set: %s", errb)
	}
	env := map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": filepath.Join(data, "config")}
	path := dryFolder(t, "")
	dir := filepath.Dir(path)
	noToken := func(where, s string) {
		t.Helper()
		for form, v := range redacttest.Encodings(token) {
			if strings.Contains(s, v) {
				t.Errorf("the token (%s) is in %s", form, where)
			}
		}
	}

	code, out, errb := run(t, env, "run", path, "--dry-run", "--case", "absent")
	if code != exitOK {
		t.Fatalf("absent: exit %d\n%s%s", code, out, errb)
	}
	for _, want := range []string{
		`answered by the mocks of case "absent": nothing ran`,
		"check run_command  [mock]", "command: test -f 'notes'.txt", // the input, quoted as data
		"has → IfFalse  [check.exit_code == 0]",
		`send run_command  [mock]`, `command: curl -H "Authorization: Bearer {{secrets.API_TOKEN}}" https://example.test/'notes'`,
		"outcome: succeeded",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("absent: the output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "make run_command") {
		t.Errorf("absent: the walk took the other branch:\n%s", out)
	}
	noToken("stdout", out)
	noToken("stderr", errb)

	code, out, errb = run(t, env, "run", path, "--dry-run", "--case", "present")
	if code != exitOK {
		t.Fatalf("present: exit %d\n%s%s", code, out, errb)
	}
	for _, want := range []string{"has → IfTrue", "make run_command  [would run]", "command: touch created-by-dry-run",
		"nothing answered make: in a real run they would run"} {
		if !strings.Contains(out, want) {
			t.Errorf("present: the output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "created-by-dry-run")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".weft")); !os.IsNotExist(err) {
		t.Errorf("a dry run left a run log beside the workflow: %v", err)
	}

	code, out, errb = run(t, env, "run", path, "--dry-run", "--case", "absent", "--json")
	if code != exitOK {
		t.Fatalf("--json: exit %d\n%s", code, errb)
	}
	var rep struct {
		Case  string `json:"case"`
		Steps []struct {
			Step      string         `json:"step"`
			Answer    string         `json:"answer"`
			Branch    string         `json:"branch"`
			Arguments map[string]any `json:"arguments"`
		} `json:"steps"`
		Outcome  string   `json:"outcome"`
		WouldRun []string `json:"would_run"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	var walk []string
	for _, s := range rep.Steps {
		walk = append(walk, s.Step+":"+s.Answer+s.Branch)
	}
	if got := strings.Join(walk, " "); rep.Case != "absent" || got != "check:mock has:IfFalse send:mock" || rep.Outcome != "succeeded" || len(rep.WouldRun) != 0 {
		t.Errorf("--json: case %q, walk %q, outcome %q, would run %v", rep.Case, got, rep.Outcome, rep.WouldRun)
	}
	if len(rep.Steps) == 3 {
		if cmd, _ := rep.Steps[2].Arguments["command"].(string); !strings.Contains(cmd, "{{secrets.API_TOKEN}}") {
			t.Errorf("--json: the secret is not shown as its reference: %v", cmd)
		}
	}
	noToken("--json", out)
}

// Without a case, the pinned data answers; --input gives the inputs.
func TestDryRunUsesPinnedData(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	path := dryFolder(t, `,"pinned":{"check":{"exit_code":0,"stdout":"","stderr":""}}`)
	code, out, errb := run(t, env, "run", path, "--dry-run", "--input", "name=todo")
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errb)
	}
	for _, want := range []string{"answered by the pinned data", "check  [pinned]", "has → IfTrue", "make run_command  [would run]", "command: touch created-by-dry-run"} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "created-by-dry-run")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}
}

// A dry run that cannot be played exits 2 saying why.
func TestDryRunUnusable(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	path := dryFolder(t, "")
	for name, tc := range map[string]struct {
		args []string
		want string
	}{
		"unknown case":     {[]string{"--dry-run", "--case", "nope"}, `no case is named "nope"`},
		"case without dry": {[]string{"--case", "absent"}, "--case NAME goes with --dry-run"},
		"missing input":    {[]string{"--dry-run"}, "name"},
		"undeclared input": {[]string{"--dry-run", "--case", "absent", "--input", "other=1"}, "declares no input other"},
	} {
		code, out, errb := run(t, env, append([]string{"run", path}, tc.args...)...)
		if code != exitUnusable || !strings.Contains(errb, tc.want) {
			t.Errorf("%s: exit %d, stderr %q (stdout %q); want 2 and %q", name, code, errb, out, tc.want)
		}
	}
}
