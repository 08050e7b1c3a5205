package testcase

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// fileFields is the shape strict checks a case file against.
var fileFields = reflect.TypeFor[File]()

var valueType = reflect.TypeFor[Value]()

// strict reports the first member of raw (a decoded JSON value) that t
// has no field for, saying where it is: encoding/json's unknown-field
// error does not.
func strict(raw any, t reflect.Type, where, what string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if t == valueType {
			return nil // Value reads itself
		}
		m, ok := raw.(map[string]any)
		if !ok {
			return nil // a wrong type: the decoder says so, with the field
		}
		fields := map[string]reflect.Type{}
		jsonFields(t, fields)
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for f := range fields {
					known = append(known, f)
				}
				sort.Strings(known)
				return &FileError{Where: where, Msg: fmt.Sprintf("%s has no field %q (it has %s)", what, k, strings.Join(known, ", "))}
			}
			if err := strict(m[k], ft, join(where, k), fmt.Sprintf("%q", k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		items, _ := raw.([]any)
		for i, it := range items {
			w := fmt.Sprintf("%s[%d]", where, i)
			if m, ok := it.(map[string]any); ok {
				if name, ok := m["name"].(string); ok {
					w += fmt.Sprintf(" %q", name)
				}
			}
			if err := strict(it, t.Elem(), w, "this item"); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, _ := raw.(map[string]any)
		for k, it := range m {
			if err := strict(it, t.Elem(), fmt.Sprintf("%s[%q]", where, k), "this item"); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields collects the JSON names of t's fields (embedded structs'
// too) and their types.
func jsonFields(t reflect.Type, out map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			jsonFields(f.Type, out)
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}

func join(where, k string) string {
	if where == "" {
		return k
	}
	return where + "." + k
}
