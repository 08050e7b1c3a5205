package trigger

import (
	"fmt"
	"sync"
	"time"
)

// Limits bound what one trigger takes: deliveries per second and per
// minute (token buckets: a burst of PerSecond, refilled evenly), and runs
// going at once. 0 is no bound.
type Limits struct {
	PerSecond int `json:"per_second"`
	PerMinute int `json:"per_minute"`
	Runs      int `json:"runs"`
}

// DefaultLimits are weft serve's when no flag says otherwise.
var DefaultLimits = Limits{PerSecond: 10, PerMinute: 120, Runs: 4}

// Limiter applies Limits to one trigger.
type Limiter struct {
	l       Limits
	mu      sync.Mutex
	sec     bucket
	min     bucket
	running int
}

type bucket struct {
	tokens float64
	last   time.Time
}

// NewLimiter starts with full buckets.
func NewLimiter(l Limits) *Limiter {
	return &Limiter{l: l, sec: bucket{tokens: float64(l.PerSecond)}, min: bucket{tokens: float64(l.PerMinute)}}
}

func (b *bucket) take(capacity int, per time.Duration, now time.Time) bool {
	if capacity <= 0 {
		return true
	}
	if !b.last.IsZero() {
		b.tokens += now.Sub(b.last).Seconds() * float64(capacity) / per.Seconds()
		if b.tokens > float64(capacity) {
			b.tokens = float64(capacity)
		}
	}
	b.last = now
	return b.tokens >= 1
}

// Take admits one delivery and one run, or says which limit refuses it
// (429). A delivery admitted holds a run's place until Done.
func (l *Limiter) Take(now time.Time) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.l.Runs > 0 && l.running >= l.l.Runs {
		return fmt.Errorf("%d runs of this trigger go already (its limit of runs at once)", l.running)
	}
	okS := l.sec.take(l.l.PerSecond, time.Second, now)
	okM := l.min.take(l.l.PerMinute, time.Minute, now)
	switch {
	case !okS:
		return fmt.Errorf("more than %d deliveries a second (the trigger's limit)", l.l.PerSecond)
	case !okM:
		return fmt.Errorf("more than %d deliveries a minute (the trigger's limit)", l.l.PerMinute)
	}
	if l.l.PerSecond > 0 {
		l.sec.tokens--
	}
	if l.l.PerMinute > 0 {
		l.min.tokens--
	}
	l.running++
	return nil
}

// Done gives back a run's place.
func (l *Limiter) Done() {
	l.mu.Lock()
	if l.running > 0 {
		l.running--
	}
	l.mu.Unlock()
}
