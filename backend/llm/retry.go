package llm

import (
	"context"
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
	// MaxRetryAfter caps a server's Retry-After wait. Default 30s.
	MaxRetryAfter time.Duration
}

// DefaultRetryPolicy is used when no WithRetry option is given.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxRetries: 3, BaseDelay: 500 * time.Millisecond, MaxDelay: 8 * time.Second, MaxRetryAfter: 30 * time.Second}
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

// parseRetryAfter reads Retry-After as delta-seconds or an HTTP-date, and
// also the millisecond variant some servers send (retry-after-ms).
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, true
		}
		if secs > 24*3600 {
			secs = 24 * 3600
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
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
