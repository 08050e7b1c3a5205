package planner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/validate"
)

// End-to-end: the loop through the real OpenAI-compatible client and the
// scripted fake server.

func httpClient(t *testing.T, srv *llmtest.Server) llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model", APIKey: "sk-test"},
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}),
		llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPlanOverHTTPTruncatedThenInvalidThenValid(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(
		llmtest.Truncated(replyValidFlat[:60]),
		llmtest.Reply(replyIfOneBranch),
		llmtest.Reply("Here is the plan:\n```json\n"+replyValidFlat+"\n```"),
	))
	res, err := PlanWorkflow(context.Background(), httpClient(t, srv), "count my notes", Config{MaxRepairAttempts: 3, Model: "fake-model"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 3 || srv.Calls() != 3 {
		t.Fatalf("valid=%v calls=%d/%d attempts=%+v", res.Valid, res.LLMCalls, srv.Calls(), res.Attempts)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[1].LastUser(), "cut off at the length limit") {
		t.Errorf("re-ask 1:\n%s", reqs[1].LastUser())
	}
	if r := reqs[2].LastUser(); !strings.Contains(r, validate.CodeIfMissingBranch) || !strings.Contains(r, "A correct example of an If") {
		t.Errorf("re-ask 2:\n%s", r)
	}
	// A re-ask is the first request plus its feedback: no earlier reply
	// or re-ask goes back.
	if n := len(reqs[0].Messages); len(reqs[2].Messages) != n+1 || reqs[2].Messages[n-1].Content != reqs[0].Messages[n-1].Content {
		t.Errorf("re-ask 2 should be the first request plus its feedback; got %d messages", len(reqs[2].Messages))
	}
	if res.Usage.TotalTokens == 0 {
		t.Error("usage should add up the server's reports")
	}
	if len(WarningsOf(res.Warnings, StageExtract)) == 0 {
		t.Errorf("the fenced reply should carry an extract warning: %+v", res.Warnings)
	}
}

func TestPlanOverHTTPTransportRetryIsNoAttempt(t *testing.T) {
	// A 429 is retried inside the client; the loop sees one call.
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.RateLimit("0"), llmtest.Reply(replyValidFlat)))
	res, err := PlanWorkflow(context.Background(), httpClient(t, srv), "count my notes", Config{MaxRepairAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 1 || len(res.Attempts) != 1 || srv.Calls() != 2 {
		t.Fatalf("valid=%v llm_calls=%d attempts=%d http=%d", res.Valid, res.LLMCalls, len(res.Attempts), srv.Calls())
	}
}

func TestPlanOverHTTPRejectedIsAnError(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Fault(401, "invalid api key")))
	res, err := PlanWorkflow(context.Background(), httpClient(t, srv), "count my notes", Config{MaxRepairAttempts: 3})
	if !errors.Is(err, llm.ErrRejected) {
		t.Fatalf("err = %v, want ErrRejected", err)
	}
	if res.LLMCalls != 0 || len(res.Attempts) != 0 || srv.Calls() != 1 {
		t.Fatalf("llm_calls=%d attempts=%d http=%d", res.LLMCalls, len(res.Attempts), srv.Calls())
	}
}

func TestPlanOverHTTPCancel(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(replyIfOneBranch), llmtest.Hang()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{MaxRepairAttempts: 3, OnProgress: func(e Event) {
		if e.Kind == EventCalling && e.Attempt == 2 {
			go func() {
				for srv.Calls() < 2 {
					time.Sleep(2 * time.Millisecond)
				}
				cancel()
			}()
		}
	}}
	start := time.Now()
	res, err := PlanWorkflow(ctx, httpClient(t, srv), "count my notes", cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.LLMCalls != 1 || time.Since(start) > 5*time.Second {
		t.Fatalf("llm_calls=%d after %s", res.LLMCalls, time.Since(start))
	}
}
