package devserver

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// devBinary builds cmd/weft-temporal-dev once.
var devBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "weft-temporal-dev-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "weft-temporal-dev")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/weft-temporal-dev").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// devServer starts `weft-temporal-dev args…` and checks its first line:
// "ADDRESS NAMESPACE", the address being want when it is not "".
func devServer(t *testing.T, want string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	bin, err := devBinary()
	if err != nil {
		t.Fatalf("build weft-temporal-dev: %v", err)
	}
	cmd := exec.Command(bin, args...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	first := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Scan()
		first <- sc.Text()
		for sc.Scan() { // drain: the server must never block on its stdout
		}
	}()
	var line string
	select {
	case line = <-first:
	case <-time.After(60 * time.Second):
		t.Fatal("weft-temporal-dev printed nothing in 60 s")
	}
	addr, ns, ok := strings.Cut(line, " ")
	if !ok || ns != Namespace || (want != "" && addr != want) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first line %q, want \"%s %s\"; stderr:\n%s", line, want, Namespace, stderr.String())
	}
	return cmd, addr
}

// weftDone runs `weft args…` to its end (at most a minute) and returns
// its output and exit code.
func weftDone(t *testing.T, home string, args ...string) (string, int) {
	t.Helper()
	cmd, lines := proc(t, home, args...)
	kill := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
	defer kill.Stop()
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	cmd.Wait()
	return strings.Join(all, "\n"), cmd.ProcessState.ExitCode()
}

// weft-temporal-dev --db keeps its state in the file: the server killed
// (-9) while a step of a run is going, and started again on the same
// file and port, finishes the run, which `weft run` followed through the
// gap; stopped cleanly and started once more, it still has the finished
// run's history.
func TestDevServerSurvivesRestart(t *testing.T) {
	tmp := t.TempDir()
	db := filepath.Join(tmp, "state", "temporal.db") // its folder is made too
	ports, err := freePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ports[0])
	addr := net.JoinHostPort("127.0.0.1", port)
	srv, _ := devServer(t, addr, "--port", port, "--db", db)
	if fi, err := os.Stat(db); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("database file: %v %v (want mode 0600: it holds the runs' histories)", fi, err)
	}

	home, dir := t.TempDir(), t.TempDir()
	tflags := []string{"--temporal-address", addr, "--task-queue", "weft-restart"} // namespace: the default
	proc(t, home, append([]string{"worker"}, tflags...)...)
	file := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(file, []byte(`{"format":"weft/v1","id":"restart","name":"restart","nodes":[
 {"id":"a","key":"first","name":"First","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ran >> first.log"}}},
 {"id":"b","key":"slow","name":"Slow","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo started >> slow.log; sleep 2; echo done >> slow.log"}}},
 {"id":"c","key":"last","name":"Last","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ran >> last.log"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := weftDone(t, home, "trust", dir); code != 0 {
		t.Fatalf("weft trust: %d\n%s", code, out)
	}
	run, lines := proc(t, home, append([]string{"run", file, "--engine", "temporal", "--on-escalate", "abort"}, tflags...)...)
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(read(dir, "slow.log"), "started") {
		if time.Now().After(deadline) {
			t.Fatal("the slow step never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := srv.Process.Kill(); err != nil { // SIGKILL: no chance to tidy up
		t.Fatal(err)
	}
	srv.Wait()
	srv, _ = devServer(t, addr, "--port", port, "--db", db)

	kill := time.AfterFunc(time.Minute, func() { run.Process.Kill() })
	var all []string
	for l := range lines {
		all = append(all, l)
	}
	run.Wait()
	kill.Stop()
	out := strings.Join(all, "\n")
	if code := run.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("weft run: exit %d\n%s", code, out)
	}
	m := regexp.MustCompile(`submitted run (\S+)`).FindStringSubmatch(out)
	if m == nil || !strings.Contains(out, "▸ Last") {
		t.Fatalf("weft run output:\n%s", out)
	}
	id := m[1]
	if got := read(dir, "first.log") + read(dir, "last.log"); got != "ran\nran\n" {
		t.Errorf("first.log and last.log: %q: each step that completed ran once", got)
	}
	if !strings.HasSuffix(read(dir, "slow.log"), "done\n") {
		t.Errorf("slow.log = %q", read(dir, "slow.log"))
	}
	if list, code := weftDone(t, home, append([]string{"runs", "list"}, tflags...)...); code != 0 || !regexp.MustCompile(regexp.QuoteMeta(id)+`\s+succeeded`).MatchString(list) {
		t.Fatalf("weft runs list: exit %d, no succeeded %s:\n%s", code, id, list)
	}

	// A clean stop, then a start on the same file: the finished run's
	// history is still there.
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := srv.Wait(); err != nil {
		t.Fatalf("weft-temporal-dev on SIGTERM: %v", err)
	}
	devServer(t, addr, "--port", port, "--db", db)
	// The run's events are replayed by a worker: the one still running
	// polls again once it reconnected (until then runs show says so and
	// shows the end only).
	var show string
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(time.Second) {
		var code int
		show, code = weftDone(t, home, append([]string{"runs", "show", id}, tflags...)...)
		if code == 0 && strings.Contains(show, "▸ First") && strings.Contains(show, "▸ Last") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("weft runs show %s after a restart: exit %d\n%s", id, code, show)
		}
	}
}
