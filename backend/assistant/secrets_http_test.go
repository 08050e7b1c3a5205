package assistant

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/workflow"
)

// TestChatSendsNoSecretAndKeepsRedactedValues: the workflow the model is
// shown holds a secret Weft knows (in a command) and literal credentials
// (an Authorization header, a token argument, a query key); none reaches
// the server in any encoding, and the model's update, which can only say
// [REDACTED] for them, keeps the real values.
func TestChatSendsNoSecretAndKeepsRedactedValues(t *testing.T) {
	const (
		known  = "known-secret-0a1b2c3d"
		header = "header-token-4e5f6a7b"
		arg    = "arg-token-8c9d0e1f"
		query  = "query-key-2a3b4c5d"
	)
	w := pipeline()
	w.Nodes[0].Params.Arguments = map[string]any{"command": "curl -u me:" + known + " -O https://example.com/a.zip"}
	w.Nodes[2].Params = pipelineHTTP("https://api.example.com/n?api_key="+query, header, arg)
	update := `{"update": [{"node_id": "notify", "arguments": {"url": "https://api.example.com/n?api_key=[REDACTED]",
		"method": "POST", "headers": {"Authorization": "Bearer [REDACTED]"}, "access_token": "[REDACTED]", "body": "done"}},
		{"node_id": "download", "arguments": {"command": "curl -u me:[REDACTED] -O https://example.com/b.zip"}}]}`
	srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply(update)))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model", APIKey: "sk-test"},
		llm.WithRetry(llm.RetryPolicy{MaxRetries: 1, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond}),
		llm.WithBreakerRegistry(llm.NewBreakerRegistry()), llm.WithSecrets(known))
	if err != nil {
		t.Fatal(err)
	}
	conf, _ := cfg(1)
	res, err := Chat(context.Background(), c, Request{Workflow: w, Message: "send the note with POST"}, conf)
	if err != nil {
		t.Fatal(err)
	}
	if leaks := srv.Leaks(known, header, arg, query); len(leaks) > 0 {
		t.Errorf("sent to the model:\n%s", strings.Join(leaks, "\n"))
	}
	got := map[string]map[string]any{}
	for _, n := range res.Patch.UpdatedNodes {
		got[n.Key] = n.Params.Arguments
	}
	args := got["notify"]
	if args == nil || args["url"] != "https://api.example.com/n?api_key="+query || args["access_token"] != arg ||
		args["headers"].(map[string]any)["Authorization"] != "Bearer "+header || args["method"] != "POST" {
		t.Errorf("notify's arguments = %v", args)
	}
	// The model changed the text around the placeholder: its text is kept,
	// placeholder and all, for the person to see in the review.
	if cmd := got["download"]["command"]; cmd != "curl -u me:"+redact.Placeholder+" -O https://example.com/b.zip" {
		t.Errorf("download's command = %v", cmd)
	}
}

func pipelineHTTP(url, header, token string) workflow.Params {
	return workflow.Params{Tool: "http_request", Arguments: map[string]any{"url": url, "method": "GET",
		"headers": map[string]any{"Authorization": "Bearer " + header}, "access_token": token, "body": "done"}}
}
