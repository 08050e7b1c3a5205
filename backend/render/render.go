// Package render substitutes {{…}} templates in a Tool node's arguments.
//
// A string argument may embed {{key.field}} (or any expression whose first
// identifier is a node key: {{list.count * 10}}). Placeholders that do not
// start with a known key ({{.Names}} in a docker --format string,
// {{ range }} in a template the tool itself reads) are left alone. A
// string that is exactly one placeholder takes the value's own type, so
// {{list.files}} passes an array and {{cfg.data.count}} a number.
//
// Data never becomes code: where an argument is code, a value is inserted
// through package quote, never by concatenation (see Args):
//
//   - run_command's command: each value is one shell word, quoted for the
//     shell (sh or cmd.exe) and for the quotes it sits in; places where no
//     quoting is safe are an error;
//   - http_request's url: each value is percent-encoded for the path
//     segment, query or fragment it sits in; a value in the scheme or host
//     is an error, unless the whole url is one placeholder whose value is
//     an absolute http(s) URL;
//   - http_request's headers: values are inserted as text, and the tool
//     refuses a name or value with a line break (quote.Header), which
//     holds for an AI step's tool calls too.
//
// In those three places a value (raw or not) loses its trailing line
// breaks, as the shell's $(…) does: a step's stdout and a file's content
// end with one, and it is never part of the word, segment or header meant
// (a raw one mid-command would even end the command early).
// {{raw key.field}} inserts the text otherwise unchanged, as code: the
// author vouches for it, and validate warns (raw_external_value) when it comes
// from a step's output. Every other string argument (write_file content,
// log messages, AI prompts and inputs, MCP tool arguments) takes plain
// insertion: the tool reads it as data.
//
// {{secrets.NAME}} is a reference to a secret, not a placeholder: Args
// seals the argument it sits in (secret.go) and the value goes in only
// when the tool runs.
package render

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/quote"
)

// Env resolves placeholders: the run's node outputs.
type Env interface {
	// Known reports whether name is a variable (a node key). A
	// placeholder whose expression does not start with one is left as
	// text.
	Known(name string) bool
	// Eval returns the value of a placeholder's expression.
	Eval(expr string) (any, error)
}

// SecretVars is an Env whose variables may hold references to stored
// secrets (a secret input given one: inputs.SecretRef). SecretOf says
// whether expr reads one, and its secret's name: such a placeholder is
// that {{secrets.NAME}} reference wherever it is written (Parts), so every
// rule of references holds for it by construction: sealed in a Tool
// step's arguments, refused anywhere else.
type SecretVars interface {
	Env
	SecretOf(expr string) (name string, ok bool)
}

// MaxInserted bounds the text the placeholders of one rendering (a Tool
// node's arguments, a prompt, an input) insert in all: the budget an
// expression has for the text it builds, so a template of many
// placeholders cannot multiply a large value without bound. A string
// that is exactly one placeholder passes its value on without copying
// it, and is not counted.
const MaxInserted = expression.MaxBytes

// renderer renders one set of texts within one MaxInserted budget.
type renderer struct {
	env  Env
	left int64
	// secrets allows secret references (a Tool step's arguments, Args):
	// they are sealed, not resolved (secret.go).
	secrets bool
	// passRefs passes a variable holding a reference on whole (Inputs).
	passRefs bool
}

func newRenderer(env Env) *renderer { return &renderer{env: env, left: MaxInserted} }

// Args renders a Tool node's arguments for the tool it calls; sh is the
// shell run_command uses.
//
// A {{secrets.NAME}} reference is not resolved: the string it sits in
// becomes a Sealed, which shows the reference and is opened with the
// value only when the tool runs (secret.go).
func Args(tool string, args map[string]any, env Env, sh quote.Shell) (map[string]any, error) {
	r := newRenderer(env)
	r.secrets = true
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
			y, err = r.command(s, sh)
		case tool == "http_request" && k == "url" && isString:
			y, err = r.url(s)
		case tool == "http_request" && k == "headers":
			y, err = r.headers(x)
		default:
			y, err = r.value(x)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = y
	}
	return out, nil
}

// Value substitutes placeholders in every string of a JSON-like value, by
// plain insertion.
func Value(v any, env Env) (any, error) { return newRenderer(env).value(v) }

// Inputs renders a sub-workflow's inputs as Value does, except that a
// string that is exactly one placeholder holding a stored secret's
// reference (SecretVars) passes the reference on, still a reference: the
// sub-workflow opens it only where the secret is bound. Inside other text
// it is refused, as anywhere but a Tool step's arguments.
func Inputs(v any, env Env) (any, error) {
	r := newRenderer(env)
	r.passRefs = true
	return r.value(v)
}

func (r *renderer) value(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return r.string(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			y, err := r.value(x)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = y
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			y, err := r.value(x)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = y
		}
		return out, nil
	}
	return v, nil
}

// Text substitutes placeholders and always returns a string (for prompts
// and inputs).
func Text(s string, env Env) (string, error) {
	v, err := newRenderer(env).string(s)
	if err != nil {
		return "", err
	}
	return ToText(v), nil
}

// Part is a piece of a template: literal text, or a placeholder whose
// expression starts with a known key.
type Part struct {
	Lit  string // literal text, when Expr is empty
	Expr string // the expression, without the raw prefix
	Raw  bool   // {{raw …}}
	Src  string // the placeholder as written, for messages
	// Secret is the expression of a placeholder rooted at secrets
	// ({{secrets.NAME}}): a reference, never evaluated (secret.go).
	Secret string
}

// maxQuoted is how much of a placeholder a message quotes.
const maxQuoted = 80

// Quoted is the placeholder as written, for messages: a long one is cut
// (a placeholder over the bounds may be megabytes long).
func (p Part) Quoted() string {
	if len(p.Src) <= maxQuoted {
		return p.Src
	}
	cut := maxQuoted - 3
	for cut > 0 && !utf8.RuneStart(p.Src[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…}} (%d bytes)", p.Src[:cut], len(p.Src))
}

// Parts calls f with the pieces of s in order, stopping at its first
// error. Text that only looks like a placeholder ({{.Names}}) is literal.
func Parts(s string, env Env, f func(p Part) error) error {
	rest := s
	for rest != "" {
		i := strings.Index(rest, "{{")
		if i < 0 {
			return f(Part{Lit: rest})
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			return f(Part{Lit: rest})
		}
		end := i + 2 + j + 2
		expr, raw := quote.Placeholder(rest[i+2 : i+2+j])
		p := Part{Expr: expr, Raw: raw, Src: rest[i:end]}
		switch root := Root(expr); {
		case root == SecretsRoot: // a reference, whatever the keys
			p.Expr, p.Secret = "", expr
		case root != "" && env.Known(root) && secretOf(env, expr) != "":
			// A variable holding a reference is the reference (Expr kept:
			// a sub-workflow's inputs pass it on whole, Inputs).
			p.Secret = SecretsRoot + "." + secretOf(env, expr)
		case root == "" || !env.Known(root):
			if err := f(Part{Lit: rest[:end]}); err != nil {
				return err
			}
			rest = rest[end:]
			continue
		}
		if i > 0 {
			if err := f(Part{Lit: rest[:i]}); err != nil {
				return err
			}
		}
		if err := f(p); err != nil {
			return err
		}
		rest = rest[end:]
	}
	return nil
}

// secretOf is the secret expr reads in env (SecretVars), or "".
func secretOf(env Env, expr string) string {
	if se, ok := env.(SecretVars); ok {
		if name, ok := se.SecretOf(expr); ok {
			return name
		}
	}
	return ""
}

// Root returns the identifier an expression starts with, or "".
func Root(expr string) string {
	k := 0
	for k < len(expr) && isIdentByte(expr[k], k == 0) {
		k++
	}
	return expr[:k]
}

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// secretRef is a variable's value that is a reference to a stored
// secret (inputs.SecretRef), not data.
type secretRef interface{ IsSecretRef() }

// eval resolves a placeholder, naming it in the error. A reference an
// expression computes is not a value to insert: it is used only as the
// variable itself (Parts makes that the reference).
func (r *renderer) eval(p Part) (any, error) {
	v, err := r.env.Eval(p.Expr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Quoted(), err)
	}
	if _, ref := v.(secretRef); ref && !(r.passRefs && p.Secret != "") {
		return nil, fmt.Errorf("%s: a stored secret given as an input is used only as the input itself, {{inputs.NAME}} whole, in a Tool step's arguments (where it goes to the tool and nowhere else)", p.Quoted())
	}
	return v, nil
}

// text resolves a placeholder to the text it inserts (without its
// trailing line breaks when trim is set), charged to the budget.
func (r *renderer) text(p Part, trim bool) (string, error) {
	v, err := r.eval(p)
	if err != nil {
		return "", err
	}
	s := ToText(v)
	if trim {
		s = quote.TrimLineEnd(s)
	}
	if r.left -= int64(len(s)); r.left < 0 {
		return "", fmt.Errorf("%s: the placeholders of one step would insert more than %d MB of text, the limit: pass data this large through a file", p.Quoted(), MaxInserted>>20)
	}
	return s, nil
}

// String renders s by plain insertion.
func String(s string, env Env) (any, error) { return newRenderer(env).string(s) }

func (r *renderer) string(s string) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var (
		b     strings.Builder
		whole bool // s is exactly one placeholder
		typed any
		sl    sealer
	)
	err := Parts(s, r.env, func(p Part) error {
		if r.passRefs && p.Secret != "" && p.Expr != "" && p.Src == s {
			v, err := r.eval(p)
			whole, typed = true, v
			return err
		}
		if p.Secret != "" {
			return r.seal(&sl, p, b.Len, plain, func(t string) { b.WriteString(t) })
		}
		if p.Expr == "" {
			b.WriteString(p.Lit)
			return nil
		}
		if p.Src == s {
			v, err := r.eval(p)
			whole, typed = true, v
			return err
		}
		t, err := r.text(p, false)
		b.WriteString(t)
		return err
	})
	if err != nil {
		return nil, err
	}
	if sl.refs != nil {
		return sl.sealed(b.String()), nil
	}
	if whole {
		return typed, nil // the whole string is one placeholder: keep the type
	}
	return b.String(), nil
}

// Command renders a run_command command line for sh: values become quoted
// shell words (see quote.Command).
func Command(s string, env Env, sh quote.Shell) (string, error) {
	v, err := newRenderer(env).command(s, sh)
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// command renders a command line: a string, or a Sealed when it refers to
// secrets, which reach the command as environment variables (SecretEnv)
// it reads by name, so the line itself never holds a value.
func (r *renderer) command(s string, sh quote.Shell) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	c := quote.NewCommand(sh)
	var env []string
	err := Parts(s, r.env, func(p Part) error {
		if p.Secret != "" {
			name, err := r.secretName(p)
			if err != nil {
				return err
			}
			if err := c.Variable(SecretEnv(name)); err != nil {
				return fmt.Errorf("%s: %w", p.Quoted(), err)
			}
			env = append(env, name)
			return nil
		}
		if p.Expr == "" {
			c.Literal(p.Lit)
			return nil
		}
		v, err := r.text(p, true)
		if err != nil {
			return err
		}
		if p.Raw {
			c.Raw(v)
			return nil
		}
		if err := c.Value(v); err != nil {
			return fmt.Errorf("%s: %w", p.Quoted(), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if env != nil {
		return Sealed{Text: c.String(), env: env}, nil
	}
	return c.String(), nil
}

// URL renders an http_request URL: values are percent-encoded for their
// part of the URL (see quote.URL). A url that is exactly one placeholder
// (surrounding blanks aside) must be an absolute http(s) URL and is used
// as is.
func URL(s string, env Env) (string, error) {
	v, err := newRenderer(env).url(s)
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// url renders a URL: a string, or a Sealed when it refers to secrets
// (in its path, query or fragment, encoded as a value there).
func (r *renderer) url(s string) (any, error) {
	if !strings.Contains(s, "{{") {
		return s, nil
	}
	var (
		u    quote.URL
		only *Part // the one placeholder, when it is the whole URL
		sl   sealer
	)
	t := strings.TrimSpace(s)
	err := Parts(t, r.env, func(p Part) error {
		if p.Secret != "" {
			enc, err := u.Encoder()
			if err != nil {
				return fmt.Errorf("%s: %w", p.Quoted(), err)
			}
			return r.seal(&sl, p, func() int { return len(u.String()) }, enc, u.Literal)
		}
		if p.Expr != "" && p.Src == t && !p.Raw {
			only = &p
			return nil
		}
		if p.Expr == "" {
			u.Literal(p.Lit)
			return nil
		}
		v, err := r.text(p, true)
		if err != nil {
			return err
		}
		if p.Raw {
			u.Raw(v)
			return nil
		}
		if err := u.Value(v); err != nil {
			return fmt.Errorf("%s: %w", p.Quoted(), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if only != nil {
		v, err := r.text(*only, true)
		if err != nil {
			return nil, err
		}
		w, err := quote.WholeURL(v)
		if err != nil {
			return nil, fmt.Errorf("%s is the whole URL, but %w", only.Quoted(), err)
		}
		return w, nil
	}
	if sl.refs != nil {
		return sl.sealed(u.String()), nil
	}
	return u.String(), nil
}

// Headers renders http_request headers: values (raw ones too) lose their
// trailing line breaks; the tool refuses any line break left.
func Headers(x any, env Env) (any, error) { return newRenderer(env).headers(x) }

func (r *renderer) headers(x any) (any, error) {
	m, ok := x.(map[string]any)
	if !ok {
		return r.value(x)
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			y, err := r.value(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = y
			continue
		}
		var (
			b  strings.Builder
			sl sealer
		)
		err := Parts(s, r.env, func(p Part) error {
			if p.Secret != "" {
				return r.seal(&sl, p, b.Len, plain, func(t string) { b.WriteString(t) })
			}
			if p.Expr == "" {
				b.WriteString(p.Lit)
				return nil
			}
			t, err := r.text(p, true)
			b.WriteString(t)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		if sl.refs != nil {
			out[k] = sl.sealed(b.String())
			continue
		}
		out[k] = b.String()
	}
	return out, nil
}

// ToText renders a value the way it reads in a string argument.
func ToText(v any) string {
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
