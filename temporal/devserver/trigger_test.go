package devserver

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/serve"
	"github.com/weft-dev/weft/backend/trigger"
)

type hookSecrets map[string]string

func (h hookSecrets) Get(name string) (credentials.Secret, error) {
	v, ok := h[name]
	if !ok {
		return credentials.Secret{}, fmt.Errorf("secret %s: %w", name, credentials.ErrNotFound)
	}
	return credentials.Secret{Name: name, Value: v}, nil
}

// With engine.kind "temporal", a signed webhook served by weft serve
// starts a Temporal run through the same service call: it runs on the
// worker, and is logged beside the workflow with source trigger and its
// Temporal id.
func TestTriggerOnTemporal(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-trigger")
	svc := newService(&st)
	path := filepath.Join(dir, "hook.json")
	doc := `{"format":"weft/v1","id":"hook","name":"hook","inputs":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]},
 "triggers":[{"type":"webhook","path":"/hooks/t","secret":"{{secrets.HOOK}}","scheme":"github"}],"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo {{inputs.repo}} > repo.txt"}}}],"edges":[]}`
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	srv, err := serve.Load(context.Background(), serve.Config{Dir: dir, StateDir: t.TempDir(), Secrets: hookSecrets{"HOOK": "k"}}, svc)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	body := []byte(`{"repo":"weft"}`)
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/hooks/t", bytes.NewReader(body))
	req.Header.Set(trigger.HeaderGitHubSignature, trigger.SignGitHub([]byte("k"), body))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("status %d", res.StatusCode)
	}
	srv.CloseWithin(90 * time.Second)
	if b, _ := os.ReadFile(filepath.Join(dir, "repo.txt")); string(b) != "weft\n" {
		t.Fatalf("repo.txt %q", b)
	}
	h, err := svc.RunHistory(path, "hook")
	if err != nil || len(h.Runs) != 1 {
		t.Fatalf("history %+v %v", h, err)
	}
	if r := h.Runs[0]; r.Source != runner.RunByTrigger || r.EngineRunID == "" || r.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("run %+v", r)
	}
}
