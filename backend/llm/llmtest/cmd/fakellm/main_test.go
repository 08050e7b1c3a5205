package main_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestFakellmProcess builds the command, runs it as a separate process the
// way browser end-to-end tests do, and talks to it over HTTP.
func TestFakellmProcess(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "fakellm")
	build := exec.Command(goBin, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	script := filepath.Join(dir, "script.json")
	os.WriteFile(script, []byte(`{"steps":[{"text":"from script"}],"models":["fake-model"]}`), 0o644)

	cmd := exec.Command(bin, "--script", script, "--echo")
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		cmd.Process.Kill()
		<-exited
	}()

	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
		io.Copy(io.Discard, stdout)
	}()
	var base string
	select {
	case base = <-lines:
	case <-time.After(10 * time.Second):
		t.Fatal("no URL printed")
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("first line %q", base)
	}

	chat := func() string {
		res, err := http.Post(base+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"fake-model","messages":[{"role":"user","content":"echo me"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return string(b)
	}
	if body := chat(); !strings.Contains(body, `"content":"from script"`) {
		t.Fatalf("scripted reply: %s", body)
	}
	if body := chat(); !strings.Contains(body, `"content":"echo me"`) {
		t.Fatalf("echo reply: %s", body)
	}
	root := strings.TrimSuffix(base, "/v1")
	res, err := http.Post(root+"/_llmtest/steps", "application/json", strings.NewReader(`{"text":"pushed"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if body := chat(); !strings.Contains(body, `"content":"pushed"`) {
		t.Fatalf("pushed reply: %s", body)
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		exited <- nil
	case <-time.After(5 * time.Second):
		t.Fatal("did not exit on SIGTERM")
	}
	if !strings.Contains(stderr.String(), "POST /v1/chat/completions #1") {
		t.Fatalf("stderr log: %s", stderr.String())
	}
}
