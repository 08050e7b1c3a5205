//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system, all threads) the process has
// used: unlike wall time it does not grow when other processes load the
// machine.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
