// Package proc starts child processes in their own process group so that a
// timeout or a cancellation kills the whole tree (a shell and what it
// started, an npx launcher and its node server, a browser and its helpers),
// never leaving orphans behind. On Linux the command runs under a small
// supervisor (supervise_linux.go) so that its whole tree, including what
// double-forks or calls setsid, dies with Weft too (kill -9 of a worker).
package proc

import (
	"os/exec"
	"time"
)

// WaitDelay bounds how long Wait waits for output pipes after the process
// was killed: a grandchild that escaped the group must not hang the caller.
const WaitDelay = 2 * time.Second

// Prepare makes a command made with exec.CommandContext start in a new
// process group and, when its context ends, kill the whole group rather
// than only the direct child. Call it last before cmd.Start, once cmd's
// Path, Args and Env are final: on Linux it turns cmd into the start of
// a supervisor that runs them.
func Prepare(cmd *exec.Cmd) {
	SetGroup(cmd)
	cmd.Cancel = func() error { return KillGroup(cmd) }
	cmd.WaitDelay = WaitDelay
}

// SetGroup makes cmd start in a new process group (under a supervisor on
// Linux: call it once Path, Args and Env are final), to be ended with
// KillGroup.
func SetGroup(cmd *exec.Cmd) { setGroup(cmd) }
