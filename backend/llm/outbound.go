package llm

import "github.com/weft-dev/weft/backend/redact"

// Nothing leaves for a model unredacted: every Chat call passes its
// messages (their text and the arguments of replayed tool calls) through
// a redactor before they are sent, whichever caller built them (planner,
// assistant, replanner, critic, AI steps). The redactor holds the API key,
// the secrets given with WithSecrets (the settings' secrets) and
// Options.Secrets (what a run has learned), and the literal credentials
// written in the messages themselves (a workflow's Authorization header,
// an api_key argument or query parameter: redact.AddLiterals). A redacted
// value reaches the model as redact.Placeholder in any of its encodings.

// WithSecrets names values that must never be sent to the model (the
// settings' secrets: settings.Settings.Secrets).
func WithSecrets(secrets ...string) Option {
	return func(o *options) { o.secrets = append(o.secrets, secrets...) }
}

// outbound returns messages as they may be sent: with every known and
// every literal credential replaced. The caller's slice is not changed.
func (c *OpenAI) outbound(messages []Message, opts Options) []Message {
	red := redact.New(c.secrets...)
	red.Add(opts.Secrets...)
	for _, m := range messages {
		red.AddLiterals(m.Content)
		for _, tc := range m.ToolCalls {
			red.AddLiterals(tc.Arguments)
		}
	}
	if red.Empty() {
		return messages
	}
	out := make([]Message, len(messages))
	for i, m := range messages {
		m.Content = red.String(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]ToolCall, len(m.ToolCalls))
			for j, tc := range m.ToolCalls {
				tc.Arguments = red.String(tc.Arguments)
				calls[j] = tc
			}
			m.ToolCalls = calls
		}
		out[i] = m
	}
	return out
}
