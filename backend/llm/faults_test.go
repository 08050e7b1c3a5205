package llm_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

// A stalled server costs one call's total bound, not attempts × timeout,
// and the caller hears about the wait while it lasts.
func TestStalledServerEndsWithinTheTotalBound(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Hang()))
	var mu sync.Mutex
	var progress []llm.Progress
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", Timeout: 300 * time.Millisecond, TotalTimeout: 800 * time.Millisecond},
		llm.WithBreakerRegistry(llm.NewBreakerRegistry()),
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 10, BaseDelay: 10 * time.Millisecond, ProgressEvery: 100 * time.Millisecond}),
		llm.WithProgress(func(p llm.Progress) {
			mu.Lock()
			progress = append(progress, p)
			mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, llm.Options{})
	took := time.Since(start)
	if took > 2*time.Second {
		t.Fatalf("took %v with a total bound of 800ms", took)
	}
	if err == nil || !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "no answer within 800ms, the bound of one call") {
		t.Fatalf("err %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	var ticks, waits int
	for _, p := range progress {
		if p.Waiting > 0 {
			waits++
		} else if p.Elapsed > 0 {
			ticks++
		}
	}
	if ticks == 0 || waits == 0 {
		t.Fatalf("progress %+v: want ticks while waiting and a report of each retry wait", progress)
	}
}

func TestRateLimitsAreNamed(t *testing.T) {
	t.Run("short wait: retried", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("1"), llmtest.Reply("ok")))
		var got []llm.Progress
		c := newClient(t, srv.URL, llm.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }),
			llm.WithProgress(func(p llm.Progress) { got = append(got, p) }))
		r, err := c.Chat(context.Background(), user, llm.Options{})
		if err != nil || r.Text != "ok" {
			t.Fatalf("%+v %v", r, err)
		}
		if len(got) != 1 || got[0].Waiting != time.Second || !strings.Contains(got[0].Reason, "rate limited by the model server") {
			t.Fatalf("progress %+v", got)
		}
	})
	t.Run("long wait: fails at once with the time", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("3600"), llmtest.Reply("never")))
		now := time.Date(2026, 11, 24, 9, 30, 0, 0, time.UTC)
		var s sleeps
		c := newClient(t, srv.URL, llm.WithSleep(s.sleep), llm.WithClock(func() time.Time { return now }))
		_, err := c.Chat(context.Background(), user, llm.Options{})
		if !errors.Is(err, llm.ErrRateLimited) || !errors.Is(err, llm.ErrUnreachable) {
			t.Fatalf("err %v", err)
		}
		for _, want := range []string{"rate limited the request", "rate limited by the model server (429 Too Many Requests)", "retry after 10:30 (in 1h0m0s)"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q lacks %q", err, want)
			}
		}
		if len(s.all()) != 0 || srv.Calls() != 1 {
			t.Fatalf("waited %v, %d calls", s.all(), srv.Calls())
		}
	})
	t.Run("always limited: named, not unreachable", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithDefault(llmtest.RateLimit("")))
		c := newClient(t, srv.URL, llm.WithSleep(func(ctx context.Context, d time.Duration) error { return ctx.Err() }))
		_, err := c.Chat(context.Background(), user, llm.Options{})
		if !errors.Is(err, llm.ErrRateLimited) || strings.Contains(err.Error(), "unreachable") || !strings.Contains(err.Error(), "attempts") {
			t.Fatalf("err %v", err)
		}
	})
}
