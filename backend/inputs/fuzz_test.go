package inputs

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzResolve: whatever a file's inputs schema and whatever a person
// types, Parse and Resolve answer with values or problems that name an
// input, never a panic; values they accept fit the schema again.
func FuzzResolve(f *testing.F) {
	f.Add(schema, "name", "Ada", `{"count": 3}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/$defs/x"}}},"$defs":{"x":{"type":"integer","minimum":-1}}}`, "a", "[1, -2]", `{}`)
	f.Add(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"anyOf":[{"type":"string"},{"type":"null"}]}},"default":{"b":null}}}}`, "a", `{"b": 1}`, `null`)
	f.Add(`{"type":"object","properties":{"a":{"type":"number","multipleOf":0.1,"exclusiveMaximum":1e308}}}`, "a", "1e309", `{"a": "x"}`)
	f.Fuzz(func(t *testing.T, raw, name, text, values string) {
		s, probs := Parse(json.RawMessage(raw))
		if s == nil && len(probs) == 0 && raw != "" {
			return // null or blank: no schema
		}
		var vals map[string]any
		_ = json.Unmarshal([]byte(values), &vals)
		got, err := Resolve(json.RawMessage(raw), vals, map[string]string{name: text})
		var ie *Error
		if err != nil {
			if !errors.As(err, &ie) || len(ie.Problems) == 0 {
				t.Fatalf("error %v is not a list of problems", err)
			}
			return
		}
		if again, err := Resolve(json.RawMessage(raw), got, nil); err != nil || len(again) != len(got) {
			t.Fatalf("accepted %v, then refused it: %v", got, err)
		}
	})
}
