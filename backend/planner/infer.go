package planner

import (
	"fmt"

	"github.com/weft-dev/weft/backend/workflow"
)

// InferControlFlowEdges fixes the control-flow mistakes models make in
// graphs, in place, with one warning per inference naming the node:
//
//   - labels on edges leaving plain steps are dropped;
//   - an EndLoop without a valid loop_id is paired with the Loop it leads
//     back to, or else the nearest Loop before it;
//   - a Loop's unlabelled edges are labelled by structure: LoopBody is the
//     one whose target comes back (reaches the EndLoop or the Loop), LoopDone
//     the other; order decides only when structure cannot (with a warning
//     saying so); one unlabelled edge next to a labelled one gets the other
//     label;
//   - a LoopDone into the loop's own EndLoop is dropped;
//   - edges from the body straight back to the Loop are rerouted through
//     the EndLoop, which is created when missing; a missing EndLoop → Loop
//     edge is added; the EndLoop's edge out to anything else becomes the
//     Loop's LoopDone;
//   - an If's two unlabelled edges become IfTrue and IfFalse in order
//     (positional, with a warning); one unlabelled edge next to a labelled
//     one gets the other label;
//   - a Switch's unlabelled edge becomes the case its target is named
//     after; the rest go to the remaining cases in order, one extra to
//     SwitchDefault.
//
// A well-formed workflow comes back unchanged, without warnings.
func InferControlFlowEdges(w *workflow.Workflow) []Warning {
	f := newInferrer(w)
	f.stripPlainLabels()
	f.pairEndLoops()
	for i := 0; i < len(w.Nodes); i++ {
		switch w.Nodes[i].Type {
		case workflow.TypeLoop:
			f.loop(i)
		case workflow.TypeIf:
			f.ifNode(i)
		case workflow.TypeSwitch:
			f.switchNode(i)
		}
	}
	f.compact()
	return f.ws
}

// walkBudget bounds the structural walks (which loop is whose, what a body
// reaches) beyond a few passes over the graph: they are per loop, so on
// thousands of loops they could go quadratic. Past the budget inference
// falls back to order, with the same warnings.
const walkBudget = 200000

type inferrer struct {
	w       *workflow.Workflow
	idx     map[string]int
	out, in [][]int // live edge indexes per node
	dead    []bool
	endOf   map[int]int // Loop index → its EndLoop index
	mark    []int       // BFS visit stamps
	gen     int
	budget  int // node visits left for the structural walks
	keys    *keySet
	ws      []Warning
}

func newInferrer(w *workflow.Workflow) *inferrer {
	f := &inferrer{w: w, idx: make(map[string]int, len(w.Nodes)), endOf: map[int]int{},
		budget: walkBudget + 8*(len(w.Nodes)+len(w.Edges))}
	for i := range w.Nodes {
		f.idx[w.Nodes[i].ID] = i
	}
	f.out = make([][]int, len(w.Nodes))
	f.in = make([][]int, len(w.Nodes))
	f.dead = make([]bool, len(w.Edges))
	for e := range w.Edges {
		f.link(e)
	}
	return f
}

func (f *inferrer) link(e int) {
	a, ok1 := f.idx[f.w.Edges[e].From]
	b, ok2 := f.idx[f.w.Edges[e].To]
	if ok1 && ok2 {
		f.out[a] = append(f.out[a], e)
		f.in[b] = append(f.in[b], e)
	}
}

func (f *inferrer) warn(node int, format string, a ...any) {
	f.ws = append(f.ws, Warning{Stage: StageInfer, NodeID: f.w.Nodes[node].ID,
		Message: fmt.Sprintf("%s %q: ", f.w.Nodes[node].Type, f.w.Nodes[node].Label()) + fmt.Sprintf(format, a...)})
}

func (f *inferrer) label(n int) string { return f.w.Nodes[n].Label() }

// outs and ins return the live edges of a node.
func (f *inferrer) outs(n int) []int { return f.live(f.out[n]) }
func (f *inferrer) ins(n int) []int  { return f.live(f.in[n]) }

func (f *inferrer) live(es []int) []int {
	var out []int
	for _, e := range es {
		if !f.dead[e] {
			out = append(out, e)
		}
	}
	return out
}

func (f *inferrer) from(e int) int { return f.idx[f.w.Edges[e].From] }
func (f *inferrer) to(e int) int   { return f.idx[f.w.Edges[e].To] }

func (f *inferrer) has(from, to int, out *workflow.EdgeOutput) bool {
	probe := workflow.Edge{From: f.w.Nodes[from].ID, To: f.w.Nodes[to].ID, Output: out}
	for _, e := range f.outs(from) {
		if f.w.Edges[e].SameAs(probe) {
			return true
		}
	}
	return false
}

func (f *inferrer) addEdge(from, to int, out *workflow.EdgeOutput) {
	if f.has(from, to, out) {
		return
	}
	e := workflow.Edge{From: f.w.Nodes[from].ID, To: f.w.Nodes[to].ID}
	if out != nil {
		o := *out
		e.Output = &o
	}
	f.w.Edges = append(f.w.Edges, e)
	f.dead = append(f.dead, false)
	f.link(len(f.w.Edges) - 1)
}

func (f *inferrer) remove(e int) { f.dead[e] = true }

func (f *inferrer) setOut(e int, t workflow.OutputType, name string) {
	f.w.Edges[e].Output = &workflow.EdgeOutput{Type: t, Name: name}
}

func (f *inferrer) addNode(n int) {
	for len(f.out) < len(f.w.Nodes) {
		f.out = append(f.out, nil)
		f.in = append(f.in, nil)
	}
	f.idx[f.w.Nodes[n].ID] = n
}

func (f *inferrer) compact() {
	kept := f.w.Edges[:0]
	for e, edge := range f.w.Edges {
		if !f.dead[e] {
			kept = append(kept, edge)
		}
	}
	f.w.Edges = kept
}

// stripPlainLabels drops labels on edges out of nodes with a single plain
// output, except a step's Error edge.
func (f *inferrer) stripPlainLabels() {
	for n := range f.w.Nodes {
		if controlFlow(f.w.Nodes[n].Type) {
			continue
		}
		for _, e := range f.outs(n) {
			if o := f.w.Edges[e].Output; o != nil {
				if o.Type == workflow.OutError && isStepType(f.w.Nodes[n].Type) {
					continue // a step's error branch (on_error "branch")
				}
				f.warn(n, "has a single plain output; dropped the label %s on its edge to %q", o.String(), f.label(f.to(e)))
				f.w.Edges[e].Output = nil
			}
		}
	}
}

// pairEndLoops fills endOf, and the loop_id of EndLoops that lack one.
func (f *inferrer) pairEndLoops() {
	var unpaired []int
	for n := range f.w.Nodes {
		node := &f.w.Nodes[n]
		if node.Type != workflow.TypeEndLoop {
			continue
		}
		if l, ok := f.idx[node.Params.LoopID]; ok && f.w.Nodes[l].Type == workflow.TypeLoop {
			if _, taken := f.endOf[l]; !taken {
				f.endOf[l] = n
			}
			continue
		}
		unpaired = append(unpaired, n)
	}
	for _, n := range unpaired {
		l := -1
		how := ""
		for _, e := range f.outs(n) {
			if t := f.to(e); f.w.Nodes[t].Type == workflow.TypeLoop && !f.paired(t) {
				l, how = t, "the Loop it leads back to"
				break
			}
		}
		if l < 0 {
			l = f.nearestLoopBefore(n)
			how = "the nearest Loop before it"
		}
		if l < 0 {
			continue
		}
		f.endOf[l] = n
		f.w.Nodes[n].Params.LoopID = f.w.Nodes[l].ID
		f.warn(n, "had no valid loop_id; paired it with %s, %q", how, f.label(l))
	}
}

func (f *inferrer) paired(l int) bool { _, ok := f.endOf[l]; return ok }

// nearestLoopBefore walks back from an EndLoop to the closest unpaired Loop.
func (f *inferrer) nearestLoopBefore(n int) int {
	f.stamp()
	queue := []int{n}
	f.mark[n] = f.gen
	for len(queue) > 0 && f.budget > 0 {
		c := queue[0]
		queue = queue[1:]
		f.budget--
		for _, e := range f.ins(c) {
			p := f.from(e)
			if f.mark[p] == f.gen {
				continue
			}
			f.mark[p] = f.gen
			if f.w.Nodes[p].Type == workflow.TypeLoop && !f.paired(p) {
				return p
			}
			queue = append(queue, p)
		}
	}
	return -1
}

func (f *inferrer) stamp() {
	f.gen++
	for len(f.mark) < len(f.w.Nodes) {
		f.mark = append(f.mark, 0)
	}
}

// walkBody visits the nodes reachable from start without passing through
// the loop or any EndLoop (EndLoops are visited, not expanded). It reports
// whether it met the loop's EndLoop or an edge back to the loop, and calls
// visit for each node.
func (f *inferrer) walkBody(start, loop, end int, visit func(int)) bool {
	f.stamp()
	back := false
	if start == loop {
		return true
	}
	queue := []int{start}
	f.mark[start] = f.gen
	for len(queue) > 0 {
		if f.budget <= 0 {
			return false
		}
		f.budget--
		c := queue[0]
		queue = queue[1:]
		if visit != nil {
			visit(c)
		}
		if c == end {
			back = true
		}
		if f.w.Nodes[c].Type == workflow.TypeEndLoop {
			continue
		}
		for _, e := range f.outs(c) {
			t := f.to(e)
			if t == loop {
				back = true
				continue
			}
			if f.mark[t] != f.gen {
				f.mark[t] = f.gen
				queue = append(queue, t)
			}
		}
	}
	return back
}

// returnScore says how strongly a Loop edge's target looks like its body:
// 2 when it comes back through the body, 1 when it is the EndLoop itself,
// 0 when it never comes back.
func (f *inferrer) returnScore(target, loop, end int) int {
	if target == end {
		return 1
	}
	if f.walkBody(target, loop, end, nil) {
		return 2
	}
	return 0
}

func (f *inferrer) loop(l int) {
	end, hasEnd := f.endOf[l]
	if !hasEnd {
		end = -1
	}
	var unl []int
	body, done := -1, -1
	for _, e := range f.outs(l) {
		switch o := f.w.Edges[e].Output; {
		case o == nil:
			unl = append(unl, e)
		case o.Type == workflow.OutLoopBody:
			body = e
		case o.Type == workflow.OutLoopDone:
			done = e
		}
	}
	switch {
	case len(unl) == 2 && body < 0 && done < 0:
		a, b := f.returnScore(f.to(unl[0]), l, end), f.returnScore(f.to(unl[1]), l, end)
		first, second := unl[0], unl[1]
		if b > a {
			first, second = unl[1], unl[0]
		}
		f.setOut(first, workflow.OutLoopBody, "")
		f.setOut(second, workflow.OutLoopDone, "")
		if a == b {
			f.warn(l, "two unlabelled edges and no structural hint; labelled them by position: LoopBody → %q, LoopDone → %q", f.label(f.to(first)), f.label(f.to(second)))
		} else {
			f.warn(l, "labelled its unlabelled edges by structure: LoopBody → %q (it comes back to the loop), LoopDone → %q", f.label(f.to(first)), f.label(f.to(second)))
		}
	case len(unl) == 1 && body >= 0 && done < 0:
		f.setOut(unl[0], workflow.OutLoopDone, "")
		f.warn(l, "labelled its unlabelled edge to %q LoopDone (it already has a LoopBody)", f.label(f.to(unl[0])))
	case len(unl) == 1 && done >= 0 && body < 0:
		f.setOut(unl[0], workflow.OutLoopBody, "")
		f.warn(l, "labelled its unlabelled edge to %q LoopBody (it already has a LoopDone)", f.label(f.to(unl[0])))
	case len(unl) == 1 && body < 0 && done < 0:
		f.setOut(unl[0], workflow.OutLoopBody, "")
		f.warn(l, "labelled its only edge, to %q, LoopBody", f.label(f.to(unl[0])))
	}

	// A LoopDone into the loop's own EndLoop ends nowhere. (Into an
	// enclosing loop's EndLoop it is right: the inner loop ends that body.)
	for _, e := range f.outs(l) {
		if o := f.w.Edges[e].Output; o != nil && o.Type == workflow.OutLoopDone && f.to(e) == end && end >= 0 {
			f.remove(e)
			f.warn(l, "dropped its LoopDone edge into the EndLoop %q (LoopDone leads past the loop)", f.label(f.to(e)))
		}
	}

	// The body: what the LoopBody edge reaches before the EndLoop.
	inBody := map[int]bool{}
	for _, e := range f.outs(l) {
		if o := f.w.Edges[e].Output; o != nil && o.Type == workflow.OutLoopBody {
			f.walkBody(f.to(e), l, end, func(n int) { inBody[n] = true })
		}
	}
	// Back-edges from the body straight to the Loop go through the EndLoop.
	for _, e := range f.ins(l) {
		src := f.from(e)
		if src == end || !inBody[src] || f.w.Nodes[src].Type == workflow.TypeEndLoop {
			continue
		}
		if end < 0 {
			if f.keys == nil {
				f.keys = keySetOf(f.w)
			}
			end = addEndLoop(f.w, l, f.keys)
			f.addNode(end)
			f.endOf[l] = end
			f.warn(l, "its body returns straight to it; added the missing EndLoop %q", f.label(end))
		}
		f.remove(e)
		f.addEdge(src, end, nil)
		f.warn(l, "rerouted the back-edge from %q through the EndLoop %q", f.label(src), f.label(end))
	}
	if end < 0 {
		return
	}
	// A floating EndLoop takes the body's single dead end.
	if len(f.ins(end)) == 0 {
		var sinks []int
		for n := range inBody {
			if n != end && len(f.outs(n)) == 0 {
				sinks = append(sinks, n)
			}
		}
		if len(sinks) == 1 {
			f.addEdge(sinks[0], end, nil)
			f.warn(l, "its EndLoop %q had no incoming edge; connected the body's last step %q to it", f.label(end), f.label(sinks[0]))
		}
	}
	if !f.has(end, l, nil) {
		f.addEdge(end, l, nil)
		f.warn(l, "added the missing edge from its EndLoop %q back to it", f.label(end))
	}
	// The EndLoop's way out is the Loop's LoopDone.
	for _, e := range f.outs(end) {
		t := f.to(e)
		if t == l {
			if f.w.Edges[e].Output != nil {
				f.w.Edges[e].Output = nil
			}
			continue
		}
		f.remove(e)
		doneTo := -1
		for _, d := range f.outs(l) {
			if o := f.w.Edges[d].Output; o != nil && o.Type == workflow.OutLoopDone {
				doneTo = f.to(d)
			}
		}
		switch {
		case doneTo < 0:
			f.addEdge(l, t, &workflow.EdgeOutput{Type: workflow.OutLoopDone})
			f.warn(l, "turned the edge from its EndLoop to %q into its LoopDone (an EndLoop only leads back to its Loop)", f.label(t))
		case doneTo == t:
			f.warn(l, "dropped the edge from its EndLoop to %q (its LoopDone already goes there)", f.label(t))
		default:
			f.warn(l, "dropped the edge from its EndLoop to %q (an EndLoop only leads back to its Loop, and LoopDone already goes to %q)", f.label(t), f.label(doneTo))
		}
	}
}

func (f *inferrer) ifNode(n int) {
	var unl []int
	hasT, hasF := false, false
	for _, e := range f.outs(n) {
		switch o := f.w.Edges[e].Output; {
		case o == nil:
			unl = append(unl, e)
		case o.Type == workflow.OutIfTrue:
			hasT = true
		case o.Type == workflow.OutIfFalse:
			hasF = true
		}
	}
	switch {
	case len(unl) == 2 && !hasT && !hasF:
		f.setOut(unl[0], workflow.OutIfTrue, "")
		f.setOut(unl[1], workflow.OutIfFalse, "")
		f.warn(n, "labelled its two unlabelled edges by position (a guess): IfTrue → %q, IfFalse → %q", f.label(f.to(unl[0])), f.label(f.to(unl[1])))
	case len(unl) == 1 && hasT && !hasF:
		f.setOut(unl[0], workflow.OutIfFalse, "")
		f.warn(n, "labelled its unlabelled edge to %q IfFalse (it already has IfTrue)", f.label(f.to(unl[0])))
	case len(unl) == 1 && hasF && !hasT:
		f.setOut(unl[0], workflow.OutIfTrue, "")
		f.warn(n, "labelled its unlabelled edge to %q IfTrue (it already has IfFalse)", f.label(f.to(unl[0])))
	case len(unl) == 1 && !hasT && !hasF:
		f.setOut(unl[0], workflow.OutIfTrue, "")
		f.warn(n, "labelled its only edge, to %q, IfTrue; it has no IfFalse branch", f.label(f.to(unl[0])))
	}
}

func (f *inferrer) switchNode(n int) {
	cases := f.w.Nodes[n].Params.Cases
	used := map[string]bool{}
	hasDefault := false
	var unl []int
	for _, e := range f.outs(n) {
		o := f.w.Edges[e].Output
		switch {
		case o == nil:
			unl = append(unl, e)
		case o.Type == workflow.OutSwitchCase:
			if name, ok := matchCase(o.Name, cases); ok && name != o.Name {
				f.warn(n, "case %q read as %q", o.Name, name)
				o.Name = name
			}
			used[o.Name] = true
		case o.Type == workflow.OutSwitchDefault:
			hasDefault = true
		}
	}
	if len(unl) == 0 {
		return
	}
	// By name: the target is named after the case.
	var rest []int
	for _, e := range unl {
		t := &f.w.Nodes[f.to(e)]
		name, ok := caseForTarget(t, cases, used)
		if !ok {
			rest = append(rest, e)
			continue
		}
		used[name] = true
		f.setOut(e, workflow.OutSwitchCase, name)
		f.warn(n, "labelled its edge to %q SwitchCase(%q) (the target is named after the case)", t.Label(), name)
	}
	// By position: the remaining cases in order, then the default.
	var free []string
	for _, c := range cases {
		if !used[c.Name] {
			free = append(free, c.Name)
		}
	}
	extra := 0
	if !hasDefault {
		extra = 1
	}
	if len(rest) == 0 || len(rest) > len(free)+extra {
		return
	}
	for i, e := range rest {
		if i < len(free) {
			f.setOut(e, workflow.OutSwitchCase, free[i])
			f.warn(n, "labelled its edge to %q SwitchCase(%q) by position (a guess)", f.label(f.to(e)), free[i])
			continue
		}
		f.setOut(e, workflow.OutSwitchDefault, "")
		if len(free) == 0 {
			f.warn(n, "labelled its edge to %q SwitchDefault (every case already has an edge)", f.label(f.to(e)))
		} else {
			f.warn(n, "labelled its edge to %q SwitchDefault by position (a guess)", f.label(f.to(e)))
		}
	}
}

// caseForTarget finds the one unused case a node is named after: its key or
// name equals the case, or starts or ends with it as a word.
func caseForTarget(t *workflow.Node, cases []workflow.SwitchCase, used map[string]bool) (string, bool) {
	found := ""
	count := 0
	for _, c := range cases {
		if used[c.Name] {
			continue
		}
		ck := workflow.KeyFromName(c.Name)
		nk := workflow.KeyFromName(t.Name)
		if norm(c.Name) == norm(t.Key) || norm(c.Name) == norm(t.Name) ||
			hasWord(t.Key, ck) || hasWord(nk, ck) {
			found = c.Name
			count++
		}
	}
	return found, count == 1
}

// hasWord reports whether key starts or ends with word as a _-separated part.
func hasWord(key, word string) bool {
	if word == "" || word == "node" {
		return false
	}
	return len(key) > len(word) && (key[:len(word)+1] == word+"_" || key[len(key)-len(word)-1:] == "_"+word)
}
