package flow

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// Graph indexes a (valid) workflow for walking.
type Graph struct {
	ByID  map[string]*workflow.Node
	Out   map[string][]workflow.Edge
	Entry *workflow.Node
}

// NewGraph indexes w; it fails on a workflow without exactly one first step.
func NewGraph(w *workflow.Workflow) (*Graph, error) {
	g := &Graph{ByID: make(map[string]*workflow.Node, len(w.Nodes)), Out: map[string][]workflow.Edge{}}
	for i := range w.Nodes {
		g.ByID[w.Nodes[i].ID] = &w.Nodes[i]
	}
	indeg := map[string]int{}
	for _, e := range w.Edges {
		g.Out[e.From] = append(g.Out[e.From], e)
		from, to := g.ByID[e.From], g.ByID[e.To]
		if from != nil && to != nil && from.Type == workflow.TypeEndLoop && to.Type == workflow.TypeLoop {
			continue // the jump back does not make a Loop a middle step
		}
		indeg[e.To]++
	}
	for i := range w.Nodes {
		if indeg[w.Nodes[i].ID] == 0 {
			if g.Entry != nil {
				return nil, errors.New("the workflow has more than one first step")
			}
			g.Entry = &w.Nodes[i]
		}
	}
	if g.Entry == nil {
		return nil, errors.New("the workflow has no first step")
	}
	return g, nil
}

// Next follows the node's unlabelled edge (nil at the end of a path).
func (g *Graph) Next(id string) *workflow.Node { return g.to(g.NextEdge(id)) }

// Branch follows the edge with the label (and case name, for a Switch).
func (g *Graph) Branch(id string, t workflow.OutputType, name string) *workflow.Node {
	return g.to(g.BranchEdge(id, t, name))
}

// NextEdge is the node's unlabelled edge, or nil. The pointer is the
// same for every call: the walk counts the edges it takes by it.
func (g *Graph) NextEdge(id string) *workflow.Edge {
	out := g.Out[id]
	for i := range out {
		if out[i].Output == nil || out[i].Output.Type == "" {
			return &out[i]
		}
	}
	return nil
}

// BranchEdge is the edge with the label (and case name, for a Switch), or nil.
func (g *Graph) BranchEdge(id string, t workflow.OutputType, name string) *workflow.Edge {
	out := g.Out[id]
	for i := range out {
		if e := out[i].Output; e != nil && e.Type == t && (t != workflow.OutSwitchCase || e.Name == name) {
			return &out[i]
		}
	}
	return nil
}

func (g *Graph) to(e *workflow.Edge) *workflow.Node {
	if e == nil {
		return nil
	}
	return g.ByID[e.To]
}

// Readers returns the nodes whose conditions, templates or prompts read
// key: the ones to warn when key's node is skipped.
func (g *Graph) Readers(w *workflow.Workflow, key, except string) []NodeRef {
	re := keyRef(key)
	var out []NodeRef
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.ID != except && reads(readTexts(n), re) {
			out = append(out, NodeRef{ID: n.ID, Key: n.Key, Name: n.Name})
		}
	}
	return out
}

// Reads are the keys of the other nodes whose outputs n's conditions,
// templates or prompts read, in the workflow's order (the same rule as
// Readers): the inputs a step's run data shows beside its arguments.
func Reads(w *workflow.Workflow, n *workflow.Node) []string {
	texts := readTexts(n)
	var out []string
	for i := range w.Nodes {
		o := &w.Nodes[i]
		if o.ID != n.ID && o.Key != "" && reads(texts, keyRef(o.Key)) {
			out = append(out, o.Key)
		}
	}
	return out
}

// keyRef matches a reference to a node's outputs by its key.
func keyRef(key string) *regexp.Regexp {
	return regexp.MustCompile(`(^|[^A-Za-z0-9_.$])` + regexp.QuoteMeta(key) + `\b`)
}

func reads(texts []string, re *regexp.Regexp) bool {
	for _, t := range texts {
		if t != "" && re.MatchString(t) {
			return true
		}
	}
	return false
}

// readTexts are the texts of n that may read other nodes' outputs.
func readTexts(n *workflow.Node) []string {
	texts := []string{n.Params.Prompt, n.Params.Input, n.Params.Condition, n.Params.ExitCondition, n.Verify}
	for _, c := range n.Params.Cases {
		texts = append(texts, c.Condition)
	}
	texts = collectStrings(n.Params.Arguments, texts)
	return collectStrings(n.Params.Inputs, texts)
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

// StartAt returns the node a run starts at: the entry, or from. A node
// inside a loop body starts at its outermost Loop, since a body step
// without its Loop has no iteration to belong to.
func (g *Graph) StartAt(from string) (*workflow.Node, error) {
	if from == "" {
		return g.Entry, nil
	}
	n := g.ByID[from]
	if n == nil {
		return nil, fmt.Errorf("cannot run from %q: the workflow has no such node", from)
	}
	for {
		loop := g.EnclosingLoop(n)
		if loop == nil {
			return n, nil
		}
		n = loop
	}
}

// EnclosingLoop returns the innermost Loop whose body holds n, or nil.
func (g *Graph) EnclosingLoop(n *workflow.Node) *workflow.Node {
	var best *workflow.Node
	bestSize := 0
	for _, l := range g.ByID {
		if l.Type != workflow.TypeLoop || l == n {
			continue
		}
		body := g.LoopBody(l)
		if body[n.ID] && (best == nil || len(body) < bestSize) {
			best, bestSize = l, len(body)
		}
	}
	return best
}

// LoopBody is the set of nodes reachable from the Loop's body edge before
// its own EndLoop jumps back.
func (g *Graph) LoopBody(l *workflow.Node) map[string]bool {
	seen := map[string]bool{}
	first := g.Branch(l.ID, workflow.OutLoopBody, "")
	if first == nil {
		return seen
	}
	stack := []*workflow.Node{first}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == l || seen[n.ID] {
			continue
		}
		seen[n.ID] = true
		if n.Type == workflow.TypeEndLoop && n.Params.LoopID == l.ID {
			continue
		}
		for _, e := range g.Out[n.ID] {
			if to := g.ByID[e.To]; to != nil {
				stack = append(stack, to)
			}
		}
	}
	return seen
}

// Before returns the nodes with a path to n (not counting an EndLoop's
// jump back to its Loop), n excluded.
func (g *Graph) Before(w *workflow.Workflow, n *workflow.Node) map[string]bool {
	in := map[string][]string{}
	for _, e := range w.Edges {
		from, to := g.ByID[e.From], g.ByID[e.To]
		if from == nil || to == nil || (from.Type == workflow.TypeEndLoop && to.Type == workflow.TypeLoop) {
			continue
		}
		in[e.To] = append(in[e.To], e.From)
	}
	seen := map[string]bool{}
	stack := append([]string(nil), in[n.ID]...)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[id] || id == n.ID {
			continue
		}
		seen[id] = true
		stack = append(stack, in[id]...)
	}
	return seen
}

// CheckReuse refuses a run from a node when a step before it changed
// since the run whose outputs it would reuse (old): those outputs are not
// what the step makes now.
func (g *Graph) CheckReuse(w *workflow.Workflow, start *workflow.Node, old *workflow.Workflow, runID string) error {
	if old == nil || start == g.Entry {
		return nil
	}
	var changed []string
	for id := range g.Before(w, start) {
		n := g.ByID[id]
		if !IsStep(n) {
			continue
		}
		if o := old.NodeByID(id); o == nil || nodeContent(o) != nodeContent(n) {
			changed = append(changed, fmt.Sprintf("%q", n.Label()))
		}
	}
	if len(changed) == 0 {
		return nil
	}
	sort.Strings(changed)
	what := "the last run"
	if runID != "" {
		what = "run " + runID
	}
	return &StaleError{Steps: changed, Msg: fmt.Sprintf("cannot run from %q: %s changed since %s, so its outputs there are stale; run from it, or run the whole workflow", start.Label(), strings.Join(changed, ", "), what)}
}

// StaleError is Run's refusal to reuse the outputs of steps that changed.
type StaleError struct {
	Steps []string
	Msg   string
}

func (e *StaleError) Error() string { return e.Msg }

// nodeContent is what a node does, without where it stands on the canvas.
func nodeContent(n *workflow.Node) string {
	c := *n
	c.Position = nil
	b, err := json.Marshal(c)
	if err != nil {
		return ""
	}
	return string(b)
}

// IsStep reports a node that acts (Tool, AI, Workflow): the ones that run
// attempts (workflow.NodeType.IsStep).
func IsStep(n *workflow.Node) bool { return n.Type.IsStep() }

// After returns the nodes reachable from n, n included.
func (g *Graph) After(n *workflow.Node) map[string]bool {
	seen := map[string]bool{}
	stack := []*workflow.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		for _, e := range g.Out[c.ID] {
			if to := g.ByID[e.To]; to != nil {
				stack = append(stack, to)
			}
		}
	}
	return seen
}

func readByAny(readers []NodeRef, set map[string]bool) bool {
	for _, rd := range readers {
		if set[rd.ID] {
			return true
		}
	}
	return false
}

// CheckFrom says where a run from the node would start (its outermost
// Loop, for a node in a loop body) or why it cannot: an unknown node, or
// a step before it that changed since old ran (*StaleError). w must be
// valid.
func CheckFrom(w *workflow.Workflow, from string, old *workflow.Workflow, runID string) (*workflow.Node, error) {
	g, err := NewGraph(w)
	if err != nil {
		return nil, err
	}
	start, err := g.StartAt(from)
	if err != nil {
		return nil, err
	}
	return start, g.CheckReuse(w, start, old, runID)
}
