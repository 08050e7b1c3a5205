package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/mcp/mcptest"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/settings"
)

const (
	apiKey      = "sk-weft-api-key-0123456789"
	serverToken = "mcp-server-token-abcdefghij"
)

// secretServer is the test server configured with a token, run by a Weft
// whose environment holds the API key under two names.
func secretServer(t *testing.T, red *redact.Redactor) *Manager {
	t.Helper()
	t.Setenv("WEFT_LLM_API_KEY", apiKey)
	t.Setenv("OPENAI_API_KEY", apiKey)
	t.Setenv("WEFT_TEST_SESSION_TOKEN", "weft-session-xyz")
	cfg := mcptest.Config(t.TempDir())
	cfg.Env["SERVICE_TOKEN"] = serverToken
	m := NewManager(map[string]settings.MCPServer{"go": cfg}, Options{TerminateTimeout: time.Second, Redactor: red})
	t.Cleanup(func() { m.Close() })
	return m
}

func TestServerEnvironment(t *testing.T) {
	m := secretServer(t, redact.New(apiKey))
	ctx := context.Background()
	cases := []struct{ name, want string }{
		{"WEFT_LLM_API_KEY", ""},        // Weft's own variable
		{"OPENAI_API_KEY", ""},          // the configured key under another name
		{"WEFT_TEST_SESSION_TOKEN", ""}, // any WEFT_* credential
		{"SERVICE_TOKEN", serverToken},  // configured for this server: it gets it
		{"WEFT_MCPTEST_SERVE", "1"},     // configured, not a secret
	}
	for _, tc := range cases {
		res, err := m.Call(ctx, "go", "env", map[string]any{"name": tc.name})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != tc.want {
			t.Errorf("the server sees %s=%q, want %q", tc.name, res.Text, tc.want)
		}
	}
}

func TestServerEnvironmentWithoutRedactor(t *testing.T) {
	m := secretServer(t, nil)
	res, err := m.Call(context.Background(), "go", "env", map[string]any{"name": "WEFT_LLM_API_KEY"})
	if err != nil || res.Text != "" {
		t.Errorf("WEFT_LLM_API_KEY reached the server without a redactor: %q %v", res.Text, err)
	}
}

func TestErrorsHideSecrets(t *testing.T) {
	ctx := context.Background()
	for _, red := range []*redact.Redactor{nil, redact.New(apiKey)} {
		m := secretServer(t, red)
		_, err := m.Call(ctx, "go", "leak", map[string]any{"name": "SERVICE_TOKEN"})
		var me *Error
		if !errors.As(err, &me) || me.Kind != KindCrashed {
			t.Fatalf("leak: %#v", err)
		}
		if strings.Contains(err.Error(), serverToken) || strings.Contains(me.Message, serverToken) {
			t.Errorf("the server's stderr shows its token: %v", err)
		}
		if !strings.Contains(err.Error(), "cannot authenticate with SERVICE_TOKEN="+redact.Placeholder) {
			t.Errorf("the rest of the stderr should stay: %v", err)
		}
		// A tool error quoting the token is redacted in the error, not in
		// the result the workflow gets.
		res, err := m.Call(ctx, "go", "fail", map[string]any{"message": "bad token " + serverToken})
		if err == nil || strings.Contains(err.Error(), serverToken) || !errors.As(err, &me) || strings.Contains(me.Message, serverToken) {
			t.Errorf("tool error: %v", err)
		}
		if !strings.Contains(res.Text, serverToken) {
			t.Errorf("the tool's own result should be left whole: %q", res.Text)
		}
	}
}

func TestTailBufferDropsCutLine(t *testing.T) {
	tb := &tailBuffer{max: 16}
	tb.Write([]byte("token=abcdefghij\nsecond line\n"))
	if got := tb.String(); got != "second line" {
		t.Errorf("tail = %q", got)
	}
	whole := &tailBuffer{max: 64}
	whole.Write([]byte("first\nsecond\n"))
	if got := whole.String(); got != "first\nsecond" {
		t.Errorf("uncut tail = %q", got)
	}
}
