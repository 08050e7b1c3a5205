package llm_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

// A planner-style test: script the fake server, build a client against it
// and assert on what was sent.
func Example() {
	srv := llmtest.New(llmtest.WithSteps(
		llmtest.RateLimit("0"), // a transport fault: retried inside Chat
		llmtest.Step{Text: `{"nodes":[]}`, Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 6}},
	))
	defer srv.Close()

	var meter llm.Meter
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model", Timeout: 10 * time.Second},
		llm.WithRetry(llm.RetryPolicy{BaseDelay: time.Millisecond}),
		llm.WithBreakerRegistry(llm.NewBreakerRegistry()),
		llm.WithMeter(&meter))
	if err != nil {
		panic(err)
	}
	reply, err := c.Chat(context.Background(), []llm.Message{
		{Role: llm.RoleSystem, Content: "You plan workflows."},
		{Role: llm.RoleUser, Content: "Rename my photos"},
	}, llm.Options{})
	if errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrRejected) {
		fmt.Println("endpoint problem, not the model's fault:", err)
		return
	}
	req, _ := srv.LastRequest()
	fmt.Println(reply.Text, reply.FinishReason)
	fmt.Println("server calls:", srv.Calls(), "last user message:", req.LastUser())
	fmt.Printf("%+v\n", meter.Totals())
	// Output:
	// {"nodes":[]} stop
	// server calls: 2 last user message: Rename my photos
	// {Calls:1 Failures:0 PromptTokens:20 CompletionTokens:6 TotalTokens:26}
}
