//go:build !unix

package proc

import "os/exec"

func setGroup(cmd *exec.Cmd) {}

// KillGroup kills the process; platforms without process groups cannot
// reach its children.
func KillGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}

// GroupAlive is not known on this platform; it reports false.
func GroupAlive(cmd *exec.Cmd) bool { return false }
