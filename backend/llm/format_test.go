package llm_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

var planSchema = &llm.Schema{Name: "weft_plan", JSON: json.RawMessage(`{"type":"object","properties":{"nodes":{"type":"array"}},"required":["nodes"],"additionalProperties":false}`)}

func formatClient(t *testing.T, url, mode string, mem llm.FormatMemory) *llm.OpenAI {
	t.Helper()
	opts := []llm.Option{llm.WithBreakerRegistry(llm.NewBreakerRegistry())}
	if mem != nil {
		opts = append(opts, llm.WithFormatMemory(mem))
	}
	c, err := llm.New(llm.Config{BaseURL: url, Model: "m", StructuredOutput: mode}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func formats(srv *llmtest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		f := r.ResponseFormat
		if f == "" {
			f = "none"
		}
		out = append(out, f)
	}
	return out
}

func TestStructuredOutput(t *testing.T) {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "plan"}}
	t.Run("auto asks for the schema; a server that enforces it answers in shape", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithStructuredOutput(llmtest.StructuredEnforce),
			llmtest.WithSteps(llmtest.Step{Text: "Sure! {nodes: [", Enforced: `{"nodes": []}`}))
		r, err := formatClient(t, srv.URL, "", nil).Chat(context.Background(), msgs, llm.Options{Schema: planSchema})
		if err != nil || r.Text != `{"nodes": []}` {
			t.Fatalf("%q %v", r.Text, err)
		}
		req, _ := srv.LastRequest()
		if req.ResponseFormat != "json_schema" || req.SchemaName != "weft_plan" {
			t.Fatalf("request %+v", req)
		}
	})
	t.Run("a server that ignores it: the reply is as the model wrote it", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Step{Text: "Sure! {nodes: [", Enforced: `{"nodes": []}`}))
		r, _ := formatClient(t, srv.URL, "", nil).Chat(context.Background(), msgs, llm.Options{Schema: planSchema})
		if r.Text != "Sure! {nodes: [" {
			t.Fatalf("%q", r.Text)
		}
	})
	t.Run("a refused form is dropped once and remembered", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithStructuredOutput(llmtest.StructuredRejectSchema), llmtest.WithSteps(llmtest.Reply("a"), llmtest.Reply("b")))
		mem := &llm.FileFormatMemory{Path: filepath.Join(t.TempDir(), "state", "structured_output.json")}
		r, err := formatClient(t, srv.URL, "", mem).Chat(context.Background(), msgs, llm.Options{Schema: planSchema})
		if err != nil || r.Text != "a" {
			t.Fatalf("%q %v", r.Text, err)
		}
		if got := formats(srv); len(got) != 2 || got[0] != "json_schema" || got[1] != "json_object" {
			t.Fatalf("formats %v", got)
		}
		// A later client (another run) skips the refused form.
		if _, err := formatClient(t, srv.URL, "", mem).Chat(context.Background(), msgs, llm.Options{Schema: planSchema}); err != nil {
			t.Fatal(err)
		}
		if got := formats(srv); len(got) != 3 || got[2] != "json_object" {
			t.Fatalf("formats %v", got)
		}
		if b, err := os.ReadFile(mem.Path); err != nil || !json.Valid(b) {
			t.Fatalf("memory file: %v %s", err, b)
		}
	})
	t.Run("a server that refuses any form is asked without", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithStructuredOutput(llmtest.StructuredRejectAll), llmtest.WithSteps(llmtest.Reply("a")))
		r, err := formatClient(t, srv.URL, "auto", nil).Chat(context.Background(), msgs, llm.Options{Schema: planSchema})
		if err != nil || r.Text != "a" {
			t.Fatalf("%q %v", r.Text, err)
		}
		if got := formats(srv); len(got) != 3 || got[2] != "none" {
			t.Fatalf("formats %v", got)
		}
	})
	t.Run("explicit modes", func(t *testing.T) {
		for mode, want := range map[string]string{"off": "none", "json_object": "json_object", "json_schema": "json_schema"} {
			srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("a")))
			if _, err := formatClient(t, srv.URL, mode, nil).Chat(context.Background(), msgs, llm.Options{Schema: planSchema}); err != nil {
				t.Fatal(err)
			}
			if got := formats(srv); got[0] != want {
				t.Errorf("%s: sent %v", mode, got)
			}
		}
		// An explicit json_schema is not dropped: the server's refusal is the answer.
		srv := llmtest.Start(t, llmtest.WithStructuredOutput(llmtest.StructuredRejectSchema), llmtest.WithSteps(llmtest.Reply("a")))
		if _, err := formatClient(t, srv.URL, "json_schema", nil).Chat(context.Background(), msgs, llm.Options{Schema: planSchema}); err == nil {
			t.Error("json_schema refused: want the error")
		}
		if _, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m", StructuredOutput: "grammar"}); err == nil {
			t.Error("an unknown mode must be refused")
		}
	})
	t.Run("no schema, no field", func(t *testing.T) {
		srv := llmtest.Start(t, llmtest.WithSteps(llmtest.Reply("a")))
		if _, err := formatClient(t, srv.URL, "", nil).Chat(context.Background(), msgs, llm.Options{}); err != nil {
			t.Fatal(err)
		}
		if got := formats(srv); got[0] != "none" {
			t.Errorf("sent %v", got)
		}
	})
}
