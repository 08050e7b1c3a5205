// Package mcptest is a Go MCP server for tests of edge cases the real npm
// servers cannot produce on demand: a tool error, a slow tool that must be
// cancelled, a server that crashes mid-call, a tool that spawns a
// grandchild process. It runs over stdio in a re-executed test binary, so
// the client side is exercised exactly as with a real server:
//
//	func TestMain(m *testing.M) { mcptest.MaybeServe(); os.Exit(m.Run()) }
//	cfg := mcptest.Config(t.TempDir()) // a settings.MCPServer
package mcptest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/settings"
)

const (
	envServe = "WEFT_MCPTEST_SERVE"
	envMarks = "WEFT_MCPTEST_MARKS"
)

// Config returns the settings entry that starts this test binary as the
// test server. marks is a folder where the server records what happened
// (see Mark); it may be empty.
func Config(marks string) settings.MCPServer {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return settings.MCPServer{Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{envServe: "1", envMarks: marks}}
}

// Mark reads what the server recorded under name in the marks folder ("" if
// nothing).
func Mark(marks, name string) string {
	b, _ := os.ReadFile(filepath.Join(marks, name))
	return string(b)
}

func mark(name, value string) {
	if dir := os.Getenv(envMarks); dir != "" {
		os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644)
	}
}

// MaybeServe serves MCP on stdin/stdout and exits when this process was
// started by Config; otherwise it returns at once. Call it first in
// TestMain.
func MaybeServe() {
	if os.Getenv(envServe) != "1" {
		return
	}
	err := NewServer().Run(context.Background(), &sdk.StdioTransport{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mcptest:", err)
	}
	if !lingering.Load() {
		mark("ended", "stdin closed")
		os.Exit(0)
	}
	select {
	case <-term:
		mark("ended", "SIGTERM")
	case <-time.After(time.Minute):
		mark("ended", "timeout")
	}
	os.Exit(0)
}

// lingering is set by the linger tool, which from then on notes SIGTERM
// in term rather than dying of it.
var (
	lingering atomic.Bool
	term      = make(chan os.Signal, 1)
)

type textIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}
type msgIn struct {
	Message string `json:"message" jsonschema:"the error message"`
}
type msIn struct {
	Ms int `json:"ms" jsonschema:"how long to work, in milliseconds"`
}
type none struct{}
type spawnIn struct {
	Detached bool `json:"detached,omitempty" jsonschema:"start it in a session of its own, as browsers start their helpers"`
}
type nameIn struct {
	Name string `json:"name" jsonschema:"a name"`
}
type countIn struct {
	Name string `json:"name" jsonschema:"counter name"`
	Fail int    `json:"fail" jsonschema:"fail this many calls first"`
}
type sum struct {
	Sum int `json:"sum"`
}
type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

// NewServer returns the test server with its tools:
//
//	echo {text}        returns the text
//	add {a, b}         structured result {"sum": a+b}
//	fail {message}     a tool error (isError) with the message
//	slow {ms}          works for ms, recording "slow" = done|canceled
//	crash {}           writes to stderr and exits with status 3
//	crash_once {name}  like crash the first time (per name), then succeeds
//	spawn {detached}   starts a grandchild "sleep 300" (in its own session when
//	                   detached), returns its pid
//	flaky {name, fail} fails the first `fail` calls per name, then succeeds
//	env {name}         returns the value of the environment variable name
//	                   ("" if unset): what the server inherited
//	leak {name}        writes "name=<value>" of the environment variable to
//	                   stderr, then exits with status 3: a server that prints
//	                   its own token as it dies
//	linger {}          keeps running after its stdin closes, until SIGTERM
//	pid {}             returns the server's process id: which session a
//	                   call reached (read-only, closed world: a model's
//	                   step needs no approval for it)
//
// The server records how it ended in the mark "ended": "stdin closed", or
// after linger "SIGTERM".
func NewServer() *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "weft-mcptest", Version: "1"}, nil)
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Echo the text back.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, in textIn) (*sdk.CallToolResult, any, error) {
			return text(in.Text), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "add", Description: "Add two integers.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, in addIn) (*sdk.CallToolResult, sum, error) {
			return nil, sum{Sum: in.A + in.B}, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail", Description: "Always fails with the message."},
		func(_ context.Context, _ *sdk.CallToolRequest, in msgIn) (*sdk.CallToolResult, any, error) {
			return nil, nil, errors.New(in.Message)
		})
	sdk.AddTool(s, &sdk.Tool{Name: "slow", Description: "Work for a while."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in msIn) (*sdk.CallToolResult, any, error) {
			mark("slow", "started")
			select {
			case <-time.After(time.Duration(in.Ms) * time.Millisecond):
				mark("slow", "done")
				return text("done"), nil, nil
			case <-ctx.Done():
				mark("slow", "canceled")
				return nil, nil, ctx.Err()
			}
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash", Description: "Exit abruptly."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "mcptest: crashing on purpose")
			os.Exit(3)
			return nil, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "crash_once", Description: "Exit abruptly the first time (per name), then echo."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			if Mark(os.Getenv(envMarks), "crashed-"+in.Name) == "" {
				mark("crashed-"+in.Name, "yes")
				fmt.Fprintln(os.Stderr, "mcptest: crashing once on purpose")
				os.Exit(3)
			}
			return text("survived " + in.Name), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "spawn", Description: "Start a long-lived grandchild process."},
		func(_ context.Context, _ *sdk.CallToolRequest, in spawnIn) (*sdk.CallToolResult, any, error) {
			cmd := exec.Command("sleep", "300")
			if in.Detached {
				detach(cmd)
			}
			if err := cmd.Start(); err != nil {
				return nil, nil, err
			}
			go cmd.Wait()
			return text(strconv.Itoa(cmd.Process.Pid)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "flaky", Description: "Fail the first calls, then succeed."},
		func(_ context.Context, _ *sdk.CallToolRequest, in countIn) (*sdk.CallToolResult, any, error) {
			n, _ := strconv.Atoi(Mark(os.Getenv(envMarks), "flaky-"+in.Name))
			n++
			mark("flaky-"+in.Name, strconv.Itoa(n))
			if n <= in.Fail {
				return nil, nil, fmt.Errorf("connection reset by peer (call %d)", n)
			}
			return text(fmt.Sprintf("ok after %d calls", n)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "env", Description: "Return an environment variable of the server.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			return text(os.Getenv(in.Name)), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "leak", Description: "Print an environment variable to stderr and crash."},
		func(_ context.Context, _ *sdk.CallToolRequest, in nameIn) (*sdk.CallToolResult, any, error) {
			fmt.Fprintf(os.Stderr, "mcptest: fatal: cannot authenticate with %s=%s\n", in.Name, os.Getenv(in.Name))
			os.Exit(3)
			return nil, nil, nil
		})
	closed := false
	sdk.AddTool(s, &sdk.Tool{Name: "pid", Description: "Return the server's process id.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &closed}},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			return text(strconv.Itoa(os.Getpid())), nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "linger", Description: "Keep running after stdin closes, until SIGTERM.", Annotations: ro},
		func(_ context.Context, _ *sdk.CallToolRequest, _ none) (*sdk.CallToolResult, any, error) {
			signal.Notify(term, syscall.SIGTERM)
			lingering.Store(true)
			return text("lingering"), nil, nil
		})
	return s
}
