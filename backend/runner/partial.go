package runner

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// Development runs in the editor (issue 12): pinned data stands in for a
// step's run, and "run from here" starts at a chosen node with the outputs
// an earlier run left for the steps before it. Both only feed data to the
// steps after (which quote it like any other value); neither runs
// anything the approval gate did not see.

// startAt returns the node a run starts at: the entry, or from. A node
// inside a loop body starts at its outermost Loop, since a body step
// without its Loop has no iteration to belong to.
func (g *graph) startAt(from string) (*workflow.Node, error) {
	if from == "" {
		return g.entry, nil
	}
	n := g.byID[from]
	if n == nil {
		return nil, fmt.Errorf("cannot run from %q: the workflow has no such node", from)
	}
	for {
		loop := g.enclosingLoop(n)
		if loop == nil {
			return n, nil
		}
		n = loop
	}
}

// enclosingLoop returns the innermost Loop whose body holds n, or nil.
func (g *graph) enclosingLoop(n *workflow.Node) *workflow.Node {
	var best *workflow.Node
	bestSize := 0
	for _, l := range g.byID {
		if l.Type != workflow.TypeLoop || l == n {
			continue
		}
		body := g.loopBody(l)
		if body[n.ID] && (best == nil || len(body) < bestSize) {
			best, bestSize = l, len(body)
		}
	}
	return best
}

// loopBody is the set of nodes reachable from the Loop's body edge before
// its own EndLoop jumps back.
func (g *graph) loopBody(l *workflow.Node) map[string]bool {
	seen := map[string]bool{}
	first := g.branch(l.ID, workflow.OutLoopBody, "")
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
		for _, e := range g.out[n.ID] {
			if to := g.byID[e.To]; to != nil {
				stack = append(stack, to)
			}
		}
	}
	return seen
}

// before returns the nodes with a path to n (not counting an EndLoop's
// jump back to its Loop), n excluded.
func (g *graph) before(w *workflow.Workflow, n *workflow.Node) map[string]bool {
	in := map[string][]string{}
	for _, e := range w.Edges {
		from, to := g.byID[e.From], g.byID[e.To]
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

// checkReuse refuses a run from a node when a step before it changed
// since the run whose outputs it would reuse (old): those outputs are not
// what the step makes now.
func (g *graph) checkReuse(w *workflow.Workflow, start *workflow.Node, old *workflow.Workflow, runID string) error {
	if old == nil || start == g.entry {
		return nil
	}
	var changed []string
	for id := range g.before(w, start) {
		n := g.byID[id]
		if !isStep(n) {
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

func isStep(n *workflow.Node) bool {
	return n.Type == workflow.TypeTool || isAI(n)
}

// pinned returns the pinned outputs of a step when the run uses them.
func (r *run) pinned(n *workflow.Node) (map[string]any, bool) {
	if !r.opts.UsePinned {
		return nil, false
	}
	return r.w.PinnedOutputs(n.ID)
}

// usePinned gives the step its pinned outputs instead of running it.
func (r *run) usePinned(n *workflow.Node, out map[string]any) {
	r.setVar(n, workflow.CloneValue(out).(map[string]any))
	r.noteStat(n, SourcePinned, 0, 0)
	r.summary.Pinned++
	r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Source: SourcePinned,
		Message: "pinned data used: the step did not run", Outputs: bounded(out, 2000)})
}

// notePinned warns, in a run that does not use pinned data, about the
// steps that have some and run for real.
func (r *run) notePinned() {
	if r.opts.UsePinned || len(r.w.Pinned) == 0 {
		return
	}
	var names []string
	for i := range r.w.Nodes {
		n := &r.w.Nodes[i]
		if _, ok := r.w.PinnedOutputs(n.ID); ok && isStep(n) && n.IsEnabled() {
			names = append(names, fmt.Sprintf("%q", n.Label()))
		}
	}
	if len(names) > 0 {
		r.warn(nil, fmt.Sprintf("pinned data is not used in this run (ask for it with --pinned): %s run for real", strings.Join(names, ", ")))
	}
}

// reuse gives the steps before the start their outputs from the earlier
// run (Options.Reuse), and says which ones have none.
func (r *run) reuse() {
	if r.opts.From == "" {
		return
	}
	r.summary.From, r.summary.ReusedFrom = ref(r.start), r.opts.ReusedFrom
	if r.start.ID != r.opts.From {
		if asked := r.g.byID[r.opts.From]; asked != nil {
			r.warn(asked, fmt.Sprintf("%s is inside the loop %q: the run starts at the loop", asked.Label(), r.start.Label()))
		}
	}
	before := r.g.before(r.w, r.start)
	after := r.g.after(r.start)
	from := "an earlier run"
	if r.opts.ReusedFrom != "" {
		from = "run " + r.opts.ReusedFrom
	}
	var missing []string
	for i := range r.w.Nodes {
		n := &r.w.Nodes[i]
		if !before[n.ID] || !isStep(n) {
			continue
		}
		if out, ok := r.pinned(n); ok && n.IsEnabled() {
			r.usePinned(n, out)
			continue
		}
		out, ok := r.opts.Reuse[n.Key].(map[string]any)
		if !ok {
			if n.IsEnabled() && readByAny(r.g.readers(r.w, n.Key, ""), after) {
				missing = append(missing, fmt.Sprintf("%q", n.Label()))
			}
			continue
		}
		r.setVar(n, workflow.CloneValue(out).(map[string]any))
		if !r.done[n.ID] {
			r.done[n.ID] = true
			r.completed = append(r.completed, n.ID)
		}
		r.noteStat(n, SourceReused, 0, 0)
		r.summary.Reused++
		r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Source: SourceReused,
			Message: "outputs reused from " + from + ": the step did not run again", Outputs: bounded(out, 2000)})
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		r.warn(nil, fmt.Sprintf("%s left no outputs of %s, which steps after %q read: they read them as empty", from, strings.Join(missing, ", "), r.start.Label()))
	}
}

// after returns the nodes reachable from n, n included.
func (g *graph) after(n *workflow.Node) map[string]bool {
	seen := map[string]bool{}
	stack := []*workflow.Node{n}
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[c.ID] {
			continue
		}
		seen[c.ID] = true
		for _, e := range g.out[c.ID] {
			if to := g.byID[e.To]; to != nil {
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
	g, err := newGraph(w)
	if err != nil {
		return nil, err
	}
	start, err := g.startAt(from)
	if err != nil {
		return nil, err
	}
	return start, g.checkReuse(w, start, old, runID)
}
