// Package llmtest is a scripted fake OpenAI-compatible server for tests.
//
// It serves POST /v1/chat/completions (also without the /v1 prefix), plain
// and streamed (SSE), and GET /v1/models. Replies come from a queue of
// Steps: each is a reply (text, finish_reason, usage, tool calls) or a
// fault (HTTP status with Retry-After, delay, hang, dropped connection).
// When the queue is empty a handler func, the last step or a default
// answers (by default: 500 "script exhausted", marked X-Should-Retry:
// false so the test fails fast). Every chat request is
// recorded for assertions.
//
//	srv := llmtest.Start(t, llmtest.WithSteps(
//		llmtest.RateLimit("1"),
//		llmtest.Reply(`{"nodes":[]}`),
//	))
//	c, _ := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"})
//	reply, err := c.Chat(ctx, msgs, llm.Options{})
//	// srv.Calls() == 2, srv.Requests()[1].Messages ...
//
// The package deliberately does not import backend/llm so that package's
// own tests can use it.
package llmtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/weft-dev/weft/backend/redact/redacttest"
)

// Usage is the token usage a reply reports.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// ToolCall is a function call in a reply, or in a recorded assistant
// message.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Step is one scripted answer. A zero Status (or 200) makes it a reply;
// Status >= 400, Hang or Drop make it a fault. Delay applies to both.
type Step struct {
	// Text is the assistant message content.
	Text string `json:"text,omitempty"`
	// Chunks, if set, are the exact content deltas of a streamed reply
	// (their concatenation should equal Text; Text is used when
	// non-streaming). By default Text is split at word boundaries.
	Chunks []string `json:"chunks,omitempty"`
	// FinishReason defaults to "stop", or "tool_calls" when ToolCalls is set.
	FinishReason string `json:"finish_reason,omitempty"`
	// Usage reported; nil means estimated (about 4 characters a token).
	Usage *Usage `json:"usage,omitempty"`
	// NoUsage sends no usage at all (servers that do not report it).
	NoUsage bool `json:"no_usage,omitempty"`
	// ToolCalls makes the reply an assistant message with tool_calls.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`

	// Status >= 400 answers with that HTTP status and an error body.
	Status int `json:"status,omitempty"`
	// Message goes into the default OpenAI-style error body
	// {"error":{"message":...}}; default the status text.
	Message string `json:"message,omitempty"`
	// Body replaces the whole error body verbatim.
	Body string `json:"body,omitempty"`
	// RetryAfter is sent as the Retry-After header ("2" or an HTTP date).
	RetryAfter string `json:"retry_after,omitempty"`
	// Header adds response headers.
	Header map[string]string `json:"header,omitempty"`

	// Delay waits before answering (JSON: "250ms" or milliseconds).
	Delay time.Duration `json:"-"`
	// ChunkDelay waits between streamed chunks (JSON like Delay).
	ChunkDelay time.Duration `json:"-"`
	// Hang never answers: the handler waits until the client goes away or
	// the server closes.
	Hang bool `json:"hang,omitempty"`
	// Drop closes the connection without any response.
	Drop bool `json:"drop,omitempty"`
	// DropAfter, when > 0 and streaming, closes the connection after that
	// many content chunks (the stream breaks off mid-reply).
	DropAfter int `json:"drop_after,omitempty"`
	// Enforced is the reply a server that enforces a JSON Schema gives
	// instead of Text when the request asked for one (json_schema): what
	// constrained decoding makes of the same answer. Empty means Text.
	Enforced string `json:"enforced,omitempty"`
}

// UnmarshalJSON accepts delay and chunk_delay as Go duration strings
// ("250ms", "2s") or numbers of milliseconds.
func (s *Step) UnmarshalJSON(b []byte) error {
	type plain Step
	aux := struct {
		*plain
		Delay      json.RawMessage `json:"delay"`
		ChunkDelay json.RawMessage `json:"chunk_delay"`
	}{plain: (*plain)(s)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	var err error
	if s.Delay, err = parseDuration(aux.Delay); err != nil {
		return fmt.Errorf("delay: %w", err)
	}
	if s.ChunkDelay, err = parseDuration(aux.ChunkDelay); err != nil {
		return fmt.Errorf("chunk_delay: %w", err)
	}
	return nil
}

// MarshalJSON writes delays as duration strings.
func (s Step) MarshalJSON() ([]byte, error) {
	type plain Step
	aux := struct {
		plain
		Delay      string `json:"delay,omitempty"`
		ChunkDelay string `json:"chunk_delay,omitempty"`
	}{plain: plain(s)}
	if s.Delay > 0 {
		aux.Delay = s.Delay.String()
	}
	if s.ChunkDelay > 0 {
		aux.ChunkDelay = s.ChunkDelay.String()
	}
	return json.Marshal(aux)
}

func parseDuration(raw json.RawMessage) (time.Duration, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return time.ParseDuration(s)
	}
	var ms float64
	if err := json.Unmarshal(raw, &ms); err != nil {
		return 0, errors.New("want a duration string or milliseconds")
	}
	return time.Duration(ms * float64(time.Millisecond)), nil
}

// Reply is a step answering text with finish_reason "stop".
func Reply(text string) Step { return Step{Text: text} }

// Truncated is a reply cut off by the token limit (finish_reason "length").
func Truncated(text string) Step { return Step{Text: text, FinishReason: "length"} }

// ToolCallReply is a reply that calls tools (finish_reason "tool_calls").
func ToolCallReply(calls ...ToolCall) Step { return Step{ToolCalls: calls} }

// Fault is an HTTP error answer.
func Fault(status int, message string) Step { return Step{Status: status, Message: message} }

// RateLimit is a 429 with the given Retry-After ("" for none).
func RateLimit(retryAfter string) Step {
	return Step{Status: http.StatusTooManyRequests, Message: "rate limited", RetryAfter: retryAfter}
}

// Drop closes the connection without answering.
func Drop() Step { return Step{Drop: true} }

// Hang never answers.
func Hang() Step { return Step{Hang: true} }

func (st Step) isFault() bool { return st.Hang || st.Drop || (st.Status != 0 && st.Status != 200) }

func (st Step) String() string {
	switch {
	case st.Hang:
		return "hang"
	case st.Drop:
		return "drop"
	case st.Status != 0 && st.Status != 200:
		return fmt.Sprintf("fault %d", st.Status)
	case len(st.ToolCalls) > 0:
		return fmt.Sprintf("tool calls (%d)", len(st.ToolCalls))
	}
	return fmt.Sprintf("reply (%d chars)", len(st.Text))
}

// Message is one recorded chat message.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Tool is one recorded tool definition.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// Request is one recorded chat-completion request.
type Request struct {
	// N numbers chat requests from 1.
	N            int       `json:"n"`
	Path         string    `json:"path"`
	Model        string    `json:"model"`
	Messages     []Message `json:"messages"`
	Stream       bool      `json:"stream"`
	IncludeUsage bool      `json:"include_usage"`
	// MaxTokens is max_tokens or max_completion_tokens (0 when absent).
	MaxTokens   int             `json:"max_tokens,omitempty"`
	Temperature *float64        `json:"temperature,omitempty"`
	Tools       []Tool          `json:"tools,omitempty"`
	ToolChoice  json.RawMessage `json:"tool_choice,omitempty"`
	// Authorization is the header as received.
	Authorization string `json:"authorization,omitempty"`
	// ResponseFormat is response_format.type ("json_schema",
	// "json_object") and SchemaName its json_schema.name.
	ResponseFormat string `json:"response_format,omitempty"`
	SchemaName     string `json:"schema_name,omitempty"`
	// Body is the raw request body.
	Body string `json:"body,omitempty"`
}

// LastUser is the content of the last user message ("" if none).
func (r Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// System is the content of the system messages, joined by newlines.
func (r Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n")
}

// Server is a running fake endpoint.
type Server struct {
	// URL is the base URL to configure clients with; it ends in /v1.
	URL string
	// RootURL is the server root (no /v1).
	RootURL string

	ts *httptest.Server

	mu         sync.Mutex
	queue      []Step
	last       *Step
	used       int
	handler    func(Request) Step
	def        *Step
	repeatLast bool
	models     []string
	noModels   bool
	apiKey     string
	requests   []Request
	modelCalls int
	logf       func(format string, args ...any)
	// structured is how the server treats response_format (see
	// WithStructuredOutput).
	structured     string
	structuredInit string // the mode it started with, for Reset

	closed    chan struct{}
	closeOnce sync.Once
}

// Option configures a Server.
type Option func(*Server)

// WithSteps queues steps (answers in order).
func WithSteps(steps ...Step) Option {
	return func(s *Server) { s.queue = append(s.queue, steps...) }
}

// WithHandler answers requests dynamically once the queue is empty.
// It may be called concurrently.
func WithHandler(h func(Request) Step) Option { return func(s *Server) { s.handler = h } }

// WithEcho answers every request (once the queue is empty) with the last
// user message.
func WithEcho() Option {
	return WithHandler(func(r Request) Step { return Reply(r.LastUser()) })
}

// WithDefault answers with st once the queue is empty (and there is no
// handler).
func WithDefault(st Step) Option { return func(s *Server) { s.def = &st } }

// WithRepeatLast repeats the last queued step once the queue is empty.
func WithRepeatLast() Option { return func(s *Server) { s.repeatLast = true } }

// Structured output behaviours of a fake server (WithStructuredOutput).
const (
	// StructuredIgnore accepts response_format and ignores it (many
	// local servers); the default.
	StructuredIgnore = "ignore"
	// StructuredEnforce accepts it and, for json_schema, answers with a
	// step's Enforced reply (constrained decoding).
	StructuredEnforce = "enforce"
	// StructuredRejectSchema answers 400 to json_schema but takes
	// json_object; StructuredRejectAll answers 400 to any response_format.
	StructuredRejectSchema = "reject_schema"
	StructuredRejectAll    = "reject"
)

// WithStructuredOutput sets how the server treats response_format.
func WithStructuredOutput(mode string) Option { return func(s *Server) { s.structured = mode } }

// SetStructuredOutput changes how the server treats response_format
// (Reset goes back to ignoring it).
func (s *Server) SetStructuredOutput(mode string) {
	s.mu.Lock()
	s.structured = mode
	s.mu.Unlock()
}

// WithModels sets what GET /models lists (default "fake-model").
func WithModels(ids ...string) Option { return func(s *Server) { s.models = ids } }

// WithoutModels makes GET /models answer 404, like servers without it.
func WithoutModels() Option { return func(s *Server) { s.noModels = true } }

// WithAPIKey makes every request need "Authorization: Bearer key"; others
// get 401 (and consume no step).
func WithAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithLog reports each request in one line (the fakellm command logs to
// stderr with it).
func WithLog(logf func(format string, args ...any)) Option { return func(s *Server) { s.logf = logf } }

// TB is the part of testing.TB that Start uses.
type TB interface {
	Helper()
	Cleanup(func())
}

// Start starts a server on 127.0.0.1 and closes it when the test ends.
func Start(t TB, opts ...Option) *Server {
	t.Helper()
	s := New(opts...)
	t.Cleanup(s.Close)
	return s
}

// New starts a server on a free 127.0.0.1 port; Close it when done.
func New(opts ...Option) *Server {
	s, err := Listen("", opts...)
	if err != nil {
		panic("llmtest: " + err.Error())
	}
	return s
}

// Listen starts a server on addr ("" or "127.0.0.1:0" for any free port).
func Listen(addr string, opts ...Option) (*Server, error) {
	s := &Server{models: []string{"fake-model"}, closed: make(chan struct{})}
	for _, o := range opts {
		o(s)
	}
	s.structuredInit = s.structured
	ts := httptest.NewUnstartedServer(http.HandlerFunc(s.serveHTTP))
	if addr != "" {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			ts.Close()
			return nil, err
		}
		_ = ts.Listener.Close()
		ts.Listener = l
	}
	ts.Config.ErrorLog = nil
	ts.Start()
	s.ts = ts
	s.RootURL = ts.URL
	s.URL = ts.URL + "/v1"
	return s, nil
}

// Close stops the server; hanging and delayed handlers are released first.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.ts.CloseClientConnections()
		s.ts.Close()
	})
}

// Enqueue appends steps to the queue.
func (s *Server) Enqueue(steps ...Step) {
	s.mu.Lock()
	s.queue = append(s.queue, steps...)
	s.mu.Unlock()
}

// Pending is the number of queued steps not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns a copy of every chat request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// LastRequest is the latest chat request (ok false if none).
func (s *Server) LastRequest() (Request, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}, false
	}
	return s.requests[len(s.requests)-1], true
}

// Calls is the number of chat-completion requests received (faults and
// rejected ones included).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// ModelCalls is the number of GET /models requests received.
func (s *Server) ModelCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.modelCalls
}

// Reset drops the queue and the recorded requests.
func (s *Server) Reset() {
	s.mu.Lock()
	s.queue, s.requests, s.last, s.used, s.modelCalls = nil, nil, nil, 0, 0
	s.structured = s.structuredInit
	s.mu.Unlock()
}

func (s *Server) log(format string, args ...any) {
	if s.logf != nil {
		s.logf(format, args...)
	}
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimSuffix(r.URL.Path, "/")
	switch p {
	case "/v1/chat/completions", "/chat/completions":
		if r.Method != http.MethodPost {
			writeError(w, http.StatusMethodNotAllowed, "use POST")
			return
		}
		s.chat(w, r)
	case "/v1/models", "/models":
		if r.Method != http.MethodGet {
			writeError(w, http.StatusMethodNotAllowed, "use GET")
			return
		}
		s.listModels(w, r)
	case "/_llmtest/steps":
		s.controlSteps(w, r)
	case "/_llmtest/requests":
		writeJSON(w, http.StatusOK, s.Requests())
	case "/_llmtest/structured":
		// POST {"mode": "ignore"|"enforce"|"reject_schema"|"reject"}
		var body struct {
			Mode string `json:"mode"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<10)).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "want {\"mode\": ...}")
			return
		}
		s.SetStructuredOutput(body.Mode)
		writeJSON(w, http.StatusOK, map[string]string{"mode": body.Mode})
	case "/_llmtest/reset":
		s.Reset()
		writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("llmtest: no route for %s %s", r.Method, r.URL.Path))
	}
}

func (s *Server) authorized(r *http.Request) bool {
	return s.apiKey == "" || r.Header.Get("Authorization") == "Bearer "+s.apiKey
}

func (s *Server) listModels(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.modelCalls++
	ids := append([]string(nil), s.models...)
	none := s.noModels
	s.mu.Unlock()
	s.log("GET %s", r.URL.Path)
	if !s.authorized(r) {
		writeAPIError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		return
	}
	if none {
		writeError(w, http.StatusNotFound, "404 page not found")
		return
	}
	data := make([]map[string]any, 0, len(ids))
	for _, id := range ids {
		data = append(data, map[string]any{"id": id, "object": "model", "created": 0, "owned_by": "llmtest"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// controlSteps: POST a JSON step or list of steps to enqueue them; GET
// shows how many are pending.
func (s *Server) controlSteps(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		writeJSON(w, http.StatusOK, map[string]int{"pending": s.Pending()})
		return
	}
	body, _ := io.ReadAll(r.Body)
	steps, err := parseSteps(body)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	s.Enqueue(steps...)
	writeJSON(w, http.StatusOK, map[string]int{"pending": s.Pending()})
}

func parseSteps(body []byte) ([]Step, error) {
	b := strings.TrimSpace(string(body))
	if strings.HasPrefix(b, "[") {
		var steps []Step
		err := json.Unmarshal([]byte(b), &steps)
		return steps, err
	}
	var st Step
	if err := json.Unmarshal([]byte(b), &st); err != nil {
		return nil, err
	}
	return []Step{st}, nil
}

// wire shapes of the request we parse.
type wireRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
	Stream        bool `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           *int     `json:"max_tokens"`
	MaxCompletionTokens *int     `json:"max_completion_tokens"`
	Temperature         *float64 `json:"temperature"`
	Tools               []struct {
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name string `json:"name"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

// contentText flattens a string or an array of content parts.
func contentText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

func parseRequest(path string, body []byte) (Request, error) {
	req := Request{Path: path, Body: string(body)}
	var wr wireRequest
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, err
	}
	req.Model = wr.Model
	req.Stream = wr.Stream
	req.IncludeUsage = wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage
	switch {
	case wr.MaxTokens != nil:
		req.MaxTokens = *wr.MaxTokens
	case wr.MaxCompletionTokens != nil:
		req.MaxTokens = *wr.MaxCompletionTokens
	}
	req.Temperature = wr.Temperature
	for _, m := range wr.Messages {
		msg := Message{Role: m.Role, Content: contentText(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		req.Messages = append(req.Messages, msg)
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	if len(wr.ToolChoice) > 0 && string(wr.ToolChoice) != "null" {
		req.ToolChoice = wr.ToolChoice
	}
	if rf := wr.ResponseFormat; rf != nil {
		req.ResponseFormat = rf.Type
		if rf.JSONSchema != nil {
			req.SchemaName = rf.JSONSchema.Name
		}
	}
	return req, nil
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	req, perr := parseRequest(r.URL.Path, body)
	req.Authorization = r.Header.Get("Authorization")

	s.mu.Lock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, req)
	s.mu.Unlock()

	if perr != nil {
		s.log("POST %s #%d: bad JSON: %v", r.URL.Path, req.N, perr)
		writeAPIError(w, http.StatusBadRequest, "llmtest: request body is not valid JSON: "+perr.Error(), "invalid_request_error", nil)
		return
	}
	if !s.authorized(r) {
		s.log("POST %s #%d: 401 (bad API key)", r.URL.Path, req.N)
		writeAPIError(w, http.StatusUnauthorized, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
		return
	}
	s.mu.Lock()
	structured := s.structured
	s.mu.Unlock()
	if req.ResponseFormat != "" && (structured == StructuredRejectAll || structured == StructuredRejectSchema && req.ResponseFormat == "json_schema") {
		// Refused before any step is used, as real servers do.
		s.log("POST %s #%d: 400 (response_format %s not supported)", r.URL.Path, req.N, req.ResponseFormat)
		writeAPIError(w, http.StatusBadRequest, fmt.Sprintf("response_format of type %s is not supported by this server", req.ResponseFormat), "invalid_request_error", nil)
		return
	}
	st := s.next(req)
	if structured == StructuredEnforce && req.ResponseFormat == "json_schema" && st.Enforced != "" {
		st.Text, st.Chunks = st.Enforced, nil
	}
	s.log("POST %s #%d model=%q stream=%v messages=%d: %s", r.URL.Path, req.N, req.Model, req.Stream, len(req.Messages), st)
	s.answer(w, r, req, st)
}

func (s *Server) next(req Request) Step {
	s.mu.Lock()
	if len(s.queue) > 0 {
		st := s.queue[0]
		s.queue = s.queue[1:]
		s.last = &st
		s.used++
		s.mu.Unlock()
		return st
	}
	h, def, last, repeat, used := s.handler, s.def, s.last, s.repeatLast, s.used
	s.mu.Unlock()
	switch {
	case h != nil:
		return h(req)
	case repeat && last != nil:
		return *last
	case def != nil:
		return *def
	}
	// A used-up script is a bug in the test: say so at once, and tell
	// clients that honour X-Should-Retry not to retry.
	st := Fault(http.StatusInternalServerError, fmt.Sprintf("llmtest: script exhausted (%d steps used)", used))
	st.Header = map[string]string{"X-Should-Retry": "false"}
	return st
}

// wait sleeps d (forever when d < 0); false if the client went away or
// the server is closing.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	var c <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		c = t.C
	}
	select {
	case <-c:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, req Request, st Step) {
	if st.Delay > 0 && !s.wait(r, st.Delay) {
		panic(http.ErrAbortHandler)
	}
	if st.Hang {
		s.wait(r, -1)
		panic(http.ErrAbortHandler)
	}
	if st.Drop {
		panic(http.ErrAbortHandler) // net/http closes the connection, logging nothing
	}
	for k, v := range st.Header {
		w.Header().Set(k, v)
	}
	if st.RetryAfter != "" {
		w.Header().Set("Retry-After", st.RetryAfter)
	}
	if st.isFault() {
		if st.Body != "" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st.Status)
			_, _ = io.WriteString(w, st.Body)
			return
		}
		msg := st.Message
		if msg == "" {
			msg = http.StatusText(st.Status)
		}
		writeAPIError(w, st.Status, msg, "llmtest_error", st.Status)
		return
	}
	if req.Stream {
		s.stream(w, r, req, st)
		return
	}
	writeJSON(w, http.StatusOK, completion(req, st))
}

func finishReason(st Step) string {
	switch {
	case st.FinishReason != "":
		return st.FinishReason
	case len(st.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func toolCallID(req Request, i int, tc ToolCall) string {
	if tc.ID != "" {
		return tc.ID
	}
	return fmt.Sprintf("call_%d_%d", req.N, i)
}

func usageOf(req Request, st Step) map[string]int {
	u := Usage{}
	if st.Usage != nil {
		u = *st.Usage
	} else {
		n := 0
		for _, m := range req.Messages {
			n += len(m.Content)
		}
		out := len(st.Text)
		for _, tc := range st.ToolCalls {
			out += len(tc.Name) + len(tc.Arguments)
		}
		u = Usage{PromptTokens: estimateTokens(n), CompletionTokens: estimateTokens(out)}
	}
	return map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.PromptTokens + u.CompletionTokens}
}

func estimateTokens(chars int) int {
	return max(1, int(math.Ceil(float64(chars)/4)))
}

func completion(req Request, st Step) map[string]any {
	msg := map[string]any{"role": "assistant", "content": st.Text}
	if len(st.ToolCalls) > 0 {
		if st.Text == "" {
			msg["content"] = nil
		}
		var calls []map[string]any
		for i, tc := range st.ToolCalls {
			calls = append(calls, map[string]any{
				"id": toolCallID(req, i, tc), "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments},
			})
		}
		msg["tool_calls"] = calls
	}
	out := map[string]any{
		"id":      fmt.Sprintf("chatcmpl-llmtest-%d", req.N),
		"object":  "chat.completion",
		"created": time.Now().Unix(),
		"model":   req.Model,
		"choices": []map[string]any{{
			"index": 0, "message": msg, "finish_reason": finishReason(st), "logprobs": nil,
		}},
	}
	if !st.NoUsage {
		out["usage"] = usageOf(req, st)
	}
	return out
}

// splitWords cuts text into word-sized deltas, each word carrying the
// whitespace before it: "a b" -> "a", " b".
func splitWords(text string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range text {
		sp := unicode.IsSpace(r)
		if sp && !inSpace && i > start {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = sp
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, st Step) {
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	id := fmt.Sprintf("chatcmpl-llmtest-%d", req.N)
	created := time.Now().Unix()
	send := func(choices []map[string]any, usage any) {
		chunk := map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"choices": choices,
		}
		if req.IncludeUsage {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		_, _ = fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	delta := func(d map[string]any) []map[string]any {
		return []map[string]any{{"index": 0, "delta": d, "finish_reason": nil, "logprobs": nil}}
	}

	send(delta(map[string]any{"role": "assistant", "content": ""}), nil)
	chunks := st.Chunks
	if chunks == nil {
		chunks = splitWords(st.Text)
	}
	sent := 0
	pace := func() {
		if st.DropAfter > 0 && sent >= st.DropAfter {
			panic(http.ErrAbortHandler) // break the stream off
		}
		if sent > 0 && st.ChunkDelay > 0 && !s.wait(r, st.ChunkDelay) {
			panic(http.ErrAbortHandler)
		}
		sent++
	}
	for _, c := range chunks {
		pace()
		send(delta(map[string]any{"content": c}), nil)
	}
	for i, tc := range st.ToolCalls {
		pace()
		send(delta(map[string]any{"tool_calls": []map[string]any{{
			"index": i, "id": toolCallID(req, i, tc), "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}), nil)
		pace()
		send(delta(map[string]any{"tool_calls": []map[string]any{{
			"index": i, "function": map[string]any{"arguments": tc.Arguments},
		}}}), nil)
	}
	if st.DropAfter > 0 && sent >= st.DropAfter {
		panic(http.ErrAbortHandler)
	}
	send([]map[string]any{{"index": 0, "delta": map[string]any{}, "finish_reason": finishReason(st), "logprobs": nil}}, nil)
	if req.IncludeUsage && !st.NoUsage {
		send([]map[string]any{}, usageOf(req, st))
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeAPIError(w http.ResponseWriter, status int, msg, typ string, code any) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": code}})
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeAPIError(w, status, msg, "llmtest_error", status)
}

// Leaks lists where a secret was sent, in any form redacttest.Encodings
// gives (checked in each recorded request's body and its decoded message
// texts and tool-call arguments): "request 2: hex". Empty when none was.
func (s *Server) Leaks(secrets ...string) []string {
	var out []string
	for _, r := range s.Requests() {
		texts := []string{r.Body}
		for _, m := range r.Messages {
			texts = append(texts, m.Content)
			for _, tc := range m.ToolCalls {
				texts = append(texts, tc.Arguments)
			}
		}
		all := strings.Join(texts, "\n")
		for _, secret := range secrets {
			for name, enc := range redacttest.Encodings(secret) {
				if strings.Contains(all, enc) {
					out = append(out, fmt.Sprintf("request %d: %q as %s", r.N, secret, name))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
