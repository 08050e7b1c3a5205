package assistant

import (
	"encoding/json"

	"github.com/weft-dev/weft/backend/workflow"
)

// The clones below copy exactly what a merge may hand out, field by field:
// workflow.Clone round-trips through JSON, which is too slow for a preview
// of a 10k-node graph on every keystroke.

func cloneNode(n workflow.Node) workflow.Node {
	n.Params = cloneParams(n.Params)
	n.Position = clonePosition(n.Position)
	if n.Enabled != nil {
		v := *n.Enabled
		n.Enabled = &v
	}
	if n.Retry != nil {
		r := *n.Retry
		if r.Backoff != nil {
			b := *r.Backoff
			r.Backoff = &b
		}
		n.Retry = &r
	}
	n.Extra = cloneExtra(n.Extra)
	return n
}

func cloneParams(p workflow.Params) workflow.Params {
	if p.Arguments != nil {
		p.Arguments = cloneValue(p.Arguments).(map[string]any)
	}
	p.AllowedTools = cloneStrings(p.AllowedTools)
	p.Labels = cloneStrings(p.Labels)
	if p.Cases != nil {
		p.Cases = append([]workflow.SwitchCase(nil), p.Cases...)
	}
	if p.MaxIterations != nil {
		v := *p.MaxIterations
		p.MaxIterations = &v
	}
	p.Extra = cloneExtra(p.Extra)
	return p
}

func clonePosition(p *workflow.Position) *workflow.Position {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}

func cloneEdge(e workflow.Edge) workflow.Edge {
	if e.Output != nil {
		o := *e.Output
		e.Output = &o
	}
	e.Extra = cloneExtra(e.Extra)
	return e
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s...)
}

func cloneExtra(x workflow.Extra) workflow.Extra {
	if x == nil {
		return nil
	}
	c := make(workflow.Extra, len(x))
	for k, v := range x {
		c[k] = append(json.RawMessage(nil), v...)
	}
	return c
}

// cloneValue deep-copies a decoded JSON value.
func cloneValue(v any) any { return workflow.CloneValue(v) }
