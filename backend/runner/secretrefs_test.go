package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/redact/redacttest"
	"github.com/weft-dev/weft/backend/workflow"
)

// fakeSecrets is a credentials store in memory.
type fakeSecrets map[string]credentials.Secret

func (f fakeSecrets) Get(name string) (credentials.Secret, error) {
	s, ok := f[name]
	if !ok {
		return credentials.Secret{}, fmt.Errorf("secret %s: %w", name, credentials.ErrNotFound)
	}
	return s, nil
}

const testToken = "tok-Zq9v2Lm8Xw4Pa7Rt"

// tokenServer records what it receives and echoes the Authorization
// header back (a server that reflects a credential).
type tokenServer struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
	body []string
}

func newTokenServer(t *testing.T) *tokenServer {
	ts := &tokenServer{}
	ts.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ts.mu.Lock()
		ts.auth = append(ts.auth, r.Header.Get("Authorization"))
		ts.body = append(ts.body, string(b))
		ts.mu.Unlock()
		fmt.Fprintf(w, "you sent %s (%x)", r.Header.Get("Authorization"), r.Header.Get("Authorization"))
	}))
	t.Cleanup(ts.Close)
	return ts
}

func (ts *tokenServer) seen() ([]string, []string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.auth...), append([]string(nil), ts.body...)
}

func (ts *tokenServer) host() string { u, _ := url.Parse(ts.URL); return u.Host }

// otherHost is the same server under another host name.
func (ts *tokenServer) otherHost() string {
	u, _ := url.Parse(ts.URL)
	return "localhost:" + u.Port()
}

// noTokenIn fails if any encoding of testToken is in the files under
// dir or in the text.
func noTokenIn(t *testing.T, dir string, texts ...string) {
	t.Helper()
	encs := redacttest.Encodings(testToken)
	check := func(where, s string) {
		for form, v := range encs {
			if strings.Contains(s, v) {
				t.Errorf("the token (%s: %q) is in %s", form, v, where)
			}
		}
	}
	if dir != "" {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				check(p, string(b))
			}
			return nil
		})
	}
	for i, s := range texts {
		check(fmt.Sprintf("text %d", i), s)
	}
}

func eventsText(t *testing.T, evs []Event) string {
	b, err := json.Marshal(evs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func secretWF(t *testing.T, nodes string) *workflow.Workflow {
	return parse(t, `"nodes":[`+nodes+`],"edges":[]`)
}

func httpNode(rawURL, body string) string {
	b, _ := json.Marshal(map[string]any{"id": "h", "key": "call", "type": "Tool", "params": map[string]any{"tool": "http_request",
		"arguments": map[string]any{"method": "POST", "url": rawURL, "body": body, "headers": map[string]any{"Authorization": "Bearer {{secrets.API_TOKEN}}"}}}})
	return string(b)
}

func TestSecretGoesOnlyToItsHost(t *testing.T) {
	ts := newTokenServer(t)
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Value: testToken}}
	res := e.run(secretWF(t, httpNode(ts.URL+"/x?q={{secrets.API_TOKEN}}", "hello")))
	wantOutcome(t, res, OutcomeSucceeded)
	auth, _ := ts.seen()
	if len(auth) != 1 || auth[0] != "Bearer "+testToken {
		t.Fatalf("the server saw %q", auth)
	}
	att := e.rec.of(EvAttempt)
	if len(att) != 1 || !strings.Contains(mustJSON(att[0].Arguments), "Bearer {{secrets.API_TOKEN}}") {
		t.Fatalf("the attempt shows %+v", att)
	}
	out, _ := json.Marshal(res)
	noTokenIn(t, e.dir, eventsText(t, e.rec.all()), string(out))

	// The same reference, the URL on another host: nothing is sent.
	e2 := newEnv(t)
	e2.opts.Secrets = e.opts.Secrets
	res = e2.run(secretWF(t, httpNode("http://"+ts.otherHost()+"/x", "")))
	wantOutcome(t, res, OutcomeFailed)
	if auth, _ := ts.seen(); len(auth) != 1 {
		t.Fatalf("a request was made: %q", auth)
	}
	fails := e2.rec.of(EvFailure)
	if len(fails) != 1 || fails[0].Failure.Retryable || !strings.Contains(fails[0].Failure.Error, "API_TOKEN") || !strings.Contains(fails[0].Failure.Error, ts.otherHost()) ||
		!strings.Contains(fails[0].Failure.Error, "weft secrets bind API_TOKEN --host "+ts.host()+" --host "+ts.otherHost()) {
		t.Fatalf("failure %+v", fails)
	}
	noTokenIn(t, e2.dir, eventsText(t, e2.rec.all()))
}

func TestSecretDoesNotFollowARedirectElsewhere(t *testing.T) {
	ts := newTokenServer(t)
	bound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+ts.otherHost()+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer bound.Close()
	bu, _ := url.Parse(bound.URL)
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{bu.Host}, Value: testToken}}
	w := secretWF(t, httpNode(bound.URL+"/go", "body"))
	w.Nodes[0].Params.Arguments["follow_redirects"] = true // even so
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if auth, _ := ts.seen(); len(auth) != 0 {
		t.Fatalf("the redirect was followed with %q", auth)
	}
	if f := e.rec.of(EvFailure); len(f) != 1 || !strings.Contains(f[0].Failure.Error, "redirect") || f[0].Failure.Retryable {
		t.Fatalf("failure %+v", f)
	}
	// Without the secret the same redirect is followed.
	w.Nodes[0].Params.Arguments["headers"] = map[string]any{}
	wantOutcome(t, e.run(w), OutcomeSucceeded)
	if auth, _ := ts.seen(); len(auth) != 1 {
		t.Fatalf("not followed: %q", auth)
	}
}

func TestSecretReachesACommandThroughItsEnvironment(t *testing.T) {
	out := t.TempDir() // outside the workflow's folder
	if err := os.WriteFile(filepath.Join(out, "want"), []byte(testToken), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Tools: []string{"run_command"}, Value: testToken}}
	cmd := fmt.Sprintf(`tr '\0' ' ' < /proc/$$/cmdline > %s/cmdline; [ {{secrets.API_TOKEN}} = "$(cat %s/want)" ] && echo MATCH; echo {{secrets.API_TOKEN}}`, out, out)
	node, _ := json.Marshal(map[string]any{"id": "c", "key": "cmd", "type": "Tool", "params": map[string]any{"tool": "run_command", "arguments": map[string]any{"command": cmd}}})
	res := e.run(secretWF(t, string(node)))
	wantOutcome(t, res, OutcomeSucceeded)
	stdout, _ := res.Outputs["cmd"].(map[string]any)["stdout"].(string)
	if !strings.HasPrefix(stdout, "MATCH\n") {
		t.Fatalf("stdout %q", stdout)
	}
	argv, err := os.ReadFile(filepath.Join(out, "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(argv), testToken) || !strings.Contains(string(argv), `"${WEFT_SECRET_API_TOKEN}"`) {
		t.Fatalf("argv %q", argv)
	}
	noTokenIn(t, e.dir, eventsText(t, e.rec.all()), stdout) // what it printed is taken out too

	// A variable Weft inherited holding the value reaches no later command.
	t.Setenv("INHERITED_TOKEN", testToken)
	e4 := newEnv(t)
	e4.opts.Secrets = e.opts.Secrets
	res = e4.run(parse(t, `"nodes":[`+string(node)+`,
 {"id":"d","key":"env","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf %s \"${INHERITED_TOKEN:-unset}\""}}}],"edges":[{"from":"c","to":"d"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := res.Outputs["env"].(map[string]any)["stdout"]; got != "unset" {
		t.Fatalf("the later command saw %q", got)
	}

	// Not bound to run_command: the command does not run.
	e2 := newEnv(t)
	e2.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{"api.example.com"}, Value: testToken}}
	os.Remove(filepath.Join(out, "cmdline"))
	wantOutcome(t, e2.run(secretWF(t, string(node))), OutcomeFailed)
	if _, err := os.Stat(filepath.Join(out, "cmdline")); err == nil {
		t.Fatal("the command ran")
	}
	// No store: a clear refusal.
	e3 := newEnv(t)
	wantOutcome(t, e3.run(secretWF(t, string(node))), OutcomeFailed)
	if f := e3.rec.of(EvFailure); len(f) != 1 || !strings.Contains(f[0].Failure.Error, "no credentials store") {
		t.Fatalf("failure %+v", f)
	}
}

// Text a step inserts is data: a value reading {{secrets.NAME}} is sent as
// that text, never as the secret.
func TestInsertedTextIsNoReference(t *testing.T) {
	ts := newTokenServer(t)
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Value: testToken}}
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' '{{'secrets.API_TOKEN'}}'"}}},
 `+httpNode(ts.URL+"/x", "{{a.stdout}}")+`],"edges":[{"from":"a","to":"h"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if _, body := ts.seen(); len(body) != 1 || body[0] != "{{secrets.API_TOKEN}}" {
		t.Fatalf("body %q", body)
	}
}

func TestAiStepUsesOnlySecretsBoundToTheTool(t *testing.T) {
	out := t.TempDir()
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{
		"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{"api.example.com"}, Value: testToken},
		"CMD_KEY":   {Name: "CMD_KEY", Tools: []string{"run_command"}, Value: testToken + "-cmd"},
	}
	mark := filepath.Join(out, "ran")
	srv := withModel(t, e,
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c1", Name: "run_command", Arguments: mustJSON(map[string]string{"command": "touch " + mark + "; echo {{secrets.API_TOKEN}}"})}),
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c2", Name: "run_command", Arguments: `{"command":"echo {{secrets.CMD_KEY}}"}`}),
		llmtest.Reply("done"),
	)
	w := parse(t, `"nodes":[{"id":"a","key":"ask","type":"AiStep","params":{"prompt":"go","allowed_tools":["run_command"],"max_tool_calls":5}}],"edges":[]`)
	e.opts.Approvals = nil
	res := e.run(w)
	wantOutcome(t, res, OutcomeSucceeded)
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a command with a secret not bound to run_command ran")
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	first := reqs[1].Messages[len(reqs[1].Messages)-1].Content
	if !strings.Contains(first, "API_TOKEN") || !strings.Contains(first, "may not be passed to the tool run_command") {
		t.Fatalf("the model was told %q", first)
	}
	second := reqs[2].Messages[len(reqs[2].Messages)-1].Content
	if !strings.Contains(second, `"exit_code":0`) {
		t.Fatalf("the bound call: %q", second)
	}
	var sent []string
	for _, r := range reqs {
		sent = append(sent, r.Body)
	}
	noTokenIn(t, e.dir, append(sent, eventsText(t, e.rec.all()))...)
}

func TestStepResolvesInsideTheActivity(t *testing.T) {
	ts := newTokenServer(t)
	e := newEnv(t)
	e.opts.Secrets = fakeSecrets{"API_TOKEN": {Name: "API_TOKEN", Hosts: []string{ts.host()}, Value: testToken}}
	w := secretWF(t, httpNode(ts.URL+"/x", "b"))
	res, err := New(e.opts).Step(t.Context(), w, "h", nil, Attempt{Number: 1})
	if err != nil || res.Failure != nil {
		t.Fatal(err, res.Failure)
	}
	if auth, _ := ts.seen(); len(auth) != 1 || auth[0] != "Bearer "+testToken {
		t.Fatalf("the server saw %q", auth)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), "{{secrets.API_TOKEN}}") {
		t.Errorf("the attempt does not show the reference: %s", b)
	}
	noTokenIn(t, "", string(b), mustJSON(w))
	// A store that cannot read the secret: the error names it.
	e.opts.Secrets = fakeSecrets{}
	res, err = New(e.opts).Step(t.Context(), w, "h", nil, Attempt{Number: 1})
	var se *SecretError
	if err != nil || res.Failure == nil || !strings.Contains(res.Failure.Error, "API_TOKEN") || errors.As(err, &se) {
		t.Fatalf("missing secret: %v %+v", err, res)
	}
}

// An MCP tool gets a secret bound to it (the server echoes it, so what
// comes back is hidden), and not one bound to another tool.
func TestSecretInMCPArguments(t *testing.T) {
	e := newEnv(t)
	withGoServer(e)
	e.opts.Secrets = fakeSecrets{
		"K":     {Name: "K", Tools: []string{"go.echo"}, Value: testToken},
		"OTHER": {Name: "OTHER", Tools: []string{"go.add"}, Value: testToken + "-2"},
	}
	res := e.run(secretWF(t, `{"id":"m","key":"m","type":"Tool","params":{"tool":"go.echo","arguments":{"text":"key {{secrets.K}}"}}}`))
	wantOutcome(t, res, OutcomeSucceeded)
	text, _ := res.Outputs["m"].(map[string]any)["text"].(string)
	if !strings.HasPrefix(text, "key ") || strings.Contains(text, "{{secrets") || strings.Contains(text, testToken) {
		t.Fatalf("echoed %q", text)
	}
	noTokenIn(t, e.dir, eventsText(t, e.rec.all()))
	res = e.run(secretWF(t, `{"id":"m","key":"m","type":"Tool","params":{"tool":"go.echo","arguments":{"text":"{{secrets.OTHER}}"}}}`))
	wantOutcome(t, res, OutcomeFailed)
	if f := e.rec.of(EvFailure); len(f) != 1 || !strings.Contains(f[0].Failure.Error, "OTHER may not be passed to the tool go.echo") {
		t.Fatalf("failures %+v", f)
	}
}
