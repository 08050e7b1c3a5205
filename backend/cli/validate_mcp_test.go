package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/mcp/mcptest"
)

func TestMain(m *testing.M) {
	if os.Getenv(cliMainEnv) == "1" { // this binary as weft (mcpserve_test.go)
		os.Exit(Main(os.Args[1:]))
	}
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// weft validate checks MCP steps against their server's tools: a step of
// a tool the server has is no unknown_tool, one missing an argument the
// tool's schema requires is an error, the MCP names of a result's parts
// are a warning, and the list is cached per server's settings (state dir).
func TestValidateChecksMCPTools(t *testing.T) {
	env := runEnv(t)
	cfgDir := filepath.Join(env["XDG_CONFIG_HOME"], "weft")
	os.MkdirAll(cfgDir, 0o700)
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"go": mcptest.Config("")}})
	if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	good := writeFile(t, `{"format":"weft/v1","id":"w","name":"mcp","nodes":[
 {"id":"a","key":"e","name":"Echo","type":"Tool","params":{"tool":"go.echo","arguments":{"text":"hi"}}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{e.content}}"}}}],
 "edges":[{"from":"a","to":"b"}]}`)
	code, out, errOut := run(t, env, "validate", good)
	if code != exitOK || strings.Contains(out, "unknown_tool") || !strings.Contains(out, "[output_alias]") || !strings.Contains(out, "write e.text") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	cached, _ := filepath.Glob(filepath.Join(env["XDG_STATE_HOME"], "weft", "mcp-catalog", "*.json"))
	if len(cached) != 1 {
		t.Errorf("cached lists: %v", cached)
	}
	bad := writeFile(t, `{"format":"weft/v1","id":"w","name":"mcp","nodes":[
 {"id":"a","key":"e","name":"Echo","type":"Tool","params":{"tool":"go.echo","arguments":{"txt":"hi"}}}],"edges":[]}`)
	code, out, errOut = run(t, env, "validate", bad)
	if code != exitInvalid || !strings.Contains(out, "needs the argument 'text' [missing_argument]") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}

// weft validate holds a real server's steps to their tools' schemas
// (@modelcontextprotocol/server-everything): a number given as a word, a
// value outside an enum and a boolean given as text are errors naming the
// step, the argument and what the schema wants; a placeholder standing
// for a whole value is left to the run.
func TestValidateChecksMCPArgumentTypes(t *testing.T) {
	env := runEnv(t)
	cfgDir := filepath.Join(env["XDG_CONFIG_HOME"], "weft")
	os.MkdirAll(cfgDir, 0o700)
	cfg, _ := json.Marshal(map[string]any{"mcp_servers": map[string]any{"everything": mcptest.Everything(t)}})
	if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	good := writeFile(t, `{"format":"weft/v1","id":"w","name":"mcp","nodes":[
 {"id":"a","key":"sum","name":"Sum","type":"Tool","params":{"tool":"everything.get-sum","arguments":{"a":1,"b":2.5}}},
 {"id":"b","key":"sum2","name":"Again","type":"Tool","params":{"tool":"everything.get-sum","arguments":{"a":"{{sum.data}}","b":-3}}},
 {"id":"c","key":"note","name":"Note","type":"Tool","params":{"tool":"everything.get-annotated-message","arguments":{"messageType":"debug","includeImage":false}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`)
	code, out, errOut := run(t, env, "validate", good)
	if code != exitOK || strings.Contains(out, "_argument]") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	bad := writeFile(t, `{"format":"weft/v1","id":"w","name":"mcp","nodes":[
 {"id":"a","key":"sum","name":"Sum","type":"Tool","params":{"tool":"everything.get-sum","arguments":{"a":"one","b":2}}},
 {"id":"c","key":"note","name":"Note","type":"Tool","params":{"tool":"everything.get-annotated-message","arguments":{"messageType":"warning","includeImage":"yes"}}}],
 "edges":[{"from":"a","to":"c"}]}`)
	code, out, errOut = run(t, env, "validate", bad)
	for _, want := range []string{
		`'Sum' (tool everything.get-sum): the argument 'a' must be a number, not the string "one" [bad_argument]`,
		`'Note' (tool everything.get-annotated-message): the argument 'includeImage' must be a boolean, not the string "yes" [bad_argument]`,
		`'Note' (tool everything.get-annotated-message): the argument 'messageType' must be one of "error", "success", "debug", not the string "warning" [bad_argument]`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("want %s", want)
		}
	}
	if code != exitInvalid || t.Failed() {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
