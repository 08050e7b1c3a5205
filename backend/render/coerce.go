package render

import (
	"encoding/json"
	"strings"
)

// CoerceArg is what a run hands an MCP tool for a top-level argument whose
// schema property names the one type typ: a number or boolean where a
// string is wanted becomes its text, a string holding a JSON number where a
// number or integer is wanted becomes that number, "true" or "false" where
// a boolean is wanted becomes it; anything else is left as it is. A
// placeholder's value is typed by what it reads, so this lets "{{n.count}}"
// fill a string and "5" an integer. Validation checks a literal after it.
func CoerceArg(v any, typ string) any {
	switch typ {
	case "string":
		switch v.(type) {
		case float64, int, int64, bool:
			return ToText(v)
		}
	case "integer", "number":
		if s, ok := v.(string); ok {
			var f float64
			if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &f); err == nil {
				return f
			}
		}
	case "boolean":
		if s, ok := v.(string); ok && (s == "true" || s == "false") {
			return s == "true"
		}
	}
	return v
}
