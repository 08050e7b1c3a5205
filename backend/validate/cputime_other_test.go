//go:build !unix

package validate

import "time"

func cpuTime() time.Duration { return 0 }
