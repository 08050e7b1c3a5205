//go:build unix

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	supervise(cmd)
}

// KillGroup kills cmd's process tree. On Linux it asks the command's
// supervisor, which kills the group and every process that left it and
// then dies by SIGKILL; elsewhere, or once the supervisor is gone, it
// sends SIGKILL to the process group cmd leads. It is a no-op for a
// command that never started; a group that is already gone is not an
// error.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil || stopSupervisor(cmd) {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// GroupAlive reports whether any process of cmd's group still exists.
func GroupAlive(cmd *exec.Cmd) bool {
	if cmd.Process == nil {
		return false
	}
	return syscall.Kill(-cmd.Process.Pid, 0) == nil
}
