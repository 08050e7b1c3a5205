package testcase

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/weft-dev/weft/backend/redact"
)

// A case never holds a secret's value: a case file is meant for git. A
// mock refers to a secret as {{secrets.NAME}}, as the step does.

// RefuseSecrets refuses a case file that holds a value of the
// credentials store (store; nil knows none) or what looks like a
// credential by the rule the redactor and `weft validate` use
// (redact.NamedCredential: a value under a sensitive name; a header line
// or a URL with credentials in a text), naming the case and where.
func RefuseSecrets(f *File, store *redact.Redactor) error {
	for i := range f.Cases {
		c := &f.Cases[i]
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		var raw any
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		if where, why := findSecret(raw, "", "", store); why != "" {
			return &FileError{Where: fmt.Sprintf("cases[%d] %q: %s", i, c.Name, where),
				Msg: why + ": a case never holds a secret's value; write {{secrets.NAME}} where the step does, and keep the value in the credentials store (weft secrets set NAME)"}
		}
	}
	return nil
}

// findSecret walks a decoded JSON value; name is the member x is the
// value of.
func findSecret(x any, where, name string, store *redact.Redactor) (string, string) {
	switch t := x.(type) {
	case string:
		if store != nil && store.String(t) != t {
			return where, "it holds a value of the credentials store"
		}
		if redact.NamedCredential(name, t) {
			return where, fmt.Sprintf("%q holds what looks like a credential", name)
		}
		if redact.New().AddLiterals(t) > 0 {
			return where, "it holds what looks like a credential (a header, member or URL with one)"
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if w, why := findSecret(t[k], join(where, k), k, store); why != "" {
				return w, why
			}
		}
	case []any:
		for i, v := range t {
			if w, why := findSecret(v, fmt.Sprintf("%s[%d]", where, i), name, store); why != "" {
				return w, why
			}
		}
	}
	return "", ""
}

// jsonText is x as JSON text.
func jsonText(x any) (string, error) {
	b, err := json.Marshal(x)
	return string(b), err
}
