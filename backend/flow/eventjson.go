package flow

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// Events are encoded by hand: a run writes several per node, and
// reflection-based encoding was most of the executor's cost per node
// (BenchmarkLoopOverhead). The output is what encoding/json would write
// for the struct tags in types.go (fields in order, empty ones left out,
// HTML characters not escaped), which TestEventJSONMatchesEncodingJSON
// checks.

// MarshalJSON encodes the event as events.jsonl and --json show it.
func (e Event) MarshalJSON() ([]byte, error) {
	return e.AppendJSON(make([]byte, 0, 256))
}

// AppendJSON appends the event's JSON to b (the run log reuses one buffer).
func (e *Event) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, e.Seq, 10)
	b = append(b, `,"time":"`...)
	b = e.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendStrField(b, "type", string(e.Type), true)
	b = appendStrField(b, "run_id", e.RunID, false)
	b = appendStrField(b, "node_id", e.NodeID, false)
	b = appendStrField(b, "node_key", e.NodeKey, false)
	b = appendStrField(b, "node_name", e.NodeName, false)
	b = appendStrField(b, "status", string(e.Status), false)
	b = appendIntField(b, "attempt", int64(e.Attempt))
	b = appendIntField(b, "max_attempts", int64(e.MaxAttempts))
	b = appendIntField(b, "iteration", int64(e.Iteration))
	b = appendStrField(b, "branch", e.Branch, false)
	b = appendStrField(b, "condition", e.Condition, false)
	b = appendStrField(b, "message", e.Message, false)
	b = appendStrField(b, "tool", e.Tool, false)
	b = appendIntField(b, "delay_ms", e.DelayMs)
	b = appendIntField(b, "duration_ms", e.DurationMs)
	var err error
	if len(e.Outputs) > 0 {
		b = append(b, `,"outputs":`...)
		if b, err = appendValue(b, e.Outputs); err != nil {
			return nil, err
		}
	}
	if len(e.Arguments) > 0 {
		b = append(b, `,"arguments":`...)
		if b, err = appendValue(b, e.Arguments); err != nil {
			return nil, err
		}
	}
	if len(e.Reads) > 0 {
		b = append(b, `,"reads":`...)
		if b, err = appendValue(b, e.Reads); err != nil {
			return nil, err
		}
	}
	for _, f := range []struct {
		name string
		v    any
		set  bool
	}{{"failure", e.Failure, e.Failure != nil}, {"escalation", e.Escalation, e.Escalation != nil}, {"response", e.Response, e.Response != nil}} {
		if f.set {
			b = append(b, `,"`...)
			b = append(b, f.name...)
			b = append(b, `":`...)
			if b, err = appendMarshal(b, f.v); err != nil {
				return nil, err
			}
		}
	}
	b = appendStrField(b, "outcome", string(e.Outcome), false)
	if e.Summary != nil {
		b = append(b, `,"summary":`...)
		if b, err = appendMarshal(b, e.Summary); err != nil {
			return nil, err
		}
	}
	if e.Verdict != nil {
		b = append(b, `,"verdict":`...)
		if b, err = appendMarshal(b, e.Verdict); err != nil {
			return nil, err
		}
	}
	b = appendStrField(b, "source", e.Source, false)
	if e.SubRun != nil {
		b = append(b, `,"sub_run":`...)
		if b, err = appendMarshal(b, e.SubRun); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

func appendStrField(b []byte, name, v string, always bool) []byte {
	if v == "" && !always {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendString(b, v)
}

func appendIntField(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, v, 10)
}

func appendMarshal(b []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// appendValue encodes the JSON-like values node outputs hold, falling back
// to encoding/json for anything else.
func appendValue(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendString(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) || math.Abs(t) >= 1e21 || (t != 0 && math.Abs(t) < 1e-6) {
			return appendMarshal(b, t)
		}
		return strconv.AppendFloat(b, t, 'f', -1, 64), nil
	case json.RawMessage:
		return appendMarshal(b, t) // compacted, as encoding/json does
	case map[string]any:
		var small [16]string
		keys := small[:0]
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendValue(b, t[k]); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendValue(b, x); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return appendMarshal(b, v)
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off:
// control characters escaped, invalid UTF-8 replaced by U+FFFD, and
// U+2028/U+2029 escaped.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
