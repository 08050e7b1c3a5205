package testcase

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// standIn answers a case's run in place of the world
// (runner.Options.Effects): mocks answer commands, requests, MCP tools
// and AI steps; file tools read the real folder beneath it and write to
// an overlay kept in memory. It holds no tool that acts and no way to
// start one, so a call it has no answer for fails; it cannot run.
type standIn struct {
	root  string // the workflow's folder (absolute)
	mocks *Mocks
	now   func() time.Time

	// commands are the mocked commands as run_command renders them (a
	// secret's reference as the variable the command reads it from).
	commands []string

	mu    sync.Mutex
	used  map[string]int    // calls answered, by mock (mockID)
	files map[string]string // the overlay: content by absolute path
	// written are the paths written, in order, each once.
	written []string
	// unmocked are the calls that would have acted ("would run …: no
	// mock"); problems are mocks that could not answer as the step needs.
	unmocked []Failure
	problems []Failure
}

func newStandIn(root string, m *Mocks, now func() time.Time) *standIn {
	s := &standIn{root: root, mocks: m, now: now, used: map[string]int{}, files: map[string]string{}}
	for _, c := range m.Commands {
		s.commands = append(s.commands, renderedCommand(c.Command))
	}
	return s
}

// renderedCommand is a mocked command as run_command's arguments render
// it: each {{secrets.NAME}} becomes the variable the command reads it
// from, quoted for where it sits, so a mock matches the call by the
// reference, never a value. Other placeholders stay text.
func renderedCommand(cmd string) string {
	args, err := render.Args("run_command", map[string]any{"command": cmd}, noVars{}, quote.HostShell())
	if err != nil {
		return cmd
	}
	return render.ToText(render.Shown(args["command"]))
}

// noVars is a template environment without variables.
type noVars struct{}

func (noVars) Known(string) bool { return false }

func (noVars) Eval(expr string) (any, error) { return nil, fmt.Errorf("%s: no variables here", expr) }

// noMock records a call that would act and fails it.
func (s *standIn) noMock(n *workflow.Node, what, add string) error {
	msg := fmt.Sprintf("would run %s: no mock (add one to mocks.%s)", what, add)
	s.unmocked = append(s.unmocked, Failure{Step: n.ID, What: "unmocked", Message: msg})
	return &runner.ArgError{Msg: msg}
}

// badMock records a mock that cannot answer the call and fails it.
func (s *standIn) badMock(n *workflow.Node, msg string) error {
	s.problems = append(s.problems, Failure{Step: n.ID, What: "mock", Message: msg})
	return &runner.ArgError{Msg: msg}
}

// next is the answer of mock id to its next call; ok is false (and the
// call recorded as a problem) past the last answer.
func next[A any](s *standIn, n *workflow.Node, id, what string, a Answers[A]) (A, error) {
	call := s.used[id]
	s.used[id] = call + 1
	ans, ok := a.nth(call)
	if !ok {
		return ans, s.badMock(n, fmt.Sprintf("%s is called %d times, but its mock (%s) has %d answers", what, call+1, id, len(a.Answers)))
	}
	return ans, nil
}

// Tool implements runner.Effects.
func (s *standIn) Tool(ctx context.Context, c runner.EffectCall) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	args, _ := AsWritten(c.Args).(map[string]any)
	switch c.Name {
	case "run_command":
		cmd, rendered := render.ToText(args["command"]), render.ToText(render.Shown(c.Args["command"]))
		for i, m := range s.mocks.Commands {
			if s.commands[i] == rendered {
				a, err := next(s, c.Node, fmt.Sprintf("mocks.commands[%d]", i), fmt.Sprintf("the command %q", cmd), m.Answers)
				if err != nil {
					return nil, err
				}
				for _, p := range slices.Sorted(maps.Keys(a.Writes)) {
					s.write(s.resolve(c.Dir, filepath.FromSlash(p)), a.Writes[p])
				}
				return runner.CommandOutcome(c.Args, a.ExitCode, a.Stdout, a.Stderr)
			}
		}
		return nil, s.noMock(c.Node, fmt.Sprintf("run_command %q", cmd), "commands")
	case "http_request":
		method, url := strings.ToUpper(strings.TrimSpace(render.ToText(args["method"]))), render.ToText(args["url"])
		for i, m := range s.mocks.HTTP {
			if strings.EqualFold(m.Method, method) && m.URL == url {
				a, err := next(s, c.Node, fmt.Sprintf("mocks.http[%d]", i), method+" "+url, m.Answers)
				if err != nil {
					return nil, err
				}
				return s.respond(c, a)
			}
		}
		return nil, s.noMock(c.Node, fmt.Sprintf("http_request %s %s", method, url), "http")
	case "read_file":
		return s.readFile(c, args)
	case "write_file":
		return s.writeFile(c, args)
	case "list_files":
		return s.listFiles(c, args)
	case "wait", "log":
		return map[string]any{}, nil // nothing to wait for; the log is the run's
	}
	for i, m := range s.mocks.MCP {
		if m.Tool == c.Name && (m.Arguments == nil || sameJSON(m.Arguments, args)) {
			a, err := next(s, c.Node, fmt.Sprintf("mocks.mcp[%d]", i), c.Name, m.Answers)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"text": a.Text, "data": a.Data}
			if a.IsError {
				return out, fmt.Errorf("%s: the tool reported an error: %s", c.Name, a.Text)
			}
			return out, nil
		}
	}
	shown, _ := json.Marshal(args)
	return nil, s.noMock(c.Node, fmt.Sprintf("%s %s", c.Name, shown), "mcp")
}

// respond gives a mocked response as http_request does: its status judged
// by the tool's own rule, a body saved to save_to going to the overlay.
func (s *standIn) respond(c runner.EffectCall, a HTTPAnswer) (map[string]any, error) {
	h := http.Header{}
	for k, v := range a.Headers {
		h.Set(k, v)
	}
	out, err := runner.HTTPOutcome(c.Args, a.Status, h, a.Body, s.now())
	saveTo, _ := c.Args["save_to"].(string)
	if saveTo == "" || err != nil {
		return out, err
	}
	p := s.resolve(c.Dir, saveTo)
	s.write(p, a.Body)
	sum := sha256.Sum256([]byte(a.Body))
	delete(out, "body")
	out["path"], out["size"], out["sha256"] = p, int64(len(a.Body)), hex.EncodeToString(sum[:])
	return out, nil
}

// AI implements runner.Effects.
func (s *standIn) AI(ctx context.Context, n *workflow.Node, attempt int) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.mocks.AI[n.ID]
	if !ok {
		return nil, s.noMock(n, fmt.Sprintf("the model for AI step %q", n.ID), fmt.Sprintf("ai[%q]", n.ID))
	}
	a, err := next(s, n, fmt.Sprintf("mocks.ai[%q]", n.ID), fmt.Sprintf("the AI step %q", n.ID), m.Answers)
	if err != nil {
		return nil, err
	}
	if a.Error != "" {
		return nil, errors.New("the model's answer cannot be used: " + a.Error)
	}
	want := "text"
	if n.Type == workflow.TypeAiTransform {
		switch n.Params.Kind {
		case "extract":
			want = "data"
		case "classify":
			want = "label"
		}
	}
	switch {
	case want == "text" && a.Text != nil:
		out := map[string]any{"text": *a.Text}
		if n.Type == workflow.TypeAiStep {
			out["tool_calls"] = 0
		}
		return out, nil
	case want == "data" && a.Data != nil:
		return map[string]any{"data": a.Data}, nil
	case want == "label" && a.Label != nil:
		if !slices.Contains(n.Params.Labels, *a.Label) {
			return nil, s.badMock(n, fmt.Sprintf("the mock's label %q is not one of the step's labels (%s)", *a.Label, strings.Join(n.Params.Labels, ", ")))
		}
		return map[string]any{"label": *a.Label}, nil
	}
	return nil, s.badMock(n, fmt.Sprintf("the AI step %q answers with %s: its mock must give %s", n.ID, want, want))
}

// ---- files: reads beneath the real folder, writes to the overlay ----

// resolve makes a path argument absolute as the file tools do: relative
// to the workflow's folder, ~/ at home.
func (s *standIn) resolve(dir, p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		dir = s.root
	}
	return filepath.Join(dir, p)
}

// beneath is p relative to the workflow's folder, if it is inside.
func (s *standIn) beneath(p string) (string, bool) {
	rel, err := filepath.Rel(s.root, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// open reads the real file at p, beneath the workflow's folder only
// (os.Root: no link leads out), a regular file of at most
// runner.MaxReadFile bytes.
func (s *standIn) readReal(tool, p string) (string, error) {
	rel, ok := s.beneath(p)
	if !ok {
		return "", &runner.ArgError{Msg: fmt.Sprintf("%s: %s is outside the workflow's folder %s: a test reads only beneath it", tool, p, s.root)}
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return "", fmt.Errorf("%s: the workflow's folder: %w", tool, err)
	}
	defer root.Close()
	st, err := root.Stat(rel)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	if !st.Mode().IsRegular() {
		return "", &runner.ArgError{Msg: fmt.Sprintf("%s: %s is not a regular file: a test reads regular files only", tool, p)}
	}
	if st.Size() > runner.MaxReadFile {
		return "", fmt.Errorf("%s: %s is %d bytes, over the %d MiB limit", tool, p, st.Size(), runner.MaxReadFile>>20)
	}
	b, err := root.ReadFile(rel)
	if err != nil {
		return "", fmt.Errorf("%s: %w", tool, err)
	}
	return string(b), nil
}

func pathArg(tool string, args map[string]any) (string, error) {
	p, ok := args["path"].(string)
	if !ok || strings.TrimSpace(p) == "" {
		return "", &runner.ArgError{Msg: fmt.Sprintf("%s: the argument \"path\" is required", tool)}
	}
	return p, nil
}

func (s *standIn) readFile(c runner.EffectCall, args map[string]any) (map[string]any, error) {
	p, err := pathArg("read_file", args)
	if err != nil {
		return nil, err
	}
	abs := s.resolve(c.Dir, p)
	if content, ok := s.files[abs]; ok { // a read after a write sees the write
		return map[string]any{"content": content}, nil
	}
	content, err := s.readReal("read_file", abs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"content": content}, nil
}

func (s *standIn) writeFile(c runner.EffectCall, args map[string]any) (map[string]any, error) {
	p, err := pathArg("write_file", args)
	if err != nil {
		return nil, err
	}
	var content string
	switch v := args["content"].(type) {
	case nil:
		return nil, &runner.ArgError{Msg: `write_file: the argument "content" is required`}
	case string:
		content = v
	default:
		content = render.ToText(v)
	}
	abs := s.resolve(c.Dir, p)
	if b, _ := args["append"].(bool); b {
		before, ok := s.files[abs]
		if !ok {
			if real, err := s.readReal("write_file", abs); err == nil {
				before = real
			} else if _, in := s.beneath(abs); in && !errors.Is(err, fs.ErrNotExist) {
				return nil, err
			}
		}
		content = before + content
	}
	s.write(abs, content)
	return map[string]any{"path": abs, "bytes": len(render.ToText(args["content"]))}, nil
}

func (s *standIn) write(abs, content string) {
	if _, ok := s.files[abs]; !ok {
		s.written = append(s.written, abs)
	}
	s.files[abs] = content
}

func (s *standIn) listFiles(c runner.EffectCall, args map[string]any) (map[string]any, error) {
	p, err := pathArg("list_files", args)
	if err != nil {
		return nil, err
	}
	pattern, _ := args["pattern"].(string)
	if pattern != "" {
		if _, err := filepath.Match(pattern, ""); err != nil {
			return nil, &runner.ArgError{Msg: fmt.Sprintf("list_files: bad pattern %q: %v", pattern, err)}
		}
	}
	dir := s.resolve(c.Dir, p)
	names := map[string]bool{}
	for abs := range s.files {
		if filepath.Dir(abs) == dir {
			names[filepath.Base(abs)] = true
		}
	}
	rel, ok := s.beneath(dir)
	if !ok {
		return nil, &runner.ArgError{Msg: fmt.Sprintf("list_files: %s is outside the workflow's folder %s: a test reads only beneath it", dir, s.root)}
	}
	root, err := os.OpenRoot(s.root)
	if err != nil {
		return nil, fmt.Errorf("list_files: the workflow's folder: %w", err)
	}
	defer root.Close()
	ents, err := fs.ReadDir(root.FS(), filepath.ToSlash(rel))
	if err != nil && (len(names) == 0 || !errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("list_files: %w", err)
	}
	for _, e := range ents {
		if !e.IsDir() {
			names[e.Name()] = true
		}
	}
	files := []any{}
	sorted := make([]string, 0, len(names))
	for n := range names {
		if ok, _ := filepath.Match(pattern, n); pattern == "" || ok {
			sorted = append(sorted, n)
		}
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		files = append(files, n)
	}
	return map[string]any{"files": files, "count": len(files)}, nil
}

// ---- arguments as a case writes them ----

// secretEnvRe is a secret's variable as a command reads it: quoted on its
// own ("${WEFT_SECRET_X}"), or bare inside a quoted string; the quotes go
// only with their pair.
var secretEnvRe = regexp.MustCompile(`"\$\{` + regexp.QuoteMeta(render.SecretEnv("")) + `([A-Za-z_][A-Za-z0-9_]*)\}"|\$\{` + regexp.QuoteMeta(render.SecretEnv("")) + `([A-Za-z_][A-Za-z0-9_]*)\}`)

// AsWritten is a call's arguments as a case writes them: a secret as its
// reference {{secrets.NAME}} (a command reads it from a variable; the
// case still writes the reference), never its value.
func AsWritten(args any) any {
	shown := render.Shown(args)
	var walk func(x any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return secretEnvRe.ReplaceAllString(t, "{{secrets.$1$2}}")
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, v := range t {
				out[k] = walk(v)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, v := range t {
				out[i] = walk(v)
			}
			return out
		}
		return x
	}
	return walk(shown)
}

// sameJSON says whether a and b are the same JSON value.
func sameJSON(a, b any) bool { return reflect.DeepEqual(normal(a), normal(b)) }

// normal is x as encoding/json gives it back: numbers as float64,
// objects as maps.
func normal(x any) any {
	b, err := json.Marshal(x)
	if err != nil {
		return x
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return x
	}
	return out
}
