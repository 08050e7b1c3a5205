package assistant

import (
	"math"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/workflow"
)

type edgeID struct{ from, to, typ, name string }

func keyOf(e workflow.Edge) edgeID {
	k := edgeID{from: e.From, to: e.To}
	if e.Output != nil {
		k.typ, k.name = string(e.Output.Type), e.Output.Name
	}
	return k
}

// infer runs the planner's control-flow inference on the merged result and
// takes into the patch what it changed around the patch's own nodes and
// edges (an If's unlabelled edges, a Loop's missing EndLoop, …). Problems
// elsewhere in the workflow are the user's, not the patch's: left alone.
func (b *builder) infer() {
	if len(b.p.AddedNodes) == 0 && len(b.p.AddedEdges) == 0 && len(b.p.UpdatedNodes) == 0 {
		return
	}
	merged, _ := MergePatchIntoWorkflow(b.w, &b.p)
	inferred, _ := MergePatchIntoWorkflow(merged, nil)
	ws := planner.InferControlFlowEdges(inferred)
	if len(ws) == 0 {
		return
	}
	touched := map[string]bool{}
	for _, n := range b.p.AddedNodes {
		touched[n.ID] = true
	}
	for _, n := range b.p.UpdatedNodes {
		touched[n.ID] = true
	}
	for _, e := range b.p.AddedEdges {
		touched[e.From], touched[e.To] = true, true
	}

	before := make(map[string]*workflow.Node, len(merged.Nodes))
	for i := range merged.Nodes {
		before[merged.Nodes[i].ID] = &merged.Nodes[i]
	}
	for i := range inferred.Nodes {
		n := inferred.Nodes[i]
		o, ok := before[n.ID]
		switch {
		case !ok:
			if touched[n.Params.LoopID] {
				touched[n.ID] = true
				b.p.AddedNodes = append(b.p.AddedNodes, n)
			}
		case touched[n.ID] && !sameNode(o, &n):
			b.replaceNode(n)
		}
	}

	inAfter := make(map[edgeID]bool, len(inferred.Edges))
	for _, e := range inferred.Edges {
		inAfter[keyOf(e)] = true
	}
	inBefore := make(map[edgeID]bool, len(merged.Edges))
	for _, e := range merged.Edges {
		inBefore[keyOf(e)] = true
	}
	for _, e := range merged.Edges {
		k := keyOf(e)
		if inAfter[k] || !(touched[e.From] || touched[e.To]) {
			continue
		}
		if !b.dropAddedEdge(k) {
			b.p.RemovedEdges = append(b.p.RemovedEdges, cloneEdge(e))
		}
	}
	for _, e := range inferred.Edges {
		if !inBefore[keyOf(e)] && (touched[e.From] || touched[e.To]) {
			b.p.AddedEdges = append(b.p.AddedEdges, cloneEdge(e))
		}
	}
	for _, w := range ws {
		if w.NodeID == "" || touched[w.NodeID] {
			b.ws = append(b.ws, w)
		}
	}
}

// replaceNode puts n into the patch: over the added or updated node with
// its id, else as an update of an existing node.
func (b *builder) replaceNode(n workflow.Node) {
	for i := range b.p.AddedNodes {
		if b.p.AddedNodes[i].ID == n.ID {
			b.p.AddedNodes[i] = n
			return
		}
	}
	for i := range b.p.UpdatedNodes {
		if b.p.UpdatedNodes[i].ID == n.ID {
			b.p.UpdatedNodes[i] = n
			return
		}
	}
	b.p.UpdatedNodes = append(b.p.UpdatedNodes, n)
	b.updated[n.ID] = n
}

// dropAddedEdge removes an edge the patch adds; false when it adds none such.
func (b *builder) dropAddedEdge(k edgeID) bool {
	for i, e := range b.p.AddedEdges {
		if keyOf(e) == k {
			b.p.AddedEdges = append(b.p.AddedEdges[:i], b.p.AddedEdges[i+1:]...)
			return true
		}
	}
	return false
}

// place gives new nodes without a position one: where the planner's
// layout puts them relative to a neighbour that already has a place, so
// an inserted step lands next to the step before it.
func (b *builder) place() {
	pending := map[string]bool{}
	for _, n := range b.p.AddedNodes {
		if n.Position == nil {
			pending[n.ID] = true
		}
	}
	if len(pending) == 0 {
		return
	}
	merged, _ := MergePatchIntoWorkflow(b.w, &b.p)
	planner.Layout(merged)
	laid := make(map[string]workflow.Position, len(merged.Nodes))
	for _, n := range merged.Nodes {
		if n.Position != nil {
			laid[n.ID] = *n.Position
		}
	}
	final := map[string]workflow.Position{}
	maxY, minX, any := 0.0, 0.0, false
	for _, n := range b.w.Nodes {
		if n.Position == nil || b.removed[n.ID] {
			continue
		}
		final[n.ID] = *n.Position
		if !any || n.Position.Y > maxY {
			maxY = n.Position.Y
		}
		if !any || n.Position.X < minX {
			minX = n.Position.X
		}
		any = true
	}
	var preds, succs = map[string][]string{}, map[string][]string{}
	for _, e := range merged.Edges {
		if pending[e.To] {
			preds[e.To] = append(preds[e.To], e.From)
		}
		if pending[e.From] {
			succs[e.From] = append(succs[e.From], e.To)
		}
	}
	relative := func(id string, around []string) bool {
		for _, o := range around {
			if p, ok := final[o]; ok {
				l, lo := laid[id], laid[o]
				final[id] = workflow.Position{X: p.X + l.X - lo.X, Y: p.Y + l.Y - lo.Y}
				return true
			}
		}
		return false
	}
	for progress := true; progress && len(pending) > 0; {
		progress = false
		for _, n := range b.p.AddedNodes {
			if pending[n.ID] && (relative(n.ID, preds[n.ID]) || relative(n.ID, succs[n.ID])) {
				delete(pending, n.ID)
				progress = true
			}
		}
	}
	row := 0
	// taken holds the nodes already in place: the workflow's and the new
	// ones placed before; a new node never lands on one of them (placed
	// relative to the step before it, an inserted step would land exactly
	// on the step after it).
	taken := make([]workflow.Position, 0, len(b.w.Nodes)+len(b.p.AddedNodes))
	for _, n := range b.w.Nodes {
		if p, ok := final[n.ID]; ok && !pendingNew(b.p.AddedNodes, n.ID) {
			taken = append(taken, p)
		}
	}
	for i := range b.p.AddedNodes {
		n := &b.p.AddedNodes[i]
		if n.Position != nil {
			taken = append(taken, *n.Position)
			continue
		}
		p, ok := final[n.ID]
		if !ok {
			if any {
				row++
				p = workflow.Position{X: minX, Y: maxY + float64(row)*planner.LayoutSiblingGap}
			} else {
				p = laid[n.ID]
			}
		}
		p = freeSpot(p, taken)
		taken = append(taken, p)
		n.Position = &p
	}
}

// pendingNew reports whether id is one of the added nodes (an added node
// may reuse the id of a node it replaces).
func pendingNew(added []workflow.Node, id string) bool {
	for i := range added {
		if added[i].ID == id {
			return true
		}
	}
	return false
}

// Room a node takes on the canvas, with a margin: the editor draws nodes
// 220 wide and up to about 110 high.
const (
	placeWidth  = 240.0
	placeHeight = 120.0
)

// freeSpot moves p down, a sibling gap at a time, until no node in taken
// overlaps it. The search is bounded by len(taken) steps: each step clears
// at least the node it overlapped.
func freeSpot(p workflow.Position, taken []workflow.Position) workflow.Position {
	for range len(taken) + 1 {
		hit := false
		for _, q := range taken {
			if math.Abs(q.X-p.X) < placeWidth && math.Abs(q.Y-p.Y) < placeHeight {
				hit = true
				p.Y = q.Y + planner.LayoutSiblingGap
				break
			}
		}
		if !hit {
			return p
		}
	}
	return p
}
