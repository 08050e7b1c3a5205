package flow

import (
	"encoding/json"

	"github.com/weft-dev/weft/backend/failure"
)

// Truncate keeps the first n bytes of s (on a rune boundary) and marks the
// cut (failure.Truncate).
func Truncate(s string, n int) string { return failure.Truncate(s, n) }

// Bounded returns a copy of outputs fit for an event line: long strings are
// cut and deep values rendered as (cut) JSON.
func Bounded(outputs map[string]any, n int) map[string]any {
	if outputs == nil {
		return nil
	}
	if fits(outputs, n) {
		return outputs // output maps are never changed once set: sharing is safe
	}
	out := make(map[string]any, len(outputs))
	for k, v := range outputs {
		switch t := v.(type) {
		case string:
			out[k] = Truncate(t, n)
		case nil, bool, int, int64, float64:
			out[k] = t
		default:
			b, err := json.Marshal(t)
			if err != nil || len(b) > n {
				out[k] = Truncate(string(b), n)
			} else {
				out[k] = json.RawMessage(b)
			}
		}
	}
	return out
}

func fits(outputs map[string]any, n int) bool {
	for _, v := range outputs {
		switch t := v.(type) {
		case string:
			if len(t) > n {
				return false
			}
		case nil, bool, int, int64, float64:
		default:
			return false
		}
	}
	return true
}
