package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/trigger"
)

const serveWF = `{"format":"weft/v1","id":"wf-hook","name":"hook","inputs":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]},
 "triggers":[{"type":"webhook","path":"/hooks/deploy","secret":"{{secrets.HOOK}}","scheme":"github","inputs":{"repo":"{{body.repository.name}}"}}],"nodes":[
 {"id":"a","key":"a","name":"A","type":"Tool","params":{"tool":"log","arguments":{"message":"deploy {{inputs.repo}}"}}}],"edges":[]}`

// weft serve on a loopback port: a signed webhook (a real HTTP client)
// starts a run, logged with source trigger; an unsigned one is 401 and
// starts none; Ctrl+C stops it with exit 0.
func TestServeCommand(t *testing.T) {
	for _, k := range []string{"XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"} {
		t.Setenv(k, t.TempDir())
	}
	t.Setenv("WEFT_KEYRING", "off")
	dir := t.TempDir()
	p := filepath.Join(dir, "hook.json")
	if err := os.WriteFile(p, []byte(serveWF), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := approval.OpenTrust(filepath.Join(os.Getenv("XDG_DATA_HOME"), "weft", approval.TrustFile)).TrustFolder(dir, "test"); err != nil {
		t.Fatal(err)
	}
	store, err := credentials.Default(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	secret := "s3cret-for-the-hook"
	if err := store.Set(credentials.Secret{Name: "HOOK", Value: secret}); err != nil {
		t.Fatal(err)
	}

	pr, pw := io.Pipe()
	var errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: pw, stderr: &errb, getenv: os.Getenv, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() { code <- c.main(ctx, []string{"serve", dir, "--listen", "127.0.0.1:0"}); pw.Close() }()
	lines := bufio.NewScanner(pr)
	var url string
	for lines.Scan() {
		if u, ok := strings.CutPrefix(lines.Text(), "weft serve: listening on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatalf("no address; stderr: %s", errb.String())
	}
	go io.Copy(io.Discard, pr)

	body := []byte(`{"repository":{"name":"weft"},"ref":"main"}`)
	send := func(sign bool, id string) int {
		req, _ := http.NewRequest(http.MethodPost, url+"/hooks/deploy", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(trigger.HeaderGitHubDelivery, id)
		if sign {
			req.Header.Set(trigger.HeaderGitHubSignature, trigger.SignGitHub([]byte(secret), body))
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := send(false, "u1"); got != http.StatusUnauthorized {
		t.Errorf("unsigned: %d", got)
	}
	if got := send(true, "s1"); got != http.StatusAccepted {
		t.Errorf("signed: %d", got)
	}
	if got := send(true, "s1"); got != http.StatusConflict {
		t.Errorf("replayed: %d", got)
	}
	cancel()
	select {
	case got := <-code:
		if got != exitOK {
			t.Fatalf("exit %d; stderr: %s", got, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("weft serve did not stop")
	}
	for _, svc := range c.services {
		svc.Close()
	}
	h, err := service.New(service.Deps{Logger: c.log}).RunHistory(p, "wf-hook")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 1 || h.Runs[0].Source != runner.RunByTrigger || h.Runs[0].Outcome != runner.OutcomeSucceeded {
		t.Fatalf("runs %+v", h.Runs)
	}
}

// weft serve refuses to start, naming the input, when a trigger cannot
// fill a required one.
func TestServeRefusesUnfilledInput(t *testing.T) {
	dir := t.TempDir()
	wf := strings.Replace(serveWF, `"required":["repo"]`, `"required":["repo","env"]`, 1)
	wf = strings.Replace(wf, `"repo":{"type":"string"}}`, `"repo":{"type":"string"},"env":{"type":"string"}}`, 1)
	p := filepath.Join(dir, "hook.json")
	if err := os.WriteFile(p, []byte(wf), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, map[string]string{"XDG_DATA_HOME": t.TempDir()}, "serve", dir, "--listen", "127.0.0.1:0")
	if code != exitUnusable || !strings.Contains(stderr, "input env is required") {
		t.Fatalf("exit %d, stderr %s", code, stderr)
	}
}

// weft serve --unit prints the systemd user service it would install;
// --install prints it, then writes exactly that and starts it (a fake
// systemctl: never this machine's systemd). A folder that does not serve
// gets no unit.
func TestServeInstall(t *testing.T) {
	root := t.TempDir()
	cfg := filepath.Join(root, "config")
	calls := filepath.Join(root, "calls")
	fake := filepath.Join(root, "systemctl")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\necho \"$@\" >> "+calls+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hook.json"), []byte(serveWF), 0o644); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if _, err := approval.OpenTrust(filepath.Join(data, "weft", approval.TrustFile)).TrustFolder(dir, "test"); err != nil {
		t.Fatal(err)
	}
	env := func() map[string]string {
		return map[string]string{"XDG_DATA_HOME": data, "XDG_CONFIG_HOME": cfg, "WEFT_SCHEDULER": "systemd:" + fake}
	}
	store := func() {
		st, err := credentials.Default(os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.Set(credentials.Secret{Name: "HOOK", Value: "v"}); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("WEFT_KEYRING", "off")
	store()
	code, out, stderr := run(t, env(), "serve", dir, "--unit", "--listen", "127.0.0.1:9000")
	if code != exitOK || !strings.Contains(out, "ExecStart=") || !strings.Contains(out, `"--listen" "127.0.0.1:9000"`) || !strings.Contains(out, "[Install]") {
		t.Fatalf("--unit: %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(calls); err == nil {
		t.Fatal("--unit called systemctl")
	}
	code, out2, stderr := run(t, env(), "serve", dir, "--install", "--listen", "127.0.0.1:9000")
	if code != exitOK || !strings.HasPrefix(out2, out) {
		t.Fatalf("--install: %d\n%s\n%s", code, out2, stderr)
	}
	units, _ := filepath.Glob(filepath.Join(cfg, "systemd", "user", "weft-serve-*.service"))
	if len(units) != 1 {
		t.Fatalf("units %v", units)
	}
	if b, _ := os.ReadFile(units[0]); !strings.Contains(out, string(b)) {
		t.Fatalf("installed a unit other than the one shown:\n%s", b)
	}
	if c, _ := os.ReadFile(calls); !strings.Contains(string(c), "enable --now weft-serve-") {
		t.Fatalf("systemctl calls %q", c)
	}
	if err := os.WriteFile(filepath.Join(dir, "hook.json"), []byte(strings.Replace(serveWF, "{{secrets.HOOK}}", "plain", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, env(), "serve", dir, "--unit"); code != exitUnusable || strings.Contains(out, "ExecStart") {
		t.Fatalf("a folder that does not serve got a unit: %d %s", code, out)
	}
}
