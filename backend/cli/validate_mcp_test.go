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
