package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
)

// run executes the CLI in-process with a private XDG config dir.
func run(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	if env == nil {
		env = map[string]string{}
	}
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		if _, ok := env[k]; !ok {
			env[k] = t.TempDir() // nothing a test learns lands in the real home
		}
	}
	env["WEFT_KEYRING"] = "off"
	for k, v := range env {
		t.Setenv(k, v)
	}
	trustTestFiles(t, args)
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: os.Getenv,
		log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	code := c.main(context.Background(), args)
	for _, svc := range c.services { // as Run does: the command's MCP servers stop
		svc.Close()
	}
	return code, out.String(), errb.String()
}

// reviewFilesEnv makes a test's workflow files count as written elsewhere
// (tests of the file review); without it trustTestFiles trusts them.
const reviewFilesEnv = "WEFT_TEST_REVIEW_FILES"

// trustTestFiles trusts the folders of the workflow files a test passes
// (beneath the temp dir only), in the test's own XDG data dir: they stand
// for checked-in workflows a CI run trusts with `weft trust DIR`. Tests of
// the file review set reviewFilesEnv and are asked as a person would be.
func trustTestFiles(t *testing.T, args []string) {
	t.Helper()
	data := os.Getenv("XDG_DATA_HOME")
	if os.Getenv(reviewFilesEnv) != "" || !strings.HasPrefix(data, os.TempDir()) {
		return
	}
	tr := approval.OpenTrust(filepath.Join(data, "weft", approval.TrustFile))
	for _, a := range args {
		if fi, err := os.Stat(a); err == nil && !fi.IsDir() && strings.HasPrefix(a, os.TempDir()) {
			if _, err := tr.TrustFolder(filepath.Dir(a), "test"); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "wf.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const validWF = `{"format":"weft/v1","id":"w","name":"ok","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"code {{check.exit_code}}"}}}],
 "edges":[{"from":"a","to":"b"}]}`

const invalidWF = `{"format":"weft/v1","id":"w","name":"bad","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}},
 {"id":"i","key":"ok","name":"Exists?","type":"If","params":{"condition":"check.exit_code == 0"}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"b","output":{"type":"IfTrue"}}]}`

func TestValidateExitCodes(t *testing.T) {
	cases := []struct {
		name string
		file string
		want int
	}{
		{"valid", writeFile(t, validWF), exitOK},
		{"invalid", writeFile(t, invalidWF), exitInvalid},
		{"bad json", writeFile(t, `{"format":"weft/v1","nodes":[,]}`), exitUnusable},
		{"wrong format", writeFile(t, `{"format":"x","nodes":[],"edges":[]}`), exitUnusable},
		{"missing", filepath.Join(t.TempDir(), "nope.json"), exitUnusable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := run(t, nil, "validate", c.file)
			if code != c.want {
				t.Fatalf("exit %d want %d\nstdout: %s\nstderr: %s", code, c.want, out, errOut)
			}
		})
	}
}

func TestValidateJSON(t *testing.T) {
	// Flags may follow the file.
	code, out, _ := run(t, nil, "validate", writeFile(t, invalidWF), "--json")
	if code != exitInvalid {
		t.Fatalf("exit %d", code)
	}
	var res struct {
		Valid    bool `json:"valid"`
		Problems []struct {
			Code     string            `json:"code"`
			Severity string            `json:"severity"`
			Message  string            `json:"message"`
			NodeIDs  []string          `json:"node_ids"`
			Edges    []json.RawMessage `json:"edges"`
		} `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if res.Valid || len(res.Problems) == 0 {
		t.Fatalf("want problems: %s", out)
	}
	found := false
	for _, p := range res.Problems {
		if p.Code == "if_missing_branch" && p.Severity == "error" && strings.Contains(p.Message, "'Exists?'") && len(p.NodeIDs) == 1 && p.NodeIDs[0] == "i" {
			found = true
		}
		if p.NodeIDs == nil || p.Edges == nil {
			t.Fatalf("node_ids/edges must be arrays: %s", out)
		}
	}
	if !found {
		t.Fatalf("if_missing_branch not reported: %s", out)
	}

	code, out, _ = run(t, nil, "validate", "--json", writeFile(t, validWF))
	if code != exitOK || !strings.Contains(out, `"valid": true`) || !strings.Contains(out, `"problems": []`) {
		t.Fatalf("valid JSON: %d %s", code, out)
	}
	code, out, _ = run(t, nil, "validate", "--json", writeFile(t, "{"))
	if code != exitUnusable || !strings.Contains(out, `"error"`) {
		t.Fatalf("unparseable JSON: %d %s", code, out)
	}
}

func TestValidateSample(t *testing.T) {
	code, out, errOut := run(t, nil, "validate", filepath.Join("..", "..", "testdata", "workflows", "sample.json"))
	if code != exitOK {
		t.Fatalf("sample invalid: %s %s", out, errOut)
	}
}

func TestSettingsCommands(t *testing.T) {
	cfg := t.TempDir()
	env := map[string]string{"XDG_CONFIG_HOME": cfg}
	code, out, _ := run(t, env, "settings", "path")
	want := filepath.Join(cfg, "weft", "settings.json")
	if code != 0 || strings.TrimSpace(out) != want {
		t.Fatalf("path: %d %q", code, out)
	}
	if code, out, _ = run(t, env, "settings", "get", "max_repair_attempts"); code != 0 || strings.TrimSpace(out) != "3" {
		t.Fatalf("get default: %d %q", code, out)
	}
	if code, out, _ = run(t, env, "settings", "set", "max_repair_attempts", "5"); code != 0 {
		t.Fatalf("set: %d %q", code, out)
	}
	data, err := os.ReadFile(want)
	if err != nil || !strings.Contains(string(data), `"max_repair_attempts": 5`) {
		t.Fatalf("file: %s %v", data, err)
	}
	if code, _, errOut := run(t, env, "settings", "set", "max_repair_attempts", "11"); code != exitUnusable || !strings.Contains(errOut, "between 0 and 10") {
		t.Fatalf("out of range accepted: %d %s", code, errOut)
	}
	// The key is stored but never printed in full.
	if code, out, _ = run(t, env, "settings", "set", "llm.api_key", "sk-supersecretvalue99"); code != 0 || strings.Contains(out, "supersecret") {
		t.Fatalf("set key printed it: %q", out)
	}
	code, out, _ = run(t, env, "settings", "get")
	if code != 0 || strings.Contains(out, "supersecret") || !strings.Contains(out, `"max_repair_attempts": 5`) {
		t.Fatalf("get all: %d %s", code, out)
	}
	// Environment overrides show in get but are not written.
	env["WEFT_LLM_MODEL"] = "env-model"
	if code, out, _ = run(t, env, "settings", "get", "llm.model"); code != 0 || strings.TrimSpace(out) != "env-model" {
		t.Fatalf("env override: %q", out)
	}
	data, _ = os.ReadFile(want)
	if strings.Contains(string(data), "env-model") {
		t.Fatal("env override written to file")
	}
	if code, _, _ = run(t, env, "settings", "get", "no.such"); code != exitUnusable {
		t.Fatalf("unknown key: %d", code)
	}
	if code, _, _ = run(t, env, "settings", "frobnicate"); code != exitUnusable {
		t.Fatalf("bad subcommand: %d", code)
	}
}

func TestUsageAndVersion(t *testing.T) {
	if code, out, _ := run(t, nil, "version"); code != 0 || !strings.HasPrefix(out, "weft ") {
		t.Fatalf("version: %d %q", code, out)
	}
	if code, _, errOut := run(t, nil, "bogus"); code != exitUnusable || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("bogus: %d %q", code, errOut)
	}
	if code, _, _ := run(t, nil); code != exitUnusable {
		t.Fatalf("no args: %d", code)
	}
	if code, _, _ := run(t, nil, "validate"); code != exitUnusable {
		t.Fatalf("validate without file: %d", code)
	}
}

// The desktop binary runs the command line only for a command: a
// schedule's `weft run FILE` and `weft version`, not its own start (no
// arguments) or the flags a toolkit may pass.
func TestHandles(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"run", "x.json", "--on-escalate", "abort"}, true},
		{[]string{"schedule", "list"}, true},
		{[]string{"version"}, true},
		{[]string{"--help"}, true},
		{[]string{"--gtk-debug"}, false},
		{[]string{"x.json"}, false},
	} {
		if got := Handles(c.args); got != c.want {
			t.Errorf("Handles(%q) = %v, want %v", c.args, got, c.want)
		}
	}
}
