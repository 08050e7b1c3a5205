package runner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// truncate keeps the first n bytes of s (on a rune boundary) and marks the
// cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("…[%d more bytes]", len(s)-cut)
}

// tail keeps the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := len(s) - n
	for cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut++
	}
	return fmt.Sprintf("[%d bytes before]…", cut) + s[cut:]
}

// bounded returns a copy of outputs fit for an event line: long strings are
// cut and deep values rendered as (cut) JSON.
func bounded(outputs map[string]any, n int) map[string]any {
	if outputs == nil {
		return nil
	}
	if fits(outputs, n) {
		return outputs // output maps are never changed once set: sharing is safe
	}
	out := make(map[string]any, len(outputs))
	for k, v := range outputs {
		switch t := v.(type) {
		case string:
			out[k] = truncate(t, n)
		case nil, bool, int, int64, float64:
			out[k] = t
		default:
			b, err := json.Marshal(t)
			if err != nil || len(b) > n {
				out[k] = truncate(string(b), n)
			} else {
				out[k] = json.RawMessage(b)
			}
		}
	}
	return out
}

func fits(outputs map[string]any, n int) bool {
	for _, v := range outputs {
		switch t := v.(type) {
		case string:
			if len(t) > n {
				return false
			}
		case nil, bool, int, int64, float64:
		default:
			return false
		}
	}
	return true
}

// outputSummary renders a node's outputs for a failure record in at most
// about n bytes, the telling parts first.
func outputSummary(outputs map[string]any, n int) string {
	if len(outputs) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{"success": true, "error": true}
	for _, k := range []string{"exit_code", "status"} {
		if v, ok := outputs[k]; ok {
			parts = append(parts, k+"="+toText(v))
			seen[k] = true
		}
	}
	for _, k := range []string{"stderr", "stdout", "body", "text"} {
		if s, ok := outputs[k].(string); ok && strings.TrimSpace(s) != "" {
			parts = append(parts, k+": "+tail(strings.TrimSpace(s), n/2))
			seen[k] = true
		}
	}
	keys := make([]string, 0, len(outputs))
	for k := range outputs {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		parts = append(parts, k+"="+truncate(toText(outputs[k]), n/4))
	}
	return truncate(strings.Join(parts, "; "), n)
}
