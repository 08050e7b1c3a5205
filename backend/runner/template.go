package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/runner/quote"
)

// Templates: a string argument may embed {{key.field}} (or any expression
// whose first identifier is a node key: {{len(list.files)}}). Placeholders
// that do not start with a node's key ({{.Names}} in a docker --format
// string, {{ range }} in a template the tool itself reads) are left alone.
// A string that is exactly one placeholder takes the value's own type, so
// {{list.files}} passes an array and {{cfg.data.count}} a number.
//
// Data never becomes code: where an argument is code, a value is inserted
// through package quote, never by concatenation (renderArgs):
//
//   - run_command's command: each value is one shell word, quoted for the
//     shell (sh or cmd.exe) and for the quotes it sits in; places where no
//     quoting is safe are a step error;
//   - http_request's url: each value is percent-encoded for the path
//     segment, query or fragment it sits in; a value in the scheme or host
//     is a step error, unless the whole url is one placeholder whose value
//     is an absolute http(s) URL;
//   - http_request's headers: a line break in a rendered name or value is
//     a step error (checked by the tool, so it holds for AI tool calls too).
//
// In those three places a value loses its trailing line breaks, as the
// shell's $(…) does: a step's stdout and a file's content end with one,
// and it is never part of the word, segment or header meant. {{raw
// key.field}} inserts the text unchanged, as code: the author vouches for
// it, and validate warns when it comes from a step's output. Every other
// string argument (write_file content, log messages, prompts, MCP tool
// arguments) takes plain insertion: the tool reads it as data.

// renderArgs renders a Tool node's arguments for the tool it calls.
func (r *run) renderArgs(tool string, args map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(args))
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names) // the first error reported does not depend on map order
	for _, k := range names {
		x := args[k]
		s, isString := x.(string)
		var (
			y   any
			err error
		)
		switch {
		case tool == "run_command" && k == "command" && isString:
			y, err = r.renderCommand(s, quote.HostShell())
		case tool == "http_request" && k == "url" && isString:
			y, err = r.renderURL(s)
		case tool == "http_request" && k == "headers":
			y, err = r.renderHeaders(x)
		default:
			y, err = r.renderValue(x)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = y
	}
	return out, nil
}

// renderValue substitutes placeholders in every string of a JSON-like
// value, by plain insertion.
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

// part is a piece of a template: literal text, or a placeholder whose
// expression starts with a known key.
type part struct {
	lit  string // literal text, when expr is empty
	expr string // the expression, without the raw prefix
	raw  bool   // {{raw …}}
	src  string // the placeholder as written, for messages
}

// parts calls f with the pieces of s in order. Text that only looks like a
// placeholder ({{.Names}}) is literal.
func (r *run) parts(s string, f func(p part) error) error {
	rest := s
	for rest != "" {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return f(part{lit: rest})
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return f(part{lit: rest})
		}
		end := i + 2 + j + 2
		expr, raw := quote.Placeholder(rest[i+2 : i+2+j])
		if !r.isKeyRoot(expr) {
			if err := f(part{lit: rest[:end]}); err != nil {
				return err
			}
			rest = rest[end:]
			continue
		}
		if i > 0 {
			if err := f(part{lit: rest[:i]}); err != nil {
				return err
			}
		}
		if err := f(part{expr: expr, raw: raw, src: rest[i:end]}); err != nil {
			return err
		}
		rest = rest[end:]
	}
	return nil
}

// value resolves a placeholder, naming it in the error.
func (r *run) value(p part) (any, error) {
	v, err := r.placeholder(p.expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.src, err)
	}
	return v, nil
}

// renderString renders s by plain insertion.
func (r *run) renderString(s string) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var (
		b     strings.Builder
		n     int  // placeholders seen
		whole bool // s is exactly one placeholder
		typed any
	)
	err := r.parts(s, func(p part) error {
		if p.expr == "" {
			b.WriteString(p.lit)
			return nil
		}
		v, err := r.value(p)
		if err != nil {
			return err
		}
		if n++; n == 1 && p.src == s {
			whole, typed = true, v
			return nil
		}
		b.WriteString(toText(v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if whole {
		return typed, nil // the whole string is one placeholder: keep the type
	}
	return b.String(), nil
}

// renderCommand renders a run_command command line: values become quoted
// shell words (see package quote).
func (r *run) renderCommand(s string, sh quote.Shell) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	c := quote.NewCommand(sh)
	err := r.parts(s, func(p part) error {
		if p.expr == "" {
			c.Literal(p.lit)
			return nil
		}
		v, err := r.value(p)
		if err != nil {
			return err
		}
		if p.raw {
			c.Raw(toText(v))
			return nil
		}
		if err := c.Value(quote.TrimLineEnd(toText(v))); err != nil {
			return fmt.Errorf("%s: %w", p.src, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	return c.String(), nil
}

// renderURL renders an http_request URL: values are percent-encoded for
// their part of the URL (see package quote).
func (r *run) renderURL(s string) (string, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var (
		u    quote.URL
		only *part // the one placeholder, when it is the whole URL
	)
	t := strings.TrimSpace(s)
	err := r.parts(t, func(p part) error {
		if p.expr != "" && p.src == t && !p.raw {
			only = &p
			return nil
		}
		if p.expr == "" {
			u.Literal(p.lit)
			return nil
		}
		v, err := r.value(p)
		if err != nil {
			return err
		}
		if p.raw {
			u.Raw(toText(v))
			return nil
		}
		if err := u.Value(quote.TrimLineEnd(toText(v))); err != nil {
			return fmt.Errorf("%s: %w", p.src, err)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if only != nil {
		v, err := r.value(*only)
		if err != nil {
			return "", err
		}
		w, err := quote.WholeURL(quote.TrimLineEnd(toText(v)))
		if err != nil {
			return "", fmt.Errorf("%s is the whole URL, but %w", only.src, err)
		}
		return w, nil
	}
	return u.String(), nil
}

// renderHeaders renders http_request headers: values lose their trailing
// line breaks; the tool refuses any line break left (quote.Header).
func (r *run) renderHeaders(x any) (any, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return r.renderValue(x)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			y, err := r.renderValue(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = y
			continue
		}
		var b strings.Builder
		err := r.parts(s, func(p part) error {
			if p.expr == "" {
				b.WriteString(p.lit)
				return nil
			}
			v, err := r.value(p)
			if err != nil {
				return err
			}
			if p.raw {
				b.WriteString(toText(v))
			} else {
				b.WriteString(quote.TrimLineEnd(toText(v)))
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = b.String()
	}
	return out, nil
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
