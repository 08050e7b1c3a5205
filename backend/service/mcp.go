package service

import (
	"encoding/json"
	"errors"
	"os"
	"sync"

	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
)

// mcpSessions are this Service's connections to the MCP servers: one
// session per server and folder for the life of the Service (a command, a
// window), shared by the tool catalog and by a run, so a `weft run` starts
// each server once. A run that starts while another uses those sessions
// gets sessions of its own, closed when it ends (mcpForRun): a stateful
// server (a browser, a shell) never mixes two runs' state. Servers start
// in the workflow's folder, as a run has always started them.
type mcpSessions struct {
	mu  sync.Mutex
	key string // the mcp_servers settings the managers were made for
	// byDir is the manager of each folder.
	byDir map[string]*mcp.Manager
	// inUse are the managers runs use now; a stale one (the settings
	// changed) is closed when its run ends.
	inUse  map[*mcp.Manager]int
	closed bool
}

// serversKey is what identifies a set of MCP servers' settings.
func serversKey(st settings.Settings) string {
	b, _ := json.Marshal(st.MCPServers)
	return string(b)
}

// mcpFor is the manager of st's servers working in dir ("" the current
// folder). Managers of other settings are closed unless a run uses them.
func (s *Service) mcpFor(st settings.Settings, dir string) *mcp.Manager {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	key := serversKey(st)
	ms := &s.mcp
	ms.mu.Lock()
	var stale []*mcp.Manager
	if ms.key != key {
		for _, m := range ms.byDir {
			if ms.inUse[m] == 0 {
				stale = append(stale, m)
			}
		}
		ms.key, ms.byDir = key, map[string]*mcp.Manager{}
	}
	m := ms.byDir[dir]
	if m == nil {
		m = s.newManager(st, dir)
		if ms.closed {
			m.Close() // a Service closed: nothing starts any more
		}
		ms.byDir[dir] = m
	}
	ms.mu.Unlock()
	for _, old := range stale {
		old.Close()
	}
	return m
}

// mcpForRun is the manager a run of st's servers in dir calls tools
// with, and what to call when it ends: the shared one (mcpFor) when no
// other run uses it, else one of its own, closed at done.
func (s *Service) mcpForRun(st settings.Settings, dir string) (*mcp.Manager, func()) {
	if dir == "" {
		dir, _ = os.Getwd()
	}
	m := s.mcpFor(st, dir)
	ms := &s.mcp
	ms.mu.Lock()
	if ms.inUse[m] == 0 {
		ms.mu.Unlock()
		return m, s.useMCP(m)
	}
	closed := ms.closed
	ms.mu.Unlock()
	own := s.newManager(st, dir)
	if closed {
		own.Close()
	}
	return own, func() { _ = own.Close() }
}

func (s *Service) newManager(st settings.Settings, dir string) *mcp.Manager {
	return mcp.NewManager(st.MCPServers, mcp.Options{Dir: dir, Logger: s.deps.Logger, Redactor: runner.NewRedactor(st)})
}

// useMCP marks m as used by a run until done is called; a manager made
// stale meanwhile is closed then.
func (s *Service) useMCP(m *mcp.Manager) (done func()) {
	ms := &s.mcp
	ms.mu.Lock()
	if ms.inUse == nil {
		ms.inUse = map[*mcp.Manager]int{}
	}
	ms.inUse[m]++
	ms.mu.Unlock()
	return func() {
		ms.mu.Lock()
		ms.inUse[m]--
		current := false
		for _, c := range ms.byDir {
			current = current || c == m
		}
		if ms.inUse[m] == 0 {
			delete(ms.inUse, m)
		}
		idle := ms.inUse[m] == 0
		ms.mu.Unlock()
		if idle && !current {
			m.Close()
		}
	}
}

// Close stops the MCP servers this Service started (the end of a command,
// the window's): stdin closes, then SIGTERM after a brief grace
// (mcp.DefaultTerminateTimeout). A run still going loses them; stop it
// first.
func (s *Service) Close() error {
	ms := &s.mcp
	ms.mu.Lock()
	ms.closed = true
	all := make([]*mcp.Manager, 0, len(ms.byDir))
	for _, m := range ms.byDir {
		all = append(all, m)
	}
	ms.mu.Unlock()
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, m := range all {
		wg.Go(func() { errs[i] = m.Close() })
	}
	wg.Wait()
	return errors.Join(errs...)
}
