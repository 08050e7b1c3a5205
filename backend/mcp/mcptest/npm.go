package mcptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/settings"
)

// RequireEnv, when set to anything, turns the skips below into failures:
// CI sets it so that the real servers always run there.
const RequireEnv = "WEFT_REQUIRE_MCP"

// NodeModules returns testdata/mcp/node_modules (where `npm ci` in
// testdata/mcp installs the pinned third-party servers). When it is missing
// the test is skipped with a message saying how to install it, unless
// WEFT_REQUIRE_MCP is set, in which case it fails.
func NodeModules(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("mcptest: go.mod not found above the test's folder")
		}
		dir = parent
	}
	nm := filepath.Join(dir, "testdata", "mcp", "node_modules")
	if _, err := os.Stat(filepath.Join(nm, ".package-lock.json")); err != nil {
		missing(t, "the npm MCP servers are not installed: run `npm ci` in testdata/mcp (scripts/deps.sh does)")
	}
	return nm
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv(RequireEnv) != "" {
		t.Fatalf("%s (required because %s is set)", msg, RequireEnv)
	}
	t.Skip(msg + "; set " + RequireEnv + "=1 to make this a failure")
}

// Filesystem is @modelcontextprotocol/server-filesystem allowed to work in
// the given folders.
func Filesystem(t testing.TB, roots ...string) settings.MCPServer {
	t.Helper()
	nm := NodeModules(t)
	args := append([]string{filepath.Join(nm, "@modelcontextprotocol", "server-filesystem", "dist", "index.js")}, roots...)
	return settings.MCPServer{Command: "node", Args: args}
}

// Chromium returns the browser the Playwright server drives: $WEFT_CHROMIUM
// or Debian's /usr/bin/chromium (skipping or failing like NodeModules when
// there is none).
func Chromium(t testing.TB) string {
	t.Helper()
	p := os.Getenv("WEFT_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		missing(t, "no Chromium at "+p+" for @playwright/mcp: apt-get install chromium (scripts/deps.sh does)")
	}
	return p
}

// Playwright is @playwright/mcp driving Chromium headless, without the
// sandbox (containers run as root), with an in-memory profile and its
// output files under outDir.
func Playwright(t testing.TB, outDir string) settings.MCPServer {
	t.Helper()
	nm := NodeModules(t)
	chromium := Chromium(t)
	return settings.MCPServer{Command: "node", Args: []string{
		filepath.Join(nm, "@playwright", "mcp", "cli.js"),
		"--headless", "--browser", "chromium", "--executable-path", chromium,
		"--isolated", "--no-sandbox", "--output-dir", outDir,
	}}
}

// Memory is @modelcontextprotocol/server-memory (a knowledge graph) keeping
// its graph in the given file.
func Memory(t testing.TB, file string) settings.MCPServer {
	t.Helper()
	nm := NodeModules(t)
	return settings.MCPServer{Command: "node", Args: []string{filepath.Join(nm, "@modelcontextprotocol", "server-memory", "dist", "index.js")},
		Env: map[string]string{"MEMORY_FILE_PATH": file}}
}

// Everything is @modelcontextprotocol/server-everything, the MCP reference
// server (echo, get-sum, structured content…), over stdio.
func Everything(t testing.TB) settings.MCPServer {
	t.Helper()
	nm := NodeModules(t)
	return settings.MCPServer{Command: "node", Args: []string{filepath.Join(nm, "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}}
}
