package runner

import (
	"errors"
	"regexp"

	"github.com/weft-dev/weft/backend/workflow"
)

// graph indexes a (valid) workflow for walking.
type graph struct {
	byID  map[string]*workflow.Node
	out   map[string][]workflow.Edge
	entry *workflow.Node
}

func newGraph(w *workflow.Workflow) (*graph, error) {
	g := &graph{byID: make(map[string]*workflow.Node, len(w.Nodes)), out: map[string][]workflow.Edge{}}
	for i := range w.Nodes {
		g.byID[w.Nodes[i].ID] = &w.Nodes[i]
	}
	indeg := map[string]int{}
	for _, e := range w.Edges {
		g.out[e.From] = append(g.out[e.From], e)
		from, to := g.byID[e.From], g.byID[e.To]
		if from != nil && to != nil && from.Type == workflow.TypeEndLoop && to.Type == workflow.TypeLoop {
			continue // the jump back does not make a Loop a middle step
		}
		indeg[e.To]++
	}
	for i := range w.Nodes {
		if indeg[w.Nodes[i].ID] == 0 {
			if g.entry != nil {
				return nil, errors.New("the workflow has more than one first step")
			}
			g.entry = &w.Nodes[i]
		}
	}
	if g.entry == nil {
		return nil, errors.New("the workflow has no first step")
	}
	return g, nil
}

// next follows the node's unlabelled edge (nil at the end of a path).
func (g *graph) next(id string) *workflow.Node {
	for _, e := range g.out[id] {
		if e.Output == nil || e.Output.Type == "" {
			return g.byID[e.To]
		}
	}
	return nil
}

// branch follows the edge with the label (and case name, for a Switch).
func (g *graph) branch(id string, t workflow.OutputType, name string) *workflow.Node {
	for _, e := range g.out[id] {
		if e.Output != nil && e.Output.Type == t && (t != workflow.OutSwitchCase || e.Output.Name == name) {
			return g.byID[e.To]
		}
	}
	return nil
}

// readers returns the nodes whose conditions, templates or prompts read
// key: the ones to warn when key's node is skipped.
func (g *graph) readers(w *workflow.Workflow, key, except string) []NodeRef {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_.$])` + regexp.QuoteMeta(key) + `\b`)
	var out []NodeRef
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.ID == except {
			continue
		}
		texts := []string{n.Params.Prompt, n.Params.Input, n.Params.Condition, n.Params.ExitCondition, n.Verify}
		for _, c := range n.Params.Cases {
			texts = append(texts, c.Condition)
		}
		texts = collectStrings(n.Params.Arguments, texts)
		for _, t := range texts {
			if t != "" && re.MatchString(t) {
				out = append(out, NodeRef{ID: n.ID, Key: n.Key, Name: n.Name})
				break
			}
		}
	}
	return out
}

func collectStrings(v any, out []string) []string {
	switch t := v.(type) {
	case string:
		out = append(out, t)
	case map[string]any:
		for _, x := range t {
			out = collectStrings(x, out)
		}
	case []any:
		for _, x := range t {
			out = collectStrings(x, out)
		}
	}
	return out
}
