//go:build unix

package validate

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system, all threads) the process has
// used so far; benchmarks report it next to wall time because it is less
// sensitive to other load on the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
