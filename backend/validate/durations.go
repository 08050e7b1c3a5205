package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// The largest durations a workflow may ask for (workflow.MaxTimeoutMs…).
const (
	MaxTimeoutMs = workflow.MaxTimeoutMs
	// MaxWaitMs bounds the wait tool's ms: 7 days.
	MaxWaitMs            = MaxTimeoutMs
	MaxBackoffMs         = workflow.MaxBackoffMs
	MaxBackoffMultiplier = workflow.MaxBackoffMultiplier
)

// checkDurations reports the node's out-of-range durations. Values a
// template fills in at run time are left to the runner.
func (v *validator) checkDurations(i int32) {
	nd := &v.nodes[i]
	bad := func(field string, val any, rule string) {
		v.add(CodeBadDuration, SeverityError, fmt.Sprintf("%s has %s %s: %s", v.label(i), field, show(val), rule), []int32{i})
	}
	if nd.TimeoutMs < 0 || nd.TimeoutMs > MaxTimeoutMs {
		bad("timeout_ms", nd.TimeoutMs, rangeRule(1, MaxTimeoutMs, "7 days")+" (leave it out for no timeout)")
	}
	if nd.Retry != nil && nd.Retry.Backoff != nil {
		b := nd.Retry.Backoff
		if b.InitialMs < 0 || b.InitialMs > MaxBackoffMs {
			bad("retry.backoff.initial_ms", b.InitialMs, rangeRule(1, MaxBackoffMs, "1 day"))
		}
		if b.MaxMs < 0 || b.MaxMs > MaxBackoffMs {
			bad("retry.backoff.max_ms", b.MaxMs, rangeRule(1, MaxBackoffMs, "1 day"))
		}
		if m := b.Multiplier; m != 0 && !(m >= 1 && m <= MaxBackoffMultiplier) {
			bad("retry.backoff.multiplier", m, fmt.Sprintf("use a number from 1 to %d", MaxBackoffMultiplier))
		}
	}
	if nd.Type != workflow.TypeTool {
		return
	}
	switch nd.Params.Tool {
	case "wait":
		if val, ok := nd.Params.Arguments["ms"]; ok && !isTemplate(val) {
			if n, ok := literalInt(val); !ok || n < 0 || n > MaxWaitMs {
				bad("the argument ms", val, rangeRule(0, MaxWaitMs, "7 days"))
			}
		}
	case "run_command":
		if val, ok := nd.Params.Arguments["timeout_ms"]; ok && !isTemplate(val) {
			if n, ok := literalInt(val); !ok || n < 1 || n > MaxTimeoutMs {
				bad("the argument timeout_ms", val, rangeRule(1, MaxTimeoutMs, "7 days"))
			}
		}
	}
}

func rangeRule(lo, hi int64, human string) string {
	return fmt.Sprintf("use a whole number of milliseconds from %d to %d (%s)", lo, hi, human)
}

// isTemplate: the value exists only at run time, where the runner checks it.
func isTemplate(val any) bool {
	s, ok := val.(string)
	return ok && strings.Contains(s, "{{")
}

// literalInt is a whole-number argument's value, and whether it is one
// (as JSON number or decimal string, as the runner accepts it).
func literalInt(val any) (int64, bool) {
	switch t := val.(type) {
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) || t != math.Trunc(t) || math.Abs(t) > 1<<62 {
			return 0, false
		}
		return int64(t), true
	case int:
		return int64(t), true
	case int64:
		return t, true
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
		return n, err == nil
	}
	return 0, false
}

func show(val any) string {
	switch t := val.(type) {
	case string:
		return strconv.Quote(t)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	return fmt.Sprint(val)
}
