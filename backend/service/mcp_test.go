package service

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// mcpService is a Service whose settings configure the Go test server as
// "go"; its MCP sessions are its own (no ListTools).
func mcpService(t *testing.T) (*Service, settings.Settings) {
	t.Helper()
	st := settings.Defaults()
	st.MCPServers = map[string]settings.MCPServer{"go": mcptest.Config(t.TempDir())}
	svc := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) { return st, nil, nil }
		d.ListTools = nil
	})
	t.Cleanup(func() { svc.Close() })
	return svc, st
}

// One session per server: the approval check's listing starts the server
// in the workflow's folder, the run's steps call that same process, and
// Close stops it.
func TestRunSharesTheCatalogsMCPSession(t *testing.T) {
	svc, st := mcpService(t)
	ctx := context.Background()
	w := workflow.New("pid")
	w.Nodes = []workflow.Node{{ID: "n1", Key: "who", Name: "Who", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.pid"}}}
	path := filepath.Join(t.TempDir(), "pid.json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)

	res, fin, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path})
	if err != nil || !res.Started || fin == nil {
		t.Fatalf("run: %v %+v", err, res)
	}
	who, _ := fin.Result.Live["who"].(map[string]any)
	pid, _ := strconv.Atoi(who["text"].(string))
	m := svc.mcpFor(st, filepath.Dir(path))
	now, err := m.Call(ctx, "go", "pid", nil)
	if err != nil || pid == 0 || now.Text != strconv.Itoa(pid) {
		t.Errorf("the run called server %d; the session of the workflow's folder is %s (%v)", pid, now.Text, err)
	}
	if !svc.cachedCatalog().Has("go.pid") {
		t.Error("the approval check did not list the server's tools")
	}
	if n := len(svc.mcp.byDir); n != 1 {
		t.Errorf("%d MCP managers, want 1", n)
	}
	if err := svc.Close(); err != nil {
		t.Fatal(err)
	}
	if m.Running("go") {
		t.Error("Close left the server running")
	}
}

// Settings changed during a run: the run keeps its servers to the end,
// and they stop then; the new settings get sessions of their own.
func TestChangedSettingsKeepARunsMCPSession(t *testing.T) {
	marks := t.TempDir()
	st := settings.Defaults()
	st.MCPServers = map[string]settings.MCPServer{"go": mcptest.Config(marks)}
	var mu sync.Mutex
	svc := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) {
			mu.Lock()
			defer mu.Unlock()
			return st, nil, nil
		}
		d.ListTools = nil
	})
	t.Cleanup(func() { svc.Close() })
	ctx := context.Background()
	w := workflow.New("slow")
	w.Nodes = []workflow.Node{{ID: "n1", Key: "work", Name: "Work", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.slow", Arguments: map[string]any{"ms": 400}}},
		{ID: "n2", Key: "then", Name: "Then", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.echo", Arguments: map[string]any{"text": "after"}}}}
	w.Edges = []workflow.Edge{{From: "n1", To: "n2"}}
	path := filepath.Join(t.TempDir(), "slow.json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	ev := newEvents()
	res, err := svc.Start(ctx, StartRequest{Workflow: w, Path: path, Sink: ev})
	if err != nil || !res.Started {
		t.Fatalf("start: %v %+v", err, res)
	}
	old := svc.mcpFor(st, filepath.Dir(path))
	for mcptest.Mark(marks, "slow") != "started" {
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	changed := st
	changed.MCPServers = map[string]settings.MCPServer{"go": mcptest.Config(t.TempDir())}
	st = changed
	mu.Unlock()
	if got := svc.ToolCatalog(ctx); len(got.Warnings) > 0 {
		t.Fatalf("catalog with the new settings: %v", got.Warnings)
	}
	fin := ev.next(t, KindFinished).Finished
	if fin.Outcome != runner.OutcomeSucceeded || mcptest.Mark(marks, "slow") != "done" {
		t.Fatalf("the run lost its server: %s %s (slow: %s)", fin.Outcome, fin.Error, mcptest.Mark(marks, "slow"))
	}
	if !svc.Wait(10 * time.Second) {
		t.Fatal("the run did not end")
	}
	deadline := time.Now().Add(5 * time.Second)
	for old.Running("go") {
		if time.Now().After(deadline) {
			t.Fatal("the old settings' server still runs after its run ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if svc.mcpFor(changed, "").Running("go") != true {
		t.Error("the new settings' session is not the one the catalog started")
	}
}
