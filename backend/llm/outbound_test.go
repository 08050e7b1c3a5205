package llm_test

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/redact/redacttest"
)

// TestNothingLeavesUnredacted: a known secret in every encoding, the API
// key, a run's secret and the literal credentials of a workflow shown to
// the model (an Authorization header, a token argument, an api_key query
// parameter) reach the server as placeholders, in message texts and in
// replayed tool calls alike, plain or streamed.
func TestNothingLeavesUnredacted(t *testing.T) {
	const (
		known   = "settings-secret-7f3a9c2e"
		apiKey  = "sk-apikey-0123456789abcdef"
		learned = "learned-at-run-time-42abc"
		header  = "header-token-9b8c7d6e5f"
		arg     = "argument-token-1a2b3c4d"
		query   = "query-key-5e6f7a8b9c0d"
	)
	var encoded []string
	for _, enc := range redacttest.Encodings(known) {
		encoded = append(encoded, enc)
	}
	workflow := `{"nodes":[{"key":"fetch_issues","type":"tool","params":{"tool":"http_request","arguments":{` +
		`"url":"https://api.example.com/x?api_key=` + query + `&page=2",` +
		`"headers":{"Authorization":"Bearer ` + header + `","X-Ref":"{{secrets.GH}}"},` +
		`"access_token":"` + arg + `"}}}]}`
	for _, stream := range []bool{false, true} {
		srv := llmtest.Start(t, llmtest.WithRepeatLast(), llmtest.WithSteps(llmtest.Reply("ok")))
		c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", APIKey: apiKey}, llm.WithSecrets(known))
		if err != nil {
			t.Fatal(err)
		}
		msgs := []llm.Message{
			{Role: llm.RoleSystem, Content: "You edit workflows. Key " + apiKey},
			{Role: llm.RoleUser, Content: "The workflow: " + workflow + "\nIt printed: " + strings.Join(encoded, " ; ") + " and " + learned},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "c1", Name: "patch", Arguments: `{"value":"` + known + `","url":"https://u:` + arg + `@h.example/"}`}}},
			{Role: llm.RoleTool, ToolCallID: "c1", Content: "done: " + redacttest.Encodings(known)["hex"]},
		}
		opts := llm.Options{Secrets: []string{learned}}
		if stream {
			opts.OnDelta = func(string) {}
		}
		if _, err := c.Chat(context.Background(), msgs, opts); err != nil {
			t.Fatal(err)
		}
		if leaks := srv.Leaks(known, apiKey, learned, header, arg, query); len(leaks) > 0 {
			t.Errorf("stream=%v: sent to the model:\n%s", stream, strings.Join(leaks, "\n"))
		}
		body := srv.Requests()[0].Body
		for _, keep := range []string{"fetch_issues", "{{secrets.GH}}", "page=2", "[REDACTED]"} {
			if !strings.Contains(body, keep) {
				t.Errorf("stream=%v: %q is missing from the request: %s", stream, keep, body)
			}
		}
		if msgs[1].Content == "" || !strings.Contains(msgs[1].Content, header) {
			t.Error("the caller's messages were changed")
		}
	}
}
