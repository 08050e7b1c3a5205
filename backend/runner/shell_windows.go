//go:build windows

package runner

import (
	"context"
	"os/exec"
	"syscall"
)

// shellCommand runs a run_command command line with cmd.exe, whose quoting
// rules render.Command follows (quote.CmdExe). The command line is given
// verbatim: Go's own argument quoting (backslash before ") is not what
// cmd.exe reads, and would corrupt any command with a quote in it. /S
// makes cmd strip exactly the outer quotes added here; /V:OFF keeps
// !name! from expanding whatever the registry's default, so quote.CmdArg
// only has to neutralise %.
func shellCommand(ctx context.Context, command string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe")
	cmd.SysProcAttr = &syscall.SysProcAttr{CmdLine: `cmd.exe /V:OFF /S /C "` + command + `"`}
	return cmd
}
