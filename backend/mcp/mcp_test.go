package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

func goServer(t *testing.T) (*Manager, string) {
	t.Helper()
	marks := t.TempDir()
	m := NewManager(map[string]settings.MCPServer{"go": mcptest.Config(marks)}, Options{TerminateTimeout: time.Second})
	t.Cleanup(func() { m.Close() })
	return m, marks
}

// alive reports whether pid is a live (not zombie) process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestCatalogAndCalls(t *testing.T) {
	m, _ := goServer(t)
	ctx := context.Background()
	if m.Running("go") {
		t.Fatal("the server started before it was needed")
	}
	cat, errs := m.Catalog(ctx, tools.Builtin())
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	echo, ok := cat.Lookup("go.echo")
	if !ok || echo.Server != "go" || echo.SideEffects || !strings.Contains(string(echo.InputSchema), `"text"`) {
		t.Fatalf("go.echo in catalog: %+v ok=%v", echo, ok)
	}
	if f, _ := cat.Lookup("go.fail"); !f.SideEffects {
		t.Error("a tool without readOnlyHint should count as having side effects")
	}
	if !cat.Has("run_command") {
		t.Error("built-ins lost")
	}
	if srv, tool, ok := m.Resolve("go.echo"); !ok || srv != "go" || tool != "echo" {
		t.Errorf("Resolve = %q %q %v", srv, tool, ok)
	}

	pid := m.Pid("go")
	res, err := m.Call(ctx, "go", "echo", map[string]any{"text": "hi"})
	if err != nil || res.Text != "hi" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	if m.Pid("go") != pid {
		t.Error("the server was restarted between calls; it should be reused")
	}
	res, err = m.Call(ctx, "go", "add", map[string]any{"a": 2, "b": 3})
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := res.Data.(map[string]any); d["sum"] != float64(5) {
		t.Fatalf("structured content = %#v", res.Data)
	}

	_, err = m.Call(ctx, "go", "fail", map[string]any{"message": "EACCES: permission denied"})
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindTool || !strings.Contains(err.Error(), "permission denied") {
		t.Fatalf("fail: %v", err)
	}
	_, err = m.Call(ctx, "go", "nope", nil)
	if !errors.As(err, &me) || me.Kind != KindProtocol {
		t.Fatalf("unknown tool: %#v", err)
	}
	_, err = m.Call(ctx, "go", "add", map[string]any{"a": "x"})
	if err == nil {
		t.Fatal("invalid arguments accepted")
	}
	_, err = m.Call(ctx, "missing", "x", nil)
	if !errors.As(err, &me) || me.Kind != KindUnknownServer {
		t.Fatalf("unknown server: %v", err)
	}
}

func TestSlowToolCancelled(t *testing.T) {
	m, marks := goServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := m.Call(ctx, "go", "slow", map[string]any{"ms": 30000})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("cancellation took %v", d)
	}
	// The server heard about it (notifications/cancelled) and stays usable.
	deadline := time.Now().Add(5 * time.Second)
	for mcptest.Mark(marks, "slow") != "canceled" {
		if time.Now().After(deadline) {
			t.Fatalf("server did not see the cancellation; mark = %q", mcptest.Mark(marks, "slow"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if res, err := m.Call(context.Background(), "go", "echo", map[string]any{"text": "still here"}); err != nil || res.Text != "still here" {
		t.Fatalf("after cancel: %v %v", res, err)
	}
}

func TestCrashAndRestart(t *testing.T) {
	m, _ := goServer(t)
	ctx := context.Background()
	if _, err := m.Call(ctx, "go", "echo", map[string]any{"text": "a"}); err != nil {
		t.Fatal(err)
	}
	pid := m.Pid("go")
	_, err := m.Call(ctx, "go", "crash", nil)
	var me *Error
	if !errors.As(err, &me) || me.Kind != KindCrashed {
		t.Fatalf("crash: %#v", err)
	}
	if !strings.Contains(err.Error(), "crashing on purpose") {
		t.Errorf("the error should carry the server's stderr: %v", err)
	}
	waitGone(t, pid)
	res, err := m.Call(ctx, "go", "echo", map[string]any{"text": "back"})
	if err != nil || res.Text != "back" {
		t.Fatalf("after restart: %v %v", res, err)
	}
	if m.Pid("go") == pid {
		t.Error("expected a new server process")
	}
}

func TestCloseLeavesNoOrphans(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	m, _ := goServer(t)
	var children []int
	for _, detached := range []bool{false, true} {
		res, err := m.Call(context.Background(), "go", "spawn", map[string]any{"detached": detached})
		if err != nil {
			t.Fatal(err)
		}
		child, _ := strconv.Atoi(res.Text)
		children = append(children, child)
	}
	server := m.Pid("go")
	if !alive(children[0]) || !alive(children[1]) || !alive(server) {
		t.Fatal("setup: processes not running")
	}
	if err := m.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitGone(t, server)
	waitGone(t, children[0]) // in the server's process group
	waitGone(t, children[1]) // in a session of its own, found by its parent link
	if _, err := m.Call(context.Background(), "go", "echo", nil); err == nil {
		t.Error("a closed manager started a server again")
	}
}

func TestStartFailure(t *testing.T) {
	m := NewManager(map[string]settings.MCPServer{
		"broken": {Command: filepath.Join(t.TempDir(), "no-such-server")},
		"exits":  {Command: "sh", Args: []string{"-c", "echo 'cannot find module foo' >&2; exit 1"}},
	}, Options{StartTimeout: 10 * time.Second})
	defer m.Close()
	cat, errs := m.Catalog(context.Background(), nil)
	if len(errs) != 2 {
		t.Fatalf("errs = %v", errs)
	}
	var me *Error
	if !errors.As(errs["broken"], &me) || me.Kind != KindStart {
		t.Fatalf("broken: %v", errs["broken"])
	}
	if !strings.Contains(errs["exits"].Error(), "cannot find module foo") {
		t.Errorf("exits: the error should carry stderr: %v", errs["exits"])
	}
	if !cat.Has("log") {
		t.Error("built-ins missing from the catalog")
	}
}

// The real server from the npm registry, pinned in testdata/mcp.
func TestFilesystemServer(t *testing.T) {
	root := t.TempDir()
	cfg := mcptest.Filesystem(t, root)
	cat, errs := Catalog(context.Background(), map[string]settings.MCPServer{"fs": cfg}, nil, Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, name := range []string{"fs.read_text_file", "fs.write_file", "fs.list_directory"} {
		if !cat.Has(name) {
			t.Errorf("catalog lacks %s; has %v", name, cat.Names())
		}
	}
	m := NewManager(map[string]settings.MCPServer{"fs": cfg}, Options{})
	defer m.Close()
	ctx := context.Background()
	p := filepath.Join(root, "note.txt")
	if _, err := m.Call(ctx, "fs", "write_file", map[string]any{"path": p, "content": "hello from weft"}); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(ctx, "fs", "read_text_file", map[string]any{"path": p})
	if err != nil || !strings.Contains(res.Text, "hello from weft") {
		t.Fatalf("read: %q %v", res.Text, err)
	}
	_, err = m.Call(ctx, "fs", "read_text_file", map[string]any{"path": "/etc/hostname"})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "denied") {
		t.Fatalf("outside the allowed folder: %v", err)
	}
}

// Close ends a server the way the MCP specification asks: stdin closes
// and a server that then exits is not signalled; one that lingers gets
// SIGTERM after the default grace, not SIGKILL.
func TestCloseEndsServersGently(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		linger bool
		want   string
	}{{false, "stdin closed"}, {true, "SIGTERM"}} {
		marks := t.TempDir()
		m := NewManager(map[string]settings.MCPServer{"go": mcptest.Config(marks)}, Options{})
		if c.linger {
			if _, err := m.Call(ctx, "go", "linger", nil); err != nil {
				t.Fatal(err)
			}
		} else if _, err := m.Tools(ctx, "go"); err != nil {
			t.Fatal(err)
		}
		pid := m.Pid("go")
		if err := m.Close(); err != nil {
			t.Errorf("linger=%v: Close: %v", c.linger, err)
		}
		waitGone(t, pid)
		if got := mcptest.Mark(marks, "ended"); got != c.want {
			t.Errorf("linger=%v: the server ended by %q, want %q", c.linger, got, c.want)
		}
	}
}

// BenchmarkStartClose is one session's cost to a command: start, list,
// close. With a server that lingers after stdin closes the grace
// (DefaultTerminateTimeout) is part of it.
func BenchmarkStartClose(b *testing.B) {
	for _, linger := range []bool{false, true} {
		b.Run(map[bool]string{false: "exits", true: "lingers"}[linger], func(b *testing.B) {
			for range b.N {
				m := NewManager(map[string]settings.MCPServer{"go": mcptest.Config("")}, Options{})
				if linger {
					if _, err := m.Call(context.Background(), "go", "linger", nil); err != nil {
						b.Fatal(err)
					}
				} else if _, err := m.Tools(context.Background(), "go"); err != nil {
					b.Fatal(err)
				}
				m.Close()
			}
		})
	}
}
