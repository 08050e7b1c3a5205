//go:build !unix

package mcptest

import "os/exec"

func detach(cmd *exec.Cmd) {}
