//go:build linux

package proc

import (
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// On Linux every command starts under a supervisor: this same executable
// (selfExe) again, which package proc's init turns into supervisor()
// (supervisor_linux.go) before any main or TestMain runs. The supervisor
// is a child subreaper, so whatever the command's tree leaves behind (a
// double fork, a setsid daemon) is reparented to it rather than to init,
// and it kills that whole tree when Weft dies (its death signal) or asks
// it to (stopSignal). Pdeathsig on the command alone reached only the
// shell: its children went on beside the step's re-run on another worker.
const (
	// supervisorEnv marks the supervisor's environment; its value is the
	// pid of the process that started it. The command does not inherit it.
	supervisorEnv = "WEFT_PROC_SUPERVISOR"
	// supervisorName is the supervisor's argv[0] (what ps shows); its
	// argv goes on with the command's path and the command's own argv.
	supervisorName = "weft-supervisor"
	// selfExe is this executable, even when its file was replaced or
	// deleted since it started.
	selfExe = "/proc/self/exe"
	// stopSignal asks the supervisor to kill the command's whole tree and
	// then itself (KillGroup). A signal that kills by default, so that
	// one sent before the supervisor listens ends it before it starts the
	// command.
	stopSignal = syscall.SIGHUP
	// parentGone is the supervisor's death signal: a real-time signal
	// nobody else sends. Linux also sends it when only the thread that
	// started the supervisor ends, so the supervisor checks its parent
	// before it acts on it.
	parentGone = syscall.Signal(40)
	// killTimeout bounds how long the supervisor keeps killing (a process
	// in uninterruptible sleep cannot die); less than WaitDelay, after
	// which exec.Cmd kills the supervisor itself.
	killTimeout = time.Second
)

// forwarded are the signals the supervisor passes to the command
// unchanged: a signal sent to the process Weft started (an MCP server's
// SIGTERM at shutdown) reaches the command as before.
var forwarded = []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH}

// supervise makes cmd start its command under a supervisor. cmd's Env must
// be final: the marker goes into it.
func supervise(cmd *exec.Cmd) {
	if cmd.Err != nil || supervised(cmd) {
		return // Start reports the lookup error as before
	}
	if _, err := os.Stat(selfExe); err != nil {
		// No /proc: the command alone dies with Weft, as before.
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
		return
	}
	superviseBy(cmd, selfExe)
}

// superviseBy makes cmd start its command under supervisor, an executable
// that imports this package.
func superviseBy(cmd *exec.Cmd, supervisor string) {
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = append(withoutMarker(env), supervisorEnv+"="+strconv.Itoa(os.Getpid()))
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	cmd.Args = append([]string{supervisorName, cmd.Path}, argv...)
	cmd.Path = supervisor
	cmd.Env = env
	cmd.SysProcAttr.Pdeathsig = parentGone
}

func supervised(cmd *exec.Cmd) bool {
	return len(cmd.Args) > 0 && cmd.Args[0] == supervisorName
}

// stopSupervisor asks cmd's supervisor to kill the command's tree and
// reports whether it could be asked (false: not supervised, or already
// gone).
func stopSupervisor(cmd *exec.Cmd) bool {
	return supervised(cmd) && cmd.Process.Signal(stopSignal) == nil
}

func withoutMarker(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, supervisorEnv+"=") })
}
