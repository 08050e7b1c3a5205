//go:build !windows

package runner

import (
	"context"
	"os/exec"
)

// shellCommand runs a run_command command line with sh, whose quoting
// rules render.Command follows (quote.POSIX).
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	return exec.CommandContext(ctx, "sh", "-c", command)
}
