package workflow

import (
	"strings"
)

// redactedMarker is what the redactor puts where a secret was
// (redact.Placeholder; a test keeps them equal). The workflow package
// stays below redact: it names the marker instead of importing it.
const redactedMarker = "[REDACTED]"

// A model sees a workflow with its secrets redacted (backend/llm), so a
// version it writes back holds redactedMarker where the value was. A
// placeholder is never a value: where a node the model rewrote still
// stands for the value of the same field of the node it came from (the
// text around each placeholder is the same), that value is kept.

// KeepRedacted restores, in each node of nw that has a node of the same ID
// in old, the values the model only saw redacted (see KeepRedactedNode).
func KeepRedacted(old, nw *Workflow) {
	if old == nil || nw == nil {
		return
	}
	byID := make(map[string]*Node, len(old.Nodes))
	for i := range old.Nodes {
		byID[old.Nodes[i].ID] = &old.Nodes[i]
	}
	for i := range nw.Nodes {
		if o, ok := byID[nw.Nodes[i].ID]; ok {
			KeepRedactedNode(o, &nw.Nodes[i])
		}
	}
}

// KeepRedactedNode restores in nw the strings that hold redactedMarker
// where the same field of old matches them (each placeholder standing for
// some text): its arguments at any depth, its prompt, input, conditions,
// verify and done_when.
func KeepRedactedNode(old, nw *Node) {
	if old == nil || nw == nil {
		return
	}
	if nw.Params.Arguments != nil {
		if m, changed := keepValue(old.Params.Arguments, nw.Params.Arguments); changed {
			nw.Params.Arguments = m.(map[string]any)
		}
	}
	for _, f := range []struct{ old, nw *string }{
		{&old.Params.Prompt, &nw.Params.Prompt},
		{&old.Params.Input, &nw.Params.Input},
		{&old.Params.Condition, &nw.Params.Condition},
		{&old.Params.ExitCondition, &nw.Params.ExitCondition},
		{&old.Verify, &nw.Verify},
	} {
		*f.nw = keepString(*f.old, *f.nw)
	}
	if old.DoneWhen != nil && nw.DoneWhen != nil {
		nw.DoneWhen.Condition = keepString(old.DoneWhen.Condition, nw.DoneWhen.Condition)
		nw.DoneWhen.Criteria = keepString(old.DoneWhen.Criteria, nw.DoneWhen.Criteria)
	}
}

// keepValue returns nw with its redacted strings restored from old, the
// value at the same place (map key, list index), and whether it restored
// any; it copies what it changes and leaves old and nw as they were.
func keepValue(old, nw any) (any, bool) {
	switch n := nw.(type) {
	case string:
		if o, ok := old.(string); ok {
			kept := keepString(o, n)
			return kept, kept != n
		}
	case map[string]any:
		o, _ := old.(map[string]any)
		var out map[string]any
		for k, v := range n {
			ov, ok := o[k]
			if !ok {
				continue
			}
			kept, changed := keepValue(ov, v)
			if !changed {
				continue
			}
			if out == nil {
				out = make(map[string]any, len(n))
				for k2, v2 := range n {
					out[k2] = v2
				}
			}
			out[k] = kept
		}
		if out != nil {
			return out, true
		}
	case []any:
		o, _ := old.([]any)
		var out []any
		for i := 0; i < len(n) && i < len(o); i++ {
			kept, changed := keepValue(o[i], n[i])
			if !changed {
				continue
			}
			if out == nil {
				out = append([]any(nil), n...)
			}
			out[i] = kept
		}
		if out != nil {
			return out, true
		}
	}
	return nw, false
}

// keepString returns old when nw is old with parts redacted: nw holds the
// placeholder and old reads as nw with each placeholder standing for some
// non-empty text. Otherwise nw is the model's own text and is kept.
func keepString(old, nw string) string {
	if !strings.Contains(nw, redactedMarker) || old == nw {
		return nw
	}
	parts := strings.Split(nw, redactedMarker)
	first, last := parts[0], parts[len(parts)-1]
	if !strings.HasPrefix(old, first) || len(old) < len(first)+len(last) {
		return nw
	}
	rest := old[len(first):]
	for _, p := range parts[1 : len(parts)-1] {
		// Each placeholder stands for at least one byte.
		if len(rest) == 0 {
			return nw
		}
		j := strings.Index(rest[1:], p)
		if j < 0 {
			return nw
		}
		rest = rest[1+j+len(p):]
	}
	if len(rest) <= len(last) || !strings.HasSuffix(rest, last) {
		return nw
	}
	return old
}
