package runner

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// hopServer redirects /to?u=URL to URL (and /loop to itself), answers
// anything else with "ok from <name>", and counts the requests it gets.
type hopServer struct {
	*httptest.Server
	name string
	hits atomic.Int64
}

func newHopServer(t *testing.T, name string, tlsOn bool) *hopServer {
	s := &hopServer{name: name}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		switch r.URL.Path {
		case "/to":
			http.Redirect(w, r, r.URL.Query().Get("u"), http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		default:
			fmt.Fprintf(w, "ok from %s", s.name)
		}
	})
	if tlsOn {
		s.Server = httptest.NewTLSServer(h)
	} else {
		s.Server = httptest.NewServer(h)
	}
	t.Cleanup(s.Close)
	return s
}

// via is a URL of s that redirects to each of next in turn.
func (s *hopServer) via(next ...string) string {
	target := next[len(next)-1]
	for i := len(next) - 2; i >= 0; i-- {
		target = next[i] + "/to?u=" + url.QueryEscape(target)
	}
	return s.URL + "/to?u=" + url.QueryEscape(target)
}

// localhost is s's URL with the host named localhost instead of
// 127.0.0.1: the same server, another host.
func localhost(s *hopServer) string { return strings.Replace(s.URL, "127.0.0.1", "localhost", 1) }

// trustTLS makes http_request trust s's certificate for the test.
func trustTLS(t *testing.T, s *hopServer) {
	old := httpTransport.TLSClientConfig
	httpTransport.TLSClientConfig = &tls.Config{RootCAs: s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	t.Cleanup(func() { httpTransport.TLSClientConfig = old })
}

// TestRedirects follows redirects within the request's origin and
// refuses the rest (another port, another host name for the same
// machine, https to http, too many), unless the step's follow_redirects
// names the host; a refused redirect never reaches its target.
func TestRedirects(t *testing.T) {
	a := newHopServer(t, "a", false)
	b := newHopServer(t, "b", false)
	c := newHopServer(t, "c", false)
	s := newHopServer(t, "s", true)
	trustTLS(t, s)
	bHost := strings.TrimPrefix(b.URL, "http://")
	type tc struct {
		name    string
		url     string
		follow  any    // follow_redirects, nil: absent
		want    string // the body, or "" for a refusal
		refused []string
		reached *hopServer // must not get a request when refused
	}
	cases := []tc{
		{"same origin", a.via(a.URL, a.URL, a.URL+"/end"), nil, "ok from a", nil, nil},
		{"another port", a.via(b.URL), nil, "", []string{a.URL, b.URL, `"follow_redirects": ["` + bHost + `"]`}, b},
		{"another host name for the same server", a.via(localhost(a)), nil, "", []string{a.URL, strings.Replace(a.URL, "127.0.0.1", "localhost", 1)}, nil},
		{"another host after same-origin hops", a.via(a.URL, a.URL, b.URL), nil, "", []string{b.URL}, b},
		{"allowed: any host", a.via(b.URL), true, "ok from b", nil, nil},
		{"allowed: any host, as text", a.via(b.URL), "true", "ok from b", nil, nil},
		{"not allowed: false", a.via(b.URL), false, "", []string{b.URL}, b},
		{"allowed: host and port", a.via(b.URL), []any{bHost}, "ok from b", nil, nil},
		{"allowed: host name, any port", a.via(b.URL), []any{"127.0.0.1"}, "ok from b", nil, nil},
		{"not allowed: another name for it", a.via(b.URL), []any{"localhost"}, "", []string{b.URL}, b},
		{"not allowed: a wildcard of another domain", a.via(b.URL), []any{"*.example.com"}, "", []string{b.URL}, b},
		{"allowed hop, then one not allowed", a.via(b.URL, c.URL), []any{bHost}, "", []string{a.URL, c.URL}, c},
		{"allowed hop, then back to the origin", a.via(b.URL, a.URL+"/end"), []any{bHost}, "ok from a", nil, nil},
		{"https to http", s.via(a.URL), nil, "", []string{s.URL, a.URL, "from https to http"}, nil},
		{"https to http, even when any host is allowed", s.via(a.URL), true, "", []string{"from https to http"}, nil},
		{"https to http on the same host and port", s.via(strings.Replace(s.URL, "https:", "http:", 1)), true, "", []string{"from https to http"}, nil},
		{"http to https on other ports", a.via(s.URL), nil, "", []string{s.URL}, s},
		{"a loop", a.URL + "/loop", nil, "", []string{"after 10 redirects"}, nil},
		{"a loop, any host allowed", a.URL + "/loop", true, "", []string{"after 10 redirects"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var before int64
			if c.reached != nil {
				before = c.reached.hits.Load()
			}
			args := map[string]any{"method": "GET", "url": c.url}
			if c.follow != nil {
				args["follow_redirects"] = c.follow
			}
			out, err := call(t, t.TempDir(), "http_request", args)
			if c.want != "" {
				if err != nil || out["body"] != c.want {
					t.Fatalf("%v, %v; want %q", out, err, c.want)
				}
				return
			}
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Fatalf("%v, %v; want a refused redirect", out, err)
			}
			for _, w := range c.refused {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%v: want %q in it", err, w)
				}
			}
			if strings.Contains(err.Error(), "?u=") {
				t.Errorf("%v: the message names origins, not whole URLs", err)
			}
			if c.reached != nil && c.reached.hits.Load() != before {
				t.Errorf("%s was asked although the redirect to it was refused", c.reached.name)
			}
			if cl := Classify(failure.FailExecution, err, out, false); cl.Retryable || cl.Category != failure.CatPermission {
				t.Errorf("classified %+v", cl)
			}
			if cl := Classify(failure.FailExecution, err, out, true); cl.Retryable {
				t.Errorf("an AI step would retry it: %+v", cl)
			}
		})
	}
	for _, bad := range []any{"yes", 3.0, []any{"https://b.test"}, []any{"b.test/x"}, []any{1.0}, map[string]any{}} {
		var ae *ArgError
		if _, err := call(t, t.TempDir(), "http_request", map[string]any{"method": "GET", "url": a.URL, "follow_redirects": bad}); !errors.As(err, &ae) {
			t.Errorf("follow_redirects %v: %v", bad, err)
		}
	}
}

func TestRedirectUpgrade(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"http://example.com/a", "https://example.com/b", true},
		{"http://example.com:80/a", "https://EXAMPLE.com:443/b", true},
		{"http://example.com:8080/a", "https://example.com:8443/b", false},
		{"http://example.com/a", "https://www.example.com/b", false},
		{"https://example.com/a", "http://example.com/b", false},
	} {
		from, _ := url.Parse(c.from)
		to, _ := url.Parse(c.to)
		if got := upgrade(from, to); got != c.want {
			t.Errorf("%s → %s: %v", c.from, c.to, got)
		}
	}
}

// A refused redirect in a run is a permanent failure: not retried,
// whatever the node's retry policy, and the run says which argument
// allows it.
func TestRedirectRefusedInARun(t *testing.T) {
	a := newHopServer(t, "a", false)
	b := newHopServer(t, "b", false)
	e := newEnv(t)
	w := parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"fetch","type":"Tool","retry":{"max_attempts":5,"backoff":{"initial_ms":1}},"params":{"tool":"http_request","arguments":{"method":"GET","url":%s}}},
 {"id":"2","key":"show","type":"Tool","params":{"tool":"log","arguments":{"message":"{{fetch.body}}"}}}],
 "edges":[{"from":"1","to":"2"}]`, jsonString(a.via(b.URL))))
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if n := len(e.rec.of(EvAttempt)); n != 1 {
		t.Errorf("%d attempts, want 1", n)
	}
	if b.hits.Load() != 0 {
		t.Error("b was asked")
	}
	fails := e.rec.of(EvFailure)
	if len(fails) != 1 || fails[0].Failure.Retryable || fails[0].Failure.Category != failure.CatPermission ||
		!strings.Contains(fails[0].Failure.Error, b.URL) || !strings.Contains(fails[0].Failure.SuggestedFix, "follow_redirects") {
		t.Fatalf("failures %+v", fails)
	}
	// Allowed by the step's own arguments, it runs.
	w.Nodes[0].Params.Arguments["follow_redirects"] = []any{strings.TrimPrefix(b.URL, "http://")}
	res = newEnvLike(e).run(w)
	wantOutcome(t, res, OutcomeSucceeded)
}

// newEnvLike is a fresh env in a new folder, with e's options.
func newEnvLike(e *env) *env {
	n := newEnv(e.t)
	n.opts.LLM = e.opts.LLM
	return n
}

// bigServer serves size bytes of a known pattern at /big, and at /stall
// half of them before it waits for the request to end.
func bigServer(t *testing.T, size int) (*httptest.Server, []byte) {
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i/251)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			w.Write(data)
		case "/stall":
			w.Header().Set("Content-Length", fmt.Sprint(size))
			w.Write(data[:size/2])
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		case "/missing":
			http.Error(w, "no such thing", http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, data
}

// saved lists the folder's entries, to see that no temp file is left.
func saved(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestSaveTo(t *testing.T) {
	const size = 5 << 20
	srv, data := bigServer(t, size)
	dir := t.TempDir()
	out, err := call(t, dir, "http_request", map[string]any{"method": "GET", "url": srv.URL + "/big", "save_to": "dl/big.bin"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	p := filepath.Join(dir, "dl", "big.bin")
	if out["path"] != p || out["size"] != int64(size) || out["sha256"] != hex.EncodeToString(sum[:]) || out["status"] != 200 {
		t.Errorf("outputs %v", out)
	}
	if _, ok := out["body"]; ok {
		t.Error("a saved body is in the outputs too")
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != string(data) {
		t.Fatalf("saved %d bytes, not the %d served (%v)", len(got), size, err)
	}
	if names := saved(t, filepath.Dir(p)); len(names) != 1 {
		t.Errorf("left in the folder: %v", names)
	}

	// A failed status saves nothing: the error page is not the download.
	out, err = call(t, dir, "http_request", map[string]any{"method": "GET", "url": srv.URL + "/missing", "save_to": "dl/big.bin"})
	var hse *HTTPStatusError
	if !errors.As(err, &hse) || !strings.Contains(out["body"].(string), "no such thing") {
		t.Errorf("404: %v %v", out, err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(data) {
		t.Error("a 404 replaced the saved file")
	}
	var ae *ArgError
	if _, err := call(t, dir, "http_request", map[string]any{"method": "GET", "url": srv.URL + "/big", "save_to": "dl"}); !errors.As(err, &ae) {
		t.Errorf("save_to a folder: %v", err)
	}
}

// A download cancelled or timed out mid-stream leaves no partial target:
// the file there before stays as it was, a new one is not created, and
// no temp file is left.
func TestSaveToStopped(t *testing.T) {
	srv, _ := bigServer(t, 4<<20)
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		old  string // what the target held before ("" none)
	}{
		{"cancel, new file", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, ""},
		{"cancel, existing file", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, "the old download"},
		{"timeout, existing file", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, "the old download"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "file.bin")
			if c.old != "" {
				os.WriteFile(target, []byte(c.old), 0o600)
			}
			ctx, cancel := c.ctx()
			defer cancel()
			go func() { // cancel once the transfer is under way
				for ctx.Err() == nil {
					if ents, _ := os.ReadDir(dir); len(ents) > 0 && strings.Contains(ents[0].Name(), "weft-download") {
						break
					}
					time.Sleep(time.Millisecond)
				}
				time.Sleep(50 * time.Millisecond)
				if strings.HasPrefix(c.name, "cancel") {
					cancel()
				}
			}()
			_, err := builtinTools()["http_request"].Call(ctx, ToolCall{Name: "http_request", Dir: dir,
				Args: map[string]any{"method": "GET", "url": srv.URL + "/stall", "save_to": "file.bin"}})
			if err == nil || ctx.Err() == nil || !errors.Is(err, ctx.Err()) || !strings.Contains(err.Error(), "stopped after") {
				t.Fatalf("%v (ctx %v)", err, ctx.Err())
			}
			got, rerr := os.ReadFile(target)
			switch {
			case c.old == "" && !errors.Is(rerr, os.ErrNotExist):
				t.Errorf("a partial file is at the target: %d bytes", len(got))
			case c.old != "" && string(got) != c.old:
				t.Errorf("the target holds %d bytes, not what it held before", len(got))
			}
			want := 0
			if c.old != "" {
				want = 1
			}
			if names := saved(t, dir); len(names) != want {
				t.Errorf("left in the folder: %v", names)
			}
		})
	}
}

// The class the save_to was made for: a download past the body cap,
// handed to write_file, used to write the first 1 MiB as if it were the
// file. Now the step that reads it fails, saying to use save_to, and
// writes nothing; with save_to the file is whole.
func TestDownloadPastTheCap(t *testing.T) {
	srv, data := bigServer(t, 3<<20)
	e := newEnv(t)
	w := parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"dl","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":%s}}},
 {"id":"2","key":"keep","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.bin","content":"{{dl.body}}"}}}],
 "edges":[{"from":"1","to":"2"}]`, jsonString(srv.URL+"/big")))
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "dl.body is incomplete") || !strings.Contains(res.Error, "save_to") {
		t.Errorf("error %q", res.Error)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "out.bin")); !errors.Is(err, os.ErrNotExist) {
		t.Error("a cut download was written")
	}
	body := res.Outputs["dl"].(map[string]any)["body"].(string)
	if len(body) != MaxHTTPBody || body != string(data[:MaxHTTPBody]) {
		t.Errorf("the kept body is %d bytes, not the first %d of the response", len(body), MaxHTTPBody)
	}

	w.Nodes[0].Params.Arguments["save_to"] = "out.bin"
	w.Nodes[1].Params.Arguments = map[string]any{"message": "saved {{dl.size}} bytes to {{dl.path}}, sha256 {{dl.sha256}}"}
	w.Nodes[1].Params.Tool = "log"
	e = newEnv(t)
	res = e.run(w)
	wantOutcome(t, res, OutcomeSucceeded)
	if got, _ := os.ReadFile(filepath.Join(e.dir, "out.bin")); string(got) != string(data) {
		t.Errorf("saved %d bytes, want %d", len(got), len(data))
	}
	if logs := e.rec.logs(); len(logs) != 1 || !strings.Contains(logs[0], fmt.Sprintf("saved %d bytes", len(data))) {
		t.Errorf("logs %q", logs)
	}
}

// A model-written http_request that saves to a file or follows redirects
// to other hosts is what every model-written http_request already is: a
// step that needs approval, approved by its exact content, so approving
// one save_to or follow_redirects does not approve another; nothing is
// requested or written before it is approved.
func TestSaveToAndRedirectsNeedApproval(t *testing.T) {
	srv, _ := bigServer(t, 1000)
	var hits atomic.Int64
	counted := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(counted.Close)
	e := newEnv(t)
	w := parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"dl","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":%s,"save_to":"notes.txt","follow_redirects":true}}}],"edges":[]`,
		jsonString(counted.URL)))
	approval.Mark(&w.Nodes[0], approval.Provenance{Source: "model", Via: "plan"})
	if k, _, _ := approval.Needs(&w.Nodes[0], approval.Scope{Dir: e.dir}); k != approval.KindRequest {
		t.Errorf("needs %q", k)
	}
	var ae *ApprovalError
	if _, err := New(e.opts).Run(t.Context(), w); !errors.As(err, &ae) {
		t.Fatalf("unapproved: %v", err)
	}
	if hits.Load() != 0 {
		t.Fatal("an unapproved request was sent")
	}
	approved := approval.Fingerprint(&w.Nodes[0])
	for _, change := range []func(a map[string]any){
		func(a map[string]any) { a["save_to"] = "../elsewhere.txt" },
		func(a map[string]any) { a["follow_redirects"] = []any{"evil.test"} },
		func(a map[string]any) { delete(a, "save_to") },
	} {
		m := w.Clone()
		change(m.Nodes[0].Params.Arguments)
		if approval.Fingerprint(&m.Nodes[0]) == approved {
			t.Errorf("%v: approved by the approval of %v", m.Nodes[0].Params.Arguments, w.Nodes[0].Params.Arguments)
		}
	}
	e.opts.Approvals = approval.Set{approved: true}
	w.Nodes[0].Params.Arguments["url"] = srv.URL + "/big"
	if _, err := New(e.opts).Run(t.Context(), w); !errors.As(err, &ae) {
		t.Fatalf("another URL ran on the approval of the first: %v", err)
	}
	e.opts.Approvals = approval.Set{approval.Fingerprint(&w.Nodes[0]): true}
	res := e.run(w)
	wantOutcome(t, res, OutcomeSucceeded)
	// An agent that may call http_request may save and follow redirects:
	// it needs approval as it did.
	agent := workflow.Node{ID: "a", Key: "a", Type: workflow.TypeAiStep, Params: workflow.Params{Prompt: "x", AllowedTools: []string{"http_request"}}}
	if k, _, _ := approval.Needs(&agent, approval.Scope{Dir: e.dir}); k != approval.KindAgent {
		t.Errorf("agent needs %q", k)
	}
}
