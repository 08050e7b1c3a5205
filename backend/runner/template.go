package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Templates: a string argument may embed {{key.field}} (or any expression
// whose first identifier is a node key: {{len(list.files)}}). Placeholders
// that do not start with a node's key ({{.Names}} in a docker --format
// string, {{ range }} in a template the tool itself reads) are left alone.
// A string that is exactly one placeholder takes the value's own type, so
// {{list.files}} passes an array and {{cfg.data.count}} a number.

// renderValue substitutes placeholders in every string of a JSON-like value.
func (r *run) renderValue(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return r.renderString(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			y, err := r.renderValue(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = y
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			y, err := r.renderValue(x)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = y
		}
		return out, nil
	}
	return v, nil
}

// renderText substitutes placeholders and always returns a string (for
// prompts and inputs).
func (r *run) renderText(s string) (string, error) {
	v, err := r.renderString(s)
	if err != nil {
		return "", err
	}
	return toText(v), nil
}

func (r *run) renderString(s string) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		inner := rest[i+2 : i+2+j]
		if !r.isKeyRoot(inner) {
			b.WriteString(rest[:i+2+j+2])
			rest = rest[i+2+j+2:]
			continue
		}
		v, err := r.placeholder(inner)
		if err != nil {
			return nil, fmt.Errorf("{{%s}}: %w", strings.TrimSpace(inner), err)
		}
		if i == 0 && i+2+j+2 == len(rest) && b.Len() == 0 {
			return v, nil // the whole string is one placeholder: keep the type
		}
		b.WriteString(rest[:i])
		b.WriteString(toText(v))
		rest = rest[i+2+j+2:]
	}
	return b.String(), nil
}

// isKeyRoot reports whether a placeholder's text starts with a variable
// the run knows.
func (r *run) isKeyRoot(inner string) bool {
	s := strings.TrimLeft(inner, " \t")
	k := 0
	for k < len(s) && isIdentByte(s[k], k == 0) {
		k++
	}
	if k == 0 {
		return false
	}
	_, ok := r.vars[s[:k]]
	return ok
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// placeholder resolves a dotted path directly (the common case) and hands
// anything else to the expression evaluator.
func (r *run) placeholder(inner string) (any, error) {
	s := strings.TrimSpace(inner)
	parts := strings.Split(s, ".")
	simple := true
	for _, p := range parts {
		if p == "" {
			simple = false
			break
		}
		for k := 0; k < len(p); k++ {
			if !isIdentByte(p[k], k == 0) {
				simple = false
				break
			}
		}
	}
	if !simple {
		return r.eval.eval(s, r.vars, "", nil)
	}
	var cur any = r.vars[parts[0]]
	for _, p := range parts[1:] {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		cur = m[p]
	}
	return cur, nil
}

// toText renders a value the way it reads in a string argument.
func toText(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case int:
		return strconv.Itoa(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1e15 {
			return strconv.FormatInt(int64(t), 10)
		}
		return strconv.FormatFloat(t, 'g', -1, 64)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
