package assistant

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/validate"
)

// End to end through the real OpenAI-compatible client and the scripted
// fake server.

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

const ifOneBranch = `{"add_nodes": [{"id": "big", "step_type": "If", "name": "Archive ok?", "condition": "download.exit_code == 0"}],
 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": {"type": "IfTrue"}}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`

const ifBothBranches = `{"message": "Unzip only when the download worked.",
 "add_nodes": [{"id": "big", "step_type": "If", "name": "Archive ok?", "condition": "download.exit_code == 0"},
               {"id": "fail", "step_type": "Tool", "name": "Report failure", "tool_name": "log", "arguments": {"message": "download failed"}}],
 "add_edges": [{"from": "download", "to": "big"}, {"from": "big", "to": "unzip", "output": "IfTrue"}, {"from": "big", "to": "fail", "output": "false"}],
 "remove_edges": [{"from": "download", "to": "unzip"}]}`

func TestChatOverHTTPRepairsInvalidPatch(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(ifOneBranch), llmtest.Reply("```json\n"+ifBothBranches+"\n```")))
	conf, pl := cfg(3)
	res, err := Chat(context.Background(), httpClient(t, srv), Request{Workflow: pipeline(), Message: "only unzip when the download worked"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.Attempts != 2 || srv.Calls() != 2 || pl.count(ProgressRepairing) != 1 {
		t.Fatalf("valid %v attempts %d calls %d warnings %v", res.Valid, res.Attempts, srv.Calls(), res.Warnings)
	}
	reqs := srv.Requests()
	if fb := reqs[1].LastUser(); !strings.Contains(fb, validate.CodeIfMissingBranch) || !strings.Contains(fb, "'Archive ok?' (key big)") {
		t.Errorf("feedback:\n%s", fb)
	}
	if len(reqs[1].Messages) != len(reqs[0].Messages)+1 {
		t.Errorf("the re-ask should be the first request plus its feedback; got %d messages", len(reqs[1].Messages))
	}
	if sys := reqs[0].System(); !strings.Contains(sys, "download → unzip") || !strings.Contains(sys, "remove_edges") {
		t.Errorf("system prompt:\n%s", sys)
	}
	if res.Usage.TotalTokens == 0 {
		t.Error("usage is not added up")
	}
	if s := shape(res.Workflow); s != "download,unzip,notify,big,fail | unzip>notify download>big big>unzip:IfTrue big>fail:IfFalse" {
		t.Errorf("shape = %s", s)
	}
}

func TestChatOverHTTPTransportRetryIsNoAttempt(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Fault(503, "busy"), llmtest.Reply(validUpdate)))
	conf, _ := cfg(1)
	res, err := Chat(context.Background(), httpClient(t, srv), Request{Workflow: pipeline(), Message: "x"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.Attempts != 1 || res.LLMCalls != 1 || srv.Calls() != 2 {
		t.Fatalf("valid %v attempts %d llm_calls %d server calls %d", res.Valid, res.Attempts, res.LLMCalls, srv.Calls())
	}
}

func TestChatOverHTTPAuthErrorIsAnError(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithAPIKey("other-key"), llmtest.WithSteps(llmtest.Reply(validUpdate)))
	conf, _ := cfg(3)
	_, err := Chat(context.Background(), httpClient(t, srv), Request{Workflow: pipeline(), Message: "x"}, conf)
	if err == nil || !llm.IsEndpointError(err) && !strings.Contains(err.Error(), "401") {
		t.Fatalf("err = %v", err)
	}
}
