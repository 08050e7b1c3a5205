package llm

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds how transport faults are retried. It is the only retry
// policy: openai-go's own retries are switched off.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt
	// (so at most MaxRetries+1 requests). 0 means the default, 3;
	// negative means no retries.
	MaxRetries int
	// BaseDelay is the first backoff; each retry doubles it. Default 500ms.
	BaseDelay time.Duration
	// MaxDelay caps one exponential backoff. Default 8s.
	MaxDelay time.Duration
	// MaxRetryAfter is the longest Retry-After Weft waits. Default 30s. A
	// server that asks for longer fails the call at once, saying when to
	// try again, instead of a silent wait.
	MaxRetryAfter time.Duration
	// ProgressEvery is how often a long call reports progress. Default 15s.
	ProgressEvery time.Duration
}

// DefaultRetryPolicy is used when no WithRetry option is given.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second, MaxRetryAfter: 30 * time.Second, ProgressEvery: 15 * time.Second}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	switch {
	case p.MaxRetries < 0:
		p.MaxRetries = 0
	case p.MaxRetries == 0:
		p.MaxRetries = d.MaxRetries
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = d.BaseDelay
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = d.MaxDelay
	}
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	if p.MaxRetryAfter <= 0 {
		p.MaxRetryAfter = d.MaxRetryAfter
	}
	if p.ProgressEvery <= 0 {
		p.ProgressEvery = d.ProgressEvery
	}
	return p
}

// backoff is the wait before retry number n (0-based): exponential with
// "equal jitter" (half fixed, half random), capped at MaxDelay. A server's
// Retry-After, when present, wins (capped at MaxRetryAfter).
func (p RetryPolicy) backoff(n int, retryAfter time.Duration, hasRetryAfter bool) time.Duration {
	if hasRetryAfter {
		if retryAfter > p.MaxRetryAfter {
			return p.MaxRetryAfter
		}
		if retryAfter < 0 {
			return 0
		}
		return retryAfter
	}
	d := p.BaseDelay
	for i := 0; i < n && d < p.MaxDelay; i++ {
		d *= 2
	}
	if d > p.MaxDelay {
		d = p.MaxDelay
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// maxRetryAfterHeader is the longest wait a header is read as; anything
// longer (or unreadable: NaN, Inf, 1e300, garbage) is capped or ignored,
// never turned into a negative or wrapped duration.
const maxRetryAfterHeader = 24 * time.Hour

// parseRetryAfter reads the wait a server asks for: Retry-After-Ms (some
// servers), Retry-After as seconds or an HTTP date, else OpenAI's
// x-ratelimit-reset-requests ("6m0s"). It reports whether one was given.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil {
			if d, ok := boundedSeconds(ms / 1000); ok {
				return d, true
			}
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" && len(v) <= 64 {
		if secs, err := strconv.ParseFloat(v, 64); err == nil {
			if d, ok := boundedSeconds(secs); ok {
				return d, true
			}
			return 0, false
		}
		if t, err := http.ParseTime(v); err == nil {
			d := t.Sub(now)
			return min(max(d, 0), maxRetryAfterHeader), true
		}
	}
	if v := strings.TrimSpace(h.Get("X-Ratelimit-Reset-Requests")); v != "" && len(v) <= 32 {
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return min(d, maxRetryAfterHeader), true
		}
	}
	return 0, false
}

// boundedSeconds turns a header's seconds into a Duration in [0, 24h];
// false for NaN or a negative count.
func boundedSeconds(secs float64) (time.Duration, bool) {
	switch {
	case math.IsNaN(secs) || secs < 0:
		return 0, false
	case secs >= maxRetryAfterHeader.Seconds():
		return maxRetryAfterHeader, true
	}
	return time.Duration(secs * float64(time.Second)), true
}

// sleepCtx waits for d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
