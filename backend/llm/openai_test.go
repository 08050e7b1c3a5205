package llm_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

var user = []llm.Message{{Role: llm.RoleUser, Content: "hello"}}

// sleeps records backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

// fast are options for tests: own breaker registry, tiny backoffs, quiet
// logs.
func fast(extra ...llm.Option) []llm.Option {
	opts := []llm.Option{
		llm.WithBreakerRegistry(llm.NewBreakerRegistry()),
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond}),
		llm.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	}
	return append(opts, extra...)
}

func newClient(t *testing.T, baseURL string, opts ...llm.Option) *llm.OpenAI {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: baseURL, Model: "test-model", APIKey: "sk-test-key", Timeout: 5 * time.Second}, fast(opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func asError(t *testing.T, err error) *llm.Error {
	t.Helper()
	var e *llm.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not *llm.Error", err, err)
	}
	return e
}

// closedURL is a base URL where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func TestPlainChat(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Text: "hi there", Usage: &llmtest.Usage{PromptTokens: 12, CompletionTokens: 3}}))
	c := newClient(t, srv.URL)
	temp := 0.2
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "be brief"}, {Role: llm.RoleUser, Content: "hello"}}
	r, err := c.Chat(context.Background(), msgs, llm.Options{Temperature: &temp, MaxTokens: 50})
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Reply{Text: "hi there", FinishReason: "stop", Usage: llm.Usage{PromptTokens: 12, CompletionTokens: 3, TotalTokens: 15}}
	if r.Text != want.Text || r.FinishReason != want.FinishReason || r.Usage != want.Usage || len(r.ToolCalls) != 0 {
		t.Fatalf("reply %+v, want %+v", r, want)
	}
	if srv.Calls() != 1 {
		t.Fatalf("calls %d", srv.Calls())
	}
	req, _ := srv.LastRequest()
	if req.Path != "/v1/chat/completions" || req.Model != "test-model" || req.Stream || req.MaxTokens != 50 ||
		req.Temperature == nil || *req.Temperature != 0.2 || req.Authorization != "Bearer sk-test-key" {
		t.Fatalf("request %+v", req)
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content != "be brief" ||
		req.Messages[1].Role != "user" || req.Messages[1].Content != "hello" {
		t.Fatalf("messages %+v", req.Messages)
	}
}

func TestStreamingDeltasInOrder(t *testing.T) {
	chunks := []string{"{\"a\"", ": 1", ", \"b\": ", "[1, 2]", "}"}
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{
		Text: strings.Join(chunks, ""), Chunks: chunks, ChunkDelay: 5 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 7, CompletionTokens: 9},
	}))
	c := newClient(t, srv.URL)
	var got []string
	var stamps []time.Time
	r, err := c.Chat(context.Background(), user, llm.Options{OnDelta: func(d string) {
		got = append(got, d)
		stamps = append(stamps, time.Now())
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != strings.Join(chunks, "|") {
		t.Fatalf("deltas %q, want %q", got, chunks)
	}
	if r.Text != strings.Join(chunks, "") || r.FinishReason != "stop" {
		t.Fatalf("reply %+v", r)
	}
	if r.Usage != (llm.Usage{PromptTokens: 7, CompletionTokens: 9, TotalTokens: 16}) {
		t.Fatalf("usage %+v", r.Usage)
	}
	// Deltas arrive as the server sends them, not all at the end.
	if stamps[len(stamps)-1].Sub(stamps[0]) < 10*time.Millisecond {
		t.Fatalf("deltas were not delivered progressively: %v", stamps)
	}
	req, _ := srv.LastRequest()
	if !req.Stream || !req.IncludeUsage {
		t.Fatalf("stream %v include_usage %v", req.Stream, req.IncludeUsage)
	}
}

func TestStreamingWithoutUsage(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Text: "no usage here", NoUsage: true}))
	c := newClient(t, srv.URL)
	var b strings.Builder
	r, err := c.Chat(context.Background(), user, llm.Options{OnDelta: func(d string) { b.WriteString(d) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Text != "no usage here" || b.String() != r.Text || r.Usage != (llm.Usage{}) {
		t.Fatalf("reply %+v, deltas %q", r, b.String())
	}
}

func TestFinishReasonLength(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Truncated("cut of"), llmtest.Truncated("cut of")))
	c := newClient(t, srv.URL)
	r, err := c.Chat(context.Background(), user, llm.Options{})
	if err != nil || r.FinishReason != "length" || r.Text != "cut of" {
		t.Fatalf("plain: %+v %v", r, err)
	}
	r, err = c.Chat(context.Background(), user, llm.Options{OnDelta: func(string) {}})
	if err != nil || r.FinishReason != "length" || r.Text != "cut of" {
		t.Fatalf("stream: %+v %v", r, err)
	}
}

func TestUsageAccounting(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithHandler(func(r llmtest.Request) llmtest.Step {
		return llmtest.Step{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 10, CompletionTokens: 2}}
	}))
	var m llm.Meter
	c := newClient(t, srv.URL, llm.WithMeter(&m))
	var session llm.Meter
	mc := llm.Metered(c, &session)

	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := llm.Options{}
			if i%2 == 0 {
				opts.OnDelta = func(string) {}
			}
			if _, err := mc.Chat(context.Background(), user, opts); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	want := llm.Totals{Calls: 8, PromptTokens: 80, CompletionTokens: 16, TotalTokens: 96}
	if got := m.Totals(); got != want {
		t.Fatalf("client meter %+v, want %+v", got, want)
	}
	if got := session.Totals(); got != want {
		t.Fatalf("session meter %+v, want %+v", got, want)
	}

	// A failed call counts as a failure, and retries inside one call are
	// not extra calls.
	srv2 := llmtest.Start(t, llmtest.WithSteps(llmtest.Fault(503, "busy"), llmtest.Step{Text: "ok", Usage: &llmtest.Usage{PromptTokens: 1, CompletionTokens: 1}}, llmtest.Fault(401, "no")))
	var m2 llm.Meter
	c2 := newClient(t, srv2.URL, llm.WithMeter(&m2))
	if _, err := c2.Chat(context.Background(), user, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Chat(context.Background(), user, llm.Options{}); err == nil {
		t.Fatal("want 401 error")
	}
	if got := m2.Totals(); got != (llm.Totals{Calls: 1, Failures: 1, PromptTokens: 1, CompletionTokens: 1, TotalTokens: 2}) {
		t.Fatalf("meter %+v", got)
	}
	if got := m2.Reset(); got.Calls != 1 || m2.Totals() != (llm.Totals{}) {
		t.Fatalf("reset %+v then %+v", got, m2.Totals())
	}
}

func TestRetryAfterSecondsThenSuccess(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("2"), llmtest.Reply("finally")))
	var s sleeps
	c := newClient(t, srv.URL, llm.WithSleep(s.sleep))
	r, err := c.Chat(context.Background(), user, llm.Options{})
	if err != nil || r.Text != "finally" {
		t.Fatalf("%+v %v", r, err)
	}
	if srv.Calls() != 2 {
		t.Fatalf("calls %d", srv.Calls())
	}
	if d := s.all(); len(d) != 1 || d[0] < 2*time.Second {
		t.Fatalf("waits %v, want one of at least 2s", d)
	}
}

func TestRetryAfterHTTPDateAndCap(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	srv := llmtest.Start(t, llmtest.WithSteps(
		llmtest.RateLimit(now.Add(5*time.Second).Format(http.TimeFormat)),
		llmtest.Step{Status: 503, RetryAfter: "86400"},
		llmtest.Reply("ok"),
	))
	var s sleeps
	c := newClient(t, srv.URL, llm.WithSleep(s.sleep), llm.WithClock(func() time.Time { return now }),
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 3, BaseDelay: time.Millisecond, MaxRetryAfter: 10 * time.Second}))
	// A wait within the cap is waited; one past it fails at once, saying
	// when to try again, instead of an hour's silence or a retry the
	// server said not to make.
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if err == nil || !strings.Contains(err.Error(), "retry after 12:00 (in 24h0m0s), longer than Weft waits (10s)") || !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err %v", err)
	}
	if d := s.all(); len(d) != 1 || d[0] != 5*time.Second {
		t.Fatalf("waits %v, want [5s] (the HTTP date)", d)
	}
	if srv.Calls() != 2 {
		t.Fatalf("calls %d", srv.Calls())
	}
}

func TestRetryAfterRealWait(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Status: 429, RetryAfter: "0.2"}, llmtest.Reply("ok")))
	c := newClient(t, srv.URL)
	start := time.Now()
	if _, err := c.Chat(context.Background(), user, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 200*time.Millisecond {
		t.Fatalf("returned after %v, before the Retry-After of 200ms", el)
	}
}

func TestServerErrorsThenSuccess(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Fault(500, "oops"), llmtest.Fault(502, "bad gateway"), llmtest.Reply("ok")))
	var s sleeps
	c := newClient(t, srv.URL, llm.WithSleep(s.sleep),
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 3, BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}))
	r, err := c.Chat(context.Background(), user, llm.Options{})
	if err != nil || r.Text != "ok" {
		t.Fatalf("%+v %v", r, err)
	}
	if srv.Calls() != 3 {
		t.Fatalf("calls %d", srv.Calls())
	}
	d := s.all()
	if len(d) != 2 || d[0] < 50*time.Millisecond || d[0] > 100*time.Millisecond || d[1] < 100*time.Millisecond || d[1] > 200*time.Millisecond {
		t.Fatalf("backoffs %v, want ~[50..100ms, 100..200ms] (exponential, jittered)", d)
	}
}

func TestRetriesAreBounded(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Fault(503, "overloaded")))
	c := newClient(t, srv.URL)
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrRejected) {
		t.Fatalf("err %v", err)
	}
	e := asError(t, err)
	if e.Attempts != 4 || srv.Calls() != 4 || e.StatusCode != 503 || e.ServerMessage != "overloaded" {
		t.Fatalf("attempts %d calls %d status %d msg %q", e.Attempts, srv.Calls(), e.StatusCode, e.ServerMessage)
	}
	want := "LLM at " + srv.URL + " answered with a server error: 503 Service Unavailable: overloaded (4 attempts); the model server failed, not the request: try again, or look at the server's log"
	if err.Error() != want {
		t.Fatalf("message\n%q\nwant\n%q", err.Error(), want)
	}
}

func TestConnectionRefused(t *testing.T) {
	url := closedURL(t)
	c := newClient(t, url)
	start := time.Now()
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("took %v", el)
	}
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err %v", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "LLM at "+url+" unreachable: connection refused") || !strings.HasSuffix(msg, "; check Preferences → Model") {
		t.Fatalf("message %q", msg)
	}
	if asError(t, err).Attempts != 4 {
		t.Fatalf("attempts %d", asError(t, err).Attempts)
	}
}

func TestHangingServerTimesOut(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Hang()))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", Timeout: 150 * time.Millisecond},
		fast(llm.WithRetry(llm.RetryPolicy{MaxRetries: 1, BaseDelay: time.Millisecond}))...)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.Chat(context.Background(), user, llm.Options{})
	el := time.Since(start)
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "no response within 150ms") {
		t.Fatalf("err %v", err)
	}
	if el < 300*time.Millisecond || el > 2*time.Second {
		t.Fatalf("took %v, want about 2×150ms", el)
	}
	if srv.Calls() != 2 {
		t.Fatalf("calls %d", srv.Calls())
	}
}

func TestStalledStreamTimesOut(t *testing.T) {
	// The first reply stalls between chunks longer than the timeout; the
	// retry gets a normal reply.
	srv := llmtest.Start(t, llmtest.WithSteps(
		llmtest.Step{Text: "a b c", ChunkDelay: 2 * time.Second},
		llmtest.Step{Text: "x y", ChunkDelay: 50 * time.Millisecond},
	))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", Timeout: 200 * time.Millisecond}, fast()...)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var resets atomic.Int32
	r, err := c.Chat(context.Background(), user, llm.Options{OnDelta: func(string) {}, OnReset: func() { resets.Add(1) }})
	if err != nil || r.Text != "x y" {
		t.Fatalf("%+v %v", r, err)
	}
	if el := time.Since(start); el > 1500*time.Millisecond {
		t.Fatalf("took %v", el)
	}
	if resets.Load() != 1 {
		t.Fatalf("OnReset called %d times, want 1 (the first stream delivered \"a\")", resets.Load())
	}
	// A stream slower in total than the timeout, but never idle that
	// long, is not cut.
	srv.Enqueue(llmtest.Step{Text: "one two three four five six", ChunkDelay: 60 * time.Millisecond})
	r, err = c.Chat(context.Background(), user, llm.Options{OnDelta: func(string) {}})
	if err != nil || r.Text != "one two three four five six" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Step{Status: 503, RetryAfter: "30"}))
	c := newClient(t, srv.URL) // real sleep
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Chat(ctx, user, llm.Options{})
	if el := time.Since(start); el > time.Second {
		t.Fatalf("took %v after cancel", el)
	}
	if !errors.Is(err, context.Canceled) || !errors.Is(err, llm.ErrCanceled) || llm.IsEndpointError(err) {
		t.Fatalf("err %v", err)
	}
	if srv.Calls() != 1 {
		t.Fatalf("calls %d", srv.Calls())
	}
}

func TestCancelDuringRequest(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Hang()))
	c := newClient(t, srv.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Chat(ctx, user, llm.Options{OnDelta: func(string) {}})
	if el := time.Since(start); el > time.Second {
		t.Fatalf("took %v", el)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, llm.ErrCanceled) {
		t.Fatalf("err %v", err)
	}
}

func TestCircuitBreakerOpensAndRecovers(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Fault(500, "down")))
	reg := llm.NewBreakerRegistry()
	c := newClient(t, srv.URL, llm.WithBreakerRegistry(reg),
		llm.WithBreaker(llm.BreakerSettings{Failures: 3, Cooldown: 200 * time.Millisecond}),
		llm.WithRetry(llm.RetryPolicy{MaxRetries: -1}))
	for i := range 3 {
		_, err := c.Chat(context.Background(), user, llm.Options{})
		if !errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrCircuitOpen) {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if srv.Calls() != 3 {
		t.Fatalf("calls %d", srv.Calls())
	}
	start := time.Now()
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrCircuitOpen) || !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("err %v", err)
	}
	if time.Since(start) > 250*time.Millisecond || srv.Calls() != 3 {
		t.Fatalf("open circuit still called the server (calls %d) or was slow", srv.Calls())
	}
	want := "LLM at " + srv.URL + " keeps failing with a server error: 500 Internal Server Error: down (paused after repeated failures); Weft waits before asking it again (check the server or Preferences → Model)"
	if err.Error() != want {
		t.Fatalf("message\n%q\nwant\n%q", err.Error(), want)
	}
	// Another client for the same endpoint shares the breaker.
	c2 := newClient(t, srv.URL, llm.WithBreakerRegistry(reg))
	if _, err := c2.Chat(context.Background(), user, llm.Options{}); !errors.Is(err, llm.ErrCircuitOpen) {
		t.Fatalf("shared breaker: %v", err)
	}
	// After the cool-down one trial goes through; success closes it.
	time.Sleep(250 * time.Millisecond)
	srv.Enqueue(llmtest.Reply("back"))
	r, err := c.Chat(context.Background(), user, llm.Options{})
	if err != nil || r.Text != "back" {
		t.Fatalf("%+v %v", r, err)
	}
	srv.Enqueue(llmtest.Reply("again"))
	if r, err := c.Chat(context.Background(), user, llm.Options{}); err != nil || r.Text != "again" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestCircuitBreakerCountsAttemptsAcrossRetries(t *testing.T) {
	url := closedURL(t)
	c := newClient(t, url, llm.WithBreaker(llm.BreakerSettings{Failures: 5, Cooldown: time.Minute}))
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if e := asError(t, err); e.Attempts != 4 || errors.Is(err, llm.ErrCircuitOpen) {
		t.Fatalf("first call: attempts %d, %v", e.Attempts, err)
	}
	// The fifth failed attempt opens the circuit in the middle of the
	// second call's retries.
	_, err = c.Chat(context.Background(), user, llm.Options{})
	if e := asError(t, err); !errors.Is(err, llm.ErrCircuitOpen) || e.Attempts != 1 {
		t.Fatalf("second call: attempts %d, %v", e.Attempts, err)
	}
	if want := "LLM at " + url + " unreachable: connection refused (paused after repeated failures); check Preferences → Model"; err.Error() != want {
		t.Fatalf("message %q", err.Error())
	}
}

func TestRateLimitsDoNotTripBreaker(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.RateLimit("0")))
	c := newClient(t, srv.URL, llm.WithBreaker(llm.BreakerSettings{Failures: 2}))
	for range 3 {
		_, err := c.Chat(context.Background(), user, llm.Options{})
		if errors.Is(err, llm.ErrCircuitOpen) || !errors.Is(err, llm.ErrUnreachable) {
			t.Fatalf("err %v", err)
		}
	}
	if srv.Calls() != 12 {
		t.Fatalf("calls %d", srv.Calls())
	}
}

func TestUnauthorizedNotRetried(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithAPIKey("sk-right"), llmtest.WithSteps(llmtest.Reply("never")))
	c := newClient(t, srv.URL) // key sk-test-key
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrRejected) || errors.Is(err, llm.ErrUnreachable) || !llm.IsEndpointError(err) {
		t.Fatalf("err %v", err)
	}
	if srv.Calls() != 1 {
		t.Fatalf("calls %d, want 1 (no retry)", srv.Calls())
	}
	want := "LLM at " + srv.URL + " rejected the request: 401 Unauthorized: Incorrect API key provided.; check the API key in Preferences → Model"
	if err.Error() != want {
		t.Fatalf("message\n%q\nwant\n%q", err.Error(), want)
	}
	if e := asError(t, err); e.StatusCode != 401 {
		t.Fatalf("status %d", e.StatusCode)
	}
}

func TestNotFoundModel(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Status: 404, Body: `{"error":"model \"nope\" not found, try pulling it first"}`}))
	c := newClient(t, srv.URL)
	_, err := c.Chat(context.Background(), user, llm.Options{})
	want := "LLM at " + srv.URL + ` rejected the request: 404 Not Found: model "nope" not found, try pulling it first; check the base URL (usually ending in /v1) and the model name in Preferences → Model`
	if !errors.Is(err, llm.ErrRejected) || err.Error() != want || srv.Calls() != 1 {
		t.Fatalf("message\n%q\nwant\n%q", err, want)
	}
}

func TestAPIKeyNeverInErrorsOrLogs(t *testing.T) {
	const key = "sk-SECRET-0123456789abcdefghij"
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	echoKey := func(status int) llmtest.Step {
		return llmtest.Step{Status: status, Body: `{"error":{"message":"Incorrect API key provided: ` + key + `. Also sk-SECRET-01234...fghij"}}`}
	}
	srv := llmtest.Start(t, llmtest.WithSteps(echoKey(401), echoKey(500), echoKey(500), echoKey(500), echoKey(500), llmtest.Reply("ok")))
	mk := func(base string) *llm.OpenAI {
		c, err := llm.New(llm.Config{BaseURL: base, Model: "m", APIKey: key, Timeout: time.Second}, fast(llm.WithLogger(logger))...)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := mk(srv.URL)
	var errs []error
	for range 3 {
		_, err := c.Chat(context.Background(), user, llm.Options{})
		errs = append(errs, err)
	}
	_, err := mk(closedURL(t)).Chat(context.Background(), user, llm.Options{})
	errs = append(errs, err)
	_, err = mk(srv.URL).TestConnection(context.Background())
	errs = append(errs, err)
	_, err = llm.New(llm.Config{BaseURL: "ftp://user:" + key + "@host", Model: "m", APIKey: key})
	errs = append(errs, err)
	for i, err := range errs {
		if i < 2 || i == 3 || i == 5 {
			if err == nil {
				t.Fatalf("case %d: want an error", i)
			}
		}
		if err == nil {
			continue
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprint(errors.Unwrap(err))} {
			if strings.Contains(s, key) || strings.Contains(s, "0123456789abcdefghij") {
				t.Fatalf("case %d: key in error text %q", i, s)
			}
		}
	}
	if !strings.Contains(errs[0].Error(), "[redacted]") {
		t.Fatalf("server echo not redacted: %q", errs[0])
	}
	if logs.Len() == 0 || !strings.Contains(logs.String(), "retrying") {
		t.Fatalf("expected debug logs of retries, got %q", logs.String())
	}
	if strings.Contains(logs.String(), key) || strings.Contains(logs.String(), "0123456789abcdefghij") {
		t.Fatalf("key in logs:\n%s", logs.String())
	}
	// The key does reach the server, as a bearer token.
	if req, _ := srv.LastRequest(); req.Authorization != "Bearer "+key {
		t.Fatalf("authorization %q", req.Authorization)
	}
}

func TestConfigErrorsBeforeNetwork(t *testing.T) {
	cases := []llm.Config{
		{BaseURL: "", Model: "m"},
		{BaseURL: "   ", Model: "m"},
		{BaseURL: "http://localhost:1/v1", Model: ""},
		{BaseURL: "ftp://example.com", Model: "m"},
		{BaseURL: "http://", Model: "m"},
		{BaseURL: "http://localhost:1/v1", Model: "m", Timeout: -time.Second},
	}
	for _, cfg := range cases {
		_, err := llm.New(cfg)
		if !errors.Is(err, llm.ErrConfig) || !strings.HasPrefix(err.Error(), "LLM not configured: ") ||
			!strings.HasSuffix(err.Error(), "Preferences → Model") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
	_, err := llm.New(llm.Config{BaseURL: "", Model: "m"})
	if err.Error() != "LLM not configured: base URL is empty; set it in Preferences → Model" {
		t.Errorf("message %q", err)
	}
}

func TestBaseURLNormalisation(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithEcho())
	for _, base := range []string{srv.RootURL, srv.RootURL + "/", srv.URL + "/", srv.URL + "/chat/completions", strings.TrimPrefix(srv.RootURL, "http://")} {
		c := newClient(t, base)
		if c.Endpoint() != srv.URL {
			t.Errorf("%q: endpoint %q, want %q", base, c.Endpoint(), srv.URL)
		}
		if r, err := c.Chat(context.Background(), user, llm.Options{}); err != nil || r.Text != "hello" {
			t.Errorf("%q: %+v %v", base, r, err)
		}
	}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("path %q", r.Path)
		}
	}
}

func TestDroppedConnectionRetried(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Drop(), llmtest.Reply("ok")))
	c := newClient(t, srv.URL)
	r, err := c.Chat(context.Background(), user, llm.Options{})
	if err != nil || r.Text != "ok" || srv.Calls() != 2 {
		t.Fatalf("%+v %v calls %d", r, err, srv.Calls())
	}
	// Always dropping: a clear message.
	srv.Enqueue(llmtest.Drop(), llmtest.Drop(), llmtest.Drop(), llmtest.Drop())
	_, err = c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "unreachable: connection closed unexpectedly (4 attempts)") {
		t.Fatalf("err %v", err)
	}
}

func TestStreamBrokenMidwayIsRetriedWithReset(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(
		llmtest.Step{Text: "alpha beta gamma", DropAfter: 2},
		llmtest.Reply("alpha beta gamma"),
	))
	c := newClient(t, srv.URL)
	var got []string
	resets := 0
	r, err := c.Chat(context.Background(), user, llm.Options{
		OnDelta: func(d string) { got = append(got, d) },
		OnReset: func() { resets++; got = nil },
	})
	if err != nil || r.Text != "alpha beta gamma" {
		t.Fatalf("%+v %v", r, err)
	}
	if resets != 1 || strings.Join(got, "") != "alpha beta gamma" || srv.Calls() != 2 {
		t.Fatalf("resets %d deltas %q calls %d", resets, got, srv.Calls())
	}
	// Ended before any finish_reason (all content sent, then dropped).
	srv.Enqueue(llmtest.Step{Text: "x", DropAfter: 1}, llmtest.Reply("y"))
	r, err = c.Chat(context.Background(), user, llm.Options{OnDelta: func(string) {}})
	if err != nil || r.Text != "y" {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestToolCalls(t *testing.T) {
	calls := []llmtest.ToolCall{{ID: "call_1", Name: "search", Arguments: `{"q":"weft"}`}, {Name: "open", Arguments: `{}`}}
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.ToolCallReply(calls...), llmtest.ToolCallReply(calls...), llmtest.Reply("done")))
	c := newClient(t, srv.URL)
	tools := []llm.Tool{{Name: "search", Description: "search the web", Parameters: map[string]any{
		"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}, "required": []string{"q"},
	}}, {Name: "open"}}
	for _, stream := range []bool{false, true} {
		opts := llm.Options{Tools: tools, ToolChoice: "auto"}
		if stream {
			opts.OnDelta = func(string) {}
		}
		r, err := c.Chat(context.Background(), user, opts)
		if err != nil {
			t.Fatal(err)
		}
		if r.FinishReason != "tool_calls" || len(r.ToolCalls) != 2 ||
			r.ToolCalls[0] != (llm.ToolCall{ID: "call_1", Name: "search", Arguments: `{"q":"weft"}`}) ||
			r.ToolCalls[1].Name != "open" || r.ToolCalls[1].Arguments != "{}" || r.ToolCalls[1].ID == "" {
			t.Fatalf("stream=%v: %+v", stream, r)
		}
	}
	req, _ := srv.LastRequest()
	if len(req.Tools) != 2 || req.Tools[0].Name != "search" || req.Tools[0].Description != "search the web" ||
		!strings.Contains(string(req.Tools[0].Parameters), `"required":["q"]`) || string(req.ToolChoice) != `"auto"` {
		t.Fatalf("tools %+v choice %s", req.Tools, req.ToolChoice)
	}
	// The conversation goes back with the calls and their results.
	msgs := append(append([]llm.Message{}, user...),
		llm.Message{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "call_1", Name: "search", Arguments: `{"q":"weft"}`}}},
		llm.Message{Role: llm.RoleTool, ToolCallID: "call_1", Content: "3 results"},
	)
	r, err := c.Chat(context.Background(), msgs, llm.Options{Tools: tools, ToolChoice: "search"})
	if err != nil || r.Text != "done" {
		t.Fatalf("%+v %v", r, err)
	}
	req, _ = srv.LastRequest()
	if len(req.Messages) != 3 || req.Messages[1].Role != "assistant" || len(req.Messages[1].ToolCalls) != 1 ||
		req.Messages[1].ToolCalls[0].Name != "search" || req.Messages[2].Role != "tool" ||
		req.Messages[2].ToolCallID != "call_1" || req.Messages[2].Content != "3 results" ||
		!strings.Contains(string(req.ToolChoice), `"name":"search"`) {
		t.Fatalf("messages %+v choice %s", req.Messages, req.ToolChoice)
	}
}

func TestBadResponseNotRetried(t *testing.T) {
	var n atomic.Int32
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html>a web page</html>")
	}))
	defer ts.Close()
	c := newClient(t, ts.URL)
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrBadResponse) || n.Load() != 1 ||
		!strings.Contains(err.Error(), "is not an OpenAI-compatible chat completion") {
		t.Fatalf("err %v, requests %d", err, n.Load())
	}
	ts2 := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"chat.completion","choices":[]}`)
	}))
	defer ts2.Close()
	_, err = newClient(t, ts2.URL).Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrBadResponse) || !strings.Contains(err.Error(), "no choices") {
		t.Fatalf("err %v", err)
	}
}

func TestStreamOptionsRefusedFallsBack(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithHandler(func(r llmtest.Request) llmtest.Step {
		if r.IncludeUsage {
			return llmtest.Step{Status: 400, Body: `{"error":{"message":"Unrecognized request argument supplied: stream_options"}}`}
		}
		return llmtest.Reply("streamed anyway")
	}))
	c := newClient(t, srv.URL)
	r, err := c.Chat(context.Background(), user, llm.Options{OnDelta: func(string) {}})
	if err != nil || r.Text != "streamed anyway" || srv.Calls() != 2 {
		t.Fatalf("%+v %v calls %d", r, err, srv.Calls())
	}
}

func TestShouldRetryFalseHeader(t *testing.T) {
	srv := llmtest.Start(t) // script exhausted: 500 with X-Should-Retry: false
	c := newClient(t, srv.URL)
	_, err := c.Chat(context.Background(), user, llm.Options{})
	if !errors.Is(err, llm.ErrUnreachable) || srv.Calls() != 1 || !strings.Contains(err.Error(), "script exhausted") {
		t.Fatalf("err %v calls %d", err, srv.Calls())
	}
}

func TestTestConnection(t *testing.T) {
	t.Run("model listed", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithModels("other", "test-model"))
		info, err := newClient(t, srv.URL).TestConnection(context.Background())
		if err != nil || !info.ModelListed || info.ChatChecked || len(info.Models) != 2 || srv.Calls() != 0 {
			t.Fatalf("%+v %v", info, err)
		}
		if !strings.Contains(info.Message, `model "test-model" is available (the server lists 2 models)`) {
			t.Fatalf("message %q", info.Message)
		}
	})
	t.Run("one model listed", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithModels("test-model"))
		info, err := newClient(t, srv.URL).TestConnection(context.Background())
		if err != nil || !strings.HasSuffix(info.Message, "(the server lists 1 model).") {
			t.Fatalf("message %q %v", info.Message, err)
		}
	})
	t.Run("no models endpoint", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithoutModels(), llmtest.WithSteps(llmtest.Reply("O")))
		info, err := newClient(t, srv.URL).TestConnection(context.Background())
		if err != nil || info.ModelListed || !info.ChatChecked || srv.Calls() != 1 {
			t.Fatalf("%+v %v", info, err)
		}
		if req, _ := srv.LastRequest(); req.MaxTokens != 1 {
			t.Fatalf("max_tokens %d", req.MaxTokens)
		}
	})
	t.Run("bad key", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithAPIKey("sk-other"))
		_, err := newClient(t, srv.URL).TestConnection(context.Background())
		if !errors.Is(err, llm.ErrRejected) || !strings.Contains(err.Error(), "check the API key") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("unknown model", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithModels("llama3"), llmtest.WithSteps(llmtest.Fault(404, "model not found")))
		info, err := newClient(t, srv.URL).TestConnection(context.Background())
		if !errors.Is(err, llm.ErrRejected) || len(info.Models) != 1 {
			t.Fatalf("%+v %v", info, err)
		}
	})
	t.Run("refused", func(t *testing.T) {
		c := newClient(t, closedURL(t))
		start := time.Now()
		err := c.Ping(context.Background())
		if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "connection refused") || time.Since(start) > time.Second {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("resets breaker", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithModels("test-model"), llmtest.WithSteps(llmtest.Fault(500, "x"), llmtest.Reply("ok")))
		c := newClient(t, srv.URL, llm.WithBreaker(llm.BreakerSettings{Failures: 1, Cooldown: time.Hour}), llm.WithRetry(llm.RetryPolicy{MaxRetries: -1}))
		c.Chat(context.Background(), user, llm.Options{})
		if _, err := c.Chat(context.Background(), user, llm.Options{}); !errors.Is(err, llm.ErrCircuitOpen) {
			t.Fatalf("err %v", err)
		}
		if err := c.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r, err := c.Chat(context.Background(), user, llm.Options{}); err != nil || r.Text != "ok" {
			t.Fatalf("%+v %v", r, err)
		}
	})
}

func TestEnvironmentDoesNotLeak(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	srv := llmtest.Start(t, llmtest.WithEcho())
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"}, fast()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Chat(context.Background(), user, llm.Options{}); err != nil {
		t.Fatal(err)
	}
	if req, _ := srv.LastRequest(); req.Authorization != "" {
		t.Fatalf("authorization %q sent without a configured key", req.Authorization)
	}
}

func TestRefusedParametersAdapt(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithHandler(func(r llmtest.Request) llmtest.Step {
		body := r.Body
		switch {
		case strings.Contains(body, `"max_tokens"`):
			return llmtest.Step{Status: 400, Body: `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","param":"max_tokens"}}`}
		case strings.Contains(body, `"temperature"`):
			return llmtest.Step{Status: 400, Body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported."}}`}
		}
		return llmtest.Reply("adapted")
	}))
	c := newClient(t, srv.URL)
	temp := 0.2
	r, err := c.Chat(context.Background(), user, llm.Options{MaxTokens: 20, Temperature: &temp})
	if err != nil || r.Text != "adapted" || srv.Calls() != 3 {
		t.Fatalf("%+v %v calls %d", r, err, srv.Calls())
	}
	req, _ := srv.LastRequest()
	if req.MaxTokens != 20 || req.Temperature != nil || !strings.Contains(req.Body, `"max_completion_tokens":20`) {
		t.Fatalf("%+v", req)
	}
	// The client remembers: the next call goes through at once.
	if _, err := c.Chat(context.Background(), user, llm.Options{MaxTokens: 20, Temperature: &temp}); err != nil || srv.Calls() != 4 {
		t.Fatalf("%v calls %d", err, srv.Calls())
	}
	// A 400 about something else is an ordinary rejection, sent once.
	srv2 := llmtest.Start(t, llmtest.WithDefault(llmtest.Fault(400, "messages: too long")))
	_, err = newClient(t, srv2.URL).Chat(context.Background(), user, llm.Options{MaxTokens: 5, Temperature: &temp})
	if !errors.Is(err, llm.ErrRejected) || srv2.Calls() != 1 {
		t.Fatalf("%v calls %d", err, srv2.Calls())
	}
}
