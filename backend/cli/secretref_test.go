package cli

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/redact/redacttest"
)

// A workflow calls an API with a token it names as {{secrets.API_TOKEN}}:
// the token is stored with `weft secrets set` (the fallback file here, the
// keyring being off), the server receives it, and no form of it is in the
// workflow's folder, the data folder outside the store, or what
// `weft run --json` prints. On another host the same step sends nothing.
func TestRunSendsAStoredSecretOnlyWhereItIsBound(t *testing.T) {
	const token = "tok-cliRef_9f8e7d6c5b4a3210"
	srv, seen := authServer(t)
	u, _ := url.Parse(srv.URL)
	data := t.TempDir()
	if code, _, errb := secretsCmd(t, data, token+"\n", "set", "API_TOKEN", "--host", u.Host); code != exitOK {
		t.Fatalf("set: %s", errb)
	}
	wf := func(base string) string {
		return writeFile(t, `{"format":"weft/v1","id":"w","name":"api","nodes":[
 {"id":"a","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+base+`/v1/me","headers":{"Authorization":"Bearer {{secrets.API_TOKEN}}"}}}}],"edges":[]}`)
	}
	env := map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": filepath.Join(data, "config")}
	path := wf(srv.URL)
	code, out, errb := run(t, env, "run", "--json", path)
	if code != exitOK {
		t.Fatalf("run: code %d\n%s\n%s", code, out, errb)
	}
	if got := seen(); len(got) != 1 || got[0] != "Bearer "+token {
		t.Fatalf("the server saw %q", got)
	}
	if !strings.Contains(out, "{{secrets.API_TOKEN}}") {
		t.Errorf("the output does not show the reference:\n%s", out)
	}
	noForm := func(where, s string) {
		for form, v := range redacttest.Encodings(token) {
			if strings.Contains(s, v) {
				t.Errorf("the token (%s) is in %s", form, where)
			}
		}
	}
	noForm("stdout", out)
	noForm("stderr", errb)
	store := filepath.Join(data, "weft", "secrets")
	for _, dir := range []string{filepath.Dir(path), data} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || p == store && d.IsDir() {
				return fs.SkipDir
			}
			if d.Type().IsRegular() {
				b, _ := os.ReadFile(p)
				noForm(p, string(b))
			}
			return nil
		})
	}

	// The same step on another host: refused before any request.
	code, out, errb = run(t, env, "run", "--json", wf("http://localhost:"+u.Port()))
	if code == exitOK || !strings.Contains(out+errb, "API_TOKEN") {
		t.Fatalf("another host: code %d\n%s\n%s", code, out, errb)
	}
	if got := seen(); len(got) != 1 {
		t.Fatalf("a request went to another host: %q", got)
	}
}

// weft validate knows this computer's secrets: a reference to one it lacks
// is a warning, a malformed one an error.
func TestValidateChecksSecretReferences(t *testing.T) {
	data := t.TempDir()
	if code, _, errb := secretsCmd(t, data, "v\n", "set", "API_TOKEN", "--host", "api.example.com"); code != exitOK {
		t.Fatalf("set: %s", errb)
	}
	env := map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": filepath.Join(data, "config")}
	path := writeFile(t, `{"format":"weft/v1","id":"w","name":"api","nodes":[
 {"id":"a","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://api.example.com/?k={{secrets.OTHER}}","headers":{"Authorization":"Bearer {{secrets.API_TOKEN}}"}}}}],"edges":[]}`)
	code, out, errb := run(t, env, "validate", path)
	if code != exitOK || !strings.Contains(out, "OTHER") || !strings.Contains(out, "[unknown_secret]") || strings.Contains(out, "secret API_TOKEN") {
		t.Fatalf("code %d\n%s\n%s", code, out, errb)
	}
	bad := writeFile(t, `{"format":"weft/v1","id":"w","name":"api","nodes":[
 {"id":"a","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{secrets.API_TOKEN.x}}"}}}],"edges":[]}`)
	if code, out, _ := run(t, env, "validate", bad); code != exitInvalid || !strings.Contains(out, "[bad_secret_ref]") {
		t.Fatalf("malformed: code %d\n%s", code, out)
	}
}

// A workflow written on another computer refers to a secret this one
// lacks: weft run stops before any step runs (exit 1) and prints the exact
// command that adds it, with the host the step sends it to; running that
// command then lets the workflow run. weft validate prints it too.
func TestRunWithAMissingSecretSaysHowToAddIt(t *testing.T) {
	srv, seen := authServer(t)
	u, _ := url.Parse(srv.URL)
	data := t.TempDir()
	env := map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": filepath.Join(data, "config")}
	path := writeFile(t, `{"format":"weft/v1","id":"w","name":"api","nodes":[
 {"id":"a","key":"call","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`/v1/me","headers":{"Authorization":"Bearer {{secrets.API_TOKEN}}"}}}}],"edges":[]}`)
	want := "weft secrets set API_TOKEN --host " + u.Host
	code, out, errb := run(t, env, "run", path)
	if code != exitInvalid || !strings.Contains(errb, want) {
		t.Fatalf("code %d, want %d and %q\n%s\n%s", code, exitInvalid, want, out, errb)
	}
	if code, out, _ := run(t, env, "run", "--json", path); code != exitInvalid || !strings.Contains(out, `"missing_secrets"`) {
		t.Fatalf("--json: code %d\n%s", code, out)
	}
	if code, out, _ := run(t, env, "validate", path); code != exitOK || !strings.Contains(out, want) {
		t.Fatalf("validate: code %d\n%s", code, out)
	}
	if got := seen(); len(got) != 0 {
		t.Fatalf("a request was sent: %q", got)
	}
	// The command as printed (after "weft secrets").
	if code, _, errb := secretsCmd(t, data, "tok\n", strings.Fields(want)[2:]...); code != exitOK {
		t.Fatalf("%s: %s", want, errb)
	}
	if code, out, errb := run(t, env, "run", path); code != exitOK {
		t.Fatalf("after adding it: code %d\n%s\n%s", code, out, errb)
	}
	if got := seen(); len(got) != 1 || got[0] != "Bearer tok" {
		t.Fatalf("the server saw %q", got)
	}
}

// authServer records the Authorization header of each request and
// reflects it in its answer; seen returns what it recorded.
func authServer(t *testing.T) (srv *httptest.Server, seen func() []string) {
	var (
		mu  sync.Mutex
		got []string
	)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		fmt.Fprintf(w, `{"echo":%q}`, r.Header.Get("Authorization"))
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}
