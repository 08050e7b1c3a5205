package inputs

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// Stored keeps what was given, checked by Resolve (defaults not kept), and
// refuses, naming the input, what Resolve refuses, a secret input given
// any value and a value holding a secret reference at any depth.
func TestStored(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"name":{"type":"string"},
		"n":{"type":"integer","default":1},
		"tags":{"type":"array","items":{"type":"string"}},
		"opts":{"type":"object"},
		"key":{"type":"string","writeOnly":true},
		"pw":{"type":"string","format":"password"}},"required":["name"]}`)
	for _, tc := range []struct {
		values map[string]any
		texts  map[string]string
		want   map[string]any
		input  string // the input refused
	}{
		{values: map[string]any{"name": "Ada"}, want: map[string]any{"name": "Ada"}},
		{texts: map[string]string{"name": "Ada", "n": "3"}, want: map[string]any{"name": "Ada", "n": float64(3)}},
		{values: map[string]any{"name": "x"}, texts: map[string]string{"name": "Ada"}, want: map[string]any{"name": "Ada"}},
		{values: map[string]any{"name": "Ada", "tags": []any{"a", "{b}"}}, want: map[string]any{"name": "Ada", "tags": []any{"a", "{b}"}}},
		{values: map[string]any{"n": 2}, input: "name"},
		{texts: map[string]string{"name": "Ada", "n": "two"}, input: "n"},
		{values: map[string]any{"name": "Ada", "other": 1}, input: "other"},
		{values: map[string]any{"name": "Ada", "key": "s3cr3t"}, input: "key"},
		{values: map[string]any{"name": "Ada", "key": "{{secrets.KEY}}"}, input: "key"},
		{values: map[string]any{"name": "Ada", "pw": ""}, input: "pw"},
		{values: map[string]any{"name": "{{secrets.KEY}}"}, input: "name"},
		{values: map[string]any{"name": "a {{ secrets.KEY }} b"}, input: "name"},
		{values: map[string]any{"name": "{{-secrets.KEY}}"}, input: "name"},
		{values: map[string]any{"name": "Ada", "tags": []any{"a", "{{secrets.KEY}}"}}, input: "tags"},
		{values: map[string]any{"name": "Ada", "opts": map[string]any{"x": map[string]any{"y": "{{secrets.K}}"}}}, input: "opts"},
		{values: map[string]any{"name": "Ada", "opts": map[string]any{"{{secrets.K}}": 1}}, input: "opts"},
	} {
		got, err := Stored(schema, tc.values, tc.texts)
		if tc.input == "" {
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%v %v: got %v, %v; want %v", tc.values, tc.texts, got, err, tc.want)
			}
			continue
		}
		var ie *Error
		if !errors.As(err, &ie) || len(ie.Problems) != 1 || ie.Problems[0].Input != tc.input {
			t.Errorf("%v %v: got %v, %v; want refused naming %s", tc.values, tc.texts, got, err, tc.input)
		}
	}
	if got, err := Stored(nil, nil, nil); err != nil || len(got) != 0 {
		t.Errorf("no schema, nothing given: %v %v", got, err)
	}
	if _, err := Stored(nil, map[string]any{"a": 1}, nil); err == nil {
		t.Error("no schema, a value given: kept")
	}
}
