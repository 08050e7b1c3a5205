package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestDurations(t *testing.T) {
	backoff := func(b workflow.Backoff) func(n *workflow.Node) {
		return func(n *workflow.Node) { n.Retry = &workflow.Retry{MaxAttempts: 3, Backoff: &b} }
	}
	tool := func(name string, args map[string]any) func(n *workflow.Node) {
		return func(n *workflow.Node) { n.Params = workflow.Params{Tool: name, Arguments: args} }
	}
	cases := []struct {
		name    string
		set     func(n *workflow.Node)
		wantBad string // "" valid; else a text the message must contain
	}{
		{"no timeout", func(n *workflow.Node) {}, ""},
		{"timeout at the maximum", func(n *workflow.Node) { n.TimeoutMs = MaxTimeoutMs }, ""},
		{"timeout 1 ms past", func(n *workflow.Node) { n.TimeoutMs = MaxTimeoutMs + 1 }, "timeout_ms 604800001"},
		{"timeout that overflows a Duration", func(n *workflow.Node) { n.TimeoutMs = 10_000_000_000_000 }, "7 days"},
		{"timeout max int", func(n *workflow.Node) { n.TimeoutMs = math.MaxInt }, "timeout_ms"},
		{"negative timeout", func(n *workflow.Node) { n.TimeoutMs = -1 }, "timeout_ms -1"},
		{"backoff in range", backoff(workflow.Backoff{InitialMs: 500, MaxMs: MaxBackoffMs, Multiplier: 2}), ""},
		{"backoff initial too long", backoff(workflow.Backoff{InitialMs: MaxBackoffMs + 1}), "initial_ms"},
		{"backoff max negative", backoff(workflow.Backoff{MaxMs: -5}), "max_ms -5"},
		{"backoff max overflows", backoff(workflow.Backoff{MaxMs: math.MaxInt64}), "1 day"},
		{"multiplier below 1", backoff(workflow.Backoff{Multiplier: 0.5}), "multiplier 0.5"},
		{"multiplier huge", backoff(workflow.Backoff{Multiplier: 1e308}), "multiplier 1e+308"},
		{"multiplier negative", backoff(workflow.Backoff{Multiplier: -2}), "multiplier"},
		{"multiplier at the maximum", backoff(workflow.Backoff{Multiplier: MaxBackoffMultiplier}), ""},
		{"wait in range", tool("wait", map[string]any{"ms": float64(1500)}), ""},
		{"wait zero", tool("wait", map[string]any{"ms": float64(0)}), ""},
		{"wait as a decimal string", tool("wait", map[string]any{"ms": "250"}), ""},
		{"wait 1e13", tool("wait", map[string]any{"ms": 1e13}), "ms 1e+13"},
		{"wait 1e300", tool("wait", map[string]any{"ms": 1e300}), "ms 1e+300"},
		{"wait negative", tool("wait", map[string]any{"ms": float64(-1)}), "ms -1"},
		{"wait fraction", tool("wait", map[string]any{"ms": 1.5}), "whole number"},
		{"wait text", tool("wait", map[string]any{"ms": "soon"}), `"soon"`},
		{"wait huge string", tool("wait", map[string]any{"ms": "99999999999999999999999"}), "ms"},
		{"wait bool", tool("wait", map[string]any{"ms": true}), "ms true"},
		{"wait from a template", tool("wait", map[string]any{"ms": "{{a.stdout}}"}), ""},
		{"command timeout in range", tool("run_command", map[string]any{"command": "echo", "timeout_ms": float64(5000)}), ""},
		{"command timeout zero", tool("run_command", map[string]any{"command": "echo", "timeout_ms": float64(0)}), "timeout_ms 0"},
		{"command timeout 1e13", tool("run_command", map[string]any{"command": "echo", "timeout_ms": 1e13}), "timeout_ms 1e+13"},
		{"command timeout from a template", tool("run_command", map[string]any{"command": "echo", "timeout_ms": "{{a.stdout}}"}), ""},
		{"another tool's ms is not ours", tool("log", map[string]any{"message": "x", "ms": 1e13}), ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(withDuration(tc.set), catalog)
			var msgs []string
			for _, p := range r.Problems {
				if p.Code == CodeBadDuration {
					msgs = append(msgs, p.Message)
					if p.Severity != SeverityError || len(p.NodeIDs) != 1 || p.NodeIDs[0] != "a" {
						t.Errorf("problem %+v", p)
					}
				}
			}
			if tc.wantBad == "" {
				if len(msgs) != 0 {
					t.Fatalf("want no bad_duration, got %q", msgs)
				}
				return
			}
			if len(msgs) != 1 || !strings.Contains(msgs[0], tc.wantBad) {
				t.Fatalf("want one bad_duration containing %q, got %q", tc.wantBad, msgs)
			}
		})
	}
}
