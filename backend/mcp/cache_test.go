package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// validationCatalog lists with a fresh manager (nothing running), as a
// new weft validate does, and reports whether the server had to start.
func validationCatalog(t *testing.T, cfg settings.MCPServer, cache *CatalogCache, names ...string) (*tools.Catalog, bool) {
	t.Helper()
	m := NewManager(map[string]settings.MCPServer{"go": cfg}, Options{})
	defer m.Close()
	cat, errs := m.ValidationCatalog(context.Background(), nil, cache, names)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return cat, m.Running("go")
}

func TestValidationCatalogIsCachedPerServerSettings(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	cache := &CatalogCache{Dir: t.TempDir(), Now: func() time.Time { return now }}
	cfg := mcptest.Config("")

	cat, started := validationCatalog(t, cfg, cache, "go.echo", "run_command")
	if !started || !cat.Has("go.echo") || !cat.Has("run_command") {
		t.Fatalf("first listing: started %v, echo %v", started, cat.Has("go.echo"))
	}
	echo, _ := cat.Lookup("go.echo")
	if !strings.Contains(string(echo.InputSchema), `"text"`) {
		t.Errorf("go.echo's schema is not kept: %s", echo.InputSchema)
	}
	if _, started := validationCatalog(t, cfg, cache, "go.echo"); started {
		t.Error("a fresh cached list still started the server")
	}
	if cat, started := validationCatalog(t, cfg, cache, "run_command"); started || cat.Has("go.echo") {
		t.Error("a workflow that names no tool of the server had it listed")
	}
	if _, started := validationCatalog(t, cfg, cache, "go.nonesuch"); !started {
		t.Error("a tool the cached list lacks did not list the server afresh")
	}

	changed := cfg
	changed.Args = append([]string{"-test.v=false"}, cfg.Args...)
	if _, started := validationCatalog(t, changed, cache, "go.echo"); !started {
		t.Error("changed settings used the old list")
	}
	now = now.Add(DefaultCacheAge + time.Minute)
	if _, started := validationCatalog(t, cfg, cache, "go.echo"); !started {
		t.Error("a list older than a day was used")
	}
	if _, started := validationCatalog(t, cfg, cache, "go.echo"); started {
		t.Error("the list made just now was not used")
	}

	broken := filepath.Join(cache.Dir, cacheKey("go", cfg)+".json")
	if err := os.WriteFile(broken, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cat, started := validationCatalog(t, cfg, cache, "go.echo"); !started || !cat.Has("go.echo") {
		t.Error("an unreadable cache file was not replaced by a listing")
	}
}

// A secret's value is no part of the cache file's name, so the name says
// nothing about it; the rest of the settings are.
func TestCacheKeyLeavesSecretsOut(t *testing.T) {
	a := settings.MCPServer{Command: "srv", Env: map[string]string{"GITHUB_TOKEN": "ghp_aaaaaaaaaaaaaaaaaaaaaaaa", "LOG_LEVEL": "debug"}}
	b := settings.MCPServer{Command: "srv", Env: map[string]string{"GITHUB_TOKEN": "ghp_bbbbbbbbbbbbbbbbbbbbbbbb", "LOG_LEVEL": "debug"}}
	c := settings.MCPServer{Command: "srv", Env: map[string]string{"GITHUB_TOKEN": "ghp_aaaaaaaaaaaaaaaaaaaaaaaa", "LOG_LEVEL": "info"}}
	if cacheKey("gh", a) != cacheKey("gh", b) {
		t.Error("the token's value changes the key")
	}
	if cacheKey("gh", a) == cacheKey("gh", c) || cacheKey("gh", a) == cacheKey("gh2", a) {
		t.Error("a setting or the name does not change the key")
	}
}

// A cached catalog never exempts a step from approval: go.pid is read-only
// and closed-world, so the live listing lets a model's step of it run
// unasked, but the same step checked against the cached catalog waits.
func TestCachedCatalogNeverExemptsFromApproval(t *testing.T) {
	cache := &CatalogCache{Dir: t.TempDir()}
	cfg := mcptest.Config("")
	w := workflow.New("pid")
	w.Nodes = []workflow.Node{{ID: "n1", Key: "who", Name: "Who", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.pid"}}}
	approval.Mark(&w.Nodes[0], approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan})

	m, _ := goServer(t)
	live, errs := m.Catalog(context.Background(), nil)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := approval.Required(w, approval.Scope{Catalog: live}); len(got) != 0 {
		t.Fatalf("the live listing already asks for go.pid: %+v", got)
	}
	for _, fresh := range []bool{true, false} { // listed now, then read back
		cat, started := validationCatalog(t, cfg, cache, "go.pid")
		if started != fresh {
			t.Fatalf("started %v, want %v", started, fresh)
		}
		if got := approval.Required(w, approval.Scope{Catalog: cat}); len(got) != 1 {
			t.Errorf("fresh=%v: the model's go.pid step needs no approval with the validation catalog", fresh)
		}
	}
}
