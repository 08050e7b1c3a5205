//go:build linux

package proc

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"github.com/weft-dev/weft/backend/proc/internal/tree"
)

// On Linux every command starts under a supervisor: this same executable
// (selfExe) again, which the init of package tree (internal/tree) turns
// into a supervisor before any main or TestMain runs. The supervisor is a
// child subreaper, so whatever the command's tree leaves behind (a double
// fork, a setsid daemon) is reparented to it rather than to init, and it
// kills that whole tree when Weft dies (its death signal) or asks it to
// (tree.Stop). Pdeathsig on the command alone reached only the shell: its
// children went on beside the step's re-run on another worker.

// selfExe is this executable, even when its file was replaced or deleted
// since it started.
const selfExe = "/proc/self/exe"

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
	env = append(tree.WithoutMarker(env), tree.Env+"="+strconv.Itoa(os.Getpid()))
	argv := cmd.Args
	if len(argv) == 0 {
		argv = []string{cmd.Path}
	}
	cmd.Args = append([]string{tree.Name, cmd.Path}, argv...)
	cmd.Path = supervisor
	cmd.Env = env
	cmd.SysProcAttr.Pdeathsig = tree.ParentGone
}

func supervised(cmd *exec.Cmd) bool {
	return len(cmd.Args) > 0 && cmd.Args[0] == tree.Name
}

// stopSupervisor asks cmd's supervisor to kill the command's tree and
// reports whether it could be asked (false: not supervised, or already
// gone).
func stopSupervisor(cmd *exec.Cmd) bool {
	return supervised(cmd) && cmd.Process.Signal(tree.Stop) == nil
}
