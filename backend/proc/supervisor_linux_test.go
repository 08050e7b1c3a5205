//go:build linux

package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/proc/internal/tree"
)

// treeScript starts two sleeps that leave the shell's tree: one by a double
// fork (a subshell's background job, orphaned when the subshell exits) and
// one in a session of its own (setsid). Each writes its pid to a file; the
// shell then waits.
const treeScript = `(sleep 300 & echo $! > bg.pid); setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & wait`

// helperEnv makes the test binary, run again, the helper of
// TestTreeDiesWithItsStarter: a stand-in for a worker that runs a step.
const helperEnv = "WEFT_PROC_TEST_HELPER"

func TestHelperRunsTree(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("the helper of TestTreeDiesWithItsStarter")
	}
	cmd := exec.Command("sh", "-c", treeScript)
	cmd.Dir = dir
	SetGroup(cmd)
	cmd.Run()
}

// treePids waits for both sleeps of treeScript to have written their pid.
func treePids(t *testing.T, dir string, done <-chan error) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var pids []int
	for _, name := range []string{"bg.pid", "setsid.pid"} {
		for {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			if s, ok := strings.CutSuffix(string(b), "\n"); ok {
				pid, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: %q", name, b)
				}
				pids = append(pids, pid)
				break
			}
			select {
			case err := <-done:
				t.Fatalf("the command ended (%v) before %s was written", err, name)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s was never written", name)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, pid := range pids {
		if !Running(pid) {
			t.Fatalf("sleep %d is not running", pid)
		}
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			if Running(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return pids
}

func waitGone(t *testing.T, pids []int, after string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		var left []int
		for _, pid := range pids {
			if Running(pid) {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleeps %v (bg.pid, setsid.pid: %v) outlived %s", left, pids, after)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func needSetsid(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid command")
	}
}

// kill -9 of the process that ran a command (a worker, the app) ends the
// command's whole tree, including what double-forked or called setsid.
func TestTreeDiesWithItsStarter(t *testing.T) {
	needSetsid(t)
	dir := t.TempDir()
	helper := exec.Command(os.Args[0], "-test.run=^TestHelperRunsTree$")
	helper.Env = append(os.Environ(), helperEnv+"="+dir)
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- helper.Wait() }()
	pids := treePids(t, dir, done)
	helper.Process.Kill()
	<-done
	waitGone(t, pids, "kill -9 of the process that started their command")
}

// A cancel or timeout (KillGroup) ends the whole tree too, and the command
// reads as killed, as it did before the supervisor.
func TestKillGroupKillsWholeTree(t *testing.T) {
	needSetsid(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", treeScript)
	cmd.Dir = dir
	Prepare(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pids := treePids(t, dir, done)
	cancel()
	err := <-done
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("canceled command: %v, want signal: killed", err)
	}
	waitGone(t, pids, "the cancel")
	if GroupAlive(cmd) {
		t.Error("the process group outlived the cancel")
	}
}

// waitStatus runs sh -c script, supervised or not, and returns how it
// ended.
func waitStatus(t *testing.T, script string, supervise bool) syscall.WaitStatus {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = t.TempDir() // where a core dump would go
	if supervise {
		SetGroup(cmd)
	}
	cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%s did not run", script)
	}
	return cmd.ProcessState.Sys().(syscall.WaitStatus)
}

// A command's exit status and signal death read the same through the
// supervisor as without it: every exit code class and every signal that
// ends a process by default (the Go runtime in the supervisor handles most
// of them itself).
func TestSupervisorPassesStatusThrough(t *testing.T) {
	scripts := []string{"true", "exit 1", "exit 7", "exit 126", "exit 127", "exit 128", "exit 255"}
	for sig := syscall.Signal(1); sig <= 64; sig++ {
		switch sig {
		case syscall.SIGCHLD, syscall.SIGCONT, syscall.SIGSTOP, syscall.SIGTSTP, syscall.SIGTTIN, syscall.SIGTTOU, syscall.SIGURG, syscall.SIGWINCH, 32, 33:
			continue // does not end a process (32 and 33 are not sh's to send)
		}
		if sig > 34 && sig%5 != 0 {
			continue // a sample of the real-time signals, parentGone among them
		}
		scripts = append(scripts, fmt.Sprintf("kill -%d $$", sig))
	}
	for _, script := range scripts {
		direct, supervised := waitStatus(t, script, false), waitStatus(t, script, true)
		const coreDumped = 0x80 // the supervisor dumps no core of its own
		if direct&^coreDumped != supervised&^coreDumped {
			t.Errorf("%s: supervised %#x (exit %d, signal %v), direct %#x (exit %d, signal %v)", script,
				uint32(supervised), supervised.ExitStatus(), supervised.Signal(), uint32(direct), direct.ExitStatus(), direct.Signal())
		}
	}
	if ws := waitStatus(t, "kill -USR1 $$", true); !ws.Signaled() || ws.Signal() != syscall.SIGUSR1 {
		t.Errorf("kill -USR1: %#x", uint32(ws))
	}
}

// Standard input, output and error, arguments, working folder and
// environment reach the command as they were given; the supervisor's
// marker does not.
func TestSupervisorPassesStdioArgsAndEnv(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `cat; printf '%s|' "$0" "$@"; pwd; env | grep -e ^WEFT_PROC_ -e ^GIVEN= ; echo oops >&2; exit 3`, "zero", "a", "b c")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIVEN=yes"}
	cmd.Stdin = strings.NewReader("hello\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	SetGroup(cmd)
	err := cmd.Run()
	if want := "hello\nzero|a|b c|" + dir + "\nGIVEN=yes\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if stderr.String() != "oops\n" || cmd.ProcessState.ExitCode() != 3 {
		t.Errorf("stderr %q, exit %v", stderr.String(), err)
	}
}

// A signal sent to the process Weft started (an MCP server's SIGTERM at
// shutdown) reaches the command.
func TestSupervisorForwardsSignals(t *testing.T) {
	for _, s := range tree.Forwarded() {
		sig := s.(syscall.Signal)
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command("sh", "-c", fmt.Sprintf(`trap 'echo got; exit 3' %d; echo ready; while :; do sleep 0.02; done`, sig))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			SetGroup(cmd)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer KillGroup(cmd)
			lines := bufio.NewScanner(out)
			if !lines.Scan() || lines.Text() != "ready" {
				t.Fatalf("first line %q", lines.Text())
			}
			cmd.Process.Signal(sig)
			got := lines.Scan() && lines.Text() == "got"
			cmd.Wait()
			if !got || cmd.ProcessState.ExitCode() != 3 {
				t.Errorf("the command's trap did not run: %v", cmd.ProcessState)
			}
		})
	}
}

// A command that cannot start fails as a shell says so: 127 for a
// missing file, with its name on stderr.
func TestSupervisorCannotStart(t *testing.T) {
	cmd := exec.Command("/nonexistent/server")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	SetGroup(cmd)
	cmd.Run()
	if cmd.ProcessState.ExitCode() != 127 || !strings.Contains(stderr.String(), "/nonexistent/server") {
		t.Errorf("exit %v, stderr %q", cmd.ProcessState, stderr.String())
	}
}

// Started as a supervisor without the marker (an Env set after Prepare),
// the executable refuses rather than run as itself (here: this test
// binary, which would run every test again).
func TestSupervisorWithoutMarkerRefuses(t *testing.T) {
	cmd := exec.Command("sh", "-c", "echo ran")
	SetGroup(cmd)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 127 || !strings.Contains(string(out), tree.Env) || strings.Contains(string(out), "ran") {
		t.Errorf("exit %v: %s", cmd.ProcessState, out)
	}
}

// BenchmarkStart measures what the supervisor adds to a command's start:
// /bin/true run directly, and through the supervisor: this test binary
// started again and, when WEFT_BENCH_SUPERVISOR names one, another
// executable that imports this package, such as the weft CLI
// (docs/benchmarks.md).
func BenchmarkStart(b *testing.B) {
	modes := map[string]func(*exec.Cmd){
		"direct": func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL} // before the supervisor
		},
		"supervised": SetGroup,
	}
	if exe := os.Getenv("WEFT_BENCH_SUPERVISOR"); exe != "" {
		modes["supervised-by-"+filepath.Base(exe)] = func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			superviseBy(cmd, exe)
		}
	}
	for name, start := range modes {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				cmd := exec.Command("true")
				start(cmd)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
