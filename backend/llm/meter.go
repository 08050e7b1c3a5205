package llm

import (
	"context"
	"sync"
)

// Totals are the accumulated figures of a Meter.
type Totals struct {
	// Calls counts Chat calls that returned a reply (transport retries
	// inside one call do not count).
	Calls int `json:"llm_calls"`
	// Failures counts Chat calls that returned an error.
	Failures         int `json:"llm_failures"`
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Meter accumulates token usage across calls. It is safe for concurrent
// use; the zero value is ready.
type Meter struct {
	mu sync.Mutex
	t  Totals
}

// Record adds one successful call and its usage.
func (m *Meter) Record(u Usage) {
	if m == nil {
		return
	}
	total := u.TotalTokens
	if total == 0 {
		total = u.PromptTokens + u.CompletionTokens
	}
	m.mu.Lock()
	m.t.Calls++
	m.t.PromptTokens += u.PromptTokens
	m.t.CompletionTokens += u.CompletionTokens
	m.t.TotalTokens += total
	m.mu.Unlock()
}

// RecordFailure adds one failed call.
func (m *Meter) RecordFailure() {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.t.Failures++
	m.mu.Unlock()
}

// Totals returns the figures so far.
func (m *Meter) Totals() Totals {
	if m == nil {
		return Totals{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.t
}

// Reset zeroes the meter and returns what it held.
func (m *Meter) Reset() Totals {
	if m == nil {
		return Totals{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.t
	m.t = Totals{}
	return t
}

// Metered wraps any Client so its calls are recorded in m. Use it to meter
// one planning session or run; the OpenAI client can also record into a
// Meter itself (WithMeter).
func Metered(c Client, m *Meter) Client { return meteredClient{c: c, m: m} }

type meteredClient struct {
	c Client
	m *Meter
}

func (mc meteredClient) Chat(ctx context.Context, messages []Message, opts Options) (Reply, error) {
	r, err := mc.c.Chat(ctx, messages, opts)
	if err != nil {
		mc.m.RecordFailure()
		return r, err
	}
	mc.m.Record(r.Usage)
	return r, nil
}
