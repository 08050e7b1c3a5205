// Package inputs holds a workflow's declared inputs: the JSON Schema
// object of its top-level "inputs" field, and the one check of the values
// a run is given against it (Resolve), which every door (the desktop, the
// CLI, a schedule, both engines) goes through. Steps read the values as
// {{inputs.NAME}}, inserted as data like every other value (package
// render).
//
// Values are checked with github.com/google/jsonschema-go (the library
// the MCP SDK validates tool arguments with, and validate's check of an
// MCP step's arguments, schema.go, parses schemas with), after Weft's own
// checks of what it needs to build a form and parse a command line: an
// object schema whose properties each have one type and a name a
// template can read. validate's walk is not used here: it exists to leave
// placeholders to the run and to stop within a step's bounds, while an
// input's value is whole and given by a person; and this package is a
// leaf that validate imports.
package inputs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/tidwall/gjson"

	"github.com/weft-dev/weft/backend/redact"
)

// Root is the template root the values are read under: {{inputs.NAME}}.
// It is a reserved node key (workflow.ReferenceRoots).
const Root = "inputs"

// Types are the types an input may have, one per input.
var Types = []string{"string", "number", "integer", "boolean", "object", "array"}

// nameRe is what a template can read as inputs.NAME.
var nameRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// MaxNameLen bounds an input's name, as node keys are bounded.
const MaxNameLen = 64

// MaxSchemaBytes bounds the inputs schema a file may hold: a form's worth
// of inputs is a few kilobytes, and the check never works at a cost the
// file chose.
const MaxSchemaBytes = 256 << 10

// Field is one declared input, as a form shows it.
type Field struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required"`
	// Default is the schema's default, if any (JSON).
	Default json.RawMessage `json:"default,omitempty"`
	// Enum lists the allowed values, when the schema names them.
	Enum []any `json:"enum,omitempty"`
	// Secret: the schema marks the input writeOnly or format password.
	// Its value is redacted wherever the run writes or shows text, left
	// out of the recorded inputs, and never remembered by a form.
	Secret bool `json:"secret"`
}

// Problem is one thing wrong with the schema or with a value; Input names
// the input ("" for the schema as a whole).
type Problem struct {
	Input   string `json:"input,omitempty"`
	Message string `json:"message"`
}

// Error is a run refused for its inputs, every problem listed.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return "inputs: " + strings.Join(msgs, "; ")
}

// Schema is a parsed inputs schema.
type Schema struct {
	// Fields are the declared inputs in the file's order.
	Fields []Field
	// check validates each input's value by name.
	check map[string]*jsonschema.Resolved
}

// Field returns the declared input name.
func (s *Schema) Field(name string) (Field, bool) {
	if s != nil {
		for _, f := range s.Fields {
			if f.Name == name {
				return f, true
			}
		}
	}
	return Field{}, false
}

// Names are the declared inputs' names, in order.
func (s *Schema) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		out[i] = f.Name
	}
	return out
}

// Parse reads an inputs schema. A nil or empty raw is no schema (nil, no
// problems); so is JSON null. Problems say what makes the schema
// unusable; the schema is then nil.
func Parse(raw json.RawMessage) (*Schema, []Problem) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil, nil
	}
	bad := func(input, format string, a ...any) []Problem {
		return []Problem{{Input: input, Message: fmt.Sprintf(format, a...)}}
	}
	if len(t) > MaxSchemaBytes {
		return nil, bad("", "the inputs schema is %d KB, over the %d KB an inputs schema may be", len(t)>>10, MaxSchemaBytes>>10)
	}
	if !gjson.ValidBytes(t) {
		return nil, bad("", "the inputs schema is not valid JSON")
	}
	root := gjson.ParseBytes(t)
	if !root.IsObject() {
		return nil, bad("", `the inputs schema must be a JSON Schema object ({"type": "object", "properties": {…}}), not %s`, kind(root))
	}
	if typ := root.Get("type"); typ.String() != "object" || typ.Type != gjson.String {
		return nil, bad("", `the inputs schema must have "type": "object" (its properties are the inputs)`)
	}
	var probs []Problem
	props := root.Get("properties")
	if props.Exists() && !props.IsObject() {
		return nil, bad("", `the inputs schema's "properties" must be an object, one member per input`)
	}
	// Definitions a property's $ref may name.
	var defs struct {
		Defs        map[string]*jsonschema.Schema `json:"$defs"`
		Definitions map[string]*jsonschema.Schema `json:"definitions"`
	}
	if err := json.Unmarshal(t, &defs); err != nil {
		return nil, bad("", "the inputs schema's $defs are not JSON Schemas: %s", firstLine(err))
	}
	s := &Schema{check: map[string]*jsonschema.Resolved{}}
	required := map[string]bool{}
	req := root.Get("required")
	if req.Exists() && !req.IsArray() {
		probs = append(probs, Problem{Message: `the inputs schema's "required" must be an array of input names`})
	}
	for _, r := range req.Array() {
		if r.Type != gjson.String || !props.Get(gjson.Escape(r.String())).Exists() {
			probs = append(probs, Problem{Input: r.String(), Message: fmt.Sprintf("the inputs schema requires %s, which is not one of its properties", r.Raw)})
			continue
		}
		required[r.String()] = true
	}
	props.ForEach(func(k, v gjson.Result) bool {
		name := k.String()
		if !nameRe.MatchString(name) || len(name) > MaxNameLen {
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("the input name %q cannot be read as {{inputs.NAME}}: use letters, digits and _ (not first a digit), at most %d characters", name, MaxNameLen)})
			return true
		}
		if !v.IsObject() {
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("input %s: its schema must be an object, not %s", name, kind(v))})
			return true
		}
		typ := v.Get("type")
		if typ.Type != gjson.String || !slices.Contains(Types, typ.String()) {
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("input %s needs one \"type\": %s", name, strings.Join(Types, ", "))})
			return true
		}
		var sub *jsonschema.Schema
		if err := json.Unmarshal([]byte(v.Raw), &sub); err != nil {
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("input %s: its schema is not a JSON Schema: %s", name, firstLine(err))})
			return true
		}
		f := Field{Name: name, Type: typ.String(), Title: sub.Title, Description: sub.Description, Required: required[name],
			Default: sub.Default, Enum: sub.Enum, Secret: sub.WriteOnly || sub.Format == "password"}
		// Each input is checked on its own (so a problem names it), under
		// the root's definitions ($ref to $defs still resolves).
		one := &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{name: sub}, Defs: defs.Defs, Definitions: defs.Definitions}
		rs, err := one.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
		if err != nil {
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("input %s: its schema is not usable: %s", name, innermost(err))})
			return true
		}
		s.check[name] = rs
		s.Fields = append(s.Fields, f)
		return true
	})
	if len(probs) > 0 {
		return nil, probs
	}
	return s, nil
}

// firstLine is an unmarshal error without the Go type it quotes.
func firstLine(err error) string {
	msg := err.Error()
	if i := strings.Index(msg, " into Go "); i >= 0 {
		msg = msg[:i]
	}
	return msg
}

func kind(v gjson.Result) string {
	switch {
	case v.IsObject():
		return "an object"
	case v.IsArray():
		return "an array"
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.Number:
		return "a number"
	case v.Type == gjson.True, v.Type == gjson.False:
		return "true or false"
	}
	return "null"
}

// The library writes numbers in bounds as rationals and %f (13/4,
// 2.500000); a message shows them as a person writes them (3.25, 2.5).
var (
	ratRe   = regexp.MustCompile(`-?\b\d+/\d+\b`)
	floatRe = regexp.MustCompile(`-?\b\d+\.\d+\b`)
)

// innermost is the library's message without its "validating …:" path,
// its numbers as a person writes them.
func innermost(err error) string {
	msg := ratRe.ReplaceAllStringFunc(pathless(err), func(m string) string {
		r, ok := new(big.Rat).SetString(m)
		if !ok {
			return m
		}
		return r.FloatString(6)
	})
	return floatRe.ReplaceAllStringFunc(msg, func(m string) string {
		return strings.TrimSuffix(strings.TrimRight(m, "0"), ".")
	})
}

func pathless(err error) string {
	msg := err.Error()
	for _, pre := range []string{"validating ", "applyDefaults: "} {
		for strings.HasPrefix(msg, pre) {
			i := strings.Index(msg, ": ")
			if i < 0 {
				break
			}
			msg = msg[i+2:]
		}
	}
	return msg
}

// FromText is the value of input f given as text (the CLI's --input
// NAME=VALUE, a form's field): a string input takes the text as it is;
// the others read it as JSON (3, true, {"a": 1}, [1, 2]).
func FromText(f Field, text string) (any, error) {
	if f.Type == "string" {
		return text, nil
	}
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, fmt.Errorf("input %s wants %s, written as JSON; %s is not", f.Name, article(f.Type), strconv.Quote(cut(text)))
	}
	return v, nil
}

func cut(s string) string {
	if len(s) > 60 {
		return s[:57] + "…"
	}
	return s
}

// article names a type for messages: "an integer", "a boolean (true or false)".
func article(t string) string {
	switch t {
	case "integer", "object", "array":
		return "an " + t
	case "boolean":
		return "a boolean (true or false)"
	}
	return "a " + t
}

// Resolve is the values a run of a workflow with the inputs schema raw
// gets: values (a JSON object's members: the CLI's --inputs, a test
// case's) with texts (NAME → text, parsed by FromText) over them, and the
// schema's defaults for the inputs given neither way. It refuses, with an
// *Error naming every input at fault, an unusable schema, an input the
// schema does not declare, a required input missing and a value that does
// not fit the schema. Without a schema the result is empty (and nothing
// may be given). The values are JSON values (numbers are float64).
func Resolve(raw json.RawMessage, values map[string]any, texts map[string]string) (map[string]any, error) {
	s, probs := Parse(raw)
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	return s.Resolve(values, texts)
}

// Resolve is the package's Resolve with the schema parsed.
func (s *Schema) Resolve(values map[string]any, texts map[string]string) (map[string]any, error) {
	out := map[string]any{}
	var probs []Problem
	undeclared := func(name string) {
		msg := fmt.Sprintf("this workflow declares no input %s", name)
		if names := s.Names(); len(names) > 0 {
			msg += " (its inputs: " + strings.Join(names, ", ") + ")"
		} else {
			msg = fmt.Sprintf("this workflow declares no inputs, so %s cannot be given", name)
		}
		probs = append(probs, Problem{Input: name, Message: msg})
	}
	// A secret input may be given a stored secret's name instead of a
	// value (SecretRef): kept as it is, the reference never read here.
	values, refs := Split(values)
	if len(values) > 0 {
		// JSON values only (a Go int becomes a number as JSON reads it),
		// copied: the caller's map is never changed.
		b, err := json.Marshal(values)
		if err != nil {
			return nil, &Error{Problems: []Problem{{Message: "the input values are not JSON: " + err.Error()}}}
		}
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, &Error{Problems: []Problem{{Message: "the input values are not JSON: " + err.Error()}}}
		}
	}
	for _, name := range sortedKeys(out) {
		if _, ok := s.Field(name); !ok {
			undeclared(name)
			delete(out, name)
		}
	}
	for _, name := range sortedKeys(refs) {
		f, ok := s.Field(name)
		switch {
		case !ok:
			undeclared(name)
		case texts[name] != "":
			probs = append(probs, Problem{Input: name, Message: fmt.Sprintf("input %s is given both a value and the stored secret %s: give one", name, refs[name])})
		default:
			if why := checkRef(f, SecretRef{refs[name]}); why != "" {
				probs = append(probs, Problem{Input: name, Message: why})
			}
		}
	}
	for _, name := range sortedKeys(texts) {
		f, ok := s.Field(name)
		if !ok {
			undeclared(name)
			continue
		}
		v, err := FromText(f, texts[name])
		if err != nil {
			probs = append(probs, Problem{Input: name, Message: err.Error()})
			delete(out, name)
			continue
		}
		out[name] = v
	}
	if s == nil {
		if len(probs) > 0 {
			return nil, &Error{Problems: probs}
		}
		return out, nil
	}
	for _, f := range s.Fields {
		v, given := out[f.Name]
		if _, ref := refs[f.Name]; ref {
			given = true
		}
		if !given {
			if slices.ContainsFunc(probs, func(p Problem) bool { return p.Input == f.Name }) {
				continue // unparsable text: said already
			}
			if len(f.Default) > 0 {
				var d any
				if json.Unmarshal(f.Default, &d) == nil {
					out[f.Name] = d
				}
				continue
			}
			if f.Required {
				probs = append(probs, Problem{Input: f.Name, Message: fmt.Sprintf("input %s is required: %s", f.Name, want(f))})
			}
			continue
		}
		if name, ok := refs[f.Name]; ok {
			out[f.Name] = SecretRef{Name: name} // checked above; its value is the store's
			continue
		}
		if err := s.check[f.Name].Validate(map[string]any{f.Name: v}); err != nil {
			probs = append(probs, Problem{Input: f.Name, Message: fmt.Sprintf("input %s does not fit: %s (it wants %s)", f.Name, innermost(err), want(f))})
		}
	}
	if len(probs) > 0 {
		return nil, &Error{Problems: probs}
	}
	return out, nil
}

// want says what an input takes, for messages.
func want(f Field) string {
	w := article(f.Type)
	if len(f.Enum) > 0 {
		parts := make([]string, len(f.Enum))
		for i, e := range f.Enum {
			b, _ := json.Marshal(e)
			parts[i] = string(b)
		}
		w += ", one of " + strings.Join(parts, ", ")
	}
	if f.Description != "" {
		w += " — " + f.Description
	}
	return w
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Secrets are the texts of the values of the inputs the schema marks
// secret, for the run's redactor.
func Secrets(raw json.RawMessage, values map[string]any) []string {
	s, _ := Parse(raw)
	var out []string
	for _, f := range fieldsOf(s) {
		if v, ok := values[f.Name]; ok && f.Secret {
			if _, ref := v.(SecretRef); ref {
				continue // no value here: the effect gate redacts the one it opens
			}
			out = append(out, text(v))
		}
	}
	return out
}

// Shown is values as a run records and shows them: a secret input's
// value is redact.Placeholder.
func Shown(raw json.RawMessage, values map[string]any) map[string]any {
	if len(values) == 0 {
		return nil
	}
	s, _ := Parse(raw)
	out := make(map[string]any, len(values))
	for k, v := range values {
		out[k] = v
		if f, ok := s.Field(k); ok && f.Secret {
			out[k] = redact.Placeholder
		}
	}
	return out
}

func fieldsOf(s *Schema) []Field {
	if s == nil {
		return nil
	}
	return s.Fields
}

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Lookup reads inputs.NAME.field… from the run's values (a template's
// {{inputs.NAME}}): an input not given, or a field its value lacks, is an
// error, never "" inserted as if it were there.
func Lookup(values any, path []string) (any, error) {
	m, _ := values.(map[string]any)
	if len(path) == 0 {
		return m, nil
	}
	cur, ok := m[path[0]]
	if !ok {
		return nil, fmt.Errorf("the input %s was not given and has no default", path[0])
	}
	for i, p := range path[1:] {
		obj, isObj := cur.(map[string]any)
		if !isObj {
			return nil, fmt.Errorf("inputs.%s is not an object: it has no field %s", strings.Join(path[:i+1], "."), p)
		}
		if cur, ok = obj[p]; !ok {
			return nil, fmt.Errorf("inputs.%s has no field %s", strings.Join(path[:i+1], "."), p)
		}
	}
	return cur, nil
}
