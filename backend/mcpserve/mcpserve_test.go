package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// env is a folder of workflows served over an in-memory transport.
type env struct {
	dir string
	srv *Server
	cs  *sdk.ClientSession

	mu        sync.Mutex
	progress  []string
	listDirty chan struct{}
}

// newEnv serves a fresh folder, with private XDG dirs, to a client;
// elicit, when set, is the client's elicitation handler.
func newEnv(t *testing.T, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error)) *env {
	t.Helper()
	// 2025-11-25: an elicitation during a call is a request of its own
	// (later versions ask in the call's result).
	return newEnvAt(t, elicit, "2025-11-25")
}

// newEnvAt is newEnv with the client on protocol version ("" the latest).
func newEnvAt(t *testing.T, elicit func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error), version string) *env {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	e := &env{dir: t.TempDir(), listDirty: make(chan struct{}, 16)}
	svc := service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return settings.Defaults(), nil, nil },
		Tune: func(o *runner.Options) {
			o.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
		},
	})
	t.Cleanup(func() {
		svc.Leave()
		svc.Wait(10 * time.Second)
		svc.Close()
	})
	srv, err := New(Config{Dir: e.dir, Poll: 20 * time.Millisecond}, svc)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	opts := &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress = append(e.progress, r.Params.Message)
			e.mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case e.listDirty <- struct{}{}:
			default:
			}
		},
		ElicitationHandler: elicit,
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, opts).Connect(ctx, ct, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	e.cs = cs
	return e
}

// write saves w as file in the folder; trusted records it as the
// person's (as if Weft had saved it).
func (e *env) write(t *testing.T, file string, w *workflow.Workflow, trusted bool) string {
	t.Helper()
	path := filepath.Join(e.dir, file)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	if trusted {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := approval.DefaultTrust()
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.Record(path, data, "test"); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func (e *env) names(t *testing.T) []string {
	t.Helper()
	res, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range res.Tools {
		out = append(out, tl.Name)
	}
	sort.Strings(out)
	return out
}

// greet is a workflow with a required input name, written into a file
// by a command: what a shell would do with it is the test.
func greet(out string) *workflow.Workflow {
	w := workflow.New("Greet")
	w.Goal = "Write a greeting for a name"
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"who to greet"}},"required":["name"]}`)
	w.Nodes = []workflow.Node{
		{ID: "n1", Key: "hello", Name: "Hello", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command",
			Arguments: map[string]any{"command": "printf '%s' {{inputs.name}} > " + out}}},
		{ID: "n2", Key: "read", Name: "Read", Type: workflow.TypeTool, Params: workflow.Params{Tool: "read_file",
			Arguments: map[string]any{"path": out}}},
	}
	w.Edges = []workflow.Edge{{From: "n1", To: "n2"}}
	return w
}

func failing() *workflow.Workflow {
	w := workflow.New("Fails")
	w.Nodes = []workflow.Node{{ID: "n1", Key: "bad", Name: "Bad", Type: workflow.TypeTool, Verify: "bad.exit_code == 0",
		Retry: &workflow.Retry{MaxAttempts: 1}, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "exit 3"}}}}
	return w
}

// Listing: a trusted file is a tool named after it, described by its
// goal, its inputs the schema; an untrusted one is not listed at all.
func TestListsTrustedWorkflowsOnly(t *testing.T) {
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	e.write(t, "backup-notes.weft.json", greet(out), true)
	e.write(t, "stranger.weft.json", greet(out), false)
	plain := workflow.New("Plain")
	e.write(t, "plain.json", plain, true)
	if err := os.WriteFile(filepath.Join(e.dir, "package.json"), []byte(`{"name": "x"`), 0o600); err != nil {
		t.Fatal(err)
	}
	e.srv.Refresh()
	res, err := e.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		byName[tl.Name] = tl
	}
	if len(byName) != 2 || byName["backup_notes"] == nil || byName["plain"] == nil {
		t.Fatalf("listed %v, want backup_notes and plain (stranger is not trusted)", e.names(t))
	}
	bn := byName["backup_notes"]
	schema, _ := json.Marshal(bn.InputSchema)
	if bn.Description != "Write a greeting for a name" || !strings.Contains(string(schema), `"required":["name"]`) {
		t.Fatalf("backup_notes = %+v, schema %s", bn, schema)
	}
	if schema, _ := json.Marshal(byName["plain"].InputSchema); string(schema) != `{"type":"object"}` || byName["plain"].Description != "Plain" {
		t.Fatalf("plain = %+v, schema %s", byName["plain"], schema)
	}
}

// A call runs the workflow with the arguments as data (shell
// metacharacters reach the file as written, nothing else runs), sends
// progress per step and returns the outcome and outputs.
func TestCallRunsWithArgumentsAsData(t *testing.T) {
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	e.write(t, "greet.weft.json", greet(out), true)
	e.srv.Refresh()
	for _, name := range []string{"Ada; touch PWNED", "$(touch PWNED)", "`touch PWNED`", "a' ; touch PWNED ; '", "x\ntouch PWNED"} {
		params := &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": name}}
		params.SetProgressToken("tok")
		res, err := e.cs.CallTool(context.Background(), params)
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%q: %s", name, text(res))
		}
		got, _ := os.ReadFile(out)
		if string(got) != name {
			t.Fatalf("the command wrote %q, want %q", got, name)
		}
		if _, err := os.Stat(filepath.Join(e.dir, "PWNED")); err == nil {
			t.Fatalf("%q ran as code", name)
		}
		sc, _ := json.Marshal(res.StructuredContent)
		var r struct {
			Outcome string                    `json:"outcome"`
			Outputs map[string]map[string]any `json:"outputs"`
		}
		if err := json.Unmarshal(sc, &r); err != nil || r.Outcome != "succeeded" || r.Outputs["read"]["content"] != name {
			t.Fatalf("structured %s (%v)", sc, err)
		}
		if !strings.Contains(text(res), "succeeded") {
			t.Fatalf("summary %q", text(res))
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.progress) < 2 || !strings.Contains(e.progress[0], "Hello") {
		t.Fatalf("progress %q", e.progress)
	}
}

// Bad input starts nothing and is a JSON-RPC error: arguments off the
// schema, an undeclared argument, not an object, an unknown tool.
func TestBadArgumentsStartNothing(t *testing.T) {
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	e.write(t, "greet.json", greet(out), true)
	e.srv.Refresh()
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"greet", map[string]any{}, "name"},
		{"greet", map[string]any{"name": 3}, "name"},
		{"greet", map[string]any{"name": "a", "extra": true}, "extra"},
		{"greet", []any{"a"}, "JSON object"},
		{"nope", map[string]any{}, "unknown tool"},
	} {
		_, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: c.tool, Arguments: c.args})
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, c.want) {
			t.Fatalf("%s %v: %v, want an invalid-params error naming %q", c.tool, c.args, err, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a call with bad arguments ran")
	}
	if runs, _ := os.ReadDir(filepath.Join(e.dir, ".weft", "runs")); len(runs) > 0 {
		t.Fatalf("%d runs logged", len(runs))
	}
}

// Content not approved is listed (the file is trusted) but runs nothing:
// the call says what waits and how to approve it.
func TestUnapprovedRefused(t *testing.T) {
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	w := greet(out)
	approval.MarkAll(w, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan})
	path := e.write(t, "planned.json", w, true)
	e.srv.Refresh()
	res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "planned", Arguments: map[string]any{"name": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "weft approve "+path) || !strings.Contains(text(res), "hello") {
		t.Fatalf("result %+v %q", res, text(res))
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("an unapproved step ran")
	}
}

// A failed run is an error with its failure record; with no elicitation
// the escalation is answered abort. With elicitation, the client's answer
// (skip) is the run's.
func TestFailedRunAndEscalation(t *testing.T) {
	e := newEnv(t, nil)
	e.write(t, "fails.json", failing(), true)
	e.srv.Refresh()
	res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fails"})
	if err != nil {
		t.Fatal(err)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	if !res.IsError || !strings.Contains(string(sc), `"outcome":"aborted"`) || !strings.Contains(string(sc), `"failures":[`) {
		t.Fatalf("result %q %s", text(res), sc)
	}

	// Asked by a request of its own (2025-11-25), or in the call's
	// result and called again (the latest protocol, multi round-trip):
	// retry once (it fails again), then skip.
	for _, version := range []string{"2025-11-25", ""} {
		var asked []string
		e2 := newEnvAt(t, func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			b, _ := json.Marshal(r.Params.RequestedSchema)
			asked = append(asked, string(b))
			answer := "retry"
			if len(asked) > 1 {
				answer = "skip"
			}
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"action": answer}}, nil
		}, version)
		e2.write(t, "fails.json", failing(), true)
		e2.srv.Refresh()
		res, err = e2.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fails"})
		if err != nil {
			t.Fatal(err)
		}
		sc, _ = json.Marshal(res.StructuredContent)
		if len(asked) != 2 || !strings.Contains(asked[0], `"enum":["retry","skip","abort"]`) || !strings.Contains(string(sc), `"outcome":"partial"`) {
			t.Fatalf("protocol %q: asked %q; result %s", version, asked, sc)
		}
	}
	e3 := newEnvAt(t, nil, "")
	e3.write(t, "fails.json", failing(), true)
	e3.srv.Refresh()
	if _, err := e3.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "fails", RequestState: "forged"}); err == nil || !strings.Contains(err.Error(), "names no run") {
		t.Fatalf("a forged requestState: %v", err)
	}
}

// The folder is watched: a file added, changed and removed changes the
// list, and the client is told.
func TestWatchesTheFolder(t *testing.T) {
	e := newEnv(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go e.srv.Watch(ctx)
	wait := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for strings.Join(e.names(t), ",") != want {
			if time.Now().After(deadline) {
				t.Fatalf("tools %v, want %s", e.names(t), want)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	wait("")
	path := e.write(t, "a.json", workflow.New("A"), true)
	wait("a")
	select {
	case <-e.listDirty:
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed")
	}
	w := workflow.New("A")
	w.Goal = "changed"
	e.write(t, "a.json", w, true)
	deadline := time.Now().Add(10 * time.Second)
	for {
		res, _ := e.cs.ListTools(context.Background(), nil)
		if len(res.Tools) == 1 && res.Tools[0].Description == "changed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a changed file's tool was not updated")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	wait("")
}

// Tool names: the file's name as a tool name, collisions numbered in the
// order of the files' names.
func TestToolNames(t *testing.T) {
	for in, want := range map[string]string{
		"backup-notes.weft.json": "backup_notes", "a.json": "a", "x y.json": "x_y", ".json": "workflow",
		strings.Repeat("z", 100) + ".json": strings.Repeat("z", 64), "é.json": "_",
	} {
		if got := ToolName(in); got != want {
			t.Errorf("ToolName(%q) = %q, want %q", in, got, want)
		}
	}
	e := newEnv(t, nil)
	e.write(t, "a-b.json", workflow.New("one"), true)
	e.write(t, "a_b.weft.json", workflow.New("two"), true)
	e.srv.Refresh()
	if got := e.srv.Tools(); got["a_b"] != filepath.Join(e.dir, "a-b.json") || got["a_b_2"] != filepath.Join(e.dir, "a_b.weft.json") {
		t.Fatalf("tools %v", got)
	}
}

func text(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// --http serves loopback only; over it a client lists and calls as over
// stdio.
func TestHTTPLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.168.1.10:0", "example.com:80", "127.0.0.1", ""} {
		if ln, err := Listen(addr); err == nil {
			ln.Close()
			t.Fatalf("Listen(%q) was accepted", addr)
		}
	}
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	e.write(t, "a.json", greet(out), true)
	e.srv.Refresh()
	ln, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- e.srv.ServeHTTP(ctx, ln) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "http"}, nil).Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + "/"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "a", Arguments: map[string]any{"name": "web"}})
	if got, _ := os.ReadFile(out); err != nil || res.IsError || string(got) != "web" {
		t.Fatalf("call over HTTP: %v %+v", err, res)
	}
	cs.Close()
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// A call while the file is half written (a folder trusted as it is
// covers it) is a JSON-RPC error and runs nothing; a file whose trust
// went (its bytes changed) runs nothing either.
func TestCallWhileSavedOrUntrusted(t *testing.T) {
	e := newEnv(t, nil)
	out := filepath.Join(t.TempDir(), "greeting")
	path := e.write(t, "greet.json", greet(out), true)
	e.srv.Refresh()
	data, _ := os.ReadFile(path)
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	if err == nil && !res.IsError {
		t.Fatalf("a changed file ran: %+v", res)
	}
	tr, _ := approval.DefaultTrust()
	if _, err := tr.TrustFolder(e.dir, "test"); err != nil {
		t.Fatal(err)
	}
	_, err = e.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "x"}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "cannot be read") {
		t.Fatalf("a half-written file: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("it ran")
	}
}
