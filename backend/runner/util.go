package runner

import (
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"sort"
	"strings"
	"unicode/utf8"
)

// truncate and bounded are flow's (events are shaped there).
func truncate(s string, n int) string { return flow.Truncate(s, n) }

func bounded(outputs map[string]any, n int) map[string]any { return flow.Bounded(outputs, n) }

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

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
