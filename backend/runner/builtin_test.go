package runner

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/settings"
)

func call(t *testing.T, dir, name string, args map[string]any) (map[string]any, error) {
	t.Helper()
	return builtinTools()[name].Call(context.Background(), ToolCall{Name: name, Args: args, Dir: dir})
}

func TestRunCommand(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	out, err := call(t, dir, "run_command", map[string]any{"command": "pwd; echo oops >&2; exit 3", "cwd": "sub", "ok_exit_codes": []any{0.0, 3.0}})
	if err != nil || out["exit_code"] != 3 || out["stdout"] != filepath.Join(dir, "sub")+"\n" || out["stderr"] != "oops\n" {
		t.Fatalf("%v %v", out, err)
	}
	out, err = call(t, dir, "run_command", map[string]any{"command": "yes x | head -c 3000000"})
	if err != nil || out["stdout"] != strings.Repeat("x\n", MaxCommandOutput/2) || expression.Truncated(out)["stdout"] == "" {
		t.Fatalf("output cap: %d bytes, marks %v, %v", len(out["stdout"].(string)), out[expression.TruncatedField], err)
	}
	start := time.Now()
	_, err = call(t, dir, "run_command", map[string]any{"command": "sleep 10", "timeout_ms": 100})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("timeout_ms: %v after %v", err, time.Since(start))
	}
	var ae *ArgError
	for _, bad := range []map[string]any{{}, {"command": ""}, {"command": "true", "shell": "bash"}, {"command": "true", "timeout_ms": 0}} {
		if _, err := call(t, dir, "run_command", bad); !errors.As(err, &ae) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}

func TestHTTPRequest(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("X-Seen", r.Method+" "+r.Header.Get("X-Token")+" "+string(body))
		if r.URL.Path == "/down" {
			w.WriteHeader(503)
		}
		io.WriteString(w, `{"ok":true}`)
	}))
	defer srv.Close()
	out, err := call(t, "", "http_request", map[string]any{"method": "post", "url": srv.URL + "/x", "headers": map[string]any{"X-Token": "t1"}, "body": "hello"})
	if err != nil || out["status"] != 200 || out["body"] != `{"ok":true}` || out["headers"].(map[string]any)["X-Seen"] != "POST t1 hello" {
		t.Fatalf("%v %v", out, err)
	}
	// A 503 is an output to verify against, classified as a network
	// problem worth retrying.
	e := newEnv(t)
	e.opts.Sleep = (&sleeps{}).sleep
	res := e.run(parse(t, `"nodes":[{"id":"h","key":"h","type":"Tool","retry":{"max_attempts":2},"params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`/down"}},"verify":"h.status == 200"}],"edges":[]`))
	wantOutcome(t, res, OutcomeFailed)
	if f := e.rec.of(EvFailure); len(f) != 2 || f[0].Failure.Category != failure.CatNetwork {
		t.Fatalf("failures %+v", f)
	}
	var ae *ArgError
	if _, err := call(t, "", "http_request", map[string]any{"method": "GET", "url": "file:///etc/passwd"}); !errors.As(err, &ae) {
		t.Errorf("file URL: %v", err)
	}
	if _, err := call(t, "", "http_request", map[string]any{"method": "BREW", "url": srv.URL}); !errors.As(err, &ae) {
		t.Errorf("bad method: %v", err)
	}
	_, err = call(t, "", "http_request", map[string]any{"method": "GET", "url": "http://127.0.0.1:1/"})
	if c := Classify(failure.FailExecution, err, nil, false); err == nil || c.Category != failure.CatNetwork || !c.Retryable {
		t.Errorf("refused connection: %v %+v", err, c)
	}
}

func TestFileTools(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(t.TempDir(), "abs.txt")
	if out, err := call(t, dir, "write_file", map[string]any{"path": "notes/a.txt", "content": "one\n"}); err != nil || out["path"] != filepath.Join(dir, "notes", "a.txt") || out["bytes"] != 4 {
		t.Fatalf("%v %v", out, err)
	}
	if _, err := call(t, dir, "write_file", map[string]any{"path": "notes/a.txt", "content": "two\n", "append": true}); err != nil {
		t.Fatal(err)
	}
	if _, err := call(t, dir, "write_file", map[string]any{"path": abs, "content": 42}); err != nil {
		t.Fatal(err)
	}
	if out, err := call(t, dir, "read_file", map[string]any{"path": "notes/a.txt"}); err != nil || out["content"] != "one\ntwo\n" {
		t.Fatalf("%v %v", out, err)
	}
	if out, _ := call(t, dir, "read_file", map[string]any{"path": abs}); out["content"] != "42" {
		t.Fatalf("absolute path: %v", out)
	}
	os.WriteFile(filepath.Join(dir, "notes", "b.md"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "notes", "sub.txt"), 0o755)
	out, err := call(t, dir, "list_files", map[string]any{"path": "notes", "pattern": "*.txt"})
	if err != nil || !reflect.DeepEqual(out["files"], []any{"a.txt"}) || out["count"] != 1 {
		t.Fatalf("%v %v", out, err)
	}
	_, err = call(t, dir, "read_file", map[string]any{"path": "missing.txt"})
	if c := Classify(failure.FailExecution, err, nil, false); c.Category != failure.CatNotFound || c.Retryable {
		t.Errorf("missing file: %+v", c)
	}
	var ae *ArgError
	if _, err := call(t, dir, "list_files", map[string]any{"path": ".", "pattern": "[x"}); !errors.As(err, &ae) {
		t.Errorf("bad pattern: %v", err)
	}
	if _, err := call(t, dir, "read_file", map[string]any{"path": "notes"}); !errors.As(err, &ae) {
		t.Errorf("folder: %v", err)
	}
	// Cancelled before it starts: nothing is written.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := writeFile(ctx, ToolCall{Args: map[string]any{"path": "late.txt", "content": "x"}, Dir: dir}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled write: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("a cancelled write happened")
	}
}

func TestCatalogWithMCP(t *testing.T) {
	cat, errs := Catalog(context.Background(), settings.Settings{MCPServers: map[string]settings.MCPServer{"go": mcptest.Config(t.TempDir())}})
	if len(errs) > 0 || !cat.Has("go.echo") || !cat.Has("run_command") {
		t.Fatalf("%v %v", cat.Names(), errs)
	}
}
