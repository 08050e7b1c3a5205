package redact

import "encoding/json"

// maxDepth bounds the recursion of Value; deeper parts are replaced whole
// if they hold a secret.
const maxDepth = 64

// Value returns v with secrets removed from every string in it: the
// JSON-like values node outputs hold (strings, maps, slices, raw JSON).
// Parts that hold no secret are shared, not copied, and v itself is
// returned when nothing changed, so callers must not mutate the result.
// Any other type is checked through its JSON encoding and, if that holds a
// secret, replaced by the redacted decoded form.
func (r *Redactor) Value(v any) any {
	st := r.load()
	if st == nil {
		return v
	}
	out, _ := st.value(v, 0)
	return out
}

func (st *set) value(v any, depth int) (any, bool) {
	if depth > maxDepth {
		return st.viaJSON(v, depth)
	}
	switch t := v.(type) {
	case nil, bool, int, int64, float64:
		return v, false
	case string:
		s, changed := st.redact(t, edgeStart|edgeEnd|edgeMarkers)
		return s, changed
	case map[string]any:
		var out map[string]any
		for k, x := range t {
			y, changed := st.value(x, depth+1)
			rk, kchanged := st.redact(k, 0)
			if !changed && !kchanged {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(t))
				for k2, x2 := range t {
					out[k2] = x2
				}
			}
			if kchanged {
				delete(out, k)
			}
			out[rk] = y
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, x := range t {
			y, changed := st.value(x, depth+1)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), t...)
			}
			out[i] = y
		}
		if out == nil {
			return v, false
		}
		return out, true
	case map[string]string:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = x
		}
		if y, changed := st.value(m, depth); changed {
			return y, true
		}
		return v, false
	case []string:
		var out []string
		for i, x := range t {
			y, changed := st.redact(x, edgeStart|edgeEnd|edgeMarkers)
			if !changed {
				continue
			}
			if out == nil {
				out = append([]string(nil), t...)
			}
			out[i] = y
		}
		if out == nil {
			return v, false
		}
		return out, true
	case json.RawMessage:
		if !st.contains(string(t)) {
			return v, false
		}
		var x any
		if err := json.Unmarshal(t, &x); err != nil {
			return json.RawMessage(mustJSON(Placeholder)), true
		}
		y, _ := st.value(x, depth+1)
		return json.RawMessage(mustJSON(y)), true
	case error:
		s, changed := st.redact(t.Error(), edgeStart|edgeEnd|edgeMarkers)
		if !changed {
			return v, false
		}
		return s, true
	}
	return st.viaJSON(v, depth)
}

// viaJSON checks a value of another type through its JSON encoding.
func (st *set) viaJSON(v any, depth int) (any, bool) {
	b, err := json.Marshal(v)
	if err != nil || !st.contains(string(b)) {
		return v, false
	}
	var x any
	if json.Unmarshal(b, &x) != nil || depth > maxDepth {
		return Placeholder, true
	}
	y, _ := st.value(x, depth+1)
	return y, true
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`"` + Placeholder + `"`)
	}
	return b
}

// Error returns err with its message redacted, still unwrapping to err
// (errors.Is and errors.As see through it); nil stays nil and an error
// whose message holds no secret is returned as it is.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := r.String(msg)
	if red == msg {
		return err
	}
	return &redactedError{msg: red, err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
