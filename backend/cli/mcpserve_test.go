package cli

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
)

// cliMainEnv makes the test binary run as weft (TestMain), so a real
// client can start `weft mcp serve` without a build.
const cliMainEnv = "WEFT_TEST_CLI_MAIN"

const greetWF = `{"format":"weft/v1","id":"g","name":"Greet","goal":"Write a greeting for a name",
 "inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
 "nodes":[
 {"id":"a","key":"hello","name":"Hello","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}} > greeting.txt"}}},
 {"id":"b","key":"read","name":"Read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"greeting.txt"}}}],
 "edges":[{"from":"a","to":"b"}]}`

// npmPackage is testdata/mcp/node_modules, holding @modelcontextprotocol/
// name, and node.
func npmPackage(t *testing.T, name string) (nm, node string) {
	t.Helper()
	nm = mcptest.NodeModules(t)
	if _, err := os.Stat(filepath.Join(nm, "@modelcontextprotocol", name, "package.json")); err != nil {
		t.Fatalf("@modelcontextprotocol/%s is not in testdata/mcp: npm ci there", name)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not on PATH")
	}
	return nm, node
}

// mcpFolder is a folder with a trusted workflow (backup-notes.weft.json,
// its input name written by a command and read back), an untrusted one
// and a trusted one a model wrote that nobody approved (planned), served
// by this test binary as weft (the environment says so) in private XDG
// dirs.
func mcpFolder(t *testing.T) (dir, planned string) {
	t.Helper()
	env := map[string]string{"XDG_DATA_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir(), "XDG_STATE_HOME": t.TempDir(),
		"WEFT_KEYRING": "off", cliMainEnv: "1"}
	for k, v := range env {
		t.Setenv(k, v)
	}
	dir = t.TempDir()
	tr := approval.OpenTrust(filepath.Join(env["XDG_DATA_HOME"], "weft", approval.TrustFile))
	put := func(name, content string, trusted bool) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if trusted {
			if err := tr.Record(p, []byte(content), "test"); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	put("backup-notes.weft.json", greetWF, true)
	put("stranger.weft.json", strings.Replace(greetWF, `"Greet"`, `"Stranger"`, 1), false)
	planned = put("planned.weft.json", strings.Replace(greetWF, `"type":"Tool","params"`, `"type":"Tool","provenance":{"source":"model","via":"plan"},"params"`, 1), true)
	return dir, planned
}

// An agent connected with the official MCP TypeScript SDK lists the
// folder's trusted workflows (not an untrusted one), calls one with
// arguments (shell metacharacters stay data) and gets its outputs; a
// workflow whose steps a model wrote and nobody approved runs nothing.
func TestMCPServeWithTheTypeScriptSDK(t *testing.T) {
	nm, node := npmPackage(t, "sdk")
	dir, planned := mcpFolder(t)

	hostile := "Ada; touch PWNED $(touch PWNED2)"
	calls, _ := json.Marshal([]map[string]any{
		{"name": "backup_notes", "arguments": map[string]any{"name": hostile}},
		{"name": "backup_notes", "arguments": map[string]any{"name": 7}},
		{"name": "planned", "arguments": map[string]any{"name": "x"}},
	})
	self, _ := json.Marshal([]string{os.Args[0], "mcp", "serve", dir})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(filepath.Dir(nm), "weft-client.mjs"), string(self), string(calls))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client: %v\n%s", err, stderr.String())
	}
	var got struct {
		Tools []struct {
			Name, Description string
			InputSchema       map[string]any
		}
		Calls []struct {
			Result *struct {
				IsError           bool
				Content           []struct{ Text string }
				StructuredContent struct {
					Outcome string
					Outputs map[string]map[string]any
				}
			}
			Error string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var names []string
	for _, tl := range got.Tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "backup_notes,planned" && strings.Join(names, ",") != "planned,backup_notes" {
		t.Fatalf("tools %v: want backup_notes and planned, not the untrusted stranger", names)
	}
	if len(got.Calls) != 3 {
		t.Fatalf("calls %s", out)
	}
	ok := got.Calls[0].Result
	if ok == nil || ok.IsError || ok.StructuredContent.Outcome != "succeeded" || ok.StructuredContent.Outputs["read"]["content"] != hostile {
		t.Fatalf("the call: %s\n%s", out, stderr.String())
	}
	for _, f := range []string{"PWNED", "PWNED2"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Fatalf("an argument ran as code: %s exists", f)
		}
	}
	if bad := got.Calls[1]; bad.Result != nil || !strings.Contains(bad.Error, "name") {
		t.Fatalf("a number for a string input: %+v", bad)
	}
	refused := got.Calls[2].Result
	if refused == nil || !refused.IsError || len(refused.Content) == 0 || !strings.Contains(refused.Content[0].Text, "weft approve "+planned) {
		t.Fatalf("the unapproved workflow: %s", out)
	}
	runs, _ := os.ReadDir(filepath.Join(dir, ".weft", "runs"))
	var logged []string
	for _, r := range runs {
		if r.IsDir() {
			logged = append(logged, r.Name())
		}
	}
	if len(logged) != 1 {
		t.Fatalf("runs logged %v, want the one that ran", logged)
	}
	summary, err := os.ReadFile(filepath.Join(dir, ".weft", "runs", logged[0], "summary.json"))
	if err != nil || !strings.Contains(string(summary), `"source": "mcp"`) && !strings.Contains(string(summary), `"source":"mcp"`) {
		t.Fatalf("the run is not logged with source mcp: %s (%v)", summary, err)
	}
}

func TestMCPServeUsage(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"mcp"}, {"mcp", "list"}, {"mcp", "serve"}, {"mcp", "serve", dir, "--http", "0.0.0.0:8080"}, {"mcp", "serve", filepath.Join(dir, "nope")}} {
		if code, _, stderr := run(t, nil, args...); code != exitUnusable || stderr == "" {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if _, _, stderr := run(t, nil, "mcp", "serve", dir, "--http", "0.0.0.0:8080"); !strings.Contains(stderr, "loopback") {
		t.Errorf("a network address: %q", stderr)
	}
}

// The MCP Inspector CLI lists the folder's tools (not the untrusted one)
// and calls one with an argument.
func TestMCPServeWithTheInspectorCLI(t *testing.T) {
	nm, node := npmPackage(t, "inspector-cli")
	dir, _ := mcpFolder(t)
	inspect := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		build := filepath.Join(nm, "@modelcontextprotocol", "inspector-cli", "build")
		cmd := exec.CommandContext(ctx, node, append([]string{"index.js", os.Args[0], "mcp", "serve", dir}, args...)...)
		cmd.Dir = build // it reads ../package.json from the working folder
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s%s", args, err, out, stderr.String())
		}
		return string(out)
	}
	var list struct{ Tools []struct{ Name string } }
	if err := json.Unmarshal([]byte(inspect("--method", "tools/list")), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if strings.Join(names, ",") != "backup_notes,planned" {
		t.Fatalf("tools %v", names)
	}
	var res struct {
		IsError           bool
		StructuredContent struct {
			Outcome string
			Outputs map[string]map[string]any
		}
	}
	out := inspect("--method", "tools/call", "--tool-name", "backup_notes", "--tool-arg", "name=$(touch PWNED)")
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.IsError || res.StructuredContent.Outputs["read"]["content"] != "$(touch PWNED)" {
		t.Fatalf("call: %s (%v)", out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
		t.Fatal("an argument ran as code")
	}
}
