package workflow

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The fast path of Parse for files already known to be valid JSON: nodes,
// params and edges are read straight off gjson's scan, once, instead of
// encoding/json validating each item again and then each params object a
// third time. It handles the values a well-formed file holds; anything
// else (a wrong type, a key in another casing, an escape or a non-ASCII
// byte in a string it would have to unescape differently from
// encoding/json) returns false, and the item is decoded the slow way,
// which gives the same result or the same positioned error. FuzzFastDecode
// checks that both ways agree.

// fastNode decodes one node; false means "use encoding/json".
func fastNode(v gjson.Result, n *Node) bool {
	return fields(v, func(key string, val gjson.Result) bool {
		ok := true
		switch key {
		case "id":
			ok = fastString(val, &n.ID)
		case "key":
			ok = fastString(val, &n.Key)
		case "name":
			ok = fastString(val, &n.Name)
		case "type":
			ok = fastString(val, (*string)(&n.Type))
		case "verify":
			ok = fastString(val, &n.Verify)
		case "on_error":
			ok = fastString(val, (*string)(&n.OnError))
		case "timeout_ms":
			ok = fastInt(val, &n.TimeoutMs)
		case "position":
			if !fastPosition(val, &n.Position) {
				ok = fastOther(key, val, (*rawNode)(n), nodeFields, &n.Extra)
			}
		case "retry":
			if !fastRetry(val, &n.Retry) {
				ok = fastOther(key, val, (*rawNode)(n), nodeFields, &n.Extra)
			}
		case "params":
			var p Params // a second "params" replaces the first, as in encoding/json
			ok = fastParams(val, &p)
			n.Params = p
		default:
			ok = fastOther(key, val, (*rawNode)(n), nodeFields, &n.Extra)
		}
		return ok
	})
}

func fastParams(v gjson.Result, p *Params) bool {
	return fields(v, func(key string, val gjson.Result) bool {
		ok := true
		switch key {
		case "tool":
			ok = fastString(val, &p.Tool)
		case "prompt":
			ok = fastString(val, &p.Prompt)
		case "condition":
			ok = fastString(val, &p.Condition)
		case "exit_condition":
			ok = fastString(val, &p.ExitCondition)
		case "loop_id":
			ok = fastString(val, &p.LoopID)
		case "kind":
			ok = fastString(val, &p.Kind)
		case "input":
			ok = fastString(val, &p.Input)
		case "arguments":
			switch {
			case val.Type == gjson.Null:
				p.Arguments = nil
			case val.IsObject():
				m := make(map[string]any)
				if p.Arguments != nil {
					m = p.Arguments // encoding/json merges into an existing map
				}
				ok = fastObject(val, m)
				p.Arguments = m
			default:
				ok = false
			}
		default:
			ok = fastOther(key, val, (*rawParams)(p), paramsFields, &p.Extra)
		}
		return ok
	})
}

func fastEdge(v gjson.Result, e *Edge) bool {
	return fields(v, func(key string, val gjson.Result) bool {
		ok := true
		switch key {
		case "from":
			ok = fastString(val, &e.From)
		case "to":
			ok = fastString(val, &e.To)
		default:
			ok = fastOther(key, val, (*rawEdge)(e), edgeFields, &e.Extra)
		}
		return ok
	})
}

// fields calls f for each field of the object v, in order, while it
// returns true; false when v is not an object, a key needs unescaping, or
// f said no.
func fields(v gjson.Result, f func(key string, val gjson.Result) bool) bool {
	if !v.IsObject() {
		return false
	}
	ok := true
	v.ForEach(func(k, val gjson.Result) bool {
		key, good := plainKey(k)
		ok = good && f(key, val)
		return ok
	})
	return ok
}

// fastOther handles a field the switch above does not: a known one is
// decoded alone by encoding/json (rare fields: position, retry, …), an
// unknown one is kept in extra as it is, and one that matches a known
// field only in another casing (which encoding/json would also fill in)
// sends the item the slow way.
func fastOther(key string, val gjson.Result, into any, known map[string]bool, extra *Extra) bool {
	if known[key] {
		one := make([]byte, 0, len(key)+len(val.Raw)+5)
		one = append(one, '{')
		one = strconv.AppendQuote(one, key)
		one = append(one, ':')
		one = append(one, val.Raw...)
		one = append(one, '}')
		return json.Unmarshal(one, into) == nil
	}
	for f := range known {
		if strings.EqualFold(f, key) {
			return false
		}
	}
	if *extra == nil {
		*extra = Extra{}
	}
	(*extra)[strings.Clone(key)] = json.RawMessage(val.Raw)
	return true
}

// plainKey returns an object key that needs no unescaping.
func plainKey(k gjson.Result) (string, bool) {
	if !plainString(k.Raw) {
		return "", false
	}
	return k.Str, true // compared, not kept (fastOther copies what it keeps)
}

// plainString reports whether the raw JSON string holds only printable
// ASCII without escapes: then its text is the bytes between the quotes,
// whichever decoder reads it.
func plainString(raw string) bool {
	for i := 1; i < len(raw)-1; i++ {
		if c := raw[i]; c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return len(raw) >= 2
}

func fastString(v gjson.Result, s *string) bool {
	switch {
	case v.Type == gjson.Null:
		return true // encoding/json leaves the field as it is
	case v.Type != gjson.String:
		return false
	case plainString(v.Raw):
		// A copy: v.Str points into the whole file's text, which the
		// workflow must not keep alive.
		*s = strings.Clone(v.Str)
		return true
	}
	return json.Unmarshal([]byte(v.Raw), s) == nil
}

func fastInt(v gjson.Result, n *int) bool {
	switch v.Type {
	case gjson.Null:
		return true
	case gjson.Number:
		i, err := strconv.ParseInt(v.Raw, 10, strconv.IntSize)
		if err != nil {
			return false // 1.5, 1e3, out of range: encoding/json's error
		}
		*n = int(i)
		return true
	}
	return false
}

// fastObject fills m from a JSON object as encoding/json does into
// map[string]any: float64 numbers, later duplicate keys winning.
func fastObject(v gjson.Result, m map[string]any) bool {
	ok := true
	v.ForEach(func(k, val gjson.Result) bool {
		var key string
		if !fastString(k, &key) {
			ok = false
			return false
		}
		var x any
		if x, ok = fastAny(val); ok {
			m[key] = x
		}
		return ok
	})
	return ok
}

func fastAny(v gjson.Result) (any, bool) {
	switch v.Type {
	case gjson.Null:
		return nil, true
	case gjson.True:
		return true, true
	case gjson.False:
		return false, true
	case gjson.Number:
		f, err := strconv.ParseFloat(v.Raw, 64)
		return f, err == nil
	case gjson.String:
		var s string
		return s, fastString(v, &s)
	}
	if v.IsObject() {
		m := map[string]any{}
		return m, fastObject(v, m)
	}
	if v.IsArray() {
		a := []any{}
		ok := true
		v.ForEach(func(_, e gjson.Result) bool {
			var x any
			if x, ok = fastAny(e); ok {
				a = append(a, x)
			}
			return ok
		})
		return a, ok
	}
	return nil, false
}

// fastItem dispatches on the item type of decodeItems.
func fastItem[T any](v gjson.Result, item *T) bool {
	switch it := any(item).(type) {
	case *Node:
		return fastNode(v, it)
	case *Edge:
		return fastEdge(v, it)
	}
	return false
}

// fastPosition reads {"x": …, "y": …}; false for anything else.
func fastPosition(v gjson.Result, pos **Position) bool {
	if !v.IsObject() {
		return false
	}
	var p Position
	if *pos != nil {
		p = **pos // a repeated key merges into the value, as in encoding/json
	}
	ok := true
	v.ForEach(func(k, val gjson.Result) bool {
		key, good := plainKey(k)
		ok = good && val.Type == gjson.Number && (key == "x" || key == "y")
		if ok {
			f, err := strconv.ParseFloat(val.Raw, 64)
			ok = err == nil
			if key == "x" {
				p.X = f
			} else {
				p.Y = f
			}
		}
		return ok
	})
	if ok {
		*pos = &p
	}
	return ok
}

// fastRetry reads {"max_attempts": n, "backoff": {…}} with whole numbers
// and plain numbers; false for anything else.
func fastRetry(v gjson.Result, r **Retry) bool {
	if !v.IsObject() {
		return false
	}
	var rt Retry
	if *r != nil {
		rt = **r // a repeated key merges into the value, as in encoding/json
	}
	ok := true
	v.ForEach(func(k, val gjson.Result) bool {
		key, good := plainKey(k)
		switch {
		case !good:
			ok = false
		case key == "max_attempts":
			ok = val.Type == gjson.Number && fastInt(val, &rt.MaxAttempts)
		case key == "backoff" && val.IsObject():
			var b Backoff
			if rt.Backoff != nil {
				b = *rt.Backoff
			}
			val.ForEach(func(k2, bv gjson.Result) bool {
				key2, good := plainKey(k2)
				if !good || bv.Type != gjson.Number {
					ok = false
					return false
				}
				switch key2 {
				case "initial_ms":
					ok = fastInt(bv, &b.InitialMs)
				case "max_ms":
					ok = fastInt(bv, &b.MaxMs)
				case "multiplier", "jitter":
					f, err := strconv.ParseFloat(bv.Raw, 64)
					ok = err == nil
					if key2 == "multiplier" {
						b.Multiplier = f
					} else {
						b.Jitter = f
					}
				default:
					ok = false
				}
				return ok
			})
			rt.Backoff = &b
		default:
			ok = false
		}
		return ok
	})
	if ok {
		*r = &rt
	}
	return ok
}
