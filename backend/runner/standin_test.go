package runner

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// refuser is a stand-in that answers nothing: every effect is refused.
type refuser struct{ tools, ai []string }

func (f *refuser) Tool(_ context.Context, c EffectCall) (map[string]any, error) {
	f.tools = append(f.tools, c.Name)
	return nil, &ArgError{Msg: "no mock"}
}

func (f *refuser) AI(_ context.Context, n *workflow.Node, _ int) (map[string]any, error) {
	f.ai = append(f.ai, n.ID)
	return nil, &ArgError{Msg: "no mock"}
}

// With Options.Effects, no step acts: a command that would create a file,
// a request to a server, a write, an MCP call and an AI step all go to the
// stand-in, each step on_error continue so that every one is tried.
func TestEffectsAnswerEveryCall(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	e := newEnv(t)
	fx := &refuser{}
	e.opts.Effects = fx
	e.opts.LLM = nil
	w := parse(t, `"nodes":[
	 {"id":"cmd","key":"cmd","type":"Tool","on_error":"continue","params":{"tool":"run_command","arguments":{"command":"touch made"}}},
	 {"id":"get","key":"get","type":"Tool","on_error":"continue","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`"}}},
	 {"id":"put","key":"put","type":"Tool","on_error":"continue","params":{"tool":"write_file","arguments":{"path":"written.txt","content":"x"}}},
	 {"id":"mcp","key":"mcp","type":"Tool","on_error":"continue","params":{"tool":"fs.delete","arguments":{"path":"x"}}},
	 {"id":"ask","key":"ask","type":"AiTransform","on_error":"continue","params":{"kind":"summarize","input":"x"}}],
	 "edges":[{"from":"cmd","to":"get"},{"from":"get","to":"put"},{"from":"put","to":"mcp"},{"from":"mcp","to":"ask"}]`)
	res := e.run(w)
	wantOutcome(t, res, OutcomePartial)
	for _, f := range []string{"made", "written.txt"} {
		if _, err := os.Stat(filepath.Join(e.dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists: a step acted (%v)", f, err)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server saw %d requests", hits.Load())
	}
	if len(fx.tools) != 4 || len(fx.ai) != 1 {
		t.Errorf("the stand-in answered tools %v and AI steps %v; want 4 and 1", fx.tools, fx.ai)
	}
}

// A stand-in judges statuses by the tools' own rules.
func TestOutcomeRules(t *testing.T) {
	if _, err := CommandOutcome(map[string]any{"ok_exit_codes": []any{0.0, 1.0}}, 1, "", ""); err != nil {
		t.Errorf("exit 1 with ok_exit_codes [0,1]: %v", err)
	}
	var ese *ExitStatusError
	if _, err := CommandOutcome(map[string]any{}, 2, "", "boom"); !errors.As(err, &ese) || ese.Code != 2 {
		t.Errorf("exit 2: %v, want an ExitStatusError", err)
	}
	var hse *HTTPStatusError
	out, err := HTTPOutcome(map[string]any{}, 503, http.Header{"Retry-After": {"7"}}, "down", time.Now())
	if !errors.As(err, &hse) || hse.RetryAfter != 7*time.Second || out["body"] != "down" {
		t.Errorf("503: %v %v, want an HTTPStatusError with Retry-After 7s", out, err)
	}
	if _, err := HTTPOutcome(map[string]any{"ok_status": "404"}, 404, nil, "", time.Now()); err != nil {
		t.Errorf("404 with ok_status 404: %v", err)
	}
}
