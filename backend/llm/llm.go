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
)

// Message is one chat turn.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
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
}

// Options tune one call.
type Options struct {
	Temperature *float64
	MaxTokens   int
	// OnDelta, when set, asks for a streamed reply and receives text as it
	// arrives (for progress in the UI). The full text is still in Reply.
	OnDelta func(delta string)
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
}
