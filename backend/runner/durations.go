package runner

import (
	"time"

	"github.com/weft-dev/weft/backend/validate"
)

// millis turns a count of milliseconds into a time.Duration no longer
// than maxMs. A plain time.Duration(ms)*time.Millisecond overflows past
// about 292 years and wraps to a negative or tiny duration: a timeout that
// fires at once, a wait that does not wait. Validation refuses such
// values (bad_duration); this keeps a value that escaped it (a workflow
// run without validating, a future field) from wrapping.
func millis(ms, maxMs int64) time.Duration {
	if ms <= 0 {
		return 0
	}
	return time.Duration(min(ms, maxMs)) * time.Millisecond
}

// duration reads a whole-number milliseconds argument that may come from
// a template at run time, refusing one past maxMs rather than clamping
// it: the step then fails with a message that names the argument.
func (a args) duration(name string, required bool, minMs, maxMs int64) (time.Duration, bool, error) {
	n, ok, err := a.integer(name, required, minMs)
	if err != nil || !ok {
		return 0, ok, err
	}
	if n > maxMs {
		return 0, false, argErrorf("%s: the argument %q must be at most %d ms (%v), not %d", a.tool, name, maxMs, millis(maxMs, maxMs), n)
	}
	return millis(n, maxMs), true, nil
}

// The limits, as the runner applies them.
const (
	maxTimeoutMs = validate.MaxTimeoutMs
	maxWaitMs    = validate.MaxWaitMs
	maxBackoffMs = validate.MaxBackoffMs
)
