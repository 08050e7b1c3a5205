package assistant

import (
	"fmt"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/workflow"
)

// exit is an output of a node that leads nowhere yet.
type exit struct {
	node string // node id
	out  *workflow.EdgeOutput
}

// openOutputs lists the outputs of w's nodes that no edge leaves from:
// a plain step without a successor, an If branch, a Loop's LoopDone, a
// Switch case or default. skip hides edges (and nodes) being removed.
func openOutputs(nodes []workflow.Node, edges []workflow.Edge, skipNode func(id string) bool, skipEdge func(workflow.Edge) bool) []exit {
	outs := make(map[string][]*workflow.EdgeOutput, len(nodes))
	has := make(map[string]bool, len(nodes))
	for _, e := range edges {
		if skipNode(e.From) || skipNode(e.To) || skipEdge(e) {
			continue
		}
		has[e.From] = true
		outs[e.From] = append(outs[e.From], e.Output)
	}
	labelled := func(id string, t workflow.OutputType, name string) bool {
		for _, o := range outs[id] {
			if o != nil && o.Type == t && o.Name == name {
				return true
			}
		}
		return false
	}
	var ex []exit
	for i := range nodes {
		n := &nodes[i]
		if skipNode(n.ID) {
			continue
		}
		switch n.Type {
		case workflow.TypeIf:
			for _, t := range []workflow.OutputType{workflow.OutIfTrue, workflow.OutIfFalse} {
				if !labelled(n.ID, t, "") {
					ex = append(ex, exit{n.ID, &workflow.EdgeOutput{Type: t}})
				}
			}
		case workflow.TypeLoop:
			if !labelled(n.ID, workflow.OutLoopDone, "") {
				ex = append(ex, exit{n.ID, &workflow.EdgeOutput{Type: workflow.OutLoopDone}})
			}
		case workflow.TypeSwitch:
			for _, c := range n.Params.Cases {
				if !labelled(n.ID, workflow.OutSwitchCase, c.Name) {
					ex = append(ex, exit{n.ID, &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: c.Name}})
				}
			}
			if !labelled(n.ID, workflow.OutSwitchDefault, "") {
				ex = append(ex, exit{n.ID, &workflow.EdgeOutput{Type: workflow.OutSwitchDefault}})
			}
		case workflow.TypeEndLoop:
		default:
			if !has[n.ID] {
				ex = append(ex, exit{n.ID, nil})
			}
		}
	}
	return ex
}

func sameOutput(a, b *workflow.EdgeOutput) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Type == b.Type && a.Name == b.Name
}

func copyOutput(o *workflow.EdgeOutput) *workflow.EdgeOutput {
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// edgeRemoved reports whether the patch already removes e.
func (b *builder) edgeRemoved(e workflow.Edge) bool {
	for _, r := range b.p.RemovedEdges {
		if r.From == e.From && r.To == e.To && (r.Output == nil || sameOutput(r.Output, e.Output)) {
			return true
		}
	}
	return false
}

// liveEdges returns the current workflow's edges leaving id that survive
// the patch's removals.
func (b *builder) liveEdges(id string) []workflow.Edge {
	var out []workflow.Edge
	for _, e := range b.w.Edges {
		if e.From == id && !b.removed[e.To] && !b.removed[e.From] && !b.edgeRemoved(e) {
			out = append(out, e)
		}
	}
	return out
}

// takenKeys are the keys of surviving nodes and of nodes already added.
func (b *builder) takenKeys() map[string]bool {
	taken := make(map[string]bool, len(b.w.Nodes)+len(b.p.AddedNodes))
	for i := range b.w.Nodes {
		if !b.removed[b.w.Nodes[i].ID] {
			taken[b.w.Nodes[i].Key] = true
		}
	}
	for _, n := range b.p.AddedNodes {
		taken[n.Key] = true
	}
	return taken
}

// adoptNodes makes the nodes of a decoded mini workflow ready to add: keys
// unique in the workflow (references inside the new nodes follow a
// renamed key), positions left for place to decide. It returns old key →
// new key.
func (b *builder) adoptNodes(nodes []workflow.Node) map[string]string {
	taken := b.takenKeys()
	renamed := map[string]string{}
	for i := range nodes {
		n := &nodes[i]
		n.Position = nil
		if !taken[n.Key] {
			taken[n.Key] = true
			continue
		}
		k := workflow.UniqueKey(n.Key, taken)
		taken[k] = true
		b.warn(StagePatch, n.ID, "the new node '%s' had the key %q, which another node already has; renamed it %q", n.Label(), n.Key, k)
		renamed[n.Key] = k
		n.Key = k
	}
	for from, to := range renamed {
		for i := range nodes {
			renameRefs(&nodes[i].Params, from, to)
		}
	}
	return renamed
}

// flatAdd adds a flat list of steps (the planner's flat format, control
// flow included) after the node "after" names, or after the workflow's
// last node. Inserted between a node and its successor, the chain takes
// over the edge between them.
func (b *builder) flatAdd(v, after gjson.Result) {
	items := list(v)
	if len(items) == 0 {
		return
	}
	var raw strings.Builder
	raw.WriteString(`{"steps":[`)
	for i, it := range items {
		if i > 0 {
			raw.WriteByte(',')
		}
		raw.WriteString(it.Raw)
	}
	raw.WriteString(`]}`)
	mini, ws, err := planner.ParseOutput(raw.String(), planner.ParseOptions{Features: b.opts.Features, Catalog: b.opts.Catalog})
	for _, w := range ws {
		w.Message = strings.ReplaceAll(w.Message, "steps[", "add[")
		b.ws = append(b.ws, w)
	}
	if err != nil {
		b.warn(StagePatch, "", "could not add the steps: %s", strings.ReplaceAll(err.Error(), "steps[", "add["))
		return
	}
	b.adoptNodes(mini.Nodes)

	// The chain's entry: its first node without incoming edges.
	incoming := map[string]bool{}
	for _, e := range mini.Edges {
		incoming[e.To] = true
	}
	entry := mini.Nodes[0].ID
	for _, n := range mini.Nodes {
		if !incoming[n.ID] {
			entry = n.ID
			break
		}
	}

	anchor, label, succ := b.insertionPoint(after)
	b.p.AddedNodes = append(b.p.AddedNodes, mini.Nodes...)
	b.p.AddedEdges = append(b.p.AddedEdges, mini.Edges...)
	if anchor != "" {
		b.p.AddedEdges = append(b.p.AddedEdges, workflow.Edge{From: anchor, To: entry, Output: copyOutput(label)})
	}
	if succ != nil {
		b.p.RemovedEdges = append(b.p.RemovedEdges, *succ)
		never := func(string) bool { return false }
		for _, x := range openOutputs(mini.Nodes, mini.Edges, never, func(workflow.Edge) bool { return false }) {
			b.p.AddedEdges = append(b.p.AddedEdges, workflow.Edge{From: x.node, To: succ.To, Output: copyOutput(x.out)})
		}
	}
}

// insertionPoint decides where flat steps go: the anchor node, the label
// of the edge from it, and the edge the new steps take over (nil when the
// anchor's output led nowhere).
func (b *builder) insertionPoint(after gjson.Result) (string, *workflow.EdgeOutput, *workflow.Edge) {
	var anchor *workflow.Node
	if ref := strings.TrimSpace(after.String()); after.Exists() && after.Type != gjson.Null && ref != "" {
		if i, ok := b.find(ref); ok && !b.removed[b.w.Nodes[i].ID] {
			anchor = &b.w.Nodes[i]
		} else if ok {
			b.warn(StagePatch, "", "\"after\": node %q is removed by the same patch; added the steps after the last node instead", ref)
		} else {
			b.warn(StagePatch, "", "\"after\": there is no node %q; added the steps after the last node instead", ref)
		}
	}
	if anchor == nil {
		return b.appendPoint()
	}
	// After an EndLoop means after the loop.
	if anchor.Type == workflow.TypeEndLoop {
		if i, ok := b.byID[anchor.Params.LoopID]; ok && !b.removed[anchor.Params.LoopID] {
			anchor = &b.w.Nodes[i]
		}
	}
	outs := b.liveEdges(anchor.ID)
	if anchor.Type == workflow.TypeLoop {
		for _, e := range outs {
			if e.Output != nil && e.Output.Type == workflow.OutLoopDone {
				e := e
				return anchor.ID, e.Output, &e
			}
		}
		return anchor.ID, &workflow.EdgeOutput{Type: workflow.OutLoopDone}, nil
	}
	switch len(outs) {
	case 0:
		return anchor.ID, nil, nil
	case 1:
		return anchor.ID, outs[0].Output, &outs[0]
	}
	pick := 0
	for i, e := range outs {
		if e.Output == nil {
			pick = i
			break
		}
	}
	e := outs[pick]
	to := e.To
	if n, ok := b.current(e.To); ok {
		to = n.Label()
	}
	b.warn(StagePatch, anchor.ID, "'%s' has %d outgoing edges; inserted the new steps on its %s edge to '%s'",
		anchor.Label(), len(outs), firstNonEmpty(e.Output.String(), "plain"), to)
	return anchor.ID, e.Output, &e
}

// appendPoint is where steps go when the patch does not say: after the
// last node (in the workflow's order) whose plain output or LoopDone leads
// nowhere, else after the last node.
func (b *builder) appendPoint() (string, *workflow.EdgeOutput, *workflow.Edge) {
	ex := openOutputs(b.w.Nodes, b.w.Edges, func(id string) bool { return b.removed[id] }, b.edgeRemoved)
	pos := map[string]int{}
	for i := range b.w.Nodes {
		pos[b.w.Nodes[i].ID] = i
	}
	best := -1
	for i, x := range ex {
		if x.out != nil && x.out.Type != workflow.OutLoopDone {
			continue
		}
		if best < 0 || pos[x.node] > pos[ex[best].node] {
			best = i
		}
	}
	if best >= 0 {
		return ex[best].node, ex[best].out, nil
	}
	for i := len(b.w.Nodes) - 1; i >= 0; i-- {
		if id := b.w.Nodes[i].ID; !b.removed[id] {
			return b.insertionPoint(gjson.Parse(fmt.Sprintf("%q", id)))
		}
	}
	return "", nil, nil
}

// graphAdd adds nodes and edges in the graph format. Edges may name new
// nodes by the ids the model gave them and existing nodes by id or key.
func (b *builder) graphAdd(nodesV, edgesV gjson.Result) {
	var steps []planner.Step
	for i, item := range list(nodesV) {
		path := fmt.Sprintf("add_nodes[%d]", i)
		st, ws, err := planner.DecodeStep(item, path)
		b.ws = append(b.ws, ws...)
		if err != nil {
			b.warn(StagePatch, "", "skipped %s", strings.TrimPrefix(err.Error(), planner.StageDecode+": "))
			continue
		}
		if len(st.Branches) > 0 {
			b.warn(StagePatch, "", "%s: nested step lists (then/else/body) are for flat \"add\" steps; ignored them in add_nodes", path)
			st.Branches = nil
		}
		steps = append(steps, st)
	}
	var edges []planner.PlanEdge
	for i, item := range list(edgesV) {
		e, ws, err := planner.DecodeEdge(item, fmt.Sprintf("add_edges[%d]", i))
		b.ws = append(b.ws, ws...)
		if err != nil {
			b.warn(StagePatch, "", "skipped %s", strings.TrimPrefix(err.Error(), planner.StageDecode+": "))
			continue
		}
		edges = append(edges, e)
	}
	plan := &planner.Plan{Graph: true, Steps: steps, Edges: edges, Skipped: map[string]string{}}
	b.ws = append(b.ws, planner.ApplyFeatures(plan, b.opts.Features)...)

	newRef := map[string]string{} // model id or key → node id
	if len(plan.Steps) > 0 {
		mini, ws := planner.MapPlan(plan, b.opts.Catalog)
		b.ws = append(b.ws, ws...)
		for i := range mini.Nodes {
			newRef[mini.Nodes[i].Key] = mini.Nodes[i].ID
			if i < len(plan.Steps) && plan.Steps[i].ID != "" {
				newRef[plan.Steps[i].ID] = mini.Nodes[i].ID
			}
		}
		for old, k := range b.adoptNodes(mini.Nodes) {
			if id, ok := newRef[old]; ok {
				newRef[k] = id
			}
		}
		b.p.AddedNodes = append(b.p.AddedNodes, mini.Nodes...)
	}
	added := map[string]*workflow.Node{}
	for i := range b.p.AddedNodes {
		added[b.p.AddedNodes[i].ID] = &b.p.AddedNodes[i]
	}

	resolve := func(ref string) (workflow.Node, string) {
		if id, ok := newRef[ref]; ok {
			return *added[id], ""
		}
		if reason, ok := plan.Skipped[ref]; ok {
			return workflow.Node{}, fmt.Sprintf("%q was dropped (%s)", ref, reason)
		}
		if i, ok := b.find(ref); ok {
			if b.removed[b.w.Nodes[i].ID] {
				return workflow.Node{}, fmt.Sprintf("'%s' is removed by the same patch", b.w.Nodes[i].Label())
			}
			n, _ := b.current(b.w.Nodes[i].ID)
			return n, ""
		}
		if planner.IsFlowEnd(ref) {
			return workflow.Node{}, flowEnd
		}
		return workflow.Node{}, fmt.Sprintf("%q is neither a new node nor a node of the workflow", ref)
	}
	for _, e := range plan.Edges {
		desc := fmt.Sprintf("%s (%s → %s)", e.Path, e.From, e.To)
		from, whyF := resolve(e.From)
		to, whyT := resolve(e.To)
		if (whyF == "" || whyF == flowEnd) && (whyT == "" || whyT == flowEnd) && (whyF != "" || whyT != "") {
			continue // an edge to END or from START: it only says where the flow ends
		}
		if whyF != "" || whyT != "" {
			b.warn(StagePatch, "", "dropped the edge %s: %s", desc, strings.Trim(whyF+"; "+whyT, "; "))
			continue
		}
		if from.ID == to.ID {
			b.warn(StagePatch, from.ID, "dropped the edge %s: an edge from a node to itself", desc)
			continue
		}
		e := e
		for _, w := range e.ResolveOutput(from.Type, from.Params.Cases) {
			w.NodeID = from.ID
			b.ws = append(b.ws, w)
		}
		b.p.AddedEdges = append(b.p.AddedEdges, workflow.Edge{From: from.ID, To: to.ID, Output: e.Output})
	}
}

// removeEdges reads remove_edges: {"from", "to", "output"?} between nodes
// of the workflow; without an output every edge between the two goes.
func (b *builder) removeEdges(v gjson.Result) {
	for i, item := range list(v) {
		e, ws, err := planner.DecodeEdge(item, fmt.Sprintf("remove_edges[%d]", i))
		b.ws = append(b.ws, ws...)
		if err != nil {
			b.warn(StagePatch, "", "skipped %s", strings.TrimPrefix(err.Error(), planner.StageDecode+": "))
			continue
		}
		desc := fmt.Sprintf("%s (%s → %s)", e.Path, e.From, e.To)
		fi, okF := b.find(e.From)
		ti, okT := b.find(e.To)
		if !okF || !okT {
			b.warn(StagePatch, "", "cannot remove the edge %s: no such node; skipped", desc)
			continue
		}
		from, to := &b.w.Nodes[fi], &b.w.Nodes[ti]
		if b.removed[from.ID] || b.removed[to.ID] {
			continue // goes with its node
		}
		for _, w := range e.ResolveOutput(from.Type, from.Params.Cases) {
			w.NodeID = from.ID
			b.ws = append(b.ws, w)
		}
		want := workflow.Edge{From: from.ID, To: to.ID, Output: e.Output}
		found := false
		for _, x := range b.w.Edges {
			if x.From == want.From && x.To == want.To && (want.Output == nil || sameOutput(x.Output, want.Output)) {
				found = true
				break
			}
		}
		if !found {
			b.warn(StagePatch, from.ID, "cannot remove the edge %s: the workflow has no such edge; skipped", desc)
			continue
		}
		if !b.edgeRemoved(want) {
			b.p.RemovedEdges = append(b.p.RemovedEdges, want)
		}
	}
}

// rewire fixes the most common patch mistake: a node inserted between two
// connected nodes (A → X → B) with the old direct edge A → B left behind.
// The old edge is removed, and its label moves to A → X when that edge
// has none.
func (b *builder) rewire() {
	added := map[string]bool{}
	for _, n := range b.p.AddedNodes {
		added[n.ID] = true
	}
	if len(added) == 0 {
		return
	}
	next := map[string][]string{}
	for _, e := range b.p.AddedEdges {
		if added[e.From] {
			next[e.From] = append(next[e.From], e.To)
		}
	}
	for k := range b.p.AddedEdges {
		e0 := &b.p.AddedEdges[k]
		if added[e0.From] || !added[e0.To] {
			continue
		}
		// Existing nodes reachable from e0.To through new nodes only.
		reach := map[string]bool{}
		seen := map[string]bool{e0.To: true}
		queue := []string{e0.To}
		for len(queue) > 0 {
			x := queue[0]
			queue = queue[1:]
			for _, y := range next[x] {
				switch {
				case !added[y]:
					reach[y] = true
				case !seen[y]:
					seen[y] = true
					queue = append(queue, y)
				}
			}
		}
		if len(reach) == 0 {
			continue
		}
		var bypassed []workflow.Edge
		for _, e := range b.liveEdges(e0.From) {
			if reach[e.To] && (sameOutput(e.Output, e0.Output) || e0.Output == nil) {
				bypassed = append(bypassed, e)
			}
		}
		if len(bypassed) != 1 && e0.Output == nil {
			// Several labelled edges could be meant: only the unlabelled one is certain.
			var plain []workflow.Edge
			for _, e := range bypassed {
				if e.Output == nil {
					plain = append(plain, e)
				}
			}
			bypassed = plain
		}
		for _, old := range bypassed {
			if e0.Output == nil && old.Output != nil {
				e0.Output = copyOutput(old.Output)
			}
			b.p.RemovedEdges = append(b.p.RemovedEdges, old)
			fromN, _ := b.current(old.From)
			toN, _ := b.current(old.To)
			via := ""
			for _, n := range b.p.AddedNodes {
				if n.ID == e0.To {
					via = n.Label()
				}
			}
			b.warn(StagePatch, old.From, "'%s' was inserted between '%s' and '%s' but the direct edge between them was kept; removed it so the flow goes through the new step",
				via, fromN.Label(), toN.Label())
		}
	}
}

// renameRefs rewrites references "from." to "to." in the expressions and
// string arguments of p.
// TODO: use the planner's own once it is exported (planner.renameRefs).
func renameRefs(p *workflow.Params, from, to string) {
	fix := func(s string) string { return replaceRef(s, from, to) }
	p.Condition = fix(p.Condition)
	p.ExitCondition = fix(p.ExitCondition)
	p.Input = fix(p.Input)
	p.Prompt = fix(p.Prompt)
	for i := range p.Cases {
		p.Cases[i].Condition = fix(p.Cases[i].Condition)
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			return fix(x)
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	if p.Arguments != nil {
		walk(p.Arguments)
	}
}

func replaceRef(s, from, to string) string {
	pat := from + "."
	if !strings.Contains(s, pat) {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], pat) && (i == 0 || !isIdent(s[i-1])) {
			out.WriteString(to + ".")
			i += len(pat)
			continue
		}
		out.WriteByte(s[i])
		i++
	}
	return out.String()
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// flowEnd marks a reference to END, DONE, START… (see planner.IsFlowEnd).
const flowEnd = "\x00flow end"
