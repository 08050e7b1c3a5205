package planner

import (
	"fmt"

	"github.com/weft-dev/weft/backend/workflow"
)

// ApplyFeatures removes the AiStep and AiTransform steps the features do
// not allow. In a flat plan the list closes up around a removed step; in a
// graph a removed node with exactly one incoming edge and one plain
// outgoing edge is bridged (predecessor to successor, keeping the incoming
// label), otherwise its edges are dropped. Each removal is a warning.
func ApplyFeatures(p *Plan, f Features) []Warning {
	var ws []Warning
	warn := func(format string, a ...any) {
		ws = append(ws, Warning{Stage: StageFeatures, Message: fmt.Sprintf(format, a...)})
	}
	why := func(t workflow.NodeType) string {
		switch {
		case t == workflow.TypeAiStep && !f.AllowAgentSteps:
			return "AiStep (agent) steps are disabled"
		case t == workflow.TypeAiTransform && !f.AllowAITransforms:
			return "AiTransform steps are disabled"
		}
		return ""
	}
	label := func(s *Step) string {
		if s.ID != "" {
			return fmt.Sprintf("%s (%q)", s.Path, s.ID)
		}
		return s.Path
	}

	if !p.Graph {
		var filter func(ss []Step) []Step
		filter = func(ss []Step) []Step {
			out := ss[:0]
			for _, s := range ss {
				if r := why(s.Type); r != "" {
					warn("removed %s: %s; the steps around it are connected directly", label(&s), r)
					if s.ID != "" {
						p.Skipped[s.ID] = r
					}
					continue
				}
				for b := range s.Branches {
					s.Branches[b].Steps = filter(s.Branches[b].Steps)
				}
				out = append(out, s)
			}
			return out
		}
		p.Steps = filter(p.Steps)
		return ws
	}

	kept := p.Steps[:0]
	for _, s := range p.Steps {
		r := why(s.Type)
		if r == "" {
			kept = append(kept, s)
			continue
		}
		if s.ID != "" {
			p.Skipped[s.ID] = r
		}
		var in, out []int
		for i, e := range p.Edges {
			if s.ID == "" {
				break
			}
			if e.To == s.ID {
				in = append(in, i)
			}
			if e.From == s.ID {
				out = append(out, i)
			}
		}
		drop := map[int]bool{}
		for _, i := range append(in, out...) {
			drop[i] = true
		}
		var bridge *PlanEdge
		if len(in) == 1 && len(out) == 1 && p.Edges[out[0]].Output == nil && p.Edges[out[0]].Label == "" &&
			p.Edges[in[0]].From != s.ID && p.Edges[out[0]].To != s.ID && p.Edges[in[0]].From != p.Edges[out[0]].To {
			b := p.Edges[in[0]]
			b.To = p.Edges[out[0]].To
			bridge = &b
		}
		edges := p.Edges[:0]
		for i, e := range p.Edges {
			if !drop[i] {
				edges = append(edges, e)
			} else if bridge != nil && i == in[0] {
				edges = append(edges, *bridge)
			}
		}
		p.Edges = edges
		switch {
		case bridge != nil:
			warn("removed %s: %s; connected %s to %s directly", label(&s), r, bridge.From, bridge.To)
		case len(drop) > 0:
			warn("removed %s: %s; dropped its %d edge(s)", label(&s), r, len(drop))
		default:
			warn("removed %s: %s", label(&s), r)
		}
	}
	p.Steps = kept
	return ws
}
