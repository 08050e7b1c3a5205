package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/quote"
)

// hostileData are step outputs that would run as code if a template
// spliced them into a command line, or change a request if spliced into a
// URL or header: each tries to create a file named MARK….
var hostileData = []string{
	"", "plain", "two words", " spaced ",
	"$(touch MARK1)", "`touch MARK2`", "x; touch MARK3", "x && touch MARK4", "x || touch MARK5", "x | touch MARK6",
	"x & touch MARK7", "> MARK8", "x\ntouch MARK9", "x\r\ntouch MARK10\r\n", "\ntouch MARK11\n",
	"it's", "'", `"`, `"; touch MARK12; "`, `'; touch MARK13; '`, `'"$(touch MARK14)"'`, `\`, `\'`, `a\`,
	"*", "MARK*", "[a-z]*", "~", "$HOME", "${HOME}", "$((6*7))", "$'\\x41'", "#", "x #y", "!", "%PATH%", "^&|<>()",
	"-rf", "..", ".", "/", "a/b", "?q=1&r=2", "#frag", "%41%2F", "+", "é ✓ 日本語",
	"ends with a newline\n", "ends with CRLF\r\n", "a[$(touch MARK20)]", "1+x[`touch MARK21`]",
	"all: $(touch MARK15) `touch MARK16`; touch MARK17 && touch MARK18 | touch MARK19 ' \" \n \r\n * ? [x] ~ $HOME \\ # !",
}

// echoServer serves each hostile value at /v/N and records what requests
// to /echo/N/… carried: the path segment after N, the query and headers.
type echoServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen map[string]*http.Request
}

func newEchoServer(t *testing.T) *echoServer {
	s := &echoServer{seen: map[string]*http.Request{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.SplitN(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/", 3)
		switch {
		case len(parts) == 2 && parts[0] == "v":
			var i int
			if _, err := fmt.Sscan(parts[1], &i); err != nil || i < 0 || i >= len(hostileData) {
				http.NotFound(w, r)
				return
			}
			io.WriteString(w, hostileData[i])
		case len(parts) >= 2 && parts[0] == "echo":
			s.mu.Lock()
			s.seen[parts[1]] = r.Clone(r.Context())
			s.mu.Unlock()
			io.WriteString(w, "ok")
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *echoServer) request(id string) *http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seen[id]
}

// jsonString quotes s for a workflow written as JSON.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// noMarks fails the test if anything but the expected files exists in dir.
func noMarks(t *testing.T, dir string, expected ...string) {
	t.Helper()
	ok := map[string]bool{".weft": true, "patterns.jsonl": true}
	for _, e := range expected {
		ok[e] = true
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !ok[e.Name()] {
			t.Errorf("unexpected file %s: data ran as code", filepath.Join(dir, e.Name()))
		}
	}
}

// TestHostileData runs real workflows whose HTTP response body and file
// content are hostile, through run_command (bare, in double quotes, in
// single quotes, inside $(…)) and an http_request URL (path segment and
// query), and checks that every command and the server received exactly
// the data (less its trailing line breaks) and that nothing ran.
func TestHostileData(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the commands are sh")
	}
	srv := newEchoServer(t)
	for i, v := range hostileData {
		t.Run(fmt.Sprintf("%d %.20q", i, v), func(t *testing.T) {
			e := newEnv(t)
			e.write("notes.txt", v)
			w := parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"fetch","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":%s}}},
 {"id":"2","key":"notes","type":"Tool","params":{"tool":"read_file","arguments":{"path":"notes.txt"}}},
 {"id":"3","key":"bare","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%%s' {{fetch.body}} > out1"}}},
 {"id":"4","key":"dq","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%%s' \"{{notes.content}}\" > out2"}}},
 {"id":"5","key":"sq","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%%s' 'a{{fetch.body}}b' \"$(printf '%%s' {{notes.content}})\" > out3"}}},
 {"id":"6","key":"send","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":%s,"headers":{"X-Data":"{{notes.content}}"}}}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3"},{"from":"3","to":"4"},{"from":"4","to":"5"},{"from":"5","to":"6"}]`,
				jsonString(fmt.Sprintf("%s/v/%d", srv.URL, i)),
				jsonString(fmt.Sprintf("%s/echo/%d/{{fetch.body}}?q={{notes.content}}&k=1#{{fetch.body}}", srv.URL, i))))
			res := e.run(w)
			tv := quote.TrimLineEnd(v)
			if strings.ContainsAny(tv, "\r\n") {
				// A header cannot carry a line break: the last step is refused.
				wantOutcome(t, res, OutcomeFailed)
				if !strings.Contains(res.Error, `the value of the header "X-Data" contains a line break`) {
					t.Errorf("error %q does not name the header", res.Error)
				}
			} else {
				wantOutcome(t, res, OutcomeSucceeded)
			}
			noMarks(t, e.dir, "notes.txt", "out1", "out2", "out3")
			for name, want := range map[string]string{"out1": tv, "out2": tv, "out3": "a" + tv + "b" + tv} {
				if got := e.read(name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if strings.ContainsAny(tv, "\r\n") {
				return
			}
			req := srv.request(fmt.Sprint(i))
			if req == nil {
				t.Fatal("the server saw no request")
			}
			rest := strings.TrimPrefix(req.URL.EscapedPath(), fmt.Sprintf("/echo/%d/", i))
			if strings.Contains(rest, "/") {
				t.Errorf("the value added path segments: %q", req.URL.EscapedPath())
			}
			if seg, err := url.PathUnescape(rest); err != nil || seg != tv {
				t.Errorf("path segment %q (%v), want %q", seg, err, tv)
			}
			if q := req.URL.Query(); len(q) != 2 || q.Get("q") != tv || q.Get("k") != "1" {
				t.Errorf("query %q reads as %v, want q=%q and k=1", req.URL.RawQuery, q, tv)
			}
			if got := req.Header.Get("X-Data"); got != strings.TrimSpace(tv) {
				t.Errorf("header X-Data = %q, want %q", got, tv)
			}
		})
	}
}

// TestHostileHeaders: data with a line break cannot add a header; a
// file's trailing newline does not break one.
func TestHostileHeaders(t *testing.T) {
	srv := newEchoServer(t)
	e := newEnv(t)
	e.write("token.txt", "abc123\n")
	e.write("evil.txt", "abc\r\nX-Injected: 1")
	w := parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"token","type":"Tool","params":{"tool":"read_file","arguments":{"path":"token.txt"}}},
 {"id":"2","key":"evil","type":"Tool","params":{"tool":"read_file","arguments":{"path":"evil.txt"}}},
 {"id":"3","key":"good","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"%s/echo/good","headers":{"Authorization":"Bearer {{token.content}}"}}}},
 {"id":"4","key":"bad","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"%s/echo/bad","headers":{"Authorization":"Bearer {{evil.content}}"}}}}],
 "edges":[{"from":"1","to":"2"},{"from":"2","to":"3"},{"from":"3","to":"4"}]`, srv.URL, srv.URL))
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, `the value of the header "Authorization" contains a line break`) {
		t.Errorf("error %q", res.Error)
	}
	if r := srv.request("good"); r == nil || r.Header.Get("Authorization") != "Bearer abc123" {
		t.Errorf("the good request: %v", r)
	}
	if r := srv.request("bad"); r != nil {
		t.Errorf("the bad request was sent with headers %v", r.Header)
	}
}

// TestHostileURLHost: data cannot pick the server, except as a whole URL
// that is one absolute http(s) URL.
func TestHostileURLHost(t *testing.T) {
	srv := newEchoServer(t)
	cases := []struct {
		name, content, url, wantErr string
	}{
		{"host", "127.0.0.1:1", "http://{{f.content}}/echo/x", "sits in the scheme or host"},
		{"scheme", "http", "{{f.content}}://example.test/echo/x", "sits in the scheme or host"},
		{"base URL", srv.URL, "{{f.content}}/echo/x", "sits in the scheme or host"},
		{"whole URL", srv.URL + "/echo/whole\n", "{{f.content}}", ""},
		{"raw base URL", srv.URL + "/echo", "{{raw f.content}}/raw", ""},
		{"whole URL not http", "file:///etc/passwd", "{{f.content}}", "is not an absolute http or https URL"},
		{"whole URL relative", "/etc/passwd", "{{f.content}}", "is not an absolute http or https URL"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t)
			e.write("f.txt", c.content)
			res := e.run(parse(t, fmt.Sprintf(`"nodes":[
 {"id":"1","key":"f","type":"Tool","params":{"tool":"read_file","arguments":{"path":"f.txt"}}},
 {"id":"2","key":"req","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":%s}}}],
 "edges":[{"from":"1","to":"2"}]`, jsonString(c.url))))
			if c.wantErr == "" {
				wantOutcome(t, res, OutcomeSucceeded)
				return
			}
			wantOutcome(t, res, OutcomeFailed)
			if !strings.Contains(res.Error, c.wantErr) || !strings.Contains(res.Error, "{{") {
				t.Errorf("error %q, want one naming the placeholder and %q", res.Error, c.wantErr)
			}
		})
	}
	if srv.request("whole") == nil || srv.request("raw") == nil {
		t.Error("the whole-URL or raw request did not arrive")
	}
}

// TestHostileNUL: no command line carries a NUL byte, so a value with one
// fails the step before anything runs.
func TestHostileNUL(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the commands are sh")
	}
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"1","key":"f","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}},
 {"id":"2","key":"c","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch ran; printf %s {{nul.v}}"}}}],
 "edges":[{"from":"1","to":"2"}]`))
	wantOutcome(t, res, OutcomeSucceeded) // {{nul.v}} names no key: left alone, and sh reads {{nul.v}} as a word
	e2 := newEnv(t)
	e2.write("nul.txt", "a\x00b")
	res = e2.run(parse(t, `"nodes":[
 {"id":"1","key":"nul","type":"Tool","params":{"tool":"read_file","arguments":{"path":"nul.txt"}}},
 {"id":"2","key":"c","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch ran; printf %s {{nul.content}}"}}}],
 "edges":[{"from":"1","to":"2"}]`))
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "{{nul.content}}: the value contains a NUL byte") {
		t.Errorf("error %q", res.Error)
	}
	noMarks(t, e2.dir, "nul.txt")
}

// TestRawRunsAsCode: {{raw …}} is the author's deliberate way to insert
// text as code.
func TestRawRunsAsCode(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the commands are sh")
	}
	e := newEnv(t)
	e.write("script.txt", "printf '%s' raw > out\n")
	res := e.run(parse(t, `"nodes":[
 {"id":"1","key":"script","type":"Tool","params":{"tool":"read_file","arguments":{"path":"script.txt"}}},
 {"id":"2","key":"c","type":"Tool","params":{"tool":"run_command","arguments":{"command":"{{raw script.content}}"}}}],
 "edges":[{"from":"1","to":"2"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.read("out"); got != "raw" {
		t.Errorf("out = %q", got)
	}
}
