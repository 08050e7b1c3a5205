package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// events is a Sink that records what a run told it.
type events struct {
	mu   sync.Mutex
	all  []Event
	note chan Event
}

func newEvents() *events { return &events{note: make(chan Event, 4096)} }

func (r *events) Emit(e Event) {
	r.mu.Lock()
	r.all = append(r.all, e)
	r.mu.Unlock()
	r.note <- e
}

// next waits for the next event of kind, skipping others.
func (r *events) next(t *testing.T, kind EventKind) Event {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case e := <-r.note:
			if e.Kind == kind {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s within 20s", kind)
		}
	}
}

func (r *events) runnerEvents() []runner.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []runner.Event
	for _, e := range r.all {
		if e.Run != nil {
			out = append(out, *e.Run)
		}
	}
	return out
}

// testService is a Service over fixed settings (no model unless s says
// so), private XDG dirs, a fast retry sleep and no MCP servers.
func testService(t *testing.T, tweak func(*Deps)) *Service {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	s := settings.Defaults()
	vdir := filepath.Join(t.TempDir(), "versions")
	d := Deps{
		Settings: func() (settings.Settings, []string, error) { return s, nil, nil },
		NewLLM: func(s settings.Settings) (llm.Client, error) {
			l := s.LLM
			return llm.New(llm.Config{BaseURL: l.BaseURL, Model: l.Model, APIKey: l.APIKey, Timeout: 10 * time.Second})
		},
		ListTools: func(context.Context, settings.Settings) (*tools.Catalog, map[string]error) {
			t.Error("the MCP servers were listed")
			return tools.Builtin(), nil
		},
		Versions: func() (*versions.Store, error) { return &versions.Store{Dir: vdir}, nil },
		Tune: func(o *runner.Options) {
			o.Sleep = func(ctx context.Context, d time.Duration) error { return ctx.Err() }
		},
	}
	if tweak != nil {
		tweak(&d)
	}
	svc := New(d)
	t.Cleanup(func() {
		svc.Leave()
		if !svc.Wait(10 * time.Second) {
			t.Error("the run did not end")
		}
	})
	return svc
}

// runFile writes a workflow of run_command steps (key, command; a verify
// and one attempt for those starting with "!") in order, and returns it
// with its path.
func runFile(t *testing.T, id string, steps ...[2]string) (*workflow.Workflow, string) {
	t.Helper()
	w := workflow.New("Run test " + id)
	w.ID = id
	for i, s := range steps {
		cmd := s[1]
		n := workflow.Node{ID: "id_" + s[0], Key: s[0], Name: strings.ToUpper(s[0][:1]) + s[0][1:], Type: workflow.TypeTool,
			Params:   workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": strings.TrimPrefix(cmd, "!")}},
			Position: &workflow.Position{X: float64(i) * 250}}
		if strings.HasPrefix(cmd, "!") {
			n.Verify = s[0] + ".exit_code == 0"
			n.Retry = &workflow.Retry{MaxAttempts: 1}
		}
		w.Nodes = append(w.Nodes, n)
		if i > 0 {
			w.Edges = append(w.Edges, workflow.Edge{From: "id_" + steps[i-1][0], To: n.ID})
		}
	}
	path := filepath.Join(t.TempDir(), id+".json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	return w, path
}

// trustFile records the file at path as the person's (as if Weft had
// saved it), in the private XDG data dir testService set up.
func trustFile(t *testing.T, path string) {
	t.Helper()
	if !strings.HasPrefix(os.Getenv("XDG_DATA_HOME"), os.TempDir()) {
		t.Fatal("trustFile before testService: it would write to the real XDG data dir")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := approval.DefaultTrust()
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Record(path, data, "test"); err != nil {
		t.Fatal(err)
	}
}

// fakeReplanner replaces the failing step with one that succeeds and adds a
// step that writes a file.
type fakeReplanner struct{}

func (fakeReplanner) Replan(_ context.Context, req failure.ReplanRequest) (*workflow.Workflow, error) {
	w := req.Workflow.Clone()
	for i := range w.Nodes {
		if w.Nodes[i].ID == req.FailedNode.ID {
			w.Nodes[i].Params.Arguments = map[string]any{"command": "true"}
			w.Nodes[i].Verify = ""
		}
	}
	w.Nodes = append(w.Nodes, workflow.Node{ID: "id_save", Key: "save", Name: "Save", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "write_file", Arguments: map[string]any{"path": "notes.txt", "content": "x"}}})
	w.Edges = append(w.Edges, workflow.Edge{From: req.FailedNode.ID, To: "id_save"})
	return w, nil
}

func withFakeReplanner(d *Deps) {
	d.Replanner = func(settings.Settings, llm.Client, func(context.Context) *tools.Catalog) runner.Replanner {
		return fakeReplanner{}
	}
}
