package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Secrets are references: {{secrets.NAME}} in a Tool step's arguments
// names a secret of the credentials store, and rendering never reads its
// value. The argument it sits in becomes a Sealed, which shows the
// reference (events, logs, approval) and is opened with the value only by
// the effect gate, when the tool runs. A reference is recognised only in
// the template as written: text a placeholder inserts is data, and a
// value that reads "{{secrets.X}}" stays that text.

// SecretsRoot is the root of a secret reference; no node may have it as
// its key (workflow.ReservedKeys).
const SecretsRoot = "secrets"

// secretRe is a well-formed reference's expression.
var secretRe = regexp.MustCompile(`^secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})$`)

// SecretRef returns the secret a placeholder rooted at secrets names, or
// why it is not a reference: exactly {{secrets.NAME}}, no raw, no
// expression around it.
func SecretRef(p Part) (string, error) {
	m := secretRe.FindStringSubmatch(strings.TrimSpace(p.Secret))
	switch {
	case p.Secret == "":
		return "", fmt.Errorf("%s is not a secret reference", p.Quoted())
	case p.Raw:
		return "", fmt.Errorf("%s: a secret reference cannot be raw; write {{secrets.NAME}}", p.Quoted())
	case m == nil:
		return "", fmt.Errorf("%s is not a secret reference: write {{secrets.NAME}}, where NAME is a secret's name (letters, digits and _), with nothing around it", p.Quoted())
	}
	return m[1], nil
}

// SecretEnv is the environment variable a command receives secret name in.
func SecretEnv(name string) string { return "WEFT_SECRET_" + name }

// Sealed is a rendered argument that refers to secrets. Text is how it
// shows: each reference as written (a command reads "${WEFT_SECRET_NAME}"
// instead). It marshals as Text. Open gives the argument the tool gets.
type Sealed struct {
	Text string
	refs []sealedRef
	env  []string // secrets a command reads from its environment
}

type sealedRef struct {
	start, end int // the reference's span in Text
	name       string
	enc        func(string) string // how the value is written there
}

func (s Sealed) String() string { return s.Text }

// MarshalJSON shows the references, never a value.
func (s Sealed) MarshalJSON() ([]byte, error) { return json.Marshal(s.Text) }

// Names are the secrets s needs, in order, each once.
func (s Sealed) Names() []string {
	var out []string
	add := func(n string) {
		for _, x := range out {
			if x == n {
				return
			}
		}
		out = append(out, n)
	}
	for _, r := range s.refs {
		add(r.name)
	}
	for _, n := range s.env {
		add(n)
	}
	return out
}

// Env are the secrets a command reads from its environment (SecretEnv).
func (s Sealed) Env() []string { return s.env }

// Open returns the text with each reference replaced by its value,
// encoded for where it sits.
func (s Sealed) Open(value func(name string) string) string {
	if len(s.refs) == 0 {
		return s.Text
	}
	var b strings.Builder
	at := 0
	for _, r := range s.refs {
		b.WriteString(s.Text[at:r.start])
		b.WriteString(r.enc(value(r.name)))
		at = r.end
	}
	b.WriteString(s.Text[at:])
	return b.String()
}

// sealer collects the references of one string as it is rendered.
type sealer struct{ refs []sealedRef }

func (sl *sealer) sealed(text string) Sealed { return Sealed{Text: text, refs: sl.refs} }

func plain(v string) string { return v }

// seal records reference p at the end of the text built so far (of
// length size()) and writes it there as written.
func (r *renderer) seal(sl *sealer, p Part, size func() int, enc func(string) string, write func(string)) error {
	name, err := r.secretName(p)
	if err != nil {
		return err
	}
	ref := "{{secrets." + name + "}}"
	start := size()
	write(ref)
	sl.refs = append(sl.refs, sealedRef{start: start, end: start + len(ref), name: name, enc: enc})
	return nil
}

// secretName checks a reference where the renderer meets one.
func (r *renderer) secretName(p Part) (string, error) {
	if !r.secrets {
		return "", fmt.Errorf("%s: a secret can only be used in a Tool step's arguments, where it goes to the tool and nowhere else", p.Quoted())
	}
	return SecretRef(p)
}

// HasSealed reports whether x (rendered arguments) holds a Sealed.
func HasSealed(x any) bool {
	switch t := x.(type) {
	case Sealed:
		return true
	case map[string]any:
		for _, v := range t {
			if HasSealed(v) {
				return true
			}
		}
	case []any:
		for _, v := range t {
			if HasSealed(v) {
				return true
			}
		}
	}
	return false
}

// SecretNames are the secrets the sealed strings in x (rendered
// arguments) need, each once.
func SecretNames(x any) []string {
	var out []string
	seen := map[string]bool{}
	walkSealed(x, func(s Sealed) {
		for _, n := range s.Names() {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	})
	return out
}

// Shown returns x with every Sealed as its Text (for events).
func Shown(x any) any { return mapSealed(x, func(s Sealed) string { return s.Text }) }

// Open returns x with every Sealed opened with value (for the tool).
func Open(x any, value func(name string) string) any {
	return mapSealed(x, func(s Sealed) string { return s.Open(value) })
}

// EnvSecrets are the secrets the commands sealed in x read from their
// environment, each once.
func EnvSecrets(x any) []string {
	var out []string
	seen := map[string]bool{}
	walkSealed(x, func(s Sealed) {
		for _, n := range s.env {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	})
	return out
}

func walkSealed(x any, f func(Sealed)) {
	switch t := x.(type) {
	case Sealed:
		f(t)
	case map[string]any:
		for _, v := range t {
			walkSealed(v, f)
		}
	case []any:
		for _, v := range t {
			walkSealed(v, f)
		}
	}
}

// mapSealed copies the maps and slices that hold a Sealed, leaving the
// rest shared.
func mapSealed(x any, f func(Sealed) string) any {
	y, _ := mapSealedOK(x, f)
	return y
}

func mapSealedOK(x any, f func(Sealed) string) (any, bool) {
	switch t := x.(type) {
	case Sealed:
		return f(t), true
	case map[string]any:
		var out map[string]any
		for k, v := range t {
			y, changed := mapSealedOK(v, f)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, v2 := range t {
					out[k2] = v2
				}
			}
			out[k] = y
		}
		if out == nil {
			return t, false
		}
		return out, true
	case []any:
		var out []any
		for i, v := range t {
			y, changed := mapSealedOK(v, f)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), t...)
			}
			out[i] = y
		}
		if out == nil {
			return t, false
		}
		return out, true
	}
	return x, false
}
