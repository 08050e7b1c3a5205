package runner

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/proc"
	"github.com/weft-dev/weft/backend/settings"
)

func withGoServer(e *env) string {
	marks := e.t.TempDir()
	e.opts.Settings.MCPServers = map[string]settings.MCPServer{"go": mcptest.Config(marks)}
	return marks
}

func TestMCPToolNodes(t *testing.T) {
	e := newEnv(t)
	marks := withGoServer(e)
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, `"nodes":[
 {"id":"n","key":"n","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 40"}}},
 {"id":"a","key":"sum","type":"Tool","params":{"tool":"go.add","arguments":{"a":"{{n.stdout}}","b":2}},"verify":"sum.data.sum == 42"},
 {"id":"c","key":"survivor","type":"Tool","retry":{"max_attempts":2},"params":{"tool":"go.crash_once","arguments":{"name":"x"}}},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{sum.data.sum}} / {{survivor.text}}"}}}],
 "edges":[{"from":"n","to":"a"},{"from":"a","to":"c"},{"from":"c","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); len(got) != 1 || got[0] != "42 / survived x" {
		t.Fatalf("logs %q", got)
	}
	// The crash was a failure of attempt 1, classified as a (retryable)
	// environment problem carrying the server's stderr; attempt 2 ran on a
	// restarted server.
	fs := e.rec.of(EvFailure)
	if len(fs) != 1 || fs[0].Failure.Category != failure.CatEnvironment || !fs[0].Failure.Retryable || !strings.Contains(fs[0].Failure.Error, "crashing once on purpose") {
		t.Fatalf("failures %+v", fs)
	}
	if mcptest.Mark(marks, "crashed-x") != "yes" {
		t.Error("crash_once did not run")
	}
	for _, w := range res.Warnings {
		if strings.Contains(w, "go.add") {
			t.Errorf("MCP tools should not be reported as unknown: %q", w)
		}
	}
}

func TestMCPToolErrorAndTimeout(t *testing.T) {
	e := newEnv(t)
	marks := withGoServer(e)
	ans := &answers{resps: []Response{{Action: ActSkip}}}
	e.opts.Escalation = ans
	res := e.run(parse(t, `"nodes":[
 {"id":"f","key":"denied","type":"Tool","params":{"tool":"go.fail","arguments":{"message":"EACCES: permission denied, open '/etc/shadow'"}}},
 {"id":"s","key":"slow","type":"Tool","timeout_ms":300,"params":{"tool":"go.slow","arguments":{"ms":60000}}}],
 "edges":[{"from":"f","to":"s"}]`))
	wantOutcome(t, res, OutcomeAborted) // the handler's second answer (for slow) is abort
	if len(ans.asked) != 2 || ans.asked[0].NodeKey != "denied" || ans.asked[0].Category != failure.CatPermission || ans.asked[0].Reason != "not_retryable" {
		t.Fatalf("asked %+v", ans.asked)
	}
	var slowFail *failure.Record
	for _, ev := range e.rec.of(EvFailure) {
		if ev.NodeKey == "slow" {
			slowFail = ev.Failure
		}
	}
	if slowFail == nil || slowFail.FailureType != failure.FailTimeout {
		t.Fatalf("slow failure %+v", slowFail)
	}
	deadline := time.Now().Add(5 * time.Second)
	for mcptest.Mark(marks, "slow") != "canceled" {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not hear the cancellation: %q", mcptest.Mark(marks, "slow"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Files through a workflow and the real @modelcontextprotocol/server-filesystem.
func TestMCPFilesystemWorkflow(t *testing.T) {
	e := newEnv(t)
	e.opts.Settings.MCPServers = map[string]settings.MCPServer{"filesystem": mcptest.Filesystem(t, e.dir)}
	e.write("input.txt", "alpha\nbeta\n")
	out := filepath.Join(e.dir, "copy.txt")
	res := e.run(parse(t, fmt.Sprintf(`"nodes":[
 {"id":"r","key":"src","type":"Tool","params":{"tool":"filesystem.read_text_file","arguments":{"path":%q}}},
 {"id":"w","key":"dst","type":"Tool","params":{"tool":"filesystem.write_file","arguments":{"path":%q,"content":"copied: {{src.text}}"}}},
 {"id":"l","key":"list","type":"Tool","params":{"tool":"filesystem.list_directory","arguments":{"path":%q}}},
 {"id":"i","key":"has","type":"If","params":{"condition":"list.text contains 'copy.txt'"}},
 {"id":"y","key":"yes","type":"Tool","params":{"tool":"log","arguments":{"message":"listed"}}},
 {"id":"n","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"missing"}}}],
 "edges":[{"from":"r","to":"w"},{"from":"w","to":"l"},{"from":"l","to":"i"},{"from":"i","to":"y","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`,
		filepath.Join(e.dir, "input.txt"), out, e.dir)))
	wantOutcome(t, res, OutcomeSucceeded)
	b, err := os.ReadFile(out)
	if err != nil || string(b) != "copied: alpha\nbeta\n" {
		t.Fatalf("copy.txt = %q (%v)", b, err)
	}
	if got := e.rec.logs(); len(got) != 1 || got[0] != "listed" {
		t.Fatalf("logs %q", got)
	}
}

// Browser automation through the real @playwright/mcp driving Debian's
// Chromium headless, against a page served by the test.
func TestMCPPlaywrightWorkflow(t *testing.T) {
	e := newEnv(t)
	// The test owns the manager so it can see the process group before
	// closing it.
	m := mcp.NewManager(map[string]settings.MCPServer{"browser": mcptest.Playwright(t, t.TempDir())}, mcp.Options{})
	defer m.Close()
	e.opts.MCP = m
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Weft Test Page</title></head>
<body><h1>Hello from the test server</h1><a href="/next">Next step</a></body></html>`)
	}))
	defer srv.Close()
	res := e.run(parse(t, fmt.Sprintf(`"nodes":[
 {"id":"n","key":"open","type":"Tool","timeout_ms":60000,"params":{"tool":"browser.browser_navigate","arguments":{"url":%q}},"verify":"open.text contains 'Weft Test Page'"},
 {"id":"s","key":"snap","type":"Tool","timeout_ms":60000,"params":{"tool":"browser.browser_snapshot","arguments":{}},"verify":"snap.text contains 'Hello from the test server'"},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{snap.text}}"}}}],
 "edges":[{"from":"n","to":"s"},{"from":"s","to":"l"}]`, srv.URL)))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); len(got) != 1 || !strings.Contains(got[0], "Next step") {
		t.Fatalf("snapshot %q", got)
	}
	if runtime.GOOS != "linux" {
		return
	}
	group := processTree(m.Pid("browser"))
	if len(group) < 3 {
		t.Fatalf("expected the server, its browser and the browser's helpers, got %v", group)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range group {
		for proc.Running(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the browser server outlived Close", pid)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// processTree lists pid and its live descendants, by parent links.
func processTree(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state ppid …
		if len(f) > 1 && f[0] != "Z" {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	out := []int{pid}
	for changed := true; changed; {
		changed = false
		for p, pp := range parent {
			if slices.Contains(out, pp) && !slices.Contains(out, p) {
				out = append(out, p)
				changed = true
			}
		}
	}
	return out
}
