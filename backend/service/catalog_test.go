package service

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestToolCatalogCache(t *testing.T) {
	s := settings.Defaults()
	calls := 0
	failing := true
	svc := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) { return s, nil, nil }
		d.ListTools = func(ctx context.Context, _ settings.Settings) (*tools.Catalog, map[string]error) {
			calls++
			if _, ok := ctx.Deadline(); !ok {
				t.Error("the MCP catalog is asked without a timeout")
			}
			if failing {
				return tools.Builtin().With("files", []tools.Tool{{Name: "read"}}), map[string]error{"broken": errors.New("exec: nope: not found")}
			}
			return tools.Builtin().With("files", []tools.Tool{{Name: "read"}, {Name: "write", SideEffects: true}}), nil
		}
	})
	if got := svc.ToolCatalog(context.Background()); len(got.Tools) != len(tools.Builtin().List()) || len(got.Warnings) != 0 || calls != 0 {
		t.Fatalf("without MCP servers: %d tools, warnings %v, %d calls", len(got.Tools), got.Warnings, calls)
	}
	s.MCPServers = map[string]settings.MCPServer{"files": {Command: "files-mcp"}, "broken": {Command: "nope"}}
	got := svc.ToolCatalog(context.Background())
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], `"broken"`) || len(got.Tools) != len(tools.Builtin().List())+1 {
		t.Fatalf("ToolCatalog = %+v", got)
	}
	svc.ToolCatalog(context.Background())
	if calls != 2 {
		t.Fatalf("a listing with a failed server was cached (%d calls)", calls)
	}
	// Uncached, a workflow of built-ins needs no listing; one with an MCP
	// tool does.
	builtinOnly := &workflow.Workflow{Nodes: []workflow.Node{{ID: "l", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}}}}
	if c := svc.catalogFor(context.Background(), s, builtinOnly, ""); c.Has("files.read") || calls != 2 {
		t.Fatalf("catalogFor listed the servers for built-ins (%d calls)", calls)
	}
	failing = false
	agent := &workflow.Workflow{Nodes: []workflow.Node{{ID: "a", Type: workflow.TypeAiStep, Params: workflow.Params{AllowedTools: []string{"files.write"}}}}}
	if c := svc.catalogFor(context.Background(), s, agent, ""); !c.Has("files.write") || calls != 3 {
		t.Fatalf("catalogFor did not list the servers for an MCP tool (%d calls)", calls)
	}
	// A good answer is cached, and tells side-effect tools apart.
	svc.ToolCatalog(context.Background())
	svc.catalogFor(context.Background(), s, nil, "")
	if calls != 3 {
		t.Fatalf("calls = %d, want 3 (cached)", calls)
	}
	w := &workflow.Workflow{Nodes: []workflow.Node{
		{ID: "r", Key: "r", Type: workflow.TypeTool, Params: workflow.Params{Tool: "files.read"}},
		{ID: "w", Key: "w", Type: workflow.TypeTool, Params: workflow.Params{Tool: "files.write"}},
	}}
	approval.MarkAll(w, approval.Provenance{Source: approval.SourceModel})
	if st, err := svc.PendingApprovals(context.Background(), w, ""); err != nil || len(st.Pending) != 1 || st.Pending[0].Key != "w" {
		t.Fatalf("PendingApprovals = %+v, %v", st, err)
	}
}

func TestToolCatalogWithoutSettings(t *testing.T) {
	svc := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) { return settings.Settings{}, nil, errors.New("unreadable") }
	})
	got := svc.ToolCatalog(context.Background())
	if len(got.Tools) == 0 || len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "unreadable") {
		t.Fatalf("ToolCatalog = %+v", got)
	}
}
