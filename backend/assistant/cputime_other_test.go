//go:build !unix

package assistant

import "time"

func cpuTime() time.Duration { return 0 }
