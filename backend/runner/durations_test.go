package runner

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/validate"
)

func TestMillisNeverWraps(t *testing.T) {
	cases := []struct {
		ms, max int64
		want    time.Duration
	}{
		{0, maxTimeoutMs, 0},
		{-1, maxTimeoutMs, 0},
		{math.MinInt64, maxTimeoutMs, 0},
		{1500, maxTimeoutMs, 1500 * time.Millisecond},
		{maxTimeoutMs, maxTimeoutMs, 7 * 24 * time.Hour},
		{1e13, maxTimeoutMs, 7 * 24 * time.Hour}, // wraps to a negative duration unguarded
		{math.MaxInt64, maxTimeoutMs, 7 * 24 * time.Hour},
		{math.MaxInt64, maxBackoffMs, 24 * time.Hour},
	}
	for _, tc := range cases {
		if got := millis(tc.ms, tc.max); got != tc.want {
			t.Errorf("millis(%d, %d) = %v, want %v", tc.ms, tc.max, got, tc.want)
		}
	}
}

func TestDurationArguments(t *testing.T) {
	cases := []struct {
		name    string
		tool    string
		args    map[string]any
		wantErr string // "" no error
	}{
		{"wait 1 ms", "wait", map[string]any{"ms": float64(1)}, ""},
		{"wait 1e13 from a template", "wait", map[string]any{"ms": "10000000000000"}, "at most 604800000"},
		{"wait 1e13", "wait", map[string]any{"ms": 1e13}, "at most"},
		{"wait 2^63", "wait", map[string]any{"ms": 9223372036854775808.0}, "ms"},
		{"wait 1e300", "wait", map[string]any{"ms": 1e300}, "ms"},
		{"wait negative", "wait", map[string]any{"ms": float64(-1)}, "at least 0"},
		{"command timeout 1e13", "run_command", map[string]any{"command": "true", "timeout_ms": 1e13}, "at most 604800000"},
		{"command timeout as text past the limit", "run_command", map[string]any{"command": "true", "timeout_ms": "604800001"}, "at most"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
			defer cancel()
			fn := waitTool
			if tc.tool == "run_command" {
				fn = runCommand
			}
			start := time.Now()
			_, err := fn(ctx, ToolCall{Name: tc.tool, Args: tc.args, Dir: t.TempDir()})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err %v, want it to contain %q", err, tc.wantErr)
			}
			if time.Since(start) > 2*time.Second {
				t.Fatal("refusing took as long as waiting")
			}
		})
	}
}

func TestRefusesAnOverflowingTimeout(t *testing.T) {
	e := newEnv(t)
	_, err := New(e.opts).Run(t.Context(), parse(t, `"nodes":[
 {"id":"w","key":"pause","type":"Tool","timeout_ms":10000000000000,"params":{"tool":"wait","arguments":{"ms":1}}}],"edges":[]`))
	var ie *InvalidError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), validate.CodeBadDuration) {
		t.Fatalf("err = %v", err)
	}
}
