package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/trigger"
)

type fakeSecrets map[string]string

func (f fakeSecrets) Get(name string) (credentials.Secret, error) {
	v, ok := f[name]
	if !ok {
		return credentials.Secret{}, fmt.Errorf("secret %s: %w", name, credentials.ErrNotFound)
	}
	return credentials.Secret{Name: name, Value: v}, nil
}

var secret = []byte("hook-secret")

// logWF is a workflow of three log steps reading the input repo, with
// the triggers given.
func logWF(triggers string, inputs string) string {
	if inputs == "" {
		inputs = `{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}`
	}
	return `{"format":"weft/v1","id":"wf-serve","name":"serve test","inputs":` + inputs + `,"triggers":[` + triggers + `],"nodes":[
 {"id":"a","key":"a","name":"A","type":"Tool","params":{"tool":"log","arguments":{"message":"one {{inputs.repo}}"}}},
 {"id":"b","key":"b","name":"B","type":"Tool","params":{"tool":"log","arguments":{"message":"two"}}},
 {"id":"c","key":"c","name":"C","type":"Tool","params":{"tool":"log","arguments":{"message":"three"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`
}

const githubHook = `{"type":"webhook","path":"/hooks/gh","secret":"{{secrets.HOOK}}","scheme":"github"}`

// env is one weft serve's world: private XDG folders, a folder of
// workflows (trusted unless review), a Service as the CLI makes it.
type env struct {
	t     testing.TB
	dir   string
	state string
	svc   *service.Service
}

func newEnv(t testing.TB, review bool) *env {
	t.Helper()
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	if !review {
		if _, err := approval.OpenTrust(filepath.Join(data, "weft", approval.TrustFile)).TrustFolder(dir, "test"); err != nil {
			t.Fatal(err)
		}
	}
	st := settings.Defaults()
	st.Run.RetentionRuns = 1 << 20 // every run stays, to be counted
	svc := service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return st, nil, nil },
		ListTools: func(context.Context, settings.Settings) (*tools.Catalog, map[string]error) {
			return tools.Builtin(), nil
		},
	})
	t.Cleanup(func() { svc.Wait(10 * time.Second) })
	return &env{t: t, dir: dir, state: filepath.Join(t.TempDir(), "triggers"), svc: svc}
}

func (e *env) write(name, content string) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) load(l trigger.Limits) (*Server, error) {
	return Load(context.Background(), Config{Dir: e.dir, StateDir: e.state, Secrets: fakeSecrets{"HOOK": string(secret)}, Limits: l, Poll: 10 * time.Millisecond}, e.svc)
}

func (e *env) mustLoad(l trigger.Limits) *Server {
	e.t.Helper()
	s, err := e.load(l)
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

// runs are the runs logged beside the workflow at p, by source.
func (e *env) runs(p string) map[runner.RunSource]int {
	e.t.Helper()
	h, err := e.svc.RunHistory(p, "wf-serve")
	if err != nil {
		e.t.Fatal(err)
	}
	out := map[runner.RunSource]int{}
	for _, r := range h.Runs {
		out[r.Source]++
		if r.Outcome != runner.OutcomeSucceeded {
			e.t.Errorf("run %s: %s", r.RunID, r.Outcome)
		}
	}
	return out
}

func post(t *testing.T, url string, body []byte, h map[string]string) (int, Answer) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	for k, v := range h {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var a Answer
	b, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(b, &a)
	return res.StatusCode, a
}

func signed(body []byte, id string) map[string]string {
	return map[string]string{trigger.HeaderGitHubSignature: trigger.SignGitHub(secret, body), trigger.HeaderGitHubDelivery: id}
}

// A signed webhook starts a run (logged with source trigger, its input
// from the body); an unsigned, badly signed, tampered or replayed one
// does not, nor one whose body does not fit the inputs or is too large,
// each answered with the status that says why. Every 2xx is one run, and
// there is no run without one.
func TestWebhookDeliveries(t *testing.T) {
	e := newEnv(t, false)
	p := e.write("deploy.json", logWF(githubHook, ""))
	srv := e.mustLoad(trigger.Limits{PerSecond: 100, PerMinute: 1000, Runs: 10})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	url := hs.URL + "/hooks/gh"
	ok := []byte(`{"repo":"weft","action":"push"}`)
	big := append([]byte(`{"repo":"`), bytes.Repeat([]byte("x"), DefaultMaxBody)...)
	big = append(big, `"}`...)
	cases := []struct {
		name   string
		url    string
		body   []byte
		h      map[string]string
		status int
		msg    string
	}{
		{name: "signed", body: ok, h: signed(ok, "d1"), status: 202},
		{name: "replayed", body: ok, h: signed(ok, "d1"), status: 409, msg: "handled already"},
		{name: "replayed under a new id", body: ok, h: signed(ok, "d2"), status: 409},
		{name: "unsigned", body: []byte(`{"repo":"a"}`), h: map[string]string{trigger.HeaderGitHubDelivery: "d3"}, status: 401, msg: "missing"},
		{name: "bad signature", body: []byte(`{"repo":"a"}`), h: map[string]string{trigger.HeaderGitHubSignature: trigger.SignGitHub([]byte("guess"), []byte(`{"repo":"a"}`))}, status: 401, msg: "does not match"},
		{name: "tampered", body: []byte(`{"repo":"evil"}`), h: signed([]byte(`{"repo":"a"}`), "d4"), status: 401},
		{name: "wrong scheme", body: []byte(`{"repo":"a"}`), h: map[string]string{trigger.HeaderStripeSignature: trigger.SignStripe(secret, []byte(`{"repo":"a"}`), time.Now())}, status: 401},
		{name: "input missing", body: []byte(`{"other":1}`), h: signed([]byte(`{"other":1}`), "d5"), status: 400, msg: "repo is required"},
		{name: "input of the wrong type", body: []byte(`{"repo":5}`), h: signed([]byte(`{"repo":5}`), "d6"), status: 400, msg: "repo"},
		{name: "not JSON", body: []byte(`repo=a`), h: signed([]byte(`repo=a`), "d7"), status: 400, msg: "one JSON object"},
		{name: "too large", body: big, h: signed(big, "d8"), status: 413},
		{name: "no trigger there", url: hs.URL + "/hooks/other", body: ok, h: signed(ok, "d9"), status: 404},
		{name: "input missing, sent again fixed", body: []byte(`{"repo":"b"}`), h: signed([]byte(`{"repo":"b"}`), "d5"), status: 202},
	}
	started := 0
	for _, c := range cases {
		u := url
		if c.url != "" {
			u = c.url
		}
		status, a := post(t, u, c.body, c.h)
		if status != c.status || !strings.Contains(a.Error, c.msg) {
			t.Errorf("%s: got %d %q, want %d saying %q", c.name, status, a.Error, c.status, c.msg)
		}
		if status == 202 {
			started++
			if a.RunID == "" {
				t.Errorf("%s: 202 without a run id", c.name)
			}
		}
	}
	if res, err := http.Get(url); err != nil || res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET: %v %v", res, err)
	}
	srv.CloseWithin(20 * time.Second)
	if got := e.runs(p); got[runner.RunByTrigger] != started || len(got) != 1 {
		t.Fatalf("runs %v, want %d by trigger", got, started)
	}
}

// A delivery handled before a restart of weft serve is refused after it.
func TestDedupeAcrossRestart(t *testing.T) {
	e := newEnv(t, false)
	e.write("deploy.json", logWF(githubHook, ""))
	body := []byte(`{"repo":"weft"}`)
	for i, want := range []int{202, 409} {
		srv := e.mustLoad(trigger.Limits{})
		hs := httptest.NewServer(srv.Handler())
		if status, a := post(t, hs.URL+"/hooks/gh", body, signed(body, "once")); status != want {
			t.Errorf("serve %d: %d %s, want %d", i+1, status, a.Error, want)
		}
		hs.Close()
		srv.CloseWithin(20 * time.Second)
	}
}

// Past a trigger's limits a delivery is 429, and starts nothing.
func TestLimits(t *testing.T) {
	e := newEnv(t, false)
	p := e.write("deploy.json", logWF(githubHook, ""))
	srv := e.mustLoad(trigger.Limits{PerSecond: 2, PerMinute: 100})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	var statuses []int
	for i := range 3 {
		body := []byte(fmt.Sprintf(`{"repo":"r%d"}`, i))
		status, _ := post(t, hs.URL+"/hooks/gh", body, signed(body, fmt.Sprint(i)))
		statuses = append(statuses, status)
	}
	if fmt.Sprint(statuses) != "[202 202 429]" {
		t.Fatalf("statuses %v", statuses)
	}
	srv.CloseWithin(20 * time.Second)
	if got := e.runs(p); got[runner.RunByTrigger] != 2 {
		t.Fatalf("runs %v", got)
	}
}

// weft serve refuses to start, naming the file and why, for a workflow
// whose required input its trigger cannot fill, whose file nobody
// reviewed, whose secret the store lacks, or two webhooks at one path.
func TestLoadRefuses(t *testing.T) {
	cases := []struct {
		name, files string
		review      bool
		want        string
	}{
		{name: "unfilled input", files: logWF(`{"type":"webhook","path":"/hooks/gh","secret":"{{secrets.HOOK}}","scheme":"github","inputs":{"other":"{{body.x}}"}}`, `{"type":"object","properties":{"repo":{"type":"string"},"other":{"type":"string"}},"required":["repo"]}`), want: "input repo is required and has no default"},
		{name: "not reviewed", files: logWF(githubHook, ""), review: true, want: "trigger:/hooks/gh"},
		{name: "missing secret", files: logWF(strings.Replace(githubHook, "HOOK", "NOPE", 1), ""), want: "secret NOPE"},
		{name: "literal secret", files: logWF(strings.Replace(githubHook, "{{secrets.HOOK}}", "abc", 1), ""), want: "trigger_missing_secret"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.review)
			e.write("a.json", c.files)
			_, err := e.load(trigger.Limits{})
			var r *Refused
			if !errors.As(err, &r) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "a.json") {
				t.Fatalf("got %v, want a refusal saying %q", err, c.want)
			}
		})
	}
	e := newEnv(t, false)
	e.write("a.json", logWF(githubHook, ""))
	e.write("b/b.json", strings.Replace(logWF(githubHook, ""), "wf-serve", "wf-b", 1))
	if _, err := e.load(trigger.Limits{}); err == nil || !strings.Contains(err.Error(), "both answer at /hooks/gh") {
		t.Fatalf("two at one path: %v", err)
	}
}

// A workflow file changed since weft serve started runs nothing (503),
// and gives back the run's place: with one run at once, the next
// delivery, once the file is as it was, starts.
func TestChangedFileRunsNothing(t *testing.T) {
	e := newEnv(t, false)
	src := logWF(githubHook, "")
	p := e.write("deploy.json", src)
	srv := e.mustLoad(trigger.Limits{PerSecond: 100, PerMinute: 1000, Runs: 1})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	e.write("deploy.json", strings.Replace(src, "one {{inputs.repo}}", "changed", 1))
	body := []byte(`{"repo":"a"}`)
	if status, a := post(t, hs.URL+"/hooks/gh", body, signed(body, "c1")); status != 503 || !strings.Contains(a.Error, "not the content weft serve checked") {
		t.Fatalf("changed: %d %s", status, a.Error)
	}
	e.write("deploy.json", src)
	if status, a := post(t, hs.URL+"/hooks/gh", body, signed(body, "c1")); status != 202 {
		t.Fatalf("as it was: %d %s", status, a.Error)
	}
	srv.CloseWithin(20 * time.Second)
	if got := e.runs(p); got[runner.RunByTrigger] != 1 {
		t.Fatalf("runs %v", got)
	}
}
