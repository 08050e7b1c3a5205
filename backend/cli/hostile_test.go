package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
)

// The hostile suite through the command line's doors: each finding of
// issue 20 that a workflow file can bring about, run as `weft validate`,
// `weft run` and `weft approve` would run it, must end with a clear error
// and exit status, promptly, with nothing leaked or corrupted. (The
// classes behind them are tested where they are decided: backend/approval,
// backend/service, backend/runner, backend/atomicfile, backend/schedule.)

// A step made the folder's readme a link to a secret outside it at run
// time; the next step, written by a model, reads what was inside when it
// was checked: the read fails, and the secret is not printed.
func TestHostileLinkMadeAtRunTime(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "id_rsa")
	os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY----- hunter2hunter2"), 0o600)
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"unpack","nodes":[
 {"id":"a","key":"unpack","type":"Tool","params":{"tool":"run_command","arguments":{"command":"mkdir -p assets && ln -sf `+secret+` assets/readme.txt"}}},
 {"id":"b","key":"readme","type":"Tool","provenance":{"source":"model","via":"plan"},"params":{"tool":"read_file","arguments":{"path":"assets/readme.txt"}}},
 {"id":"c","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{readme.content}}"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`)
	code, out, errOut := run(t, runEnv(t), "run", wf, "--on-escalate", "abort")
	if code != exitInvalid || strings.Contains(out+errOut, "hunter2") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, "readme") {
		t.Fatalf("the failure does not name the step:\n%s\n%s", out, errOut)
	}
}

// A template of 500,000 nested parentheses: `weft validate` refuses it
// naming the place; `weft run` ends with an error, not a stack overflow.
func TestHostileTemplateDepth(t *testing.T) {
	deep := "pick.exit_code + " + strings.Repeat("(", 500_000) + "1" + strings.Repeat(")", 500_000)
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"deep","nodes":[
 {"id":"p","key":"pick","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}}},
 {"id":"a","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{`+deep+`}}"}}}],"edges":[{"from":"p","to":"a"}]}`)
	code, out, errOut := run(t, runEnv(t), "validate", wf)
	if code != exitInvalid || !strings.Contains(out+errOut, "bad_template") {
		t.Fatalf("validate: exit %d\n%.2000s\n%.2000s", code, out, errOut)
	}
	code, out, errOut = run(t, runEnv(t), "run", wf)
	if code == exitOK || strings.Contains(errOut, "goroutine ") {
		t.Fatalf("run: exit %d\n%.2000s\n%.2000s", code, out, errOut)
	}
}

// read_file of a device named through a template, and a FIFO where the
// workflow reads: refused at once, not read without end or forever.
func TestHostileSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	wf := filepath.Join(dir, "wf.json")
	os.WriteFile(wf, []byte(`{"format":"weft/v1","id":"w","name":"dev","nodes":[
 {"id":"p","key":"pick","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf /dev/zero"}}},
 {"id":"a","key":"zero","type":"Tool","params":{"tool":"read_file","arguments":{"path":"{{pick.stdout}}"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"pipe","type":"Tool","params":{"tool":"read_file","arguments":{"path":"{{pick.exit_code}}pipe"}},"retry":{"max_attempts":1},"on_error":"continue"}],
 "edges":[{"from":"p","to":"a"},{"from":"a","to":"b"}]}`), 0o644)
	done := make(chan struct{})
	var code int
	var out, errOut string
	go func() {
		code, out, errOut = run(t, runEnv(t), "run", wf, "--on-escalate", "skip")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("weft run did not return: a device or FIFO was read without end")
	}
	if code == exitOK || !strings.Contains(out+errOut, "device") {
		t.Fatalf("exit %d\n%.3000s\n%.3000s", code, out, errOut)
	}
}

// A FIFO put where the approvals file is: weft approve says so and
// returns, instead of waiting forever for a writer.
func TestHostileFIFOAtTheApprovalsFile(t *testing.T) {
	env := runEnv(t)
	store := filepath.Join(env["XDG_DATA_HOME"], "weft", approval.StoreFile)
	os.MkdirAll(filepath.Dir(store), 0o700)
	if err := syscall.Mkfifo(store, 0o600); err != nil {
		t.Skip(err)
	}
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"m","nodes":[
 {"id":"a","key":"cmd","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"true"}}}],"edges":[]}`)
	done := make(chan int, 1)
	var errOut string
	go func() {
		var code int
		code, _, errOut = run(t, env, "approve", wf, "--list")
		done <- code
	}()
	select {
	case code := <-done:
		if code == exitOK || !strings.Contains(errOut, "FIFO") {
			t.Fatalf("exit %d: %s", code, errOut)
		}
	case <-time.After(time.Minute):
		t.Fatal("weft approve hangs on a FIFO at the approvals file")
	}
}

// A download over the 1 MiB cap piped into write_file: the run fails
// naming the cut field, and no corrupt file is written.
func TestHostileCutDownload(t *testing.T) {
	body := strings.Repeat("0123456789abcdef", 1<<17) // 2 MiB
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	wf := writeFile(t, `{"format":"weft/v1","id":"w","name":"dl","nodes":[
 {"id":"a","key":"get","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"`+srv.URL+`/file.bin"}}},
 {"id":"b","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"file.bin","content":"{{get.body}}"}},"retry":{"max_attempts":1}}],
 "edges":[{"from":"a","to":"b"}]}`)
	code, out, errOut := run(t, runEnv(t), "run", wf, "--on-escalate", "abort")
	if code != exitInvalid || !strings.Contains(out+errOut, "body") {
		t.Fatalf("exit %d\n%.3000s\n%.3000s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(wf), "file.bin")); err == nil {
		t.Fatal("a cut download was written as if whole")
	}
}
