// Package mcp connects Weft to the MCP servers configured in settings
// (mcp_servers): it starts each server over stdio with the official Go SDK
// when it is first needed, lists its tools for the catalog (as
// "server.tool"), calls them for Tool nodes and AI steps, and stops every
// server cleanly, process group and all, so no browser or node process
// outlives its Manager (a run's, or a Service's: the command's or the
// window's, backend/service). CatalogCache keeps servers' tool lists on
// disk for validation.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/proc"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
)

// Defaults for Options.
const (
	DefaultStartTimeout = 60 * time.Second
	// DefaultTerminateTimeout is brief: a server that ends when its stdin
	// closes (as the MCP specification asks) is gone in milliseconds; one
	// that lingers (server-everything keeps timers running) would
	// otherwise hold every command that used it for the whole wait.
	// SIGTERM, which ends a Node server at once, follows.
	DefaultTerminateTimeout = 200 * time.Millisecond
	stderrTail              = 4096
)

// Outputs every MCP tool gives a Tool node, besides success and error.
var Outputs = []tools.Field{
	{Name: "text", Type: "string", Description: "the text content of the result, joined by newlines"},
	{Name: "data", Type: "object", Description: "the structured content of the result, when the tool returns one"},
}

// Options tune a Manager.
type Options struct {
	// Dir is the working directory servers start in; empty means the
	// current one.
	Dir string
	// StartTimeout bounds starting a server and its initialize handshake.
	StartTimeout time.Duration
	// TerminateTimeout is how long Close waits for a server to exit after
	// its stdin closes before it is sent SIGTERM, and again before
	// SIGKILL (default DefaultTerminateTimeout).
	TerminateTimeout time.Duration
	Logger           *slog.Logger
	// Redactor holds the secrets (settings.Settings.Secrets: the API key,
	// the other servers' tokens) that servers must not inherit from
	// Weft's environment and that errors must not show. The manager
	// works on a copy to which it adds its servers' own secrets
	// (settings.MCPServer.Secrets), so with nil those are still kept out
	// of error messages, and WEFT_LLM_API_KEY out of the environment.
	Redactor *redact.Redactor
}

// Manager owns the connections to the configured servers. It is safe for
// concurrent use. The zero value is not usable; call NewManager.
type Manager struct {
	opts    Options
	configs map[string]settings.MCPServer
	red     *redact.Redactor

	mu      sync.Mutex
	servers map[string]*server
	closed  bool
}

// server is one configured server and, while it runs, its session.
type server struct {
	name string
	cfg  settings.MCPServer

	mu   sync.Mutex // serialises start and stop
	conn *conn
}

// conn is one running server process.
type conn struct {
	session *sdk.ClientSession
	cmd     *exec.Cmd
	stderr  *tailBuffer
	tools   []*sdk.Tool
	dead    chan struct{} // closed when the connection ends
}

// NewManager returns a manager for the servers; nothing starts until a
// server is needed.
func NewManager(servers map[string]settings.MCPServer, opts Options) *Manager {
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	if opts.TerminateTimeout <= 0 {
		opts.TerminateTimeout = DefaultTerminateTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	m := &Manager{opts: opts, configs: map[string]settings.MCPServer{}, servers: map[string]*server{}, red: opts.Redactor.Clone()}
	for name, cfg := range servers {
		if strings.TrimSpace(cfg.Command) == "" {
			continue
		}
		m.configs[name] = cfg
		m.servers[name] = &server{name: name, cfg: cfg}
		m.red.Add(cfg.Secrets()...)
	}
	return m
}

// Servers returns the configured server names, sorted.
func (m *Manager) Servers() []string {
	names := make([]string, 0, len(m.configs))
	for n := range m.configs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Resolve splits a catalog name "server.tool" into its server and tool,
// preferring the longest configured server name that matches.
func (m *Manager) Resolve(name string) (srv, tool string, ok bool) {
	best := ""
	for n := range m.configs {
		if strings.HasPrefix(name, n+".") && len(n) > len(best) {
			best = n
		}
	}
	if best == "" {
		return "", "", false
	}
	return best, name[len(best)+1:], true
}

// Error is what a failed start, call or crash returns.
type Error struct {
	Server string
	Tool   string
	Kind   ErrorKind
	// Code is the JSON-RPC error code of a KindProtocol error.
	Code int64
	// Message is the server's own words: the tool's error text, the
	// JSON-RPC message, or the tail of a crashed server's stderr.
	Message string
	Err     error

	red *redact.Redactor // applied to the whole message by Error
}

// ErrorKind says what went wrong with a server.
type ErrorKind string

const (
	// KindStart: the server could not be started or did not complete the
	// initialize handshake.
	KindStart ErrorKind = "start"
	// KindCrashed: the server exited or closed the connection.
	KindCrashed ErrorKind = "crashed"
	// KindProtocol: the server answered with a JSON-RPC error (unknown
	// tool, invalid arguments, internal error).
	KindProtocol ErrorKind = "protocol"
	// KindTool: the tool ran and reported an error (isError).
	KindTool ErrorKind = "tool"
	// KindUnknownServer: no server of that name is configured.
	KindUnknownServer ErrorKind = "unknown_server"
)

// Error describes the failure with the manager's secrets redacted: a
// server's stderr and a wrapped error may quote its token.
func (e *Error) Error() string {
	var b strings.Builder
	switch e.Kind {
	case KindStart:
		fmt.Fprintf(&b, "MCP server %q did not start", e.Server)
	case KindCrashed:
		fmt.Fprintf(&b, "MCP server %q stopped", e.Server)
	case KindUnknownServer:
		fmt.Fprintf(&b, "no MCP server %q is configured in settings (mcp_servers)", e.Server)
		return b.String()
	case KindProtocol:
		fmt.Fprintf(&b, "MCP server %q refused %s (code %d)", e.Server, e.Tool, e.Code)
	default:
		fmt.Fprintf(&b, "%s.%s failed", e.Server, e.Tool)
	}
	if e.Kind != KindTool && e.Kind != KindProtocol && e.Tool != "" {
		fmt.Fprintf(&b, " during %s", e.Tool)
	}
	if e.Err != nil && e.Kind != KindTool && e.Kind != KindProtocol {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return e.red.String(b.String())
}

// newError completes an Error: its Message is redacted where it is made,
// for callers that read the field rather than Error().
func (m *Manager) newError(e *Error) *Error {
	e.red = m.red
	e.Message = m.red.String(e.Message)
	return e
}

func (e *Error) Unwrap() error { return e.Err }

// Tools starts the server if needed and returns its tools in catalog form
// (named "server.tool").
func (m *Manager) Tools(ctx context.Context, name string) ([]tools.Tool, error) {
	c, err := m.connect(ctx, name)
	if err != nil {
		return nil, err
	}
	out := make([]tools.Tool, 0, len(c.tools))
	for _, t := range c.tools {
		out = append(out, catalogTool(name, t))
	}
	return out, nil
}

// Catalog returns base augmented with the tools of every configured
// server, starting those not running yet. A server that fails to start is
// left out and its error is returned in the map, so one broken server does
// not hide the others.
func (m *Manager) Catalog(ctx context.Context, base *tools.Catalog) (*tools.Catalog, map[string]error) {
	if base == nil {
		base = tools.Builtin()
	}
	cat := base
	var errs map[string]error
	for _, name := range m.Servers() {
		ts, err := m.Tools(ctx, name)
		if err != nil {
			if errs == nil {
				errs = map[string]error{}
			}
			errs[name] = err
			continue
		}
		cat = cat.With(name, ts)
	}
	return cat, errs
}

// Catalog starts every server, lists its tools into base (nil means the
// built-ins) and stops them again: the palette's and the planner's view of
// what Tool nodes can call.
func Catalog(ctx context.Context, servers map[string]settings.MCPServer, base *tools.Catalog, opts Options) (*tools.Catalog, map[string]error) {
	m := NewManager(servers, opts)
	defer m.Close()
	return m.Catalog(ctx, base)
}

// Result is the outcome of a successful tool call.
type Result struct {
	// Text joins the text content (and placeholders for images, audio
	// and resources).
	Text string
	// Data is the structured content, if the tool returned one.
	Data any
}

// Outputs returns the result as node outputs (text, data).
func (r Result) Outputs() map[string]any {
	return map[string]any{"text": r.Text, "data": r.Data}
}

// Call calls a tool. A tool that reports an error returns an *Error of
// KindTool along with its Result; a server that crashed is restarted by the
// next call.
func (m *Manager) Call(ctx context.Context, srv, tool string, args map[string]any) (Result, error) {
	c, err := m.connect(ctx, srv)
	if err != nil {
		return Result{}, err
	}
	if args == nil {
		args = map[string]any{}
	}
	res, err := c.session.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("%s.%s: %w", srv, tool, ctx.Err())
		}
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return Result{}, m.newError(&Error{Server: srv, Tool: tool, Kind: KindProtocol, Code: we.Code, Message: we.Message, Err: err})
		}
		if c.isDead() || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
			m.drop(srv, c)
			return Result{}, m.newError(&Error{Server: srv, Tool: tool, Kind: KindCrashed, Message: c.stderr.String(), Err: err})
		}
		return Result{}, m.newError(&Error{Server: srv, Tool: tool, Kind: KindProtocol, Err: err, Message: err.Error()})
	}
	r := Result{Text: contentText(res.Content), Data: res.StructuredContent}
	if res.IsError {
		// The Result keeps the tool's own words for the workflow; only
		// the error, which is shown and logged, is redacted.
		return r, m.newError(&Error{Server: srv, Tool: tool, Kind: KindTool, Message: r.Text})
	}
	return r, nil
}

// Close stops every running server: stdin is closed, then the process is
// given TerminateTimeout to exit before SIGTERM and SIGKILL, and finally
// its whole process group is killed. Close is idempotent.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(servers))
	for i, s := range servers {
		wg.Go(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.conn != nil {
				errs[i] = s.conn.stop()
				s.conn = nil
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Running reports whether the named server has a live session.
func (m *Manager) Running(name string) bool {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil && !s.conn.isDead()
}

// Pid returns the process id of the named server while it runs (for
// tests and diagnostics), or 0.
func (m *Manager) Pid(name string) int {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil || s.conn.cmd.Process == nil {
		return 0
	}
	return s.conn.cmd.Process.Pid
}

func (m *Manager) connect(ctx context.Context, name string) (*conn, error) {
	m.mu.Lock()
	s := m.servers[name]
	closed := m.closed
	m.mu.Unlock()
	if s == nil {
		return nil, m.newError(&Error{Server: name, Kind: KindUnknownServer})
	}
	if closed {
		return nil, m.newError(&Error{Server: name, Kind: KindStart, Err: errors.New("the run's MCP connections are closed")})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil && !s.conn.isDead() {
		return s.conn, nil
	}
	if s.conn != nil { // crashed: reap it before starting again
		s.conn.stop()
		s.conn = nil
	}
	c, err := m.start(ctx, s)
	if err != nil {
		return nil, err
	}
	s.conn = c
	return c, nil
}

// drop forgets a dead connection (if it is still the current one).
func (m *Manager) drop(name string, c *conn) {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == c {
		c.stop()
		s.conn = nil
	}
}

func (m *Manager) start(ctx context.Context, s *server) (*conn, error) {
	cmd := exec.Command(s.cfg.Command, s.cfg.Args...)
	cmd.Dir = m.opts.Dir
	// Weft's own secrets stay with Weft; the server gets its configured
	// env on top of the rest of the environment.
	cmd.Env = proc.Env(os.Environ(), m.red.Secrets(), s.cfg.Env)
	stderr := &tailBuffer{max: stderrTail}
	cmd.Stderr = stderr
	proc.SetGroup(cmd)
	transport := &sdk.CommandTransport{Command: cmd, TerminateDuration: m.opts.TerminateTimeout}
	client := sdk.NewClient(&sdk.Implementation{Name: "weft", Version: "1"}, &sdk.ClientOptions{Logger: m.opts.Logger})

	sctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
	defer cancel()
	fail := func(err error) (*conn, error) {
		proc.KillGroup(cmd)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("start MCP server %q: %w", s.name, ctx.Err())
		}
		return nil, m.newError(&Error{Server: s.name, Kind: KindStart, Err: err, Message: strings.TrimSpace(stderr.String())})
	}
	m.opts.Logger.Debug("mcp: starting server", "server", s.name, "command", s.cfg.Command)
	session, err := client.Connect(sctx, transport, nil)
	if err != nil {
		return fail(err)
	}
	c := &conn{session: session, cmd: cmd, stderr: stderr, dead: make(chan struct{})}
	go func() {
		session.Wait()
		close(c.dead)
	}()
	var list []*sdk.Tool
	cursor := ""
	for page := 0; page < 100; page++ {
		res, err := session.ListTools(sctx, &sdk.ListToolsParams{Cursor: cursor})
		if err != nil {
			c.stop()
			return fail(fmt.Errorf("tools/list: %w", err))
		}
		list = append(list, res.Tools...)
		if res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	c.tools = list
	m.opts.Logger.Debug("mcp: server ready", "server", s.name, "tools", len(list))
	return c, nil
}

func (c *conn) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

// stop closes the session (which closes stdin and waits for the process,
// escalating to SIGTERM and SIGKILL) and then kills whatever is left of its
// process group and of its process tree: browsers and other grandchildren.
func (c *conn) stop() error {
	var tree []proc.Proc
	if c.cmd.Process != nil && !c.isDead() {
		// Browsers start their helpers in process groups of their own:
		// note the whole tree while the parent links still hold it.
		tree = proc.Descendants(c.cmd.Process.Pid)
	}
	err := c.session.Close()
	proc.KillGroup(c.cmd)
	proc.Kill(tree)
	if c.isDead() {
		return nil // it had already gone; how it ended was reported then
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil // killed after the grace period: that is how it ends
	}
	return err
}

// catalogTool converts an MCP tool description to the catalog's form.
func catalogTool(srv string, t *sdk.Tool) tools.Tool {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	// MCP's defaults: a tool may change things unless readOnlyHint, and
	// reaches an open world unless openWorldHint is false.
	sideEffects, openWorld := true, true
	if a := t.Annotations; a != nil {
		sideEffects = !a.ReadOnlyHint
		if a.OpenWorldHint != nil {
			openWorld = *a.OpenWorldHint
		}
	}
	return tools.Tool{
		Name:        srv + "." + t.Name,
		Description: desc,
		InputSchema: schema,
		Outputs:     Outputs,
		Server:      srv,
		SideEffects: sideEffects,
		OpenWorld:   openWorld,
	}
}

func contentText(cs []sdk.Content) string {
	var parts []string
	for _, c := range cs {
		switch v := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, v.Text)
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", v.MIMEType, len(v.Data)))
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource %s]", v.URI))
		case *sdk.EmbeddedResource:
			if v.Resource != nil && v.Resource.Text != "" {
				parts = append(parts, v.Resource.Text)
			} else if v.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s]", v.Resource.URI))
			}
		}
	}
	return strings.Join(parts, "\n")
}

// tailBuffer keeps the last max bytes written to it (a server's stderr, for
// error messages).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
	cut bool // bytes were dropped from the front
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
		t.cut = true
	}
	return len(p), nil
}

// String returns the tail from its first whole line: the cut-off start of
// a line (perhaps the end of a token) helps no one.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.b
	if t.cut {
		if i := strings.IndexByte(string(b), '\n'); i >= 0 && i+1 < len(b) {
			b = b[i+1:]
		}
	}
	return strings.TrimSpace(string(b))
}
