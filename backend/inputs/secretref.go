package inputs

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
)

// SecretRef is a secret input (writeOnly or format password) given as a
// reference to a stored secret, the credentials store's Name, instead of
// a value. The run never holds the value: a step gets it only where
// {{secrets.NAME}} written in that place would be opened (package render
// seals {{inputs.X}} as that reference; the effect gate opens it for the
// hosts and tools the secret is bound to). It comes only through a door
// made for it (--input-secret, a schedule, the form's choice of a stored
// secret) as a Go value, never from data: a value that reads
// "{{secrets.X}}" is text.
type SecretRef struct{ Name string }

// MarshalJSON shows the reference, as a sealed argument does.
func (r SecretRef) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

func (r SecretRef) String() string { return "{{secrets." + r.Name + "}}" }

// IsSecretRef marks it for package render: a reference, not data.
func (SecretRef) IsSecretRef() {}

// secretNameRe is a stored secret's name (render's reference rule).
var secretNameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)

// checkRef says why f cannot be given the reference r, or nothing.
func checkRef(f Field, r SecretRef) string {
	switch {
	case !f.Secret:
		return fmt.Sprintf("input %s is not a secret input (writeOnly or format password), so it cannot be given the stored secret %s: give it a value", f.Name, r.Name)
	case f.Type != "string":
		return fmt.Sprintf("input %s is %s, and a stored secret is a string: give it a value", f.Name, article(f.Type))
	case !secretNameRe.MatchString(r.Name):
		return fmt.Sprintf("input %s: %q is not a secret's name (letters, digits and _, at most 64)", f.Name, r.Name)
	}
	return ""
}

// Split is values without its secret references, and those as input →
// secret name: the form that crosses a JSON boundary (a Temporal run's
// input, a schedule's --input-secret), where a reference would otherwise
// become the text it shows.
func Split(values map[string]any) (map[string]any, map[string]string) {
	var refs map[string]string
	out := values
	for k, v := range values {
		if r, ok := v.(SecretRef); ok {
			if refs == nil {
				refs, out = map[string]string{}, maps.Clone(values)
			}
			refs[k] = r.Name
			delete(out, k)
		}
	}
	return out, refs
}

// WithRefs is values with refs (input → secret name, Split's) as
// SecretRefs over them; values is not changed.
func WithRefs(values map[string]any, refs map[string]string) map[string]any {
	if len(refs) == 0 {
		return values
	}
	out := make(map[string]any, len(values)+len(refs))
	maps.Copy(out, values)
	for k, name := range refs {
		out[k] = SecretRef{Name: name}
	}
	return out
}
