//go:build unix && !linux

package proc

import "os/exec"

// supervise: only Linux can tie a command's tree to Weft's life (a
// subreaper and a death signal); elsewhere a command starts directly.
func supervise(*exec.Cmd) {}

func stopSupervisor(*exec.Cmd) bool { return false }
