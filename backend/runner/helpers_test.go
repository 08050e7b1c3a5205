package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestMain(m *testing.M) {
	mcptest.MaybeServe()
	os.Exit(m.Run())
}

// parse builds a workflow from compact JSON: nodes and edges only.
func parse(t testing.TB, nodesAndEdges string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"test",` + nodesAndEdges + `}`))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return w
}

// recorder collects events (the live callback).
type recorder struct {
	mu     sync.Mutex
	events []Event
}

func (r *recorder) add(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

func (r *recorder) all() []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Event(nil), r.events...)
}

func (r *recorder) of(t EventType) []Event {
	var out []Event
	for _, e := range r.all() {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func (r *recorder) logs() []string {
	var out []string
	for _, e := range r.of(EvLog) {
		out = append(out, e.Message)
	}
	return out
}

// env is a test's folders and options: the workflow folder, run logs and
// the pattern store all live in temp dirs.
type env struct {
	t    testing.TB
	dir  string
	opts Options
	rec  *recorder
}

func newEnv(t testing.TB) *env {
	t.Helper()
	dir := t.TempDir()
	rec := &recorder{}
	s := settings.Defaults()
	s.Run.DefaultRetries = 0
	return &env{t: t, dir: dir, rec: rec, opts: Options{
		Settings: s,
		Dir:      dir,
		RunsDir:  filepath.Join(dir, ".weft", "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")},
		OnEvent:  rec.add,
	}}
}

func (e *env) run(w *workflow.Workflow) *Result {
	e.t.Helper()
	return e.runCtx(context.Background(), w)
}

func (e *env) runCtx(ctx context.Context, w *workflow.Workflow) *Result {
	e.t.Helper()
	res, err := New(e.opts).Run(ctx, w)
	if err != nil {
		e.t.Fatalf("Run: %v", err)
	}
	return res
}

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) read(name string) string {
	e.t.Helper()
	b, err := os.ReadFile(filepath.Join(e.dir, name))
	if err != nil {
		e.t.Fatal(err)
	}
	return string(b)
}

func wantOutcome(t testing.TB, res *Result, want Outcome) {
	t.Helper()
	if res.Outcome != want {
		t.Fatalf("outcome %s (error %q), want %s", res.Outcome, res.Error, want)
	}
}

// readEvents parses a run's events.jsonl.
func readEvents(t testing.TB, dir string) []Event {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, eventsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("events.jsonl line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func types(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, string(e.Type))
	}
	return out
}

func contains(haystack []string, needle string) bool {
	for _, s := range haystack {
		if strings.Contains(s, needle) {
			return true
		}
	}
	return false
}

// sleeps records backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

// answers is an escalation handler that replies from a script and keeps
// what it was asked.
type answers struct {
	mu    sync.Mutex
	resps []Response
	asked []Escalation
}

func (a *answers) Escalate(ctx context.Context, e Escalation) (Response, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, e)
	if len(a.resps) == 0 {
		return Response{Action: ActAbort}, nil
	}
	r := a.resps[0]
	a.resps = a.resps[1:]
	return r, nil
}
