package inputs

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact"
)

const schema = `{"type": "object",
  "properties": {
    "name":  {"type": "string", "description": "who to greet"},
    "count": {"type": "integer", "minimum": 1, "default": 2},
    "ratio": {"type": "number", "maximum": 2.5},
    "loud":  {"type": "boolean", "default": false},
    "cfg":   {"type": "object", "properties": {"depth": {"type": "integer"}}},
    "tags":  {"type": "array", "items": {"type": "string"}},
    "mode":  {"type": "string", "enum": ["fast", "slow"]},
    "token": {"type": "string", "writeOnly": true},
    "pw":    {"type": "string", "format": "password"}
  },
  "required": ["name"]}`

func TestParseFieldsInFileOrder(t *testing.T) {
	s, probs := Parse(json.RawMessage(schema))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	want := []string{"name", "count", "ratio", "loud", "cfg", "tags", "mode", "token", "pw"}
	if !reflect.DeepEqual(s.Names(), want) {
		t.Fatalf("names %v, want %v", s.Names(), want)
	}
	f, _ := s.Field("name")
	if !f.Required || f.Type != "string" || f.Description != "who to greet" {
		t.Errorf("name field: %+v", f)
	}
	for _, n := range []string{"token", "pw"} {
		if f, _ := s.Field(n); !f.Secret {
			t.Errorf("%s is not secret", n)
		}
	}
	if f, _ := s.Field("mode"); f.Secret || len(f.Enum) != 2 {
		t.Errorf("mode field: %+v", f)
	}
}

func TestParseNoSchema(t *testing.T) {
	for _, raw := range []string{"", "null", "  "} {
		s, probs := Parse(json.RawMessage(raw))
		if s != nil || probs != nil {
			t.Errorf("%q: %v %v", raw, s, probs)
		}
	}
}

// Every way a schema is unusable is said, naming the input at fault.
func TestParseBadSchemas(t *testing.T) {
	cases := []struct{ raw, input, msg string }{
		{`[1]`, "", "must be a JSON Schema object"},
		{`"x"`, "", "must be a JSON Schema object"},
		{`{"properties": {}}`, "", `"type": "object"`},
		{`{"type": "string"}`, "", `"type": "object"`},
		{`{"type": "object", "properties": [1]}`, "", `"properties" must be an object`},
		{`{"type": "object", "properties": {"a-b": {"type": "string"}}}`, "a-b", "cannot be read as {{inputs.NAME}}"},
		{`{"type": "object", "properties": {"1a": {"type": "string"}}}`, "1a", "cannot be read"},
		{`{"type": "object", "properties": {"a b": {"type": "string"}}}`, "a b", "cannot be read"},
		{`{"type": "object", "properties": {"` + strings.Repeat("a", 65) + `": {"type": "string"}}}`, strings.Repeat("a", 65), "at most 64"},
		{`{"type": "object", "properties": {"a": 3}}`, "a", "must be an object"},
		{`{"type": "object", "properties": {"a": {}}}`, "a", `needs one "type"`},
		{`{"type": "object", "properties": {"a": {"type": ["string", "null"]}}}`, "a", `needs one "type"`},
		{`{"type": "object", "properties": {"a": {"type": "date"}}}`, "a", `needs one "type"`},
		{`{"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}`, "b", "not one of its properties"},
		{`{"type": "object", "properties": {"a": {"type": "string"}}, "required": "a"}`, "", `"required" must be an array`},
		{`{"type": "object", "properties": {"a": {"type": "integer", "default": "x"}}}`, "a", "not usable"},
		{`{"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}`, "a", "not usable"},
		{`{"type": "object", "properties": {"a": {"type": "string", "$ref": "#/$defs/nope"}}}`, "a", "not usable"},
		{`{"type": "object",`, "", "not valid JSON"},
		{`{"type": "object", "description": "` + strings.Repeat("x", MaxSchemaBytes) + `"}`, "", "over the 256 KB"},
	}
	for _, c := range cases {
		s, probs := Parse(json.RawMessage(c.raw))
		name := c.raw[:min(len(c.raw), 120)]
		if s != nil || len(probs) == 0 {
			t.Errorf("%s: accepted", name)
			continue
		}
		if probs[0].Input != c.input || !strings.Contains(probs[0].Message, c.msg) {
			t.Errorf("%s: got %+v, want input %q and %q", name, probs[0], c.input, c.msg)
		}
		if _, err := Resolve(json.RawMessage(c.raw), nil, nil); err == nil {
			t.Errorf("%s: Resolve ran with an unusable schema", name)
		}
	}
}

func TestResolveParsesTextsPerType(t *testing.T) {
	got, err := Resolve(json.RawMessage(schema), map[string]any{"ratio": 0.5, "name": "json"},
		map[string]string{"name": "Ada; rm -rf /", "count": "3", "loud": "true", "cfg": `{"depth": 2}`, "tags": `["a","b"]`, "mode": "fast"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ada; rm -rf /", "count": 3.0, "ratio": 0.5, "loud": true,
		"cfg": map[string]any{"depth": 2.0}, "tags": []any{"a", "b"}, "mode": "fast"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v\nwant %#v", got, want)
	}
}

func TestResolveDefaultsAndGoValues(t *testing.T) {
	given := map[string]any{"name": "x", "count": 7}
	got, err := Resolve(json.RawMessage(schema), given, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got["count"] != 7.0 || got["loud"] != false {
		t.Errorf("got %#v", got)
	}
	if _, ok := got["ratio"]; ok {
		t.Error("an optional input without a default was filled in")
	}
	if given["loud"] != nil {
		t.Error("the caller's map was changed")
	}
}

// Each refusal names the input and what it wants.
func TestResolveRefusals(t *testing.T) {
	cases := []struct {
		values map[string]any
		texts  map[string]string
		input  string
		msg    string
	}{
		{nil, nil, "name", "input name is required: a string — who to greet"},
		{nil, map[string]string{"name": "a", "count": "three"}, "count", `input count wants an integer, written as JSON; "three" is not`},
		{nil, map[string]string{"name": "a", "count": "2.5"}, "count", "input count does not fit"},
		{nil, map[string]string{"name": "a", "count": "0"}, "count", "input count does not fit: minimum: 0 is less than 1 (it wants an integer)"},
		{nil, map[string]string{"name": "a", "ratio": "3.25"}, "ratio", "input ratio does not fit: maximum: 3.25 is greater than 2.5 (it wants a number)"},
		{nil, map[string]string{"name": "a", "loud": "yes"}, "loud", "a boolean (true or false)"},
		{nil, map[string]string{"name": "a", "cfg": "{"}, "cfg", "an object"},
		{nil, map[string]string{"name": "a", "cfg": "[1]"}, "cfg", "does not fit"},
		{nil, map[string]string{"name": "a", "cfg": `{"depth": "x"}`}, "cfg", "does not fit"},
		{nil, map[string]string{"name": "a", "tags": "[1]"}, "tags", "does not fit"},
		{nil, map[string]string{"name": "a", "tags": "1 2"}, "tags", "an array"},
		{nil, map[string]string{"name": "a", "mode": "medium"}, "mode", `one of "fast", "slow"`},
		{nil, map[string]string{"name": "a", "nmae": "b"}, "nmae", "declares no input nmae (its inputs: name, count"},
		{map[string]any{"name": 3}, nil, "name", "does not fit"},
		{map[string]any{"name": nil}, nil, "name", "does not fit"},
		{map[string]any{"name": "a", "extra": 1}, nil, "extra", "declares no input extra"},
	}
	for _, c := range cases {
		_, err := Resolve(json.RawMessage(schema), c.values, c.texts)
		var ie *Error
		if !errors.As(err, &ie) {
			t.Errorf("%v %v: got %v", c.values, c.texts, err)
			continue
		}
		p := ie.Problems[0]
		if p.Input != c.input || !strings.Contains(p.Message, c.msg) {
			t.Errorf("%v %v: got %+v, want %s: %q", c.values, c.texts, ie.Problems, c.input, c.msg)
		}
	}
}

func TestResolveWithoutSchema(t *testing.T) {
	got, err := Resolve(nil, nil, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := Resolve(nil, nil, map[string]string{"x": "1"}); err == nil || !strings.Contains(err.Error(), "declares no inputs, so x cannot be given") {
		t.Fatalf("got %v", err)
	}
}

func TestSecretsAndShown(t *testing.T) {
	vals := map[string]any{"name": "Ada", "token": "tok-123456789", "pw": "hunter2hunter2"}
	sec := Secrets(json.RawMessage(schema), vals)
	if len(sec) != 2 {
		t.Fatalf("secrets %v", sec)
	}
	shown := Shown(json.RawMessage(schema), vals)
	if shown["token"] != redact.Placeholder || shown["pw"] != redact.Placeholder || shown["name"] != "Ada" {
		t.Fatalf("shown %v", shown)
	}
	if vals["token"] != "tok-123456789" {
		t.Fatal("Shown changed the values")
	}
}

func TestLookup(t *testing.T) {
	vals := map[string]any{"cfg": map[string]any{"depth": 2.0}, "name": "a"}
	if v, err := Lookup(vals, []string{"cfg", "depth"}); err != nil || v != 2.0 {
		t.Errorf("cfg.depth: %v %v", v, err)
	}
	for path, msg := range map[string]string{
		"missing":    "the input missing was not given",
		"cfg.width":  "inputs.cfg has no field width",
		"name.first": "inputs.name is not an object",
	} {
		if _, err := Lookup(vals, strings.Split(path, ".")); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: got %v", path, err)
		}
	}
}
