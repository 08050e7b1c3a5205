// Package llm talks to OpenAI-compatible chat endpoints. Callers see only
// the Client interface, so tests and the UI never depend on the transport.
package llm

import (
	"context"
	"time"
)

// Role of a chat message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	// RoleTool carries the result of a tool call back to the model; set
	// Message.ToolCallID to the ToolCall.ID it answers.
	RoleTool Role = "tool"
)

// Message is one chat turn.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// ToolCalls are the function calls an assistant turn asked for (only
	// when replaying a conversation that used Options.Tools).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID ties a RoleTool message to the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Tool is a function the model may call (OpenAI function calling).
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Parameters is the JSON Schema of the arguments object; nil means
	// "no arguments".
	Parameters map[string]any `json:"parameters,omitempty"`
}

// ToolCall is one function call requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text, as the model wrote it
}

// Usage counts the tokens of one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Reply is the model's answer to one Chat call.
type Reply struct {
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason"` // "stop", "length", ...
	Usage        Usage  `json:"usage"`
	// ToolCalls are set when the model called tools (FinishReason is then
	// usually "tool_calls").
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
}

// Options tune one call.
type Options struct {
	Temperature *float64
	MaxTokens   int
	// OnDelta, when set, asks for a streamed reply and receives text as it
	// arrives (for progress in the UI). The full text is still in Reply.
	OnDelta func(delta string)
	// OnReset, when set, is called if a streamed reply broke off after
	// some deltas were delivered and is about to be requested again (a
	// transport retry): text received through OnDelta so far should be
	// discarded.
	OnReset func()
	// Tools offers functions the model may call; see Reply.ToolCalls.
	Tools []Tool
	// ToolChoice is "", "auto", "none", "required" or the name of one
	// tool the model must call.
	ToolChoice string
	// Schema, when set, asks for a reply of that shape where the server
	// can enforce it (response_format; see format.go).
	Schema *Schema
	// Secrets are values of this call's context that must not be sent
	// (what a run has learned), besides the client's own (outbound.go).
	Secrets []string
}

// Client is a chat-completion endpoint.
type Client interface {
	Chat(ctx context.Context, messages []Message, opts Options) (Reply, error)
}

// Config says which endpoint to call and how.
type Config struct {
	BaseURL string
	Model   string
	APIKey  string
	// Timeout bounds one HTTP request (not the retries around it).
	Timeout time.Duration
	// TotalTimeout bounds a whole call, every attempt and wait between
	// them included (0: DefaultTotalTimeout): a stalled server costs this
	// long at most, not attempts × Timeout.
	TotalTimeout time.Duration
	// StructuredOutput is auto (default), json_schema, json_object or off:
	// how a call's Schema is sent (format.go).
	StructuredOutput string
}

// Progress reports a call that is taking a while: every ProgressEvery of
// an attempt, and when it waits before a retry.
type Progress struct {
	Attempt     int
	MaxAttempts int
	Elapsed     time.Duration
	// Waiting is set when the call waits before its next attempt, with
	// the reason (a rate limit, a failed attempt).
	Waiting time.Duration
	Reason  string
}
