package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/testcase"
)

func TestTestPlaysCases(t *testing.T) {
	s := testService(t, nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	os.WriteFile(path, []byte(`{"format":"weft/v1","id":"w","name":"t","nodes":[
	 {"id":"hi","key":"hi","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch made"}}}],"edges":[]}`), 0o644)
	ctx := context.Background()

	_, err := s.Test(ctx, TestRequest{Path: path})
	var ue *TestUnusableError
	if !errors.As(err, &ue) || !errors.Is(err, testcase.ErrNoCases) {
		t.Fatalf("no case file: %v, want an unusable test saying how to record a case", err)
	}

	os.WriteFile(testcase.PathFor(path), []byte(`{"cases":[
	 {"name":"ok","mocks":{"commands":[{"command":"touch made","answer":{"exit_code":0}}]},"expect":{"outcome":"succeeded","path":["hi"]}},
	 {"name":"bad","mocks":{"commands":[{"command":"touch made","answer":{"exit_code":1}}]},"expect":{"outcome":"succeeded"}}]}`), 0o644)
	rep, err := s.Test(ctx, TestRequest{Path: testcase.PathFor(path)}) // the case file names its workflow too
	if err != nil {
		t.Fatal(err)
	}
	if rep.Passed != 1 || rep.Failed != 1 || rep.Cases[1].Failures[0].Step != "hi" {
		t.Errorf("report %+v, want ok passed and bad failed at hi", rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: %v", err)
	}
	// A file nobody reviewed waits for approval before a real run: the
	// test runs it anyway, and says so.
	if len(rep.Unapproved) != 1 || rep.Unapproved[0].NodeID != "hi" {
		t.Errorf("unapproved %+v, want the command step", rep.Unapproved)
	}

	os.WriteFile(path, []byte(`{"format":"weft/v1","id":"w","name":"t","nodes":[
	 {"id":"hi","key":"hi","type":"Tool","params":{"tool":"run_command","arguments":{}}}],"edges":[]}`), 0o644)
	_, err = s.Test(ctx, TestRequest{Path: path})
	if !errors.As(err, &ue) || len(ue.Problems) == 0 || !strings.Contains(err.Error(), "not valid") {
		t.Errorf("invalid workflow: %v, want an unusable test with its problems", err)
	}
}
