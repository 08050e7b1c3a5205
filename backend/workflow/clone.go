package workflow

import "maps"

// CloneValue deep-copies a decoded JSON value (maps, slices, strings of
// arguments, outputs and pinned data), so no two owners share a map.
func CloneValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		// maps.Clone copies the table wholesale, far faster than
		// inserting key by key; only nested values need a walk.
		c := maps.Clone(t)
		for k, e := range c {
			switch e.(type) {
			case map[string]any, []any, []string:
				c[k] = CloneValue(e)
			}
		}
		return c
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			c[i] = CloneValue(e)
		}
		return c
	case []string:
		return append([]string(nil), t...)
	}
	return v
}
