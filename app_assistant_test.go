package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/validate"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// The assistant bindings against the llmtest fake server, with the Wails
// event emitter replaced: no GTK, no window.

type events struct {
	mu   sync.Mutex
	got  []assistant.Progress
	seen chan assistant.Progress
}

func (e *events) emit(_ context.Context, name string, data ...any) {
	if name != EventAssistantProgress || len(data) != 1 {
		return
	}
	p := data[0].(assistant.Progress)
	e.mu.Lock()
	e.got = append(e.got, p)
	e.mu.Unlock()
	select {
	case e.seen <- p:
	default:
	}
}

func (e *events) list() []assistant.Progress {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]assistant.Progress(nil), e.got...)
}

// assistantApp is an App whose settings point at srv, with maxRepair.
func assistantApp(t *testing.T, srv *llmtest.Server, maxRepair int, apiKey string) (*App, *events) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	a, _ := testApp(t)
	s := settings.Defaults()
	s.LLM.BaseURL = srv.URL
	s.LLM.Model = "fake-model"
	s.LLM.TimeoutS = 10
	s.MaxRepairAttempts = maxRepair
	key := apiKey
	if _, err := a.SaveSettings(s, &key); err != nil {
		t.Fatal(err)
	}
	ev := &events{seen: make(chan assistant.Progress, 16)}
	a.setEmitter(ev.emit)
	return a, ev
}

// pipelineFile saves download → unzip → notify and returns it and its path.
func pipelineFile(t *testing.T) (workflow.Workflow, string) {
	t.Helper()
	w := workflow.New("Fetch archive")
	w.ID = "wf-pipeline"
	add := func(key, name, tool string, args map[string]any, y float64) {
		w.Nodes = append(w.Nodes, workflow.Node{ID: "id_" + key, Key: key, Name: name, Type: workflow.TypeTool,
			Params: workflow.Params{Tool: tool, Arguments: args}, Position: &workflow.Position{X: 0, Y: y}})
	}
	add("download", "Download", "run_command", map[string]any{"command": "curl -O https://example.com/a.zip"}, 0)
	add("unzip", "Unzip", "run_command", map[string]any{"command": "unzip a.zip"}, 130)
	add("notify", "Notify", "log", map[string]any{"message": "done"}, 260)
	w.Edges = []workflow.Edge{{From: "id_download", To: "id_unzip"}, {From: "id_unzip", To: "id_notify"}}
	path := filepath.Join(t.TempDir(), "pipeline.json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	return *w, path
}

func keysOf(w *workflow.Workflow, ids []string) string {
	var keys []string
	for _, id := range ids {
		if n := w.NodeByID(id); n != nil {
			keys = append(keys, n.Key)
		}
	}
	return strings.Join(keys, ",")
}

const oneBranch = `{"add_nodes": [{"id": "big", "step_type": "If", "name": "Archive ok?", "condition": "download.exit_code == 0"}],
 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": {"type": "IfTrue"}}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`

const bothBranches = `{"message": "Unzip only when the download worked.",
 "add_nodes": [{"id": "big", "step_type": "If", "name": "Archive ok?", "condition": "download.exit_code == 0"},
               {"id": "fail", "step_type": "Tool", "name": "Report failure", "tool_name": "log", "arguments": {"message": "download failed"}}],
 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": "IfTrue"}, {"from": "big", "to": "fail", "output": "false"}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`

func TestAssistantSendRepairsAndSavesTheChat(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithAPIKey("sk-e2e"), llmtest.WithSteps(llmtest.Reply(oneBranch), llmtest.Reply(bothBranches)))
	a, ev := assistantApp(t, srv, 3, "sk-e2e")
	w, path := pipelineFile(t)

	res, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "only unzip when the download worked"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != assistant.KindPatch || !res.Valid || res.Attempts != 2 || res.LLMCalls != 2 || srv.Calls() != 2 {
		t.Fatalf("result kind %s valid %v attempts %d calls %d warnings %v", res.Kind, res.Valid, res.Attempts, res.LLMCalls, res.Warnings)
	}
	if res.Message != "Unzip only when the download worked." {
		t.Errorf("message = %q", res.Message)
	}
	// Each call starts with its stage; the streamed reply then reports how
	// much has arrived, under the same stage.
	var stages []assistant.Progress
	received := map[int]int{}
	for _, p := range ev.list() {
		if p.Received == 0 {
			stages = append(stages, p)
			continue
		}
		if len(stages) == 0 || p.Attempt != stages[len(stages)-1].Attempt || p.Kind != stages[len(stages)-1].Kind {
			t.Fatalf("received update %+v outside its stage (stages so far %+v)", p, stages)
		}
		received[p.Attempt] = p.Received
	}
	want := []assistant.Progress{{Kind: assistant.ProgressThinking, Attempt: 1, Max: 3}, {Kind: assistant.ProgressRepairing, Attempt: 2, Max: 3}}
	if len(stages) != 2 || stages[0] != want[0] || stages[1] != want[1] {
		t.Fatalf("progress events = %+v, want %+v", stages, want)
	}
	if received[1] == 0 || received[2] == 0 || received[1] > len(oneBranch) {
		t.Fatalf("streamed progress missing or wrong: %v (reply lengths %d, %d)", received, len(oneBranch), len(bothBranches))
	}
	if !srv.Requests()[0].Stream {
		t.Fatal("the assistant did not stream its reply")
	}
	if res.Diff == nil || len(res.Diff.AddedNodeIDs) != 2 || keysOf(res.Workflow, res.Diff.AddedNodeIDs) != "big,fail" {
		t.Fatalf("diff = %+v", res.Diff)
	}
	// The file itself is untouched until the user applies the patch.
	disk, _, err := workflow.Load(path)
	if err != nil || len(disk.Nodes) != 3 {
		t.Fatalf("workflow on disk changed: %v %d nodes", err, len(disk.Nodes))
	}

	// The chat is kept in .weft beside the workflow file and loads back.
	chat, _ := assistant.ChatPath(path, "")
	if _, err := os.Stat(chat); err != nil {
		t.Fatalf("chat file: %v", err)
	}
	h, err := a.AssistantHistory(w.ID, path)
	if err != nil {
		t.Fatal(err)
	}
	if h.Path != chat || len(h.Messages) != 2 || h.Messages[0].Content != "only unzip when the download worked" ||
		h.Messages[1].Kind != assistant.KindPatch || h.Messages[1].Patch == nil || h.Messages[1].Valid == nil || !*h.Messages[1].Valid {
		t.Fatalf("history = %+v", h)
	}

	// Preview and apply use the same merge as the assistant did.
	pv := a.PreviewPatch(w, *res.Patch)
	if !pv.Valid || keysOf(pv.Workflow, pv.Diff.AddedNodeIDs) != "big,fail" || len(pv.Diff.RemovedEdges) != 1 {
		t.Fatalf("preview = %+v", pv)
	}
	// Only a note: the If reads an exit code that, not listed in the
	// download's ok_exit_codes, never reaches it but as 0.
	if len(pv.Problems) != 1 || pv.Problems[0].Severity != validate.SeverityInfo || pv.Problems[0].Code != "exit_code_fails" {
		t.Fatalf("preview problems = %+v", pv.Problems)
	}
	// The banner's review is the one the reply carried.
	if res.Changes == nil || !reflect.DeepEqual(pv.Changes, *res.Changes) || len(pv.Changes.AddedNodes) != 2 {
		t.Errorf("preview changes = %+v, reply's %+v", pv.Changes, res.Changes)
	}
	ap := a.ApplyPatch(w, *res.Patch)
	if len(ap.Workflow.Nodes) != 5 || len(ap.Workflow.Edges) != len(res.Workflow.Edges) || len(ap.Warnings) != 0 {
		t.Fatalf("applied = %+v", ap)
	}
	if len(w.Nodes) != 3 {
		t.Error("ApplyPatch modified its input")
	}

	if err := a.AssistantClearHistory(w.ID, path); err != nil {
		t.Fatal(err)
	}
	if h, _ := a.AssistantHistory(w.ID, path); len(h.Messages) != 0 {
		t.Fatalf("history after clear = %+v", h)
	}
}

func TestAssistantSendInvalidPatchIsFlagged(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(oneBranch)))
	a, _ := assistantApp(t, srv, 1, "")
	w, path := pipelineFile(t)
	res, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "check the download"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || res.Patch == nil || res.Attempts != 1 {
		t.Fatalf("want an invalid patch after one call; valid %v attempts %d", res.Valid, res.Attempts)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w.Message, "if_missing_branch")
	}
	if !found {
		t.Errorf("warnings do not name the problem: %+v", res.Warnings)
	}
	pv := a.PreviewPatch(w, *res.Patch)
	if pv.Valid || len(pv.Problems) == 0 {
		t.Fatalf("preview of an invalid patch = %+v", pv)
	}
}

func TestAssistantSendPlansAnEmptyWorkflow(t *testing.T) {
	plan := `{"steps": [{"key": "hello", "step_type": "Tool", "name": "Say hello", "tool_name": "log", "arguments": {"message": "hello"}}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(plan)))
	a, ev := assistantApp(t, srv, 3, "")
	w := *workflow.New("")
	res, err := a.AssistantSend(AssistantRequest{Workflow: w, Message: "log hello"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != assistant.KindPlan || !res.Valid || res.Patch == nil || len(res.Patch.AddedNodes) != 1 {
		t.Fatalf("plan result: kind %s valid %v patch %+v warnings %v", res.Kind, res.Valid, res.Patch, res.Warnings)
	}
	if got := ev.list(); len(got) == 0 || got[0].Kind != assistant.ProgressThinking || got[0].Received != 0 {
		t.Errorf("progress = %+v", got)
	}
	for _, p := range ev.list()[1:] {
		if p.Kind != assistant.ProgressThinking || p.Received == 0 {
			t.Errorf("only streamed updates of the one call may follow: %+v", ev.list())
		}
	}
	// An unsaved workflow keeps its chat under XDG_DATA_HOME by id.
	h, err := a.AssistantHistory(w.ID, "")
	if err != nil || len(h.Messages) != 2 || !strings.HasPrefix(h.Path, os.Getenv("XDG_DATA_HOME")) {
		t.Fatalf("history = %+v, %v", h, err)
	}
	// Saved to a file, the workflow keeps that conversation, and the next
	// exchange moves on to the chat beside the file.
	file := filepath.Join(t.TempDir(), "hello.json")
	h2, err := a.AssistantHistory(w.ID, file)
	if err != nil || len(h2.Messages) != 2 || h2.Path != h.Path {
		t.Fatalf("history after Save As = %+v, %v", h2, err)
	}
	srv.Enqueue(llmtest.Reply("Nothing to change."))
	// The plan applied: a workflow with steps is asked about, not planned.
	applied := a.ApplyPatch(w, *res.Patch)
	if _, err := a.AssistantSend(AssistantRequest{Workflow: *applied.Workflow, Path: file, Message: "anything else?"}); err != nil {
		t.Fatal(err)
	}
	h3, err := a.AssistantHistory(w.ID, file)
	if err != nil || len(h3.Messages) != 4 || h3.Path != filepath.Join(filepath.Dir(file), ".weft", "chats", strings.TrimSuffix(filepath.Base(file), ".json")+".chat.json") {
		t.Fatalf("history beside the file = %+v, %v", h3, err)
	}
}

func TestAssistantStop(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Hang()))
	a, ev := assistantApp(t, srv, 3, "")
	w, path := pipelineFile(t)
	if a.AssistantStop() {
		t.Error("AssistantStop with nothing running reported a request")
	}
	errc := make(chan error, 1)
	go func() {
		_, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "anything"})
		errc <- err
	}()
	select {
	case <-ev.seen:
	case <-time.After(10 * time.Second):
		t.Fatal("no thinking event")
	}
	// Wait for the request to reach the server, then stop it.
	deadline := time.Now().Add(10 * time.Second)
	for srv.Calls() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !a.AssistantStop() {
		t.Fatal("AssistantStop found nothing running")
	}
	select {
	case err := <-errc:
		if !errors.Is(err, ErrAssistantStopped) {
			t.Fatalf("err = %v, want ErrAssistantStopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("AssistantSend did not return after AssistantStop")
	}
	// Nothing was said, so nothing was saved.
	if h, _ := a.AssistantHistory(w.ID, path); len(h.Messages) != 0 {
		t.Fatalf("history after stop = %+v", h)
	}
}

func TestAssistantSendNeedsAModel(t *testing.T) {
	a, _ := testApp(t)
	w, path := pipelineFile(t)
	_, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "hi"})
	if err == nil || !strings.Contains(err.Error(), "Preferences") {
		t.Fatalf("err = %v", err)
	}
	if _, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "  "}); err == nil {
		t.Fatal("empty message: want an error")
	}
}

func TestTestConnection(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithAPIKey("sk-stored"), llmtest.WithModels("fake-model", "other"))
	a, _ := assistantApp(t, srv, 3, "sk-stored")
	form := settings.LLM{BaseURL: srv.URL, Model: "fake-model", TimeoutS: 5}

	// nil: the stored key.
	info, err := a.TestConnection(form, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	if !info.ModelListed || !strings.Contains(info.Message, "fake-model") {
		t.Fatalf("info = %+v", info)
	}
	// A key typed into the form replaces the stored one for the test.
	wrong := "sk-wrong"
	if _, err := a.TestConnection(form, &wrong, false); err == nil {
		t.Fatal("wrong key: want an error")
	}
	// A bad form never reaches the network.
	if _, err := a.TestConnection(settings.LLM{BaseURL: "ftp://x", Model: "m"}, nil, false); err == nil {
		t.Fatal("bad base URL: want an error")
	}
	if _, err := a.TestConnection(settings.LLM{BaseURL: srv.URL}, nil, false); err == nil {
		t.Fatal("no model: want an error")
	}
}

// keyServer is an OpenAI-compatible endpoint that records the
// Authorization header of each request, by path.
type keyServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string][]string
}

func startKeyServer(t *testing.T) *keyServer {
	t.Helper()
	ks := &keyServer{seen: map[string][]string{}}
	ks.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks.mu.Lock()
		ks.seen[r.URL.Path] = append(ks.seen[r.URL.Path], r.Header.Get("Authorization"))
		ks.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m","object":"model"}]}`)
	}))
	t.Cleanup(ks.Close)
	return ks
}

// sent is what the last request to path carried ("-" when none came).
func (ks *keyServer) sent(path string) string {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if got := ks.seen[path]; len(got) > 0 {
		return got[len(got)-1]
	}
	return "-"
}

// Test connection sends the stored key only to the saved endpoint; to an
// endpoint typed and not saved, only when the person confirmed it.
func TestTestConnectionSendsTheStoredKeyOnlyWhereSaved(t *testing.T) {
	saved, other := startKeyServer(t), startKeyServer(t)
	a, _ := testApp(t)
	s := settings.Defaults()
	// Saved by name; the server listens on 127.0.0.1.
	port := saved.URL[strings.LastIndex(saved.URL, ":")+1:]
	s.LLM.BaseURL, s.LLM.Model = "http://localhost:"+port, "m"
	key := "sk-stored"
	if _, err := a.SaveSettings(s, &key); err != nil {
		t.Fatal(err)
	}
	typed := "sk-typed"
	for _, c := range []struct {
		name      string
		srv       *keyServer
		url       string
		apiKey    *string
		confirmed bool
		path      string
		want      string
	}{
		{"saved endpoint", saved, "http://localhost:" + port, nil, false, "/v1/models", "Bearer sk-stored"},
		{"saved, written with a trailing slash", saved, "http://localhost:" + port + "/v1/", nil, false, "/v1/models", "Bearer sk-stored"},
		{"saved, written with the chat path", saved, "http://localhost:" + port + "/v1/chat/completions", nil, false, "/v1/models", "Bearer sk-stored"},
		{"saved, in capitals, with the default scheme", saved, "LocalHost:" + port, nil, false, "/v1/models", "Bearer sk-stored"},
		{"same host, another port", other, strings.Replace(other.URL, "127.0.0.1", "localhost", 1), nil, false, "/v1/models", ""},
		{"same server, another name", saved, saved.URL, nil, false, "/v1/models", ""},
		{"same server, another path", saved, "http://localhost:" + port + "/v2", nil, false, "/v2/models", ""},
		{"same server, a path below", saved, "http://localhost:" + port + "/v1/proxy", nil, false, "/v1/proxy/models", ""},
		{"unsaved endpoint, confirmed", other, other.URL + "/v1", nil, true, "/v1/models", "Bearer sk-stored"},
		{"unsaved endpoint, a key typed", other, other.URL, &typed, false, "/v1/models", "Bearer sk-typed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.srv.mu.Lock()
			c.srv.seen = map[string][]string{}
			c.srv.mu.Unlock()
			if _, err := a.TestConnection(settings.LLM{BaseURL: c.url, Model: "m", TimeoutS: 5}, c.apiKey, c.confirmed); err != nil {
				t.Fatal(err)
			}
			if got := c.srv.sent(c.path); got != c.want {
				t.Errorf("Authorization %q, want %q", got, c.want)
			}
		})
	}
	// What Preferences asks before testing.
	if use, err := a.StoredKeyUse("http://localhost:" + port + "/v1/"); err != nil || !use.Stored || !use.Saved {
		t.Errorf("saved endpoint: %+v %v", use, err)
	}
	if use, err := a.StoredKeyUse(other.URL); err != nil || !use.Stored || use.Saved || use.Host != strings.TrimPrefix(other.URL, "http://") {
		t.Errorf("unsaved endpoint: %+v %v", use, err)
	}
}

func TestAssistantKnowsTheMCPTools(t *testing.T) {
	reply := `{"message": "Reads the notes.", "add_nodes": [{"id": "read_notes", "step_type": "Tool", "name": "Read notes", "tool_name": "files.read", "arguments": {"path": "notes.txt"}}],
 "add_edges": [{"from": "notify", "to": "read_notes"}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(reply)))
	a, _ := assistantApp(t, srv, 1, "")
	v, err := a.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	s := v.Settings
	s.MCPServers = map[string]settings.MCPServer{"files": {Command: "files-mcp"}}
	if _, err := a.SaveSettings(s, nil); err != nil {
		t.Fatal(err)
	}
	withDeps(a, func(d *service.Deps) {
		d.ListTools = func(context.Context, settings.Settings) (*tools.Catalog, map[string]error) {
			return tools.Builtin().With("files", []tools.Tool{{Name: "read", InputSchema: json.RawMessage(`{"type": "object"}`)}}), nil
		}
	})
	w, path := pipelineFile(t)
	res, err := a.AssistantSend(AssistantRequest{Workflow: w, Path: path, Message: "read my notes at the end"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.Patch == nil || len(res.Patch.AddedNodes) != 1 || res.Patch.AddedNodes[0].Params.Tool != "files.read" {
		t.Fatalf("valid %v patch %+v warnings %v", res.Valid, res.Patch, res.Warnings)
	}
	if sys := srv.Requests()[0].System(); !strings.Contains(sys, "files.read") {
		t.Error("the system prompt does not list the MCP tool")
	}
}

// The model endpoint's progress reaches the panel with the elapsed time
// and, for a retry wait, the reason.
func TestProgressStreamLLMProgress(t *testing.T) {
	var got []assistant.Progress
	s := &progressStream{emit: func(p assistant.Progress) { got = append(got, p) }}
	s.progress(assistant.Progress{Kind: assistant.ProgressThinking, Attempt: 1, Max: 3})
	s.llmProgress(llm.Progress{Attempt: 1, MaxAttempts: 4, Elapsed: 45 * time.Second})
	s.llmProgress(llm.Progress{Attempt: 1, MaxAttempts: 4, Elapsed: 50 * time.Second, Waiting: 20 * time.Second, Reason: "rate limited by the model server (429 Too Many Requests)"})
	if len(got) != 3 || got[1].Kind != assistant.ProgressThinking || got[1].ElapsedMs != 45000 || got[2].WaitMs != 20000 || !strings.Contains(got[2].Wait, "rate limited") {
		t.Fatalf("%+v", got)
	}
}
