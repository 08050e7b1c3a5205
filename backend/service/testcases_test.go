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

// The Tests panel's edit of a case's mocks: written only when the mocks,
// the whole new file and the secret rule allow it, and only over the
// bytes the person read.
func TestSaveCaseMocks(t *testing.T) {
	s := testService(t, nil)
	path := filepath.Join(t.TempDir(), "flow.json")
	if cf, err := s.ReadCaseFile(path); err != nil || cf.Exists || cf.Error != "" || len(cf.Cases) != 0 {
		t.Fatalf("no case file: %+v %v", cf, err)
	}
	casePath := testcase.PathFor(path)
	orig := "{\"cases\": [\n  {\"name\": \"a\", \"inputs\": {\"n\": 123456789012345678901}, \"mocks\": {}},\n  {\"name\": \"b\"}\n]}\n"
	os.WriteFile(casePath, []byte(orig), 0o644)
	cf, err := s.ReadCaseFile(path)
	if err != nil || !cf.Exists || cf.Error != "" || len(cf.Cases) != 2 || cf.Cases[0].Mocks != "{}" || cf.SHA256 == "" {
		t.Fatalf("read: %+v %v", cf, err)
	}
	unchanged := func(why string) {
		t.Helper()
		if b, _ := os.ReadFile(casePath); string(b) != orig {
			t.Errorf("%s: the file changed:\n%s", why, b)
		}
	}
	for _, tc := range []struct{ why, name, mocks, base, want string }{
		{"bad mocks", "a", `{"commands":[{"command":"x"}]}`, cf.SHA256, "mocks.commands[0]: has no answer"},
		{"a credential", "a", `{"http":[{"method":"GET","url":"https://x","answer":{"status":200,"headers":{"Authorization":"Bearer abcdefghijklmnop1234"}}}]}`, cf.SHA256, "never holds a secret"},
		{"changed since read", "a", `{}`, "0000", "changed since it was read"},
		{"no such case", "c", `{}`, cf.SHA256, `no case is named "c"`},
	} {
		if _, err := s.SaveCaseMocks(path, tc.name, tc.mocks, tc.base); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.why, err, tc.want)
		}
		unchanged(tc.why)
	}
	mocks := `{"commands":[{"command":"echo hi","answer":{"exit_code":0,"stdout":"hi\n"}}]}`
	cf2, err := s.SaveCaseMocks(testcase.PathFor(path), "b", mocks, cf.SHA256) // the case file names its workflow too
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(casePath)
	if !strings.Contains(string(b), "123456789012345678901") || !strings.Contains(cf2.Cases[1].Mocks, `"echo hi"`) || cf2.SHA256 == cf.SHA256 {
		t.Errorf("saved:\n%s\nview %+v", b, cf2)
	}
	if _, err := s.SaveCaseMocks(path, "a", `{}`, cf.SHA256); err == nil {
		t.Error("a save over the old reading went through")
	}

	os.WriteFile(casePath, []byte(`{"cases":[{"name":"a","mocks":{"commands":[{"command":"x"}]}}]}`), 0o644)
	if cf, err := s.ReadCaseFile(path); err != nil || !strings.Contains(cf.Error, casePath) || !strings.Contains(cf.Error, "has no answer") || len(cf.Cases) != 0 {
		t.Errorf("unusable file: %+v %v", cf, err)
	}
}
