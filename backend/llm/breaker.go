package llm

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/sony/gobreaker/v2"
)

// BreakerSettings tune the per-endpoint circuit breaker.
type BreakerSettings struct {
	// Failures is how many consecutive transport failures (HTTP attempts
	// that hit connection errors, timeouts, 408 or 5xx) open the circuit.
	// Default 5.
	Failures int
	// Cooldown is how long an open circuit fails calls fast before one
	// trial request is let through. Default 30s.
	Cooldown time.Duration
}

// DefaultBreakerSettings is used when no WithBreaker option is given.
func DefaultBreakerSettings() BreakerSettings {
	return BreakerSettings{Failures: 5, Cooldown: 30 * time.Second}
}

func (s BreakerSettings) withDefaults() BreakerSettings {
	d := DefaultBreakerSettings()
	if s.Failures <= 0 {
		s.Failures = d.Failures
	}
	if s.Cooldown <= 0 {
		s.Cooldown = d.Cooldown
	}
	return s
}

// BreakerRegistry holds one circuit breaker per endpoint, so every client
// built for the same base URL shares it. The first client to use an
// endpoint fixes that breaker's settings.
type BreakerRegistry struct {
	mu sync.Mutex
	m  map[string]*breaker
}

// NewBreakerRegistry returns an empty registry (tests use their own to stay
// independent of each other).
func NewBreakerRegistry() *BreakerRegistry {
	return &BreakerRegistry{m: map[string]*breaker{}}
}

func (r *BreakerRegistry) get(endpoint string, s BreakerSettings, log *slog.Logger) *breaker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.m[endpoint]; ok {
		return b
	}
	b := newBreaker(endpoint, s, log)
	r.m[endpoint] = b
	return b
}

// Reset closes the breaker of endpoint (a base URL as given in Config), if
// there is one. The Preferences "Test connection" success does this.
func (r *BreakerRegistry) Reset(endpoint string) {
	r.mu.Lock()
	b := r.m[displayEndpoint(endpoint)]
	r.mu.Unlock()
	if b != nil {
		b.reset()
	}
}

// errBreakerFailure marks an attempt outcome that counts against the
// endpoint; other errors count as successes (the endpoint answered).
var errBreakerFailure = errors.New("transport failure")

// noteFailure remembers why the last attempt failed, for the message shown
// while the circuit is open.
func (b *breaker) noteFailure(reason string) {
	b.mu.Lock()
	b.lastReason = reason
	b.mu.Unlock()
}

type breaker struct {
	name     string
	settings BreakerSettings
	log      *slog.Logger

	mu         sync.Mutex
	cb         *gobreaker.TwoStepCircuitBreaker[struct{}]
	lastReason string
}

func newBreaker(name string, s BreakerSettings, log *slog.Logger) *breaker {
	if log == nil {
		log = slog.Default()
	}
	b := &breaker{name: name, settings: s, log: log}
	b.cb = b.build()
	return b
}

func (b *breaker) build() *gobreaker.TwoStepCircuitBreaker[struct{}] {
	n := uint32(b.settings.Failures)
	return gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        b.name,
		MaxRequests: 1,
		Timeout:     b.settings.Cooldown,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= n },
		IsSuccessful: func(err error) bool {
			return !errors.Is(err, errBreakerFailure)
		},
		IsExcluded: func(err error) bool { return errors.Is(err, errBreakerExcluded) },
		OnStateChange: func(name string, from, to gobreaker.State) {
			b.log.Debug("llm: circuit breaker state change", "endpoint", name, "from", from.String(), "to", to.String())
		},
	})
}

// allow asks to make one HTTP attempt. When the circuit is open it returns
// ok=false and the reason of the last failure. done takes nil (success),
// errBreakerFailure or errBreakerExcluded.
func (b *breaker) allow() (done func(outcome error), reason string, ok bool) {
	b.mu.Lock()
	cb := b.cb
	b.mu.Unlock()
	d, err := cb.Allow()
	if err != nil {
		b.mu.Lock()
		reason = b.lastReason
		b.mu.Unlock()
		if reason == "" {
			reason = "too many failures"
		}
		return nil, reason, false
	}
	return d, "", true
}

func (b *breaker) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cb = b.build()
	b.lastReason = ""
}
