package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
)

// DefaultCacheAge is how long a server's cached tool list answers before
// the server is asked again: a server updated in place (npm) keeps its
// settings.
const DefaultCacheAge = 24 * time.Hour

// maxCacheFile bounds reading one cached list.
const maxCacheFile = 8 << 20

// CatalogCache keeps each server's tool list on disk, so that checking a
// workflow (weft validate) knows MCP tools and their input schemas without
// starting the servers every time. An entry is keyed by a hash of the
// server's name and settings (its secrets' values left out), so changed
// settings are listed afresh; it is listed again too when older than
// MaxAge or when a workflow names a tool of the server the entry lacks.
//
// What the cache gives is for validation only: every tool it returns
// counts as having side effects and reaching an open world, whatever its
// server annotated, so a catalog from it never exempts a step from
// approval.
type CatalogCache struct {
	Dir    string
	MaxAge time.Duration // 0: DefaultCacheAge
	Now    func() time.Time
}

// DefaultCatalogCache is the cache in $XDG_STATE_HOME/weft/mcp-catalog.
func DefaultCatalogCache() (*CatalogCache, error) {
	p, err := appdirs.StateFile("mcp-catalog", "x")
	if err != nil {
		return nil, err
	}
	return &CatalogCache{Dir: filepath.Dir(p)}, nil
}

// cacheEntry is one server's cached list.
type cacheEntry struct {
	Server string       `json:"server"`
	Listed time.Time    `json:"listed"`
	Tools  []tools.Tool `json:"tools"`
}

// cacheKey identifies a server's settings: name, command, args and env,
// with the values of its secrets (settings.MCPServer.Secrets) left out so
// the file name is no function of them.
func cacheKey(name string, cfg settings.MCPServer) string {
	secret := cfg.Secrets()
	env := make(map[string]string, len(cfg.Env))
	for k, v := range cfg.Env {
		if slices.Contains(secret, v) {
			v = "(secret)"
		}
		env[k] = v
	}
	b, _ := json.Marshal(struct {
		Name    string            `json:"name"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}{name, cfg.Command, cfg.Args, env})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

func (c *CatalogCache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *CatalogCache) path(name string, cfg settings.MCPServer) string {
	return filepath.Join(c.Dir, cacheKey(name, cfg)+".json")
}

// load is the fresh cached list of a server, or nil.
func (c *CatalogCache) load(name string, cfg settings.MCPServer) []tools.Tool {
	var e cacheEntry
	b, err := atomicfile.ReadBounded(c.path(name, cfg), maxCacheFile)
	if err != nil || json.Unmarshal(b, &e) != nil || e.Server != name {
		return nil
	}
	age := c.MaxAge
	if age <= 0 {
		age = DefaultCacheAge
	}
	if d := c.now().Sub(e.Listed); d < 0 || d > age {
		return nil
	}
	return e.Tools
}

func (c *CatalogCache) store(name string, cfg settings.MCPServer, ts []tools.Tool) error {
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return err
	}
	return atomicfile.WriteJSON(c.path(name, cfg), cacheEntry{Server: name, Listed: c.now().UTC(), Tools: ts}, 0o600)
}

// ValidationCatalog is base (nil: the built-ins) with the tools of the
// configured servers that names need (catalog names "server.tool"; a
// server none of them names is left out), each from cache when it is
// fresh and has the tools named, else listed by starting the server
// through m, whose list is then cached. A server that cannot be listed is
// left out with its error. Every MCP tool returned counts as acting and
// reaching an open world (see CatalogCache): validation only.
func (m *Manager) ValidationCatalog(ctx context.Context, base *tools.Catalog, cache *CatalogCache, names []string) (*tools.Catalog, map[string]error) {
	if base == nil {
		base = tools.Builtin()
	}
	want := map[string][]string{} // server → the tools named
	for _, n := range names {
		if srv, tool, ok := m.Resolve(n); ok {
			want[srv] = append(want[srv], tool)
		}
	}
	cat := base
	var errs map[string]error
	for _, srv := range m.Servers() {
		named, ok := want[srv]
		if !ok {
			continue
		}
		cfg := m.configs[srv]
		ts := cache.load(srv, cfg)
		if !hasAll(ts, srv, named) {
			listed, err := m.Tools(ctx, srv)
			if err != nil {
				if errs == nil {
					errs = map[string]error{}
				}
				errs[srv] = err
				continue
			}
			ts = listed
			if err := cache.store(srv, cfg, ts); err != nil {
				m.opts.Logger.Warn("mcp: the tool list could not be cached", "server", srv, "error", fmt.Sprint(err))
			}
		}
		conservative := make([]tools.Tool, len(ts))
		for i, t := range ts {
			t.SideEffects, t.OpenWorld = true, true
			conservative[i] = t
		}
		cat = cat.With(srv, conservative)
	}
	return cat, errs
}

// hasAll says whether ts (nil: no entry) lists every named tool of srv.
func hasAll(ts []tools.Tool, srv string, named []string) bool {
	if ts == nil {
		return false
	}
	for _, n := range named {
		if !slices.ContainsFunc(ts, func(t tools.Tool) bool { return t.Name == srv+"."+n }) {
			return false
		}
	}
	return true
}
