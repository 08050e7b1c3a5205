package runner

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A step fails when its tool says it failed: a command's exit status, an
// HTTP status. Both errors keep the outputs (exit_code, stdout, status,
// body), so on_error branches and the escalation see what happened; a node
// verify replaces the default check (the runner drops these errors when
// the node has one).

// ExitStatusError is a command that exited with a status its node does
// not accept (ok_exit_codes, default [0]), or was killed by a signal.
type ExitStatusError struct {
	Code int
	// Signal is the signal that killed the command, 0 when it exited.
	Signal syscall.Signal
	Stderr string
}

func (e *ExitStatusError) Error() string {
	var b strings.Builder
	switch {
	case e.Signal != 0:
		fmt.Fprintf(&b, "run_command: the command was killed by signal %d (%s), exit status %d", int(e.Signal), e.Signal, e.Code)
	case e.Code == 127:
		b.WriteString("run_command: exit status 127: the command was not found")
	case e.Code == 126:
		b.WriteString("run_command: exit status 126: the command is not executable")
	default:
		fmt.Fprintf(&b, "run_command: the command failed with exit status %d", e.Code)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString(": ")
		b.WriteString(tail(s, 300))
	}
	return b.String()
}

// HTTPStatusError is a response whose status is 400 or above and not in
// the node's ok_status.
type HTTPStatusError struct {
	Status int
	// RetryAfter is the server's Retry-After, 0 when absent or unusable.
	RetryAfter time.Duration
	Body       string
}

func (e *HTTPStatusError) Error() string {
	msg := fmt.Sprintf("http_request: the server answered %d %s", e.Status, http.StatusText(e.Status))
	if e.RetryAfter > 0 {
		msg += fmt.Sprintf(" (Retry-After %v)", e.RetryAfter.Round(time.Second))
	}
	if s := strings.TrimSpace(e.Body); s != "" {
		msg += ": " + truncate(s, 200)
	}
	return msg
}

// intList reads an argument holding whole numbers (a JSON array, one
// number, or a comma-separated string from a template).
func (a args) intList(name string, lo, hi int) ([]int, bool, error) {
	v, ok := a.m[name]
	if !ok || v == nil {
		return nil, false, nil
	}
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case []int:
		for _, n := range t {
			items = append(items, n)
		}
	case string:
		for _, f := range strings.Split(t, ",") {
			if f = strings.TrimSpace(f); f != "" {
				items = append(items, f)
			}
		}
	default:
		items = []any{v}
	}
	if len(items) > 1000 {
		return nil, false, argErrorf("%s: the argument %q lists %d values; at most 1000", a.tool, name, len(items))
	}
	out := make([]int, 0, len(items))
	for _, it := range items {
		var n int64
		switch t := it.(type) {
		case float64:
			if t != math.Trunc(t) || t < float64(lo) || t > float64(hi) {
				return nil, false, argErrorf("%s: %q must list whole numbers from %d to %d, not %v", a.tool, name, lo, hi, t)
			}
			n = int64(t)
		case int:
			n = int64(t)
		case int64:
			n = t
		case string:
			p, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
			if err != nil {
				return nil, false, argErrorf("%s: %q must list whole numbers, not %q", a.tool, name, t)
			}
			n = p
		default:
			return nil, false, argErrorf("%s: %q must list whole numbers, not %T", a.tool, name, it)
		}
		if n < int64(lo) || n > int64(hi) {
			return nil, false, argErrorf("%s: %q must list whole numbers from %d to %d, not %d", a.tool, name, lo, hi, n)
		}
		out = append(out, int(n))
	}
	return out, true, nil
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// maxRetryAfter caps a server's Retry-After the runner will wait before
// the next attempt; a server that asks for longer fails the step at once
// with the time to retry at, instead of a silent hour.
const maxRetryAfter = 5 * time.Minute

// parseRetryAfter reads Retry-After (seconds or an HTTP date). Anything
// unusable (garbage, negative, NaN, a date in the past, a number too big
// for a Duration) is 0; a huge value is kept as "long" (capped at a day)
// so the caller can say the server asked for too long.
func parseRetryAfter(h string, now time.Time) time.Duration {
	h = strings.TrimSpace(h)
	if h == "" || len(h) > 64 {
		return 0
	}
	const ceiling = 24 * time.Hour
	if f, err := strconv.ParseFloat(h, 64); err == nil {
		if math.IsNaN(f) || f <= 0 {
			return 0
		}
		if f >= ceiling.Seconds() {
			return ceiling
		}
		return time.Duration(f * float64(time.Second))
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now)
		if d <= 0 {
			return 0
		}
		return min(d, ceiling)
	}
	return 0
}
