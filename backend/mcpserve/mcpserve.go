// Package mcpserve makes the workflows in a folder tools of an MCP server
// (weft mcp serve DIR): an agent lists them and calls them with
// arguments, as a person runs them, under the same trust rules. A file
// this machine does not trust is not listed (its text would reach the
// agent's model); a call of content not approved runs nothing and says
// what waits and how to approve it; the arguments are the workflow's
// declared inputs, checked by the one rule every run is checked by
// (inputs.Resolve, inside the service), and stay data. Each call is a run
// of its own through the service (several go at once), logged with
// source mcp.
package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/workflow"
)

// DefaultPoll is how often the folder is read again for added, changed
// and removed workflows.
const DefaultPoll = 2 * time.Second

// maxSummaryOutputs bounds the output keys the text summary names.
const maxSummaryOutputs = 10

// Config is what weft mcp serve is told.
type Config struct {
	// Dir is the folder whose workflow files are served.
	Dir string
	// Poll is how often Dir is read again (DefaultPoll when 0).
	Poll time.Duration
	// Logger hears what is served, left out and why (default: discard).
	Logger *slog.Logger
	// Version is the server's version, told to clients.
	Version string
}

// Server is the MCP server of a folder's workflows.
type Server struct {
	cfg Config
	svc *service.Service
	mcp *sdk.Server

	mu sync.Mutex
	// tools are what is listed, by tool name.
	tools map[string]tool
	// parked are the calls whose client is asked in their result, by
	// requestState (park.go).
	parked map[string]*call
}

// tool is one workflow served as a tool.
type tool struct {
	path string
	// def is the tool as listed (its JSON, to tell a change).
	def  *sdk.Tool
	sig  string
	note string
}

// New returns the server of cfg.Dir's workflows, run through svc; call
// Refresh (or Watch) to list them.
func New(cfg Config, svc *service.Service) (*Server, error) {
	if cfg.Poll <= 0 {
		cfg.Poll = DefaultPoll
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("mcp serve: %w", err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("mcp serve: %s is not a folder", cfg.Dir)
	}
	cfg.Dir = dir
	s := &Server{cfg: cfg, svc: svc, tools: map[string]tool{}}
	s.mcp = sdk.NewServer(&sdk.Implementation{Name: "weft", Title: "Weft workflows", Version: cfg.Version},
		&sdk.ServerOptions{
			Instructions: "Each tool runs a Weft workflow of " + dir + " with its declared inputs as arguments and returns its outcome and outputs.",
			Logger:       cfg.Logger,
			// Tools come and go with the folder's files: say so.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
		})
	return s, nil
}

// MCP is the SDK server, to run over a transport (stdio, in-memory) or
// behind sdk.NewStreamableHTTPHandler.
func (s *Server) MCP() *sdk.Server { return s.mcp }

// Watch reads the folder now and every Poll until ctx ends, adding,
// replacing and removing tools as files come, change and go (the SDK
// sends notifications/tools/list_changed).
func (s *Server) Watch(ctx context.Context) {
	t := time.NewTicker(s.cfg.Poll)
	defer t.Stop()
	for {
		s.Refresh()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Tools are the names listed now, sorted, each with its file.
func (s *Server) Tools() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.tools))
	for n, t := range s.tools {
		out[n] = t.path
	}
	return out
}

// Refresh reads the folder once and brings the tool list in line with it.
func (s *Server) Refresh() {
	next := s.scan()
	s.mu.Lock()
	var gone []string
	for name := range s.tools {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	var changed []tool
	for name, t := range next {
		if old, ok := s.tools[name]; !ok || old.sig != t.sig {
			changed = append(changed, t)
		}
	}
	s.tools = next
	s.mu.Unlock()
	if len(gone) > 0 {
		sort.Strings(gone)
		s.mcp.RemoveTools(gone...)
		s.cfg.Logger.Info("mcp serve: removed", "tools", gone)
	}
	sort.Slice(changed, func(i, j int) bool { return changed[i].def.Name < changed[j].def.Name })
	for _, t := range changed {
		s.mcp.AddTool(t.def, s.handler(t.def.Name, t.path))
		s.cfg.Logger.Info("mcp serve: serving", "tool", t.def.Name, "file", t.path, "note", t.note)
	}
}

// scan is the tools of the folder's trusted workflow files now.
func (s *Server) scan() map[string]tool {
	out := map[string]tool{}
	entries, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		s.cfg.Logger.Warn("mcp serve: the folder cannot be read", "dir", s.cfg.Dir, "error", err)
		return out
	}
	var files []string
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".json") && !strings.HasSuffix(n, ".tests.json") && !strings.HasPrefix(n, ".") {
			files = append(files, n)
		}
	}
	sort.Strings(files) // collisions go to the file first by name
	for _, n := range files {
		path := filepath.Join(s.cfg.Dir, n)
		w, ft, err := s.svc.TrustedWorkflow(path)
		switch {
		case err != nil:
			s.cfg.Logger.Info("mcp serve: not a workflow, left out", "file", path, "error", err)
			continue
		case w == nil:
			// Its text would reach the agent's model: not listed at all.
			s.cfg.Logger.Warn("mcp serve: not trusted, not listed (review it in Weft, or weft trust its folder)", "file", path, "why", ft.Why)
			continue
		}
		def, err := toolOf(w, n)
		if err != nil {
			s.cfg.Logger.Warn("mcp serve: left out", "file", path, "error", err)
			continue
		}
		base, note := def.Name, ""
		for i := 2; out[def.Name].path != ""; i++ {
			def.Name = fmt.Sprintf("%s_%d", base, i)
			note = fmt.Sprintf("%s is %s's name; this file is %s", base, out[base].path, def.Name)
		}
		if note != "" {
			def.Description += " (tool name " + def.Name + ": " + base + " is another file's)"
			s.cfg.Logger.Warn("mcp serve: tool names collide", "file", path, "tool", def.Name, "note", note)
		}
		b, _ := json.Marshal(def)
		out[def.Name] = tool{path: path, def: def, sig: ft.SHA256 + string(b), note: note}
	}
	return out
}

// ToolName is the tool name of a workflow file: its name without .json
// (and .weft), each character outside [A-Za-z0-9_] an underscore
// (backup-notes.weft.json → backup_notes), at most 64 characters.
func ToolName(file string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".json"), ".weft")
	var b strings.Builder
	for _, r := range base {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "workflow"
	}
	return b.String()
}

// toolOf is the tool of w read from the file named file: described by its
// goal (else its name), its inputSchema the declared inputs (an object
// with no properties when none).
func toolOf(w *workflow.Workflow, file string) (*sdk.Tool, error) {
	schema := json.RawMessage(`{"type":"object"}`)
	if len(w.Inputs) > 0 && string(w.Inputs) != "null" {
		if _, probs := inputs.Parse(w.Inputs); len(probs) > 0 {
			return nil, fmt.Errorf("its inputs schema cannot be used: %s", probs[0].Message)
		}
		var m map[string]any
		if err := json.Unmarshal(w.Inputs, &m); err != nil || m["type"] != "object" {
			return nil, errors.New(`its inputs schema is not {"type": "object", …}`)
		}
		schema = w.Inputs
	}
	desc := strings.TrimSpace(w.Goal)
	if desc == "" {
		desc = strings.TrimSpace(w.Name)
	}
	if desc == "" {
		desc = "Runs the Weft workflow " + file
	}
	return &sdk.Tool{Name: ToolName(file), Title: w.Name, Description: desc, InputSchema: schema}, nil
}

// approveHint says what waits and how to approve it.
func approveHint(path string, pending []approval.Step) string {
	keys := make([]string, 0, len(pending))
	for _, st := range pending {
		keys = append(keys, st.Key)
	}
	return fmt.Sprintf("nothing ran: %d things in %s wait for a person's review or approval (%s); nothing in a workflow runs unseen. Approve them with `weft approve %s`, or review the file in Weft, then call again",
		len(pending), filepath.Base(path), strings.Join(keys, ", "), path)
}
