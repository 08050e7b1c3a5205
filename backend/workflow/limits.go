package workflow

// The largest durations a workflow may ask for. Past them a value is a
// mistake (1e13 ms is three centuries) and, turned into a time.Duration,
// it would overflow and wrap to zero or a negative wait: a timeout that
// fires at once, a wait that does not wait. validate refuses them in a
// file; the engines enforce them on values that exist only at run time.
const (
	// MaxTimeoutMs bounds a node's timeout_ms and run_command's
	// timeout_ms: 7 days.
	MaxTimeoutMs = 7 * 24 * 60 * 60 * 1000
	// MaxBackoffMs bounds retry.backoff.initial_ms and max_ms: 1 day.
	MaxBackoffMs = 24 * 60 * 60 * 1000
	// MaxBackoffMultiplier bounds retry.backoff.multiplier (at least 1
	// when given).
	MaxBackoffMultiplier = 100
)
