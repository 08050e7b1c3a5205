//go:build !unix

package main

import "time"

// cpuTime is not measured on this platform; the wall time stands in.
func cpuTime() (time.Duration, bool) { return 0, false }
