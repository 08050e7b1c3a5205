package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRunFoldersStayOutOfGit: beside a workflow in a git repository, the
// first run creates .weft with a .gitignore of its own, so `git add -A`
// stages the workflow and nothing of .weft; a .gitignore the user wrote
// there is never replaced.
func TestRunFoldersStayOutOfGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	openRun := func(wfPath string) {
		t.Helper()
		runs, err := DefaultRunsDir(wfPath)
		if err != nil {
			t.Fatal(err)
		}
		id := NewRunID(time.Now())
		l, err := openRunLog(filepath.Join(runs, id), id, nil, time.Now, nil)
		if err != nil {
			t.Fatal(err)
		}
		l.emit(Event{Type: EvRunStarted, Message: "token in output"})
		if err := l.close(); err != nil {
			t.Fatal(err)
		}
	}

	repo := t.TempDir()
	git(repo, "init", "-q")
	wf := filepath.Join(repo, "notes.weft.json")
	if err := os.WriteFile(wf, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	openRun(wf)
	openRun(wf) // a second run keeps the one .gitignore
	git(repo, "add", "-A")
	if st := git(repo, "status", "--porcelain"); strings.TrimSpace(st) != "A  notes.weft.json" {
		t.Errorf("git status after add -A:\n%s", st)
	}
	if b, err := os.ReadFile(filepath.Join(repo, ".weft", ".gitignore")); err != nil || !strings.Contains(string(b), "\n*\n") {
		t.Errorf(".weft/.gitignore = %q, %v", b, err)
	}

	// The user's own .gitignore in .weft stays as it was.
	own := t.TempDir()
	mine := "# mine\nruns/old\n"
	if err := os.MkdirAll(filepath.Join(own, ".weft"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(own, ".weft", ".gitignore"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	openRun(filepath.Join(own, "w.weft.json"))
	if b, _ := os.ReadFile(filepath.Join(own, ".weft", ".gitignore")); string(b) != mine {
		t.Errorf("the user's .gitignore became %q", b)
	}
}
