package runner

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/weft-dev/weft/backend/proc"
)

// Limits of the built-in tools.
const (
	MaxCommandOutput = 1 << 20 // per stream
	MaxHTTPBody      = 1 << 20
	MaxReadFile      = 16 << 20
	DefaultHTTPWait  = 2 * time.Minute
)

// Tool is something a Tool node (or an AI step) can call. Outputs are the
// tool's own fields; the runner adds success and error.
type Tool interface {
	Call(ctx context.Context, c ToolCall) (map[string]any, error)
}

// ToolCall is one invocation.
type ToolCall struct {
	Name string
	Args map[string]any
	// Dir is the workflow's folder: relative paths start there.
	Dir string
	// Root, set by the effect gate (callTool) for a read that needed no
	// approval because it is inside the workflow's folder, is that
	// folder: the file tools open beneath it only (os.Root), so a path
	// whose real target leaves it fails. "" means not confined.
	Root string
	// LiteralPath says the path argument is the step's as written (no
	// template) by a person or in an approved step: only then may a file
	// tool open a device or FIFO, at that path itself (files.go).
	LiteralPath bool
	// Env is the environment of the processes the tool starts; nil means
	// the parent's without Weft's own secrets (proc.Env).
	Env []string
	// Log writes a message to the run log (a "log" event).
	Log func(msg string)
	// Redirect, when set, is asked before an http_request follows a
	// redirect to u: the secrets the request carries may not go
	// everywhere (secretrefs.go).
	Redirect func(u *url.URL) error
}

// ToolFunc adapts a function to Tool.
type ToolFunc func(ctx context.Context, c ToolCall) (map[string]any, error)

// Call calls f.
func (f ToolFunc) Call(ctx context.Context, c ToolCall) (map[string]any, error) { return f(ctx, c) }

func builtinTools() map[string]Tool {
	return map[string]Tool{
		"run_command":  ToolFunc(runCommand),
		"http_request": ToolFunc(httpRequest),
		"read_file":    ToolFunc(readFile),
		"write_file":   ToolFunc(writeFile),
		"list_files":   ToolFunc(listFiles),
		"wait":         ToolFunc(waitTool),
		"log":          ToolFunc(logTool),
	}
}

// ---- arguments ----

type args struct {
	tool string
	m    map[string]any
}

func (a args) only(names ...string) error {
	var extra []string
	for k := range a.m {
		found := false
		for _, n := range names {
			if k == n {
				found = true
				break
			}
		}
		if !found {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		return argErrorf("%s: unknown argument %s (it takes %s)", a.tool, strings.Join(extra, ", "), strings.Join(names, ", "))
	}
	return nil
}

func (a args) str(name string, required bool) (string, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			return "", argErrorf("%s: the argument %q is required", a.tool, name)
		}
		return "", nil
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case float64, int, int64, bool:
		return toText(t), nil
	}
	return "", argErrorf("%s: the argument %q must be a string, not %T", a.tool, name, v)
}

func (a args) integer(name string, required bool, min int64) (int64, bool, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		if required {
			return 0, false, argErrorf("%s: the argument %q is required", a.tool, name)
		}
		return 0, false, nil
	}
	var n int64
	switch t := v.(type) {
	case float64:
		if t != float64(int64(t)) {
			return 0, false, argErrorf("%s: the argument %q must be a whole number, not %v", a.tool, name, t)
		}
		n = int64(t)
	case int:
		n = int64(t)
	case int64:
		n = t
	case string:
		p, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		if err != nil {
			return 0, false, argErrorf("%s: the argument %q must be a whole number, not %q", a.tool, name, t)
		}
		n = p
	default:
		return 0, false, argErrorf("%s: the argument %q must be a whole number, not %T", a.tool, name, v)
	}
	if n < min {
		return 0, false, argErrorf("%s: the argument %q must be at least %d, not %d", a.tool, name, min, n)
	}
	return n, true, nil
}

func (a args) boolean(name string) (bool, error) {
	switch t := a.m[name].(type) {
	case nil:
		return false, nil
	case bool:
		return t, nil
	case string:
		b, err := strconv.ParseBool(t)
		if err == nil {
			return b, nil
		}
	}
	return false, argErrorf("%s: the argument %q must be true or false", a.tool, name)
}

// resolve makes a path absolute: relative paths start at the workflow's
// folder, ~/ at the home folder.
func resolve(dir, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// ---- run_command ----

func runCommand(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"run_command", c.Args}
	if err := a.only("command", "cwd", "timeout_ms", "ok_exit_codes"); err != nil {
		return nil, err
	}
	okCodes, hasOK, err := a.intList("ok_exit_codes", 0, 255)
	if err != nil {
		return nil, err
	}
	if !hasOK {
		okCodes = []int{0}
	}
	command, err := a.str("command", true)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(command) == "" {
		return nil, argErrorf("run_command: the command is empty")
	}
	cwd, err := a.str("cwd", false)
	if err != nil {
		return nil, err
	}
	dir := c.Dir
	if cwd != "" {
		dir = resolve(c.Dir, cwd)
	}
	timeout, hasTimeout, err := a.duration("timeout_ms", false, 1, maxTimeoutMs)
	if err != nil {
		return nil, err
	}
	cctx := ctx
	if hasTimeout {
		var cancel context.CancelFunc
		cctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := shellCommand(cctx, command)
	cmd.Dir = dir
	cmd.Env = c.Env
	if cmd.Env == nil {
		cmd.Env = proc.Env(os.Environ(), nil, nil)
	}
	proc.Prepare(cmd) // after Env: on Linux it starts the shell under a supervisor
	stdout := &cappedBuffer{max: MaxCommandOutput}
	stderr := &cappedBuffer{max: MaxCommandOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	runErr := cmd.Run()
	out := map[string]any{"exit_code": 0, "stdout": stdout.String(), "stderr": stderr.String()}
	stdout.mark(out, "stdout") // a cut output is marked, not handed on as whole (truncated.go)
	stderr.mark(out, "stderr")
	code := 0
	if cmd.ProcessState != nil {
		code = exitCode(cmd.ProcessState)
		out["exit_code"] = code
	}
	switch {
	case ctx.Err() != nil:
		return out, ctx.Err()
	case cctx.Err() != nil:
		out["exit_code"] = -1
		return out, fmt.Errorf("run_command: killed after its timeout_ms of %v: %w", time.Since(start).Round(time.Millisecond), context.DeadlineExceeded)
	case runErr != nil && !errors.Is(runErr, exec.ErrWaitDelay): // WaitDelay: a background child kept the output open; the command itself finished
		var ee *exec.ExitError
		if !errors.As(runErr, &ee) {
			return out, fmt.Errorf("run_command: %w", runErr)
		}
	}
	return out, exitStatus(okCodes, code, signalOf(cmd.ProcessState), stderr.buf.String())
}

func signalOf(ps *os.ProcessState) syscall.Signal {
	if ps == nil {
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return ws.Signal()
	}
	return 0
}

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// ---- http_request: httptool.go ----

// ---- wait, log ----

func waitTool(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"wait", c.Args}
	if err := a.only("ms"); err != nil {
		return nil, err
	}
	d, _, err := a.duration("ms", true, 0, maxWaitMs)
	if err != nil {
		return nil, err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return map[string]any{}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func logTool(ctx context.Context, c ToolCall) (map[string]any, error) {
	a := args{"log", c.Args}
	if err := a.only("message"); err != nil {
		return nil, err
	}
	msg, ok := c.Args["message"]
	if !ok {
		return nil, argErrorf("log: the argument %q is required", "message")
	}
	if c.Log != nil {
		c.Log(toText(msg))
	}
	return map[string]any{}, nil
}
