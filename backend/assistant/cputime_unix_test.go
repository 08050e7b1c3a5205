//go:build unix

package assistant

import (
	"syscall"
	"time"
)

// cpuTime is the process's user plus system CPU time: a benchmark figure
// that, unlike wall time, does not grow when other processes share the
// machine.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
