package service

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/runner"
)

func TestRunHistoryAndEvents(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-hist", [2]string{"one", "true"})
	_, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path})
	if err != nil || fin == nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(fin.Dir)
	// A killed run (no summary), a broken summary, and folders that are
	// not runs.
	killed := filepath.Join(dir, "20000101-000000.000-aaaaaa")
	broken := filepath.Join(dir, "20000101-000000.000-bbbbbb")
	for _, d := range []string{killed, broken, filepath.Join(dir, "not-a-run"), filepath.Join(dir, "20000101-000000.000-XYZ")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(killed, "workflow.json"), []byte(`{"id":"wf-hist","name":"Killed"}`), 0o644)
	os.WriteFile(filepath.Join(broken, "summary.json"), []byte(`{"outcome":`), 0o644)

	h, err := svc.RunHistory(path, "wf-hist")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Runs) != 2 || h.Runs[0].RunID != fin.RunID || !h.Runs[0].Complete || h.Runs[0].Outcome != runner.OutcomeSucceeded ||
		h.Runs[1].Complete || h.Runs[1].WorkflowName != "Killed" || len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], "summary.json") {
		t.Fatalf("RunHistory = %+v", h)
	}
	if other, _ := svc.RunHistory(path, "another"); len(other.Runs) != 0 {
		t.Fatalf("another workflow's runs: %+v", other.Runs)
	}
	if none, err := svc.RunHistory(filepath.Join(t.TempDir(), "never-ran.json"), ""); err != nil || len(none.Runs) != 0 || none.Runs == nil {
		t.Fatalf("no runs folder: %+v, %v", none, err)
	}

	log, err := svc.RunEvents(fin.Dir)
	if err != nil || log.Total != len(log.Events) || log.Truncated || log.Events[0].Type != runner.EvRunStarted {
		t.Fatalf("RunEvents = %+v, %v", log, err)
	}
	for _, bad := range []string{"", "/", dir, filepath.Join(fin.Dir, ".."), fin.Dir + "/../not-a-run", "../../etc", broken + "x"} {
		if _, err := svc.RunEvents(bad); err == nil {
			t.Errorf("RunEvents(%q) read a folder that is not a run", bad)
		}
	}
}

func TestRunEventsKeepsTheTail(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "20240101-000000.000-abcdef")
	os.MkdirAll(dir, 0o755)
	var b strings.Builder
	n := maxHistoryEvents + 7
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"seq":%d,"type":"log"}`+"\n", i)
		if i == n-1 {
			b.WriteString("not json\n\n")
		}
	}
	os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(b.String()), 0o644)
	svc := testService(t, nil)
	log, err := svc.RunEvents(dir)
	if err != nil {
		t.Fatal(err)
	}
	if log.Total != n+1 || !log.Truncated || len(log.Events) != maxHistoryEvents-1 || log.Events[len(log.Events)-1].Seq != int64(n) || len(log.Warnings) != 1 {
		t.Fatalf("total %d truncated %v events %d last %d warnings %v", log.Total, log.Truncated, len(log.Events), log.Events[len(log.Events)-1].Seq, log.Warnings)
	}
}
