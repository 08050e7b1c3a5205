package inputs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
)

// secretRefRe finds the opening of a secret reference ({{secrets.NAME}},
// package render) anywhere in a text.
var secretRefRe = regexp.MustCompile(`\{\{-?\s*secrets\.`)

// Stored is what a schedule keeps of the values a person gave for a
// workflow's inputs (values, with texts over them, as Resolve takes them),
// for its runs to be given each time: the ones given, as Resolve reads
// them. Resolve is the check, defaults filling the rest, so a schedule
// that leaves a required input without a value is refused naming it.
// A secret input (writeOnly or format password) is kept only as a
// stored secret's name (SecretRef), never a value: a stored value is
// written in plain text (the schedules list, the scheduler's entry). Also
// refused, naming its input: a value holding a secret reference's text,
// which is data (render), so a scheduled run would get "{{secrets.NAME}}"
// itself.
func Stored(raw json.RawMessage, values map[string]any, texts map[string]string) (map[string]any, error) {
	s, probs := Parse(raw)
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	all, err := s.Resolve(values, texts)
	if err != nil {
		return nil, err
	}
	kept := map[string]any{}
	for _, f := range fieldsOf(s) {
		_, inValues := values[f.Name]
		_, inTexts := texts[f.Name]
		if !inValues && !inTexts {
			continue
		}
		v := all[f.Name]
		_, ref := v.(SecretRef)
		switch {
		case ref:
			kept[f.Name] = v // a name, not a value: the run opens it where the secret is bound
		case f.Secret:
			probs = append(probs, Problem{Input: f.Name, Message: fmt.Sprintf("input %s is a secret (writeOnly or format password): a schedule writes the values it is given in plain text (its list, the scheduler's entry), so it cannot keep one; give it a stored secret instead (--input-secret %s=SECRET_NAME, or pick one in the form), which it keeps by name", f.Name, f.Name)})
		case holdsSecretRef(v):
			probs = append(probs, Problem{Input: f.Name, Message: fmt.Sprintf("input %s holds a secret reference: an input's value is data, so a scheduled run would get the text {{secrets.…}} itself, not the secret; put the reference in the step that needs it", f.Name)})
		default:
			kept[f.Name] = v
		}
	}
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	return kept, nil
}

// holdsSecretRef says whether a JSON value has a text with a secret
// reference in it, at any depth.
func holdsSecretRef(v any) bool {
	switch x := v.(type) {
	case string:
		return secretRefRe.MatchString(x)
	case map[string]any:
		for k, e := range x {
			if secretRefRe.MatchString(k) || holdsSecretRef(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, holdsSecretRef)
	}
	return false
}
