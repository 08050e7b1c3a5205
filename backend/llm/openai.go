package llm

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"
)

// DefaultTimeout bounds one HTTP request when Config.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// DefaultTotalTimeout bounds a whole call (its attempts and the waits
// between them) when Config.TotalTimeout is zero.
const DefaultTotalTimeout = 5 * time.Minute

// OpenAI is a Client for any OpenAI-compatible chat-completions endpoint
// (Ollama, LM Studio, llama.cpp server, vLLM, OpenAI, OpenRouter, ...),
// built on github.com/openai/openai-go/v3. It is safe for concurrent use.
//
// Transport faults are retried here (RetryPolicy) and guarded by a
// per-endpoint circuit breaker; callers never see them as content problems.
type OpenAI struct {
	endpoint string // base URL for messages and logs: no credentials
	model    string
	timeout  time.Duration
	total    time.Duration
	progress func(Progress)
	// format is the structured_output setting; formatMem remembers what a
	// server accepts, formatLearned the same for this client alone.
	format        string
	formatMem     FormatMemory
	formatLearned atomic.Value

	chat   openai.ChatCompletionService
	models openai.ModelService

	retry    RetryPolicy
	breaker  *breaker
	registry *BreakerRegistry
	sleep    func(ctx context.Context, d time.Duration) error
	now      func() time.Time
	log      *slog.Logger
	meter    *Meter
	red      redactor
	secrets  []string // never sent: see outbound.go

	// Compatibility switches, each set once when the server refuses a
	// parameter (older local servers, newer OpenAI reasoning models).
	noStreamOptions        atomic.Bool // refused stream_options
	useMaxCompletionTokens atomic.Bool // wants max_completion_tokens, not max_tokens
	noTemperature          atomic.Bool // accepts only its default temperature
}

var _ Client = (*OpenAI)(nil)

// Option configures New.
type Option func(*options)

type options struct {
	httpClient *http.Client
	retry      RetryPolicy
	breaker    BreakerSettings
	registry   *BreakerRegistry
	sleep      func(ctx context.Context, d time.Duration) error
	now        func() time.Time
	logger     *slog.Logger
	meter      *Meter
	progress   func(Progress)
	formatMem  FormatMemory
	secrets    []string
}

// WithHTTPClient sets the HTTP client (its Timeout should be zero: the
// per-request timeout is Config.Timeout).
func WithHTTPClient(c *http.Client) Option { return func(o *options) { o.httpClient = c } }

// WithRetry sets the retry policy; zero fields take their defaults.
func WithRetry(p RetryPolicy) Option { return func(o *options) { o.retry = p } }

// WithBreaker sets the circuit-breaker settings; zero fields take their
// defaults. They apply when this client is the first to use its endpoint
// in the registry.
func WithBreaker(s BreakerSettings) Option { return func(o *options) { o.breaker = s } }

// WithBreakerRegistry sets where the per-endpoint breakers live. Without
// it a client has its own; a long-lived caller (the desktop app) passes one
// registry to all its clients so an endpoint that keeps failing stays
// paused across requests.
func WithBreakerRegistry(r *BreakerRegistry) Option { return func(o *options) { o.registry = r } }

// WithSleep replaces the backoff wait (tests record the delays). The
// function must return ctx.Err() promptly once ctx ends.
func WithSleep(f func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) { o.sleep = f }
}

// WithClock replaces time.Now (used for Retry-After HTTP dates).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// WithLogger sets the logger for debug logs of calls and retries (default
// slog.Default()). The API key is never logged.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithProgress receives a long call's progress (see Progress): the CLI
// prints it, the app shows the elapsed time. It is called from the
// call's goroutines and must not block.
func WithProgress(f func(Progress)) Option { return func(o *options) { o.progress = f } }

// WithFormatMemory remembers per endpoint and model which structured
// output form a server accepts (Weft's XDG state).
func WithFormatMemory(m FormatMemory) Option { return func(o *options) { o.formatMem = m } }

// WithMeter records every Chat call of this client in m.
func WithMeter(m *Meter) Option { return func(o *options) { o.meter = m } }

// New checks cfg and builds a client. An empty base URL or model, or a
// base URL that is not http(s), gives an error matching ErrConfig; nothing
// is sent over the network.
//
// A base URL without a path gets "/v1" (so "http://localhost:11434" works
// for Ollama); a pasted ".../chat/completions" suffix is dropped.
func New(cfg Config, opts ...Option) (*OpenAI, error) {
	o := options{retry: DefaultRetryPolicy(), breaker: DefaultBreakerSettings()}
	for _, f := range opts {
		f(&o)
	}
	red := newRedactor(cfg.APIKey)
	base, err := normalizeBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, red.finish(&Error{Kind: ErrConfig, Endpoint: displayEndpoint(cfg.BaseURL), Reason: err.Error()})
	}
	endpoint := base.String()
	model := strings.TrimSpace(cfg.Model)
	if model == "" {
		return nil, red.finish(&Error{Kind: ErrConfig, Endpoint: endpoint, Reason: "model name is empty"})
	}
	if cfg.Timeout < 0 {
		return nil, red.finish(&Error{Kind: ErrConfig, Endpoint: endpoint, Reason: "timeout is negative"})
	}
	timeout := cfg.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	if cfg.TotalTimeout < 0 {
		return nil, red.finish(&Error{Kind: ErrConfig, Endpoint: endpoint, Reason: "total timeout is negative"})
	}
	total := cfg.TotalTimeout
	if total == 0 {
		total = DefaultTotalTimeout
	}
	format := strings.TrimSpace(cfg.StructuredOutput)
	if format == "" {
		format = FormatAuto
	}
	if err := ValidFormat(format); err != nil {
		return nil, red.finish(&Error{Kind: ErrConfig, Endpoint: endpoint, Reason: err.Error()})
	}
	hc := o.httpClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if o.registry == nil {
		o.registry = NewBreakerRegistry()
	}
	if o.sleep == nil {
		o.sleep = sleepCtx
	}
	if o.now == nil {
		o.now = time.Now
	}
	if o.logger == nil {
		o.logger = slog.Default()
	}

	// The services are built without openai.NewClient so no OPENAI_*
	// environment variable (another key, another base URL) leaks in.
	ropts := []option.RequestOption{
		option.WithBaseURL(endpoint + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0), // one retry policy: ours
		option.WithMiddleware(statusMiddleware),
	}
	if k := strings.TrimSpace(cfg.APIKey); k != "" {
		ropts = append(ropts, option.WithAPIKey(k))
	}
	c := &OpenAI{
		endpoint:  endpoint,
		model:     model,
		timeout:   timeout,
		total:     total,
		progress:  o.progress,
		format:    format,
		formatMem: o.formatMem,
		chat:      openai.NewChatCompletionService(ropts...),
		models:    openai.NewModelService(ropts...),
		retry:     o.retry.withDefaults(),
		registry:  o.registry,
		sleep:     o.sleep,
		now:       o.now,
		log:       o.logger,
		meter:     o.meter,
		red:       red,
		secrets:   append([]string{cfg.APIKey}, o.secrets...),
	}
	c.breaker = o.registry.get(endpoint, o.breaker.withDefaults(), o.logger)
	return c, nil
}

// Endpoint is the normalised base URL this client calls.
func (c *OpenAI) Endpoint() string { return c.endpoint }

// Model is the configured model name.
func (c *OpenAI) Model() string { return c.model }

func normalizeBaseURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("base URL is empty")
	}
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("base URL %q is not a URL", stripURL(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("base URL %q must start with http:// or https://", stripURL(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("base URL %q has no host", stripURL(raw))
	}
	u.User = nil
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/chat/completions")
	if p == "" {
		p = "/v1"
	}
	u.Path, u.RawPath = p, ""
	return u, nil
}

// displayEndpoint renders a base URL for humans: no credentials, no query.
func displayEndpoint(raw string) string {
	if u, err := normalizeBaseURL(raw); err == nil {
		return u.String()
	}
	return stripURL(raw)
}

// stripURL removes userinfo, query and fragment from a URL-ish string
// without otherwise judging it.
func stripURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if i := strings.IndexAny(raw, "?#"); i >= 0 {
		raw = raw[:i]
	}
	if i := strings.LastIndex(raw, "@"); i >= 0 {
		if j := strings.Index(raw, "://"); j >= 0 && j < i {
			raw = raw[:j+3] + raw[i+1:]
		} else if j < 0 {
			raw = raw[i+1:]
		}
	}
	return raw
}

// Chat sends messages and returns the model's reply. With opts.OnDelta set
// the reply is streamed (SSE) and deltas are delivered as they arrive.
func (c *OpenAI) Chat(ctx context.Context, messages []Message, opts Options) (Reply, error) {
	params, err := c.buildParams(c.outbound(messages, opts), opts)
	if err != nil {
		return Reply{}, err
	}
	stream := opts.OnDelta != nil
	start := c.now()
	attempts := 0
	var adapted compatSet
	// One bound for the whole call: a stalled server costs c.total at
	// most, whatever the attempts and waits.
	parent := ctx
	ctx, cancelTotal := context.WithTimeoutCause(ctx, c.total, errTotalTimeout)
	defer cancelTotal()
	overTotal := func() bool { return parent.Err() == nil && errors.Is(context.Cause(ctx), errTotalTimeout) }
	totalErr := func(last string) error {
		reason := fmt.Sprintf("no answer within %v, the bound of one call (llm.total_timeout_s)", c.total)
		if last != "" {
			reason += "; last: " + last
		}
		return c.red.finish(&Error{Kind: ErrUnreachable, Endpoint: c.endpoint, Attempts: attempts, Reason: reason})
	}
	lastReason := ""
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			if overTotal() {
				return Reply{}, totalErr(lastReason)
			}
			return Reply{}, c.canceled(err, attempts)
		}
		done, reason, ok := c.breaker.allow()
		if !ok {
			c.meter.RecordFailure()
			c.log.Debug("llm: circuit open, not calling", "endpoint", c.endpoint, "reason", reason)
			return Reply{}, c.red.finish(&Error{Kind: ErrCircuitOpen, Endpoint: c.endpoint, Attempts: attempts, Reason: reason + " (paused after repeated failures)"})
		}
		attempts++
		stopTicks := c.tick(start, attempts)
		reply, delivered, aerr := c.attempt(ctx, params, opts, stream)
		stopTicks()
		if aerr == nil {
			done(nil)
			c.meter.Record(reply.Usage)
			c.log.Debug("llm: call done", "endpoint", c.endpoint, "model", c.model, "attempts", attempts,
				"stream", stream, "finish_reason", reply.FinishReason, "prompt_tokens", reply.Usage.PromptTokens,
				"completion_tokens", reply.Usage.CompletionTokens, "duration", c.now().Sub(start))
			return reply, nil
		}
		f := c.classify(ctx, aerr)
		if f.breakerFailure {
			c.breaker.noteFailure(c.red.clean(f.reason))
		}
		done(f.breakerOutcome())
		if f.canceled {
			if overTotal() {
				return Reply{}, totalErr(lastReason)
			}
			return Reply{}, c.canceled(ctx.Err(), attempts)
		}
		lastReason = f.reason
		if f.kind == ErrRejected && c.adapt(f, stream, opts, &adapted) {
			// The server refused a parameter it does not support; the
			// request was adjusted and goes again. Not a retry.
			if params, err = c.buildParams(messages, opts); err != nil {
				return Reply{}, err
			}
			n--
			continue
		}
		if !f.retryable || n >= c.retry.MaxRetries {
			c.meter.RecordFailure()
			e := f.toError(c.endpoint, attempts)
			c.log.Debug("llm: call failed", "endpoint", c.endpoint, "model", c.model, "attempts", attempts,
				"error", c.red.clean(e.Error()), "duration", c.now().Sub(start))
			return Reply{}, c.red.finish(e)
		}
		if f.hasRetryAfter && f.retryAfter > c.retry.MaxRetryAfter {
			// An hour's silent wait is not a retry: say when to try again.
			c.meter.RecordFailure()
			e := f.toError(c.endpoint, attempts)
			e.Reason = fmt.Sprintf("%s; it asks to retry after %s (in %v), longer than Weft waits (%v)",
				f.reason, c.now().Add(f.retryAfter).Format("15:04"), f.retryAfter.Round(time.Second), c.retry.MaxRetryAfter)
			return Reply{}, c.red.finish(e)
		}
		delay := c.retry.backoff(n, f.retryAfter, f.hasRetryAfter)
		if c.now().Add(delay).Sub(start) >= c.total {
			return Reply{}, totalErr(lastReason)
		}
		c.log.Debug("llm: retrying after transport fault", "endpoint", c.endpoint, "model", c.model,
			"attempt", attempts, "max_attempts", c.retry.MaxRetries+1, "delay", delay,
			"retry_after", f.hasRetryAfter, "reason", c.red.clean(f.reason))
		c.report(Progress{Attempt: attempts, MaxAttempts: c.retry.MaxRetries + 1, Elapsed: c.now().Sub(start), Waiting: delay, Reason: c.red.clean(f.reason)})
		if err := c.sleep(ctx, delay); err != nil {
			if overTotal() {
				return Reply{}, totalErr(lastReason)
			}
			if ctx.Err() != nil {
				err = ctx.Err()
			}
			return Reply{}, c.canceled(err, attempts)
		}
		if delivered && opts.OnReset != nil {
			opts.OnReset()
		}
	}
}

// errTotalTimeout is the cancel cause when a call's total bound expires.
var errTotalTimeout = errors.New("llm: total time bound reached")

// report passes progress on, when someone listens.
func (c *OpenAI) report(p Progress) {
	if c.progress != nil {
		c.progress(p)
	}
}

// tick reports progress every ProgressEvery while an attempt runs; the
// returned func stops it.
func (c *OpenAI) tick(start time.Time, attempt int) func() {
	if c.progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.retry.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				c.report(Progress{Attempt: attempt, MaxAttempts: c.retry.MaxRetries + 1, Elapsed: c.now().Sub(start)})
			}
		}
	}()
	return func() { close(stop); <-done }
}

// compatSet records which compatibility switches one call has used.
type compatSet uint8

const (
	compatStreamOptions compatSet = 1 << iota
	compatMaxTokens
	compatTemperature
	compatFormat
)

// adapt switches a compatibility flag of the client when a 400/422 says a
// parameter we sent is not supported, and reports whether to ask again.
// Each switch is tried at most once per call, so this cannot loop.
func (c *OpenAI) adapt(f fault, stream bool, opts Options, done *compatSet) bool {
	if f.status == nil || (f.status.code != 400 && f.status.code != 422) {
		return false
	}
	body := strings.ToLower(string(f.status.body))
	try := func(which compatSet, flag *atomic.Bool, what string) bool {
		if *done&which != 0 {
			return false
		}
		*done |= which
		flag.Store(true)
		c.log.Debug("llm: server refused a parameter; asking again without it", "endpoint", c.endpoint, "parameter", what)
		return true
	}
	if opts.Schema != nil && c.format == FormatAuto && refusesFormat(f.status.body) {
		if cur := c.effectiveFormat(); cur != FormatOff {
			// Asked again with the next lesser form (at most twice: the
			// forms only go down); what the server accepts is remembered
			// so later calls skip the refused one.
			*done |= compatFormat
			next := downgrade(cur)
			if next == FormatJSONObject && strings.Contains(body, "json_object") {
				next = FormatOff
			}
			c.formatLearned.Store(next)
			if c.formatMem != nil {
				if err := c.formatMem.Set(formatKey(c.endpoint, c.model), next); err != nil {
					c.log.Warn("llm: could not remember structured output support", "error", err)
				}
			}
			c.log.Debug("llm: server refused response_format; asking again", "endpoint", c.endpoint, "from", cur, "to", next)
			return true
		}
	}
	switch {
	case stream && strings.Contains(body, "stream_options") && *done&compatStreamOptions == 0:
		return try(compatStreamOptions, &c.noStreamOptions, "stream_options")
	case opts.MaxTokens > 0 && strings.Contains(body, "max_completion_tokens") && *done&compatMaxTokens == 0:
		return try(compatMaxTokens, &c.useMaxCompletionTokens, "max_tokens")
	case opts.Temperature != nil && strings.Contains(body, "temperature") && *done&compatTemperature == 0:
		return try(compatTemperature, &c.noTemperature, "temperature")
	}
	return false
}

func (c *OpenAI) canceled(err error, attempts int) error {
	return c.red.finish(&Error{Kind: ErrCanceled, Endpoint: c.endpoint, Attempts: attempts, Err: err})
}

// errAttemptTimeout is the cancel cause when Config.Timeout expires.
var errAttemptTimeout = errors.New("llm: request timed out")

// errStreamIncomplete: the stream ended without a finish_reason.
var errStreamIncomplete = errors.New("reply stream ended before it was complete")

// attempt makes one HTTP request. delivered tells whether streamed deltas
// reached the caller before a failure.
func (c *OpenAI) attempt(ctx context.Context, params openai.ChatCompletionNewParams, opts Options, stream bool) (reply Reply, delivered bool, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// For a plain request the timer bounds the whole exchange; for a
	// stream it is an idle timeout, re-armed by every chunk, so long
	// generations are not cut while a stalled stream still ends.
	timer := time.AfterFunc(c.timeout, func() { cancel(errAttemptTimeout) })
	defer timer.Stop()

	if !stream {
		resp, err := c.chat.New(actx, params)
		if err != nil {
			return Reply{}, false, c.withCause(actx, err)
		}
		r, err := replyFromCompletion(resp)
		return r, false, err
	}

	if !c.noStreamOptions.Load() {
		params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	s := c.chat.NewStreaming(actx, params)
	defer s.Close()
	var (
		text  strings.Builder
		acc   toolCallAccumulator
		fin   string
		usage Usage
	)
	for s.Next() {
		timer.Reset(c.timeout)
		chunk := s.Current()
		if u := chunk.Usage; u.PromptTokens != 0 || u.CompletionTokens != 0 || u.TotalTokens != 0 {
			usage = usageFrom(u)
		}
		for _, ch := range chunk.Choices {
			if ch.Index != 0 {
				continue
			}
			if d := ch.Delta.Content; d != "" {
				text.WriteString(d)
				delivered = true
				opts.OnDelta(d)
			}
			for _, tc := range ch.Delta.ToolCalls {
				acc.add(tc)
			}
			if ch.FinishReason != "" {
				fin = ch.FinishReason
			}
		}
	}
	if err := s.Err(); err != nil {
		return Reply{}, delivered, c.withCause(actx, err)
	}
	if fin == "" {
		if err := context.Cause(actx); err != nil && actx.Err() != nil {
			return Reply{}, delivered, err
		}
		return Reply{}, delivered, errStreamIncomplete
	}
	return Reply{Text: text.String(), FinishReason: fin, Usage: usage, ToolCalls: acc.calls()}, delivered, nil
}

// withCause attaches the timeout cause, which openai-go reports as a bare
// context error.
func (c *OpenAI) withCause(actx context.Context, err error) error {
	if cause := context.Cause(actx); errors.Is(cause, errAttemptTimeout) {
		return fmt.Errorf("%w: %w", errAttemptTimeout, err)
	}
	return err
}

func replyFromCompletion(resp *openai.ChatCompletion) (Reply, error) {
	if resp == nil || len(resp.Choices) == 0 {
		return Reply{}, badResponse("the reply has no choices")
	}
	ch := resp.Choices[0]
	for _, x := range resp.Choices {
		if x.Index == 0 {
			ch = x
			break
		}
	}
	text := ch.Message.Content
	if text == "" && ch.Message.Refusal != "" {
		text = ch.Message.Refusal
	}
	var calls []ToolCall
	for _, tc := range ch.Message.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue
		}
		calls = append(calls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return Reply{Text: text, FinishReason: ch.FinishReason, Usage: usageFrom(resp.Usage), ToolCalls: calls}, nil
}

func usageFrom(u openai.CompletionUsage) Usage {
	r := Usage{PromptTokens: int(u.PromptTokens), CompletionTokens: int(u.CompletionTokens), TotalTokens: int(u.TotalTokens)}
	if r.TotalTokens == 0 {
		r.TotalTokens = r.PromptTokens + r.CompletionTokens
	}
	return r
}

// toolCallAccumulator joins streamed tool-call fragments by index.
type toolCallAccumulator struct {
	order []int64
	m     map[int64]*ToolCall
}

func (a *toolCallAccumulator) add(d openai.ChatCompletionChunkChoiceDeltaToolCall) {
	if a.m == nil {
		a.m = map[int64]*ToolCall{}
	}
	tc, ok := a.m[d.Index]
	if !ok {
		tc = &ToolCall{}
		a.m[d.Index] = tc
		a.order = append(a.order, d.Index)
	}
	if d.ID != "" {
		tc.ID = d.ID
	}
	if n := d.Function.Name; n != "" && n != tc.Name {
		tc.Name += n
	}
	tc.Arguments += d.Function.Arguments
}

func (a *toolCallAccumulator) calls() []ToolCall {
	var out []ToolCall
	for _, i := range a.order {
		out = append(out, *a.m[i])
	}
	return out
}

func (c *OpenAI) buildParams(messages []Message, opts Options) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(c.model)}
	if len(messages) == 0 {
		return p, errors.New("llm: Chat needs at least one message")
	}
	for i, m := range messages {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleUser:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		case RoleAssistant:
			if len(m.ToolCalls) == 0 {
				p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
				break
			}
			am := openai.ChatCompletionAssistantMessageParam{}
			if m.Content != "" {
				am.Content.OfString = openai.String(m.Content)
			}
			for _, tc := range m.ToolCalls {
				am.ToolCalls = append(am.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: tc.Arguments},
					},
				})
			}
			p.Messages = append(p.Messages, openai.ChatCompletionMessageParamUnion{OfAssistant: &am})
		case RoleTool:
			p.Messages = append(p.Messages, openai.ToolMessage(m.Content, m.ToolCallID))
		default:
			return p, fmt.Errorf("llm: message %d has unsupported role %q", i, m.Role)
		}
	}
	if opts.Temperature != nil && !c.noTemperature.Load() {
		p.Temperature = openai.Float(*opts.Temperature)
	}
	if opts.MaxTokens > 0 {
		if c.useMaxCompletionTokens.Load() {
			p.MaxCompletionTokens = openai.Int(int64(opts.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(opts.MaxTokens))
		}
	}
	if opts.Schema != nil {
		switch c.effectiveFormat() {
		case FormatJSONSchema:
			var schema any
			if err := json.Unmarshal(opts.Schema.JSON, &schema); err != nil {
				return p, fmt.Errorf("llm: the schema %s is not JSON: %w", opts.Schema.Name, err)
			}
			p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: opts.Schema.Name, Strict: openai.Bool(true), Schema: schema}}}
		case FormatJSONObject:
			p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}
		}
	}
	for _, t := range opts.Tools {
		params := t.Parameters
		if params == nil {
			params = map[string]any{"type": "object", "properties": map[string]any{}}
		}
		fd := shared.FunctionDefinitionParam{Name: t.Name, Parameters: shared.FunctionParameters(params)}
		if t.Description != "" {
			fd.Description = openai.String(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fd))
	}
	switch tc := strings.TrimSpace(opts.ToolChoice); tc {
	case "":
	case "auto", "none", "required":
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String(tc)}
	default:
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{
			OfFunctionToolChoice: &openai.ChatCompletionNamedToolChoiceParam{
				Function: openai.ChatCompletionNamedToolChoiceFunctionParam{Name: tc},
			},
		}
	}
	return p, nil
}

// statusError is what statusMiddleware turns an HTTP error response into,
// so the body and headers are ours to read whatever their shape.
type statusError struct {
	code   int
	status string
	header http.Header
	body   []byte
}

func (e *statusError) Error() string { return "HTTP " + e.status }

const maxErrorBody = 64 << 10

func statusMiddleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 400 {
		return res, err
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	_ = res.Body.Close()
	status := res.Status
	if status == "" || !strings.HasPrefix(status, fmt.Sprint(res.StatusCode)) {
		status = strings.TrimSpace(fmt.Sprintf("%d %s", res.StatusCode, http.StatusText(res.StatusCode)))
	}
	return nil, &statusError{code: res.StatusCode, status: status, header: res.Header, body: body}
}

// serverMessage digs the human message out of an error body: OpenAI's
// {"error":{"message":...}}, Ollama's {"error":"..."}, FastAPI's
// {"detail":...}, {"message":...} or plain text.
func serverMessage(body []byte) string {
	b := strings.TrimSpace(string(body))
	if b == "" {
		return ""
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	msg := ""
	if json.Unmarshal([]byte(b), &v) == nil {
		var s string
		var obj struct {
			Message string `json:"message"`
		}
		switch {
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &obj) == nil && obj.Message != "":
			msg = obj.Message
		case len(v.Error) > 0 && json.Unmarshal(v.Error, &s) == nil && s != "":
			msg = s
		case v.Message != "":
			msg = v.Message
		case len(v.Detail) > 0 && json.Unmarshal(v.Detail, &s) == nil && s != "":
			msg = s
		case len(v.Detail) > 0:
			msg = string(v.Detail)
		}
	} else if !strings.HasPrefix(b, "<") { // skip HTML error pages
		msg = b
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if r := []rune(msg); len(r) > 300 {
		msg = string(r[:300]) + "…"
	}
	return msg
}

// fault is one failed attempt, classified.
type fault struct {
	kind           error // ErrUnreachable, ErrRejected or ErrBadResponse
	retryable      bool
	breakerFailure bool
	canceled       bool
	reason         string
	status         *statusError
	serverMsg      string
	retryAfter     time.Duration
	hasRetryAfter  bool
	cause          error
}

var errBreakerExcluded = errors.New("excluded")

func (f fault) breakerOutcome() error {
	switch {
	case f.canceled:
		return errBreakerExcluded
	case f.breakerFailure:
		return errBreakerFailure
	}
	return nil
}

func (f fault) toError(endpoint string, attempts int) *Error {
	e := &Error{Kind: f.kind, Endpoint: endpoint, Attempts: attempts, Reason: f.reason, Err: f.cause, ServerMessage: f.serverMsg}
	if f.status != nil {
		e.StatusCode, e.Status = f.status.code, f.status.status
	}
	if f.hasRetryAfter {
		e.RetryAfter = f.retryAfter
	}
	return e
}

type badResponseError struct{ msg string }

func (e *badResponseError) Error() string { return e.msg }

func badResponse(msg string) error { return &badResponseError{msg} }

func (c *OpenAI) classify(ctx context.Context, err error) fault {
	f := fault{kind: ErrUnreachable, cause: err}
	if ctx.Err() != nil {
		f.canceled = true
		return f
	}
	if errors.Is(err, errAttemptTimeout) {
		f.retryable, f.breakerFailure = true, true
		f.reason = "no response within " + c.timeout.String()
		return f
	}
	var se *statusError
	if errors.As(err, &se) {
		f.status = se
		f.serverMsg = serverMessage(se.body)
		f.retryAfter, f.hasRetryAfter = parseRetryAfter(se.header, c.now())
		f.reason = se.status
		if f.serverMsg != "" {
			f.reason += ": " + f.serverMsg
		}
		switch {
		case se.code == http.StatusRequestTimeout || se.code >= 500:
			f.retryable, f.breakerFailure = true, true
		case se.code == http.StatusTooManyRequests:
			f.retryable, f.kind = true, ErrRateLimited
			f.reason = "rate limited by the model server (" + se.status + ")"
			if f.serverMsg != "" {
				f.reason += ": " + f.serverMsg
			}
		case se.code == http.StatusConflict:
			f.retryable = true
		default:
			f.kind = ErrRejected
		}
		switch strings.ToLower(se.header.Get("X-Should-Retry")) {
		case "false":
			f.retryable = false
		case "true":
			if f.kind == ErrUnreachable {
				f.retryable = true
			}
		}
		return f
	}
	var streamErr *ssestream.StreamError
	if errors.As(err, &streamErr) {
		f.retryable = true
		f.reason = "the server reported an error while streaming: " + serverMessage(streamErr.Event.Data)
		if m := serverMessage(streamErr.Event.Data); m == "" {
			f.reason = streamErr.Message
		}
		return f
	}
	var bad *badResponseError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &bad) || errors.As(err, &syn) || errors.As(err, &typ) ||
		strings.Contains(err.Error(), "error parsing response json") ||
		strings.Contains(err.Error(), "expected destination type") {
		f.kind = ErrBadResponse
		f.reason = err.Error()
		if bad != nil {
			f.reason = bad.msg
		}
		return f
	}
	f.retryable, f.breakerFailure = true, true
	f.reason = netReason(err)
	var certErr *tls.CertificateVerificationError
	var uaErr x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	if errors.As(err, &certErr) || errors.As(err, &uaErr) || errors.As(err, &hostErr) {
		f.retryable = false // retrying will not fix a certificate
	}
	return f
}

// netReason says in a few words why a request did not get through.
func netReason(err error) string {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var nerr net.Error
	var opErr *net.OpError
	var uerr *url.Error
	s := err.Error()
	switch {
	case errors.Is(err, syscall.ECONNREFUSED) || strings.Contains(s, "connection refused") ||
		strings.Contains(s, "actively refused"):
		return "connection refused"
	case errors.As(err, &dnsErr):
		return "cannot resolve host " + dnsErr.Name
	case errors.As(err, &certErr):
		return "TLS certificate problem: " + certErr.Err.Error()
	case errors.Is(err, syscall.ECONNRESET) || strings.Contains(s, "connection reset"):
		return "connection reset"
	case errors.Is(err, errStreamIncomplete):
		return errStreamIncomplete.Error()
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(s, "server closed"):
		return "connection closed unexpectedly"
	case errors.As(err, &nerr) && nerr.Timeout():
		return "network timeout"
	case errors.As(err, &opErr):
		return opErr.Err.Error()
	case errors.As(err, &uerr):
		return uerr.Err.Error()
	}
	return s
}
