package service

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

const (
	// catalogTimeout bounds starting the MCP servers to list their tools.
	catalogTimeout = 20 * time.Second
	// catalogTTL is how long a full listing answers ToolCatalog.
	catalogTTL = 5 * time.Minute
)

// CatalogResult is the tool list with why MCP tools are missing, when
// they are.
type CatalogResult struct {
	Tools    []tools.Tool `json:"tools"`
	Warnings []string     `json:"warnings"`
}

// catalogCache keeps the last full listing that every server answered.
type catalogCache struct {
	mu    sync.Mutex
	key   string // the MCP servers' settings it was listed with; "" for none
	at    time.Time
	value CatalogResult
}

// ToolCatalog lists the built-in tools and those of the configured MCP
// servers (as server.tool). Servers are started to ask (within 20s) and
// the answer is kept for a few minutes; a server that fails is left out
// with a warning, and without settings only the built-ins are listed.
func (s *Service) ToolCatalog(ctx context.Context) CatalogResult {
	fallback := func(why string) CatalogResult {
		return CatalogResult{Tools: nonNil(s.deps.Builtin.List()), Warnings: []string{why}}
	}
	st, _, err := s.settings()
	if err != nil {
		return fallback("MCP tools are not listed: " + err.Error())
	}
	return s.listTools(ctx, st, "")
}

// listTools lists the tools, starting the MCP servers in dir ("" the
// current folder) through this Service's sessions, which a run in dir then
// uses too.
func (s *Service) listTools(ctx context.Context, st settings.Settings, dir string) CatalogResult {
	if len(st.MCPServers) == 0 {
		return CatalogResult{Tools: nonNil(s.deps.Builtin.List()), Warnings: []string{}}
	}
	kb, _ := json.Marshal(st.MCPServers)
	key := string(kb)
	c := &s.cat
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == key && time.Since(c.at) < catalogTTL {
		return c.value
	}
	ctx, cancel := context.WithTimeout(ctx, catalogTimeout)
	defer cancel()
	var cat *tools.Catalog
	var errs map[string]error
	if s.deps.ListTools != nil {
		cat, errs = s.deps.ListTools(ctx, st)
	} else {
		cat, errs = s.mcpFor(st, dir).Catalog(ctx, tools.Builtin())
	}
	res := CatalogResult{Warnings: []string{}}
	if cat == nil {
		cat = s.deps.Builtin
	}
	res.Tools = nonNil(cat.List())
	names := make([]string, 0, len(errs))
	for n := range errs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		res.Warnings = append(res.Warnings, fmt.Sprintf("MCP server %q: %v; its tools are not listed", n, errs[n]))
		if s.deps.Logger != nil {
			s.deps.Logger.Warn("MCP server unavailable for the tool catalog", "server", n, "error", errs[n])
		}
	}
	if len(errs) == 0 {
		c.key, c.at, c.value = key, time.Now(), res
	} else {
		c.key = "" // ask again next time
	}
	return res
}

// cachedCatalog is the last full catalog when there is one, else the
// built-ins: enough to tell side-effect tools apart.
func (s *Service) cachedCatalog() *tools.Catalog {
	c := &s.cat
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key != "" && len(c.value.Tools) > 0 {
		return tools.NewCatalog(c.value.Tools...)
	}
	return tools.Builtin()
}

// catalogFor describes the tools w uses (nil w: every tool) for judging
// its steps and for a replan: the cached listing when there is one; else
// the built-ins when w needs no other; else the MCP servers are listed,
// started in dir ("" the current folder), where w's run will find them.
func (s *Service) catalogFor(ctx context.Context, st settings.Settings, w *workflow.Workflow, dir string) *tools.Catalog {
	s.cat.mu.Lock()
	cached := s.cat.key != "" && len(s.cat.value.Tools) > 0
	s.cat.mu.Unlock()
	if cached {
		return s.cachedCatalog()
	}
	builtin := tools.Builtin()
	if len(st.MCPServers) == 0 || (w != nil && !usesOtherTools(w, builtin)) {
		return builtin
	}
	return tools.NewCatalog(s.listTools(ctx, st, dir).Tools...)
}

// usesOtherTools says whether a Tool node or an agent of w names a tool
// the catalog does not have.
func usesOtherTools(w *workflow.Workflow, cat *tools.Catalog) bool {
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.Type == workflow.TypeTool && !cat.Has(n.Params.Tool) {
			return true
		}
		for _, t := range n.Params.AllowedTools {
			if !cat.Has(t) {
				return true
			}
		}
	}
	return false
}

// CatalogFor describes the tools w uses (nil w: every tool the model may
// be offered), as runs and replans see them: for validating a change
// before it is written.
func (s *Service) CatalogFor(ctx context.Context, w *workflow.Workflow) *tools.Catalog {
	st, _, err := s.settings()
	if err != nil {
		st = settings.Settings{}
	}
	return s.catalogFor(ctx, st, w, "")
}

// ValidationCatalog describes the tools w uses for checking it (weft
// validate): the built-ins, and the MCP tools w names from each server's
// tool list cached on disk (mcp.CatalogCache), listed afresh by starting
// the server when the cache is missing, older than a day, made for other
// settings or lacking a tool w names. A server that cannot be listed is
// left out with a warning (its steps are then unknown_tool). Every MCP
// tool in it counts as acting, whatever its server annotated: it serves
// validation, never approval.
func (s *Service) ValidationCatalog(ctx context.Context, w *workflow.Workflow, path string) (*tools.Catalog, []string) {
	if w == nil || !usesOtherTools(w, s.deps.Builtin) {
		return s.deps.Builtin, nil // the settings are not even read
	}
	st, _, err := s.settings()
	if err != nil {
		return s.deps.Builtin, []string{"MCP tools are not checked: " + err.Error()}
	}
	if len(st.MCPServers) == 0 {
		return s.deps.Builtin, nil
	}
	cache, err := mcp.DefaultCatalogCache()
	if err != nil {
		return s.deps.Builtin, []string{"MCP tools are not checked: " + err.Error()}
	}
	var names []string
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.Type == workflow.TypeTool {
			names = append(names, n.Params.Tool)
		}
		names = append(names, n.Params.AllowedTools...)
	}
	dir := ""
	if path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			dir = filepath.Dir(abs)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, catalogTimeout)
	defer cancel()
	cat, errs := s.mcpFor(st, dir).ValidationCatalog(ctx, s.deps.Builtin, cache, names)
	var warnings []string
	for _, n := range slices.Sorted(maps.Keys(errs)) {
		warnings = append(warnings, fmt.Sprintf("MCP server %q: %v; its tools are not checked", n, errs[n]))
	}
	return cat, warnings
}
