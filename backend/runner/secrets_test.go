package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// The secrets of the leak test. Configured ones must appear nowhere a run
// writes; the ones met at run time nowhere but the workflow copy, and there
// only if the workflow itself spells them out.
const (
	leakAPIKey    = "sk-leaktest-api-0123456789abcdef"
	leakMCPToken  = "mcp-leaktest-token-9876543210"
	leakBearer    = "bearer-literal-in-workflow-5555"
	leakFileToken = "file-token-read-at-run-time-7777"
	leakURLPass   = "urlpass-in-workflow-4444"
	leakQueryKey  = "querykey-in-workflow-3333"
)

type leakReplanner struct {
	mu   sync.Mutex
	reqs []string
}

func (p *leakReplanner) Replan(ctx context.Context, req failure.ReplanRequest) (*workflow.Workflow, error) {
	req.Workflow = nil // the workflow is the user's own, sent whole on purpose
	req.FailedNode = workflow.Node{}
	b, _ := json.Marshal(req)
	p.mu.Lock()
	p.reqs = append(p.reqs, string(b))
	p.mu.Unlock()
	return nil, errors.New("the planner is down")
}

// TestSecretsDoNotLeak runs a workflow whose every step exposes a secret —
// a command printing them, an MCP server printing its token as it dies and
// returning it as output, a request whose server echoes its credentials —
// and checks every file the run wrote, every event, every escalation and
// replan request and the result.
func TestSecretsDoNotLeak(t *testing.T) {
	t.Setenv("WEFT_LLM_API_KEY", leakAPIKey)
	t.Setenv("OPENAI_API_KEY", leakAPIKey) // the same key under another name
	e := newEnv(t)
	e.opts.KeepAttempts = true // the attempts record is grepped too
	e.opts.Settings.LLM.APIKey = leakAPIKey
	srv := mcptest.Config(t.TempDir())
	srv.Env["SERVICE_TOKEN"] = leakMCPToken
	e.opts.Settings.MCPServers = map[string]settings.MCPServer{"go": srv}
	e.write("secrets.txt", "api "+leakAPIKey+"\nmcp "+leakMCPToken+"\n")
	e.write("token.txt", leakFileToken)

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprintf(w, "denied: authorization=%q x-api-key=%q query=%q", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.URL.RawQuery)
	}))
	defer api.Close()
	url := strings.Replace(api.URL, "http://", "http://me:"+leakURLPass+"@", 1) + "/v1?api_key=" + leakQueryKey

	var mu sync.Mutex
	var asked []string
	replans := 0
	e.opts.Escalation = HandlerFunc(func(ctx context.Context, esc Escalation) (Response, error) {
		b, _ := json.Marshal(esc)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, string(b))
		if esc.NodeKey == "api" && replans == 0 {
			replans++
			return Response{Action: ActReplan}, nil
		}
		return Response{Action: ActSkip}, nil
	})
	planner := &leakReplanner{}
	e.opts.Replanner = planner

	wf := parse(t, `"nodes":[
 {"id":"1","key":"clean","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -z \"$WEFT_LLM_API_KEY\" && test -z \"$OPENAI_API_KEY\" && echo clean-env || { env; exit 1; }"}},"verify":"clean.exit_code == 0"},
 {"id":"2","key":"leaky","type":"Tool","params":{"tool":"run_command","arguments":{"command":"cat secrets.txt; cat secrets.txt >&2; exit 3"}},"verify":"leaky.exit_code == 0"},
 {"id":"3","key":"tok","type":"Tool","params":{"tool":"read_file","arguments":{"path":"token.txt"}}},
 {"id":"4","key":"api","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+url+`",
   "headers":{"Authorization":"Bearer `+leakBearer+`","X-Api-Key":"{{tok.content}}","Accept":"text/plain"}}},"verify":"api.status == 200"},
 {"id":"5","key":"mcpenv","type":"Tool","params":{"tool":"go.env","arguments":{"name":"SERVICE_TOKEN"}}},
 {"id":"6","key":"nokey","type":"Tool","params":{"tool":"go.env","arguments":{"name":"WEFT_LLM_API_KEY"}}},
 {"id":"7","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"server has {{mcpenv.text}}, key [{{nokey.text}}]"}}},
 {"id":"8","key":"dead","type":"Tool","params":{"tool":"go.leak","arguments":{"name":"SERVICE_TOKEN"}}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3"},{"from":"3","to":"4"},{"from":"4","to":"5"},{"from":"5","to":"6"},{"from":"6","to":"7"},{"from":"7","to":"8"}]`)
	wfPath := filepath.Join(e.dir, "wf.json")
	b, _ := json.Marshal(wf)
	if err := os.WriteFile(wfPath, b, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(wfPath, 0o640); err != nil {
		t.Fatal(err)
	}
	e.opts.WorkflowPath = wfPath

	res := e.run(wf)
	wantOutcome(t, res, OutcomePartial) // every failure was skipped

	// The steps did what the test relies on (seen through redaction).
	outs := func(key string) map[string]any { m, _ := res.Outputs[key].(map[string]any); return m }
	if s, _ := outs("clean")["stdout"].(string); !strings.Contains(s, "clean-env") {
		t.Errorf("a command saw Weft's API key in its environment: %v", outs("clean"))
	}
	if logs := e.rec.logs(); len(logs) != 1 || logs[0] != "server has "+redact.Placeholder+", key []" {
		t.Errorf("log %q: the MCP server should get its token and not the API key", logs)
	}
	if s, _ := outs("api")["body"].(string); !strings.Contains(s, "denied") || !strings.Contains(s, redact.Placeholder) {
		t.Errorf("the request's echo %q", s)
	}
	if len(asked) < 4 || len(planner.reqs) != 1 {
		t.Fatalf("%d escalations, %d replan requests", len(asked), len(planner.reqs))
	}
	if fs := e.rec.of(EvFailure); len(fs) != 3 || !strings.Contains(fs[2].Failure.Error, "cannot authenticate with SERVICE_TOKEN="+redact.Placeholder) {
		t.Errorf("the dying server's stderr should be in its failure, redacted: %+v", fs)
	}

	configured := []string{leakAPIKey, leakMCPToken}
	learned := []string{leakBearer, leakFileToken, leakURLPass, leakQueryKey}
	check := func(where, text string, secrets []string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) || strings.Contains(text, s[:12]) {
				t.Errorf("%s holds %q", where, s)
			}
		}
	}
	all := append(append([]string(nil), configured...), learned...)

	// Every file of the run folder and the pattern store.
	files := 0
	err := filepath.WalkDir(res.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		mode := info.Mode().Perm()
		if d.IsDir() {
			if mode != 0o700 {
				t.Errorf("%s has mode %o, want 700", p, mode)
			}
			return nil
		}
		files++
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if d.Name() == workflowFile {
			if mode != 0o640 {
				t.Errorf("the workflow copy has mode %o, want the workflow file's 640", mode)
			}
			check(p, string(b), append(configured, leakFileToken))
			return nil
		}
		if mode != 0o600 {
			t.Errorf("%s has mode %o, want 600", p, mode)
		}
		check(p, string(b), all)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files != 5 {
		t.Errorf("the run folder has %d files, want events.jsonl, retry.log, workflow.json, summary.json, attempts.jsonl", files)
	}
	pats := e.opts.Patterns.Path
	if st, err := os.Stat(pats); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("pattern store %v mode %v", err, st)
	}
	pb, _ := os.ReadFile(pats)
	check(pats, string(pb), all)

	// What adapters get: events, escalations, the result; and what the
	// planner would send to the model.
	for _, ev := range e.rec.all() {
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		check("event "+string(ev.Type), string(b), all)
	}
	for _, a := range asked {
		check("escalation", a, all)
	}
	for _, r := range planner.reqs {
		check("replan request", r, all)
	}
	rb, _ := json.Marshal(res)
	check("result", string(rb), all)
}

func TestUnsavedWorkflowCopyIsPrivate(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeSucceeded)
	st, err := os.Stat(filepath.Join(res.Dir, workflowFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("workflow.json of an unsaved workflow: %v %v", st, err)
	}
}

func TestRunCommandEnvironment(t *testing.T) {
	t.Setenv("WEFT_LLM_API_KEY", leakAPIKey)
	t.Setenv("SOME_OTHER_VAR", "kept-value")
	// A tool called outside a run (no Env) still does not pass the key.
	out, err := runCommand(context.Background(), ToolCall{Args: map[string]any{"command": `printf '%s|%s' "$WEFT_LLM_API_KEY" "$SOME_OTHER_VAR"`}, Dir: t.TempDir()})
	if err != nil || out["stdout"] != "|kept-value" {
		t.Errorf("run_command saw %v (%v)", out["stdout"], err)
	}
}

func TestRedactEventLeavesCleanEventsAlone(t *testing.T) {
	red := redact.New(leakAPIKey)
	outputs := map[string]any{"stdout": "fine"}
	fr := &failure.Record{Error: "nothing secret"}
	e := redactEvent(red, Event{Type: EvFailure, Message: "ok", Outputs: outputs, Failure: fr})
	if fmt.Sprintf("%p", e.Outputs) != fmt.Sprintf("%p", outputs) || e.Failure != fr {
		t.Error("an event without secrets should share its parts")
	}
	e = redactEvent(red, Event{Type: EvFailure, Failure: &failure.Record{Error: "bad key " + leakAPIKey}})
	if strings.Contains(e.Failure.Error, leakAPIKey) {
		t.Error("failure not redacted")
	}
}

// BenchmarkLoopOverheadRedacted is BenchmarkLoopOverhead with an API key
// and an MCP token configured: the cost of redacting every event.
func BenchmarkLoopOverheadRedacted(b *testing.B) {
	w := parse(b, `"nodes":[
 {"id":"l","key":"loop","type":"Loop","params":{"max_iterations":10000}},
 {"id":"g","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"iteration {{loop.iteration}}"}}},
 {"id":"e","key":"loop_end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"l","to":"g","output":"LoopBody"},{"from":"g","to":"e"},{"from":"e","to":"l"}]`)
	dir := b.TempDir()
	s := settings.Defaults()
	s.LLM.APIKey = leakAPIKey
	s.MCPServers = map[string]settings.MCPServer{"x": {Command: "x", Env: map[string]string{"TOKEN": leakMCPToken}}}
	rn := New(Options{Settings: s, Dir: dir, RunsDir: filepath.Join(dir, "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}})
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		res, err := rn.Run(context.Background(), w)
		if err != nil || res.Outcome != OutcomeSucceeded {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(b.N*10000), "ns/node")
}
