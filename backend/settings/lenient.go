package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// A slip in one key must cost that key only (issue 10): `"max_repair_attempts":
// "abc"` used to make the whole file "corrupt", moved aside, and every other
// setting (endpoint, model, MCP servers) silently reset. decodeLenient
// decodes key by key over the defaults: a value of the wrong type keeps the
// default and is reported; an MCP server entry that does not read is
// dropped (a half-read command line must not run) and reported. Only a
// file that is not a JSON object at all is an error.

// decodeLenient decodes data over out (which holds the defaults) and
// returns one line per value it could not use.
func decodeLenient(data []byte, out *Settings) ([]string, error) {
	var top map[string]json.RawMessage
	if err := decodeStrict(data, (*rawObject)(&top)); err != nil {
		return nil, err
	}
	if top == nil {
		return nil, fmt.Errorf("expected a JSON object, got null")
	}
	var problems []string
	v := reflect.ValueOf(out).Elem()
	t := v.Type()
	out.Extra = nil
	for i := 0; i < t.NumField(); i++ {
		name := jsonName(t.Field(i))
		if name == "" {
			continue
		}
		if raw, ok := top[name]; ok {
			decodeValue(raw, v.Field(i), name, &problems)
		}
	}
	for k, raw := range top {
		if !knownKeys[k] {
			if out.Extra == nil {
				out.Extra = map[string]json.RawMessage{}
			}
			out.Extra[k] = raw
		}
	}
	sort.Strings(problems)
	return problems, nil
}

// rawObject lets decodeStrict (line and column in errors) decode the top
// level as a map.
type rawObject map[string]json.RawMessage

func (r *rawObject) UnmarshalJSON(b []byte) error {
	m := map[string]json.RawMessage{}
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	*r = m
	return nil
}

func jsonName(f reflect.StructField) string {
	n := strings.Split(f.Tag.Get("json"), ",")[0]
	if n == "-" {
		return ""
	}
	return n
}

// decodeValue decodes raw into v (holding its default), reporting what it
// cannot use under path.
func decodeValue(raw json.RawMessage, v reflect.Value, path string, problems *[]string) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "null" {
		return // absent: the default stays
	}
	switch v.Kind() {
	case reflect.Struct:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: expected an object, got %s; using the defaults", path, snippet(raw)))
			return
		}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			name := jsonName(t.Field(i))
			if name == "" {
				continue
			}
			if sub, ok := obj[name]; ok {
				decodeValue(sub, v.Field(i), path+"."+name, problems)
			}
		}
	case reflect.Map:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: expected an object, got %s; ignored it", path, snippet(raw)))
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(obj))
		for k, sub := range obj {
			elem := reflect.New(v.Type().Elem()).Elem()
			var sp []string
			decodeValue(sub, elem, path+"."+k, &sp)
			if len(sp) > 0 {
				// An entry that does not read whole is left out: an MCP
				// server with half its arguments must not start.
				*problems = append(*problems, fmt.Sprintf("%s: %s; left this entry out", path+"."+k, strings.Join(trimPaths(sp, path+"."+k), "; ")))
				continue
			}
			m.SetMapIndex(reflect.ValueOf(k), elem)
		}
		v.Set(m)
	default:
		p := reflect.New(v.Type())
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			*problems = append(*problems, fmt.Sprintf("%s: %s is not %s; using %s", path, snippet(raw), kindName(v.Type()), current(v)))
			return
		}
		v.Set(p.Elem())
	}
}

// trimPaths shortens the nested problems of a map entry.
func trimPaths(ps []string, prefix string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		p = strings.TrimPrefix(strings.TrimPrefix(p, prefix), ".")
		if j := strings.LastIndex(p, "; using "); j >= 0 {
			p = p[:j] // the entry is left out, so no value is used
		}
		out[i] = p
	}
	return out
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(kindName(t.Elem()), "a ") + "s"
	}
	return "a " + t.Kind().String()
}

func current(v reflect.Value) string {
	if v.Kind() == reflect.String {
		if v.String() == "" {
			return "nothing"
		}
		return fmt.Sprintf("%q", v.String())
	}
	b, err := json.Marshal(v.Interface())
	if err != nil {
		return "the default"
	}
	return string(b)
}

// snippet shows a JSON value in a message, cut short.
func snippet(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
