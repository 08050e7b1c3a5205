package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// pseudoIDs are node ids models use for the ends of a flow.
var pseudoIDs = setOf("start", "end", "done", "begin", "finish", "exit", "stop", "entry", "terminate")

// BuildEdges adds the workflow's edges. A graph plan's edges are remapped
// from step ids to node ids; edges to unknown ids or to Start/End are
// dropped with a warning. A flat plan is chained in list order with its
// control flow spelled out: see docs/llm-format.md ("Flat plans and control
// flow").
func BuildEdges(p *Plan, w *workflow.Workflow) []Warning {
	b := &edgeBuilder{p: p, w: w, seen: make(map[edgeKey]bool, len(p.Edges)+len(w.Nodes))}
	if w.Edges == nil {
		w.Edges = make([]workflow.Edge, 0, max(len(p.Edges), len(w.Nodes)+len(w.Nodes)/4))
	}
	if p.Graph {
		b.graph()
	} else {
		b.seq(p.Steps)
	}
	return b.ws
}

type edgeKey struct {
	from, to int
	out      workflow.EdgeOutput
}

type edgeBuilder struct {
	p    *Plan
	w    *workflow.Workflow
	ws   []Warning
	seen map[edgeKey]bool
	keys *keySet // made when the first EndLoop is added
	// indexBase is how edges naming steps by number count (numberBase).
	indexBase int
}

func (b *edgeBuilder) warn(node int, format string, a ...any) {
	wn := Warning{Stage: StageEdges, Message: fmt.Sprintf(format, a...)}
	if node >= 0 {
		wn.NodeID = b.w.Nodes[node].ID
	}
	b.ws = append(b.ws, wn)
}

// add appends an edge between node indexes; it reports false (and adds
// nothing) for a duplicate.
func (b *edgeBuilder) add(from, to int, out *workflow.EdgeOutput) bool {
	k := edgeKey{from: from, to: to}
	if out != nil {
		k.out = *out
	}
	if b.seen[k] {
		return false
	}
	b.seen[k] = true
	e := workflow.Edge{From: b.w.Nodes[from].ID, To: b.w.Nodes[to].ID}
	if out != nil {
		o := *out
		e.Output = &o
		if n := &b.w.Nodes[from]; o.Type == workflow.OutError && n.OnError == "" {
			n.OnError = workflow.OnErrorBranch // an Error edge says what the model meant
			b.warn(from, "%s has an Error edge; set its on_error to \"branch\"", n.Label())
		}
	}
	b.w.Edges = append(b.w.Edges, e)
	return true
}

// resolve finds the node an edge endpoint names: a step id, else a node's
// key or name.
func (b *edgeBuilder) resolve(ref string) (int, string) {
	if k, ok := b.p.idMap[ref]; ok {
		return k, ""
	}
	for i := range b.w.Nodes {
		if b.w.Nodes[i].Key == ref {
			return i, "key"
		}
	}
	for i := range b.w.Nodes {
		if strings.EqualFold(b.w.Nodes[i].Name, ref) {
			return i, "name"
		}
	}
	if n, err := strconv.Atoi(ref); err == nil && b.indexBase >= 0 {
		if k := n - b.indexBase; k >= 0 && k < len(b.p.Steps) && b.p.Steps[k].node >= 0 {
			return b.p.Steps[k].node, fmt.Sprintf("position in the list (counting from %d)", b.indexBase)
		}
	}
	return -1, ""
}

// numberBase decides how edges that name steps by number count: from 0
// when any edge says 0, from 1 when the highest number is the step count;
// -1 when no endpoint is a number that is not also an id.
func (b *edgeBuilder) numberBase() int {
	lo, hi, any := int(^uint(0)>>1), -1, false
	for _, e := range b.p.Edges {
		for _, ref := range []string{e.From, e.To} {
			if _, ok := b.p.idMap[ref]; ok {
				continue
			}
			if n, err := strconv.Atoi(ref); err == nil && n >= 0 {
				lo, hi, any = min(lo, n), max(hi, n), true
			}
		}
	}
	switch {
	case !any:
		return -1
	case lo == 0:
		return 0
	case hi == len(b.p.Steps):
		return 1
	}
	return 0
}

func (b *edgeBuilder) graph() {
	b.indexBase = b.numberBase()
	for _, e := range b.p.Edges {
		desc := fmt.Sprintf("%s (%s → %s)", e.Path, e.From, e.To)
		from, fhow := b.resolve(e.From)
		to, thow := b.resolve(e.To)
		if from < 0 || to < 0 {
			if (from >= 0 || b.flowEnd(e.From)) && (to >= 0 || b.flowEnd(e.To)) {
				// An edge to END or from START only says where the flow
				// ends or starts, which the graph says already: nothing
				// is lost, so nothing to warn about.
				continue
			}
			b.warn(-1, "dropped %s: %s", desc, b.whyMissing(e, from, to))
			continue
		}
		if fhow != "" || thow != "" {
			how := fhow
			switch {
			case fhow == "":
				how = thow
			case thow != "" && thow != fhow:
				how = fhow + " and " + thow
			}
			b.warn(from, "%s: no step has that id; matched the node by its %s", desc, how)
		}
		if from == to {
			b.warn(from, "dropped %s: an edge from a step to itself", desc)
			continue
		}
		if e.Unknown != "" && !controlFlow(b.w.Nodes[from].Type) {
			// {"type": "LoopCondition"} on a plain step: not a label
			// misspelled but an edge that makes no sense (Clickweave
			// drops these too); kept, it would wire a cycle.
			b.warn(from, "dropped %s: output type %q is no output of any step", desc, e.Unknown)
			continue
		}
		if e.Output == nil && e.Label != "" {
			// The source was unknown when decoding; read the label now.
			n := &b.w.Nodes[from]
			for _, wn := range e.ResolveOutput(n.Type, n.Params.Cases) {
				wn.NodeID = n.ID
				b.ws = append(b.ws, wn)
			}
		}
		if !b.add(from, to, e.Output) {
			b.warn(from, "dropped %s: the same edge appears twice", desc)
		}
	}
}

// flowEnd reports whether ref is a pseudo id for the start or end of the
// flow (and not a step that was dropped).
func (b *edgeBuilder) flowEnd(ref string) bool {
	return IsFlowEnd(ref) && b.p.Skipped[ref] == ""
}

// IsFlowEnd reports whether ref is a name models give the start or the end
// of a flow (START, END, DONE, …) rather than a step's id.
func IsFlowEnd(ref string) bool { return pseudoIDs[norm(ref)] }

// whyMissing explains an edge endpoint that names no node.
func (b *edgeBuilder) whyMissing(e PlanEdge, from, to int) string {
	var parts []string
	for _, end := range []struct {
		ref string
		idx int
		dir string
	}{{e.From, from, "from"}, {e.To, to, "to"}} {
		if end.idx >= 0 {
			continue
		}
		switch {
		case b.p.Skipped[end.ref] != "":
			parts = append(parts, fmt.Sprintf("%q was dropped (%s)", end.ref, strings.TrimSuffix(b.p.Skipped[end.ref], "; skipped")))
		case pseudoIDs[norm(end.ref)] && end.dir == "from":
			parts = append(parts, fmt.Sprintf("%q is not a step; the flow starts at the step without incoming edges", end.ref))
		case pseudoIDs[norm(end.ref)]:
			parts = append(parts, fmt.Sprintf("%q is not a step; the flow ends after the last step", end.ref))
		default:
			parts = append(parts, fmt.Sprintf("%q is not the id of any step", end.ref))
		}
	}
	return strings.Join(parts, "; ")
}

// exit is a dangling output of a flat sequence, waiting for the next step.
type exit struct {
	node int
	out  *workflow.EdgeOutput
}

func outOf(t workflow.OutputType, name string) *workflow.EdgeOutput {
	return &workflow.EdgeOutput{Type: t, Name: name}
}

// seq chains a flat list of steps and returns its first node (-1 when it
// has none) and the outputs still to be connected to what follows.
func (b *edgeBuilder) seq(steps []Step) (int, []exit) {
	entry := -1
	var exits []exit
	type open struct{ node int }
	var loops []open // Loops opened in bracket form, innermost last
	connect := func(to int) {
		for _, x := range exits {
			b.add(x.node, to, x.out)
		}
		exits = nil
	}
	for i := range steps {
		s := &steps[i]
		if s.node < 0 {
			continue
		}
		n := s.node
		if entry < 0 {
			entry = n
		}
		node := &b.w.Nodes[n]
		switch {
		case s.Type == workflow.TypeEndLoop:
			connect(n)
			if len(loops) == 0 {
				b.warn(n, "%s: EndLoop without a Loop before it in the same list; left it unpaired", s.Path)
				exits = []exit{{node: n}}
				continue
			}
			top := loops[len(loops)-1]
			loops = loops[:len(loops)-1]
			loopNode := &b.w.Nodes[top.node]
			if node.Params.LoopID != "" && node.Params.LoopID != loopNode.ID {
				b.warn(n, "%s: EndLoop names another loop but closes %q by nesting order; paired it with %q", s.Path, loopNode.Label(), loopNode.Label())
			}
			node.Params.LoopID = loopNode.ID
			if s.Name == "" && (s.ID == "" || genericID.MatchString(s.ID)) {
				node.Name = "End " + loopNode.Label()
			}
			b.add(n, top.node, nil)
			exits = []exit{{node: top.node, out: outOf(workflow.OutLoopDone, "")}}

		case s.Type == workflow.TypeLoop && len(s.Branches) > 0:
			connect(n)
			body := s.Branches[0].Steps
			end := -1
			if k := len(body); k > 0 && body[k-1].Type == workflow.TypeEndLoop && body[k-1].node >= 0 {
				end = body[k-1].node
				body = body[:k-1]
			}
			bentry, bexits := b.seq(body)
			if end < 0 {
				end = b.newEndLoop(n)
			}
			b.w.Nodes[end].Params.LoopID = b.w.Nodes[n].ID
			if bentry >= 0 {
				b.add(n, bentry, outOf(workflow.OutLoopBody, ""))
				for _, x := range bexits {
					b.add(x.node, end, x.out)
				}
			} else {
				b.warn(n, "%s: Loop has an empty body", s.Path)
				b.add(n, end, outOf(workflow.OutLoopBody, ""))
			}
			b.add(end, n, nil)
			exits = []exit{{node: n, out: outOf(workflow.OutLoopDone, "")}}

		case s.Type == workflow.TypeLoop:
			connect(n)
			loops = append(loops, open{node: n})
			exits = []exit{{node: n, out: outOf(workflow.OutLoopBody, "")}}

		case (s.Type == workflow.TypeIf || s.Type == workflow.TypeSwitch) && len(s.Branches) > 0:
			connect(n)
			covered := map[workflow.EdgeOutput]bool{}
			var next []exit
			for _, br := range s.Branches {
				out := br.Output
				covered[out] = true
				bentry, bexits := b.seq(br.Steps)
				if bentry < 0 {
					next = append(next, exit{node: n, out: &out})
					continue
				}
				b.add(n, bentry, &out)
				next = append(next, bexits...)
			}
			// Outputs without a list go straight to the next step.
			var missing []workflow.EdgeOutput
			if s.Type == workflow.TypeIf {
				missing = []workflow.EdgeOutput{{Type: workflow.OutIfTrue}, {Type: workflow.OutIfFalse}}
			} else {
				for _, c := range b.w.Nodes[n].Params.Cases {
					missing = append(missing, workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: c.Name})
				}
				missing = append(missing, workflow.EdgeOutput{Type: workflow.OutSwitchDefault})
			}
			for _, o := range missing {
				if !covered[o] {
					o := o
					next = append(next, exit{node: n, out: &o})
				}
			}
			exits = next

		case s.Type == workflow.TypeIf:
			connect(n)
			b.warn(n, "%s: a flat If without \"then\"/\"else\" lists: the next step became its IfTrue branch and it has no IfFalse branch; give it then/else lists or use the graph form", s.Path)
			exits = []exit{{node: n, out: outOf(workflow.OutIfTrue, "")}}

		case s.Type == workflow.TypeSwitch:
			connect(n)
			b.warn(n, "%s: a flat Switch without step lists in its cases: the next step became its SwitchDefault and the cases lead nowhere; give the cases \"steps\" lists or use the graph form", s.Path)
			exits = []exit{{node: n, out: outOf(workflow.OutSwitchDefault, "")}}

		case isStepType(s.Type) && len(s.Branches) > 0:
			// error_steps: the failure path ends after its steps; the
			// normal path goes on to the next step.
			connect(n)
			for _, br := range s.Branches {
				out := br.Output
				if bentry, _ := b.seq(br.Steps); bentry >= 0 {
					b.add(n, bentry, &out)
				}
			}
			exits = []exit{{node: n}}

		default:
			connect(n)
			exits = []exit{{node: n}}
		}
	}
	// Loops never closed: their bodies run to the end of the list.
	for k := len(loops) - 1; k >= 0; k-- {
		l := loops[k].node
		end := b.newEndLoop(l)
		b.warn(l, "Loop %q has no EndLoop; its body runs to the end of the list; added an EndLoop there", b.w.Nodes[l].Label())
		if len(exits) == 1 && exits[0].node == l && exits[0].out != nil && exits[0].out.Type == workflow.OutLoopBody {
			b.add(l, end, exits[0].out)
		} else {
			connect(end)
		}
		b.add(end, l, nil)
		exits = []exit{{node: l, out: outOf(workflow.OutLoopDone, "")}}
	}
	return entry, exits
}

// newEndLoop appends an EndLoop node for the Loop at index loop.
func (b *edgeBuilder) newEndLoop(loop int) int {
	if b.keys == nil {
		b.keys = keySetOf(b.w)
	}
	return addEndLoop(b.w, loop, b.keys)
}

// addEndLoop appends an EndLoop for the Loop at index loop and returns its
// index; its key and name follow the loop's.
func addEndLoop(w *workflow.Workflow, loop int, keys *keySet) int {
	l := &w.Nodes[loop]
	base := "end_" + l.Key
	if len(base) > 56 {
		base = "end_loop"
	}
	n := workflow.Node{
		ID:     workflow.NewID(),
		Key:    keys.unique(base),
		Name:   "End " + l.Label(),
		Type:   workflow.TypeEndLoop,
		Params: workflow.Params{LoopID: l.ID},
	}
	w.Nodes = append(w.Nodes, n)
	return len(w.Nodes) - 1
}
