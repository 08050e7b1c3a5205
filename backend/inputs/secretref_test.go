package inputs

import (
	"encoding/json"
	"strings"
	"testing"
)

// A stored secret's reference satisfies a secret string input and no
// other; Split and WithRefs carry references across JSON; a schedule
// keeps a reference, never a secret's value.
func TestSecretRefs(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
 "token":{"type":"string","writeOnly":true},"pin":{"type":"integer","writeOnly":true},"plain":{"type":"string"}},"required":["token"]}`)
	ref := SecretRef{Name: "API_TOKEN"}
	got, err := Resolve(schema, map[string]any{"token": ref, "plain": "x"}, nil)
	if err != nil || got["token"] != ref || got["plain"] != "x" {
		t.Fatalf("a reference for a secret input: %v %v", got, err)
	}
	for _, tc := range []struct {
		values map[string]any
		texts  map[string]string
		want   string
	}{
		{map[string]any{"token": ref, "plain": ref}, nil, "plain is not a secret input"},
		{map[string]any{"token": ref, "pin": ref}, nil, "pin is an integer, and a stored secret is a string"},
		{map[string]any{"token": SecretRef{Name: "no-dash"}}, nil, "is not a secret's name"},
		{map[string]any{"token": ref}, map[string]string{"token": "v"}, "both a value and the stored secret"},
		{map[string]any{"token": ref, "other": ref}, nil, "declares no input other"},
	} {
		if _, err := Resolve(schema, tc.values, tc.texts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v %v: %v, want %q", tc.values, tc.texts, err, tc.want)
		}
	}
	// Across JSON: the reference would be the text it shows; split, it
	// is a name beside the values, and comes back a reference.
	values, refs := Split(map[string]any{"token": ref, "plain": "x"})
	b, _ := json.Marshal(values)
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || len(refs) != 1 || refs["token"] != "API_TOKEN" {
		t.Fatalf("split: %s %v", b, refs)
	}
	if again := WithRefs(back, refs); again["token"] != ref || again["plain"] != "x" {
		t.Fatalf("joined: %v", again)
	}
	if b, _ := json.Marshal(ref); string(b) != `"{{secrets.API_TOKEN}}"` {
		t.Errorf("a reference shows as %s", b)
	}
	// The text of a reference is data: not a reference, however given.
	if got, err := Resolve(schema, map[string]any{"token": "{{secrets.API_TOKEN}}"}, nil); err != nil || got["token"] != "{{secrets.API_TOKEN}}" {
		t.Fatalf("text: %v %v", got, err)
	}
	// A schedule keeps the reference, and refuses a value for a secret.
	kept, err := Stored(schema, map[string]any{"token": ref}, nil)
	if err != nil || kept["token"] != ref {
		t.Fatalf("stored: %v %v", kept, err)
	}
	if _, err := Stored(schema, nil, map[string]string{"token": "tok-value"}); err == nil || !strings.Contains(err.Error(), "give it a stored secret instead") {
		t.Fatalf("a value stored: %v", err)
	}
	if s := Secrets(schema, map[string]any{"token": ref}); len(s) != 0 {
		t.Errorf("a reference has no value to redact: %q", s)
	}
}
