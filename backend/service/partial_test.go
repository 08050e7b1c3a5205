package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
)

// Run from here reuses the last run's outputs, unredacted, inside the
// process; what LastOutputs shows (for pinning) is redacted.
func TestRunFromAndLastOutputs(t *testing.T) {
	const secret = "sk-test-9f8e7d6c5b4a"
	svc := testService(t, func(d *Deps) {
		d.Settings = func() (settings.Settings, []string, error) {
			s := settings.Defaults()
			s.LLM.APIKey = secret
			return s, nil, nil
		}
	})
	dir := t.TempDir()
	count := filepath.Join(dir, "first-ran")
	got := filepath.Join(dir, "got")
	w, path := runFile(t, "wf-from",
		[2]string{"first", "echo x >> " + count + "; echo " + secret},
		[2]string{"second", "printf %s \"$(echo '{{first.stdout}}')\" > " + got})
	run := func(from string) StartResult {
		t.Helper()
		res, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, From: from, UsePinned: true})
		if err != nil {
			t.Fatal(err)
		}
		if fin != nil && fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("outcome %s: %s", fin.Outcome, fin.Error)
		}
		return res
	}
	if res := run("id_second"); res.Started || !strings.Contains(res.Error, "has not run since Weft started") {
		t.Fatalf("before any run: %+v", res)
	}
	if _, _, err := svc.LastOutputs(w.ID, "id_first"); err == nil {
		t.Fatal("LastOutputs before any run")
	}
	run("")
	os.Remove(got)
	if res := run("id_second"); !res.Started {
		t.Fatalf("run from second: %+v", res)
	}
	if b, _ := os.ReadFile(count); string(b) != "x\n" {
		t.Errorf("the first step ran %q times", b)
	}
	if b, _ := os.ReadFile(got); !strings.Contains(string(b), secret) {
		t.Errorf("the second step read %q from the reused outputs", b)
	}
	out, runID, err := svc.LastOutputs(w.ID, "id_first")
	if err != nil || runID == "" {
		t.Fatal(runID, err)
	}
	if s, _ := out["stdout"].(string); strings.Contains(s, secret) || s == "" {
		t.Errorf("LastOutputs shows %q", s)
	}
	// A step before the start that changed makes its outputs stale.
	w2 := w.Clone()
	w2.Nodes[0].Params.Arguments["command"] = "echo other"
	if res, _, _ := svc.Run(context.Background(), StartRequest{Workflow: w2, Path: path, From: "id_second"}); res.Started || !strings.Contains(res.Error, "changed since run") {
		t.Fatalf("stale: %+v", res)
	}
	// Another workflow has no last run.
	w3 := w.Clone()
	w3.ID = "other"
	if res, _, _ := svc.Run(context.Background(), StartRequest{Workflow: w3, Path: path, From: "id_second"}); res.Started {
		t.Fatalf("another workflow: %+v", res)
	}
}
