package assistant

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// planToPatch turns a whole plan, sent for a workflow that already has
// nodes, into a patch. When the plan reuses more than half of the
// workflow's keys it is a rewrite: it replaces the graph (nodes with the
// same key keep their id, so the preview shows them as modified, not as
// removed and added). Otherwise it is a continuation: it is appended after
// the last step. A warning says which.
func planToPatch(plan, w *workflow.Workflow, opts patchOptions) (*WorkflowPatch, []Warning) {
	b := &builder{w: w, opts: opts, byID: map[string]int{}, byKey: map[string]int{},
		removed: map[string]bool{}, updated: map[string]workflow.Node{}}
	for i := range w.Nodes {
		b.byID[w.Nodes[i].ID] = i
		if w.Nodes[i].Key != "" {
			b.byKey[w.Nodes[i].Key] = i
		}
	}
	reused := 0
	for _, n := range plan.Nodes {
		if _, ok := b.byKey[n.Key]; ok {
			reused++
		}
	}
	replace := reused*2 > len(w.Nodes)
	if replace {
		b.replaceWith(plan, reused)
	} else {
		b.extendWith(plan, reused)
	}
	b.p.Name = planName(plan, w, replace)
	return &b.p, b.ws
}

// planName is the name a plan gives the workflow: its own, when it fills
// an empty workflow or replaces one; a plan that only extends a workflow
// leaves the name the person gave it ("").
func planName(plan, w *workflow.Workflow, replaces bool) string {
	name := strings.TrimSpace(plan.Name)
	if name == "" || name == w.Name || !(replaces || len(w.Nodes) == 0) {
		return ""
	}
	return name
}

func (b *builder) replaceWith(plan *workflow.Workflow, reused int) {
	b.warn(StageClassify, "", "the reply is a whole new plan, not a patch; it reuses %d of the workflow's %d step keys, so it is shown as a replacement of the workflow (%d step(s) kept and updated, %d removed, %d added)",
		reused, len(b.w.Nodes), reused, len(b.w.Nodes)-reused, len(plan.Nodes)-reused)
	final := map[string]string{} // plan node id → id in the result
	matched := map[string]bool{}
	for _, n := range plan.Nodes {
		final[n.ID] = n.ID
		if i, ok := b.byKey[n.Key]; ok {
			final[n.ID] = b.w.Nodes[i].ID
			matched[b.w.Nodes[i].ID] = true
		}
	}
	for i := range b.w.Nodes {
		if id := b.w.Nodes[i].ID; !matched[id] {
			b.removed[id] = true
			b.p.RemovedNodeIDs = append(b.p.RemovedNodeIDs, id)
		}
	}
	for _, pn := range plan.Nodes {
		n := cloneNode(pn)
		n.ID = final[pn.ID]
		if n.Params.LoopID != "" {
			if id, ok := final[n.Params.LoopID]; ok {
				n.Params.LoopID = id
			}
		}
		if matched[n.ID] {
			old := &b.w.Nodes[b.byID[n.ID]]
			workflow.KeepRedactedNode(old, &n) // the model saw its secrets redacted
			n.Enabled, n.Retry, n.Extra = old.Enabled, old.Retry, old.Extra
			if n.TimeoutMs == 0 {
				n.TimeoutMs = old.TimeoutMs
			}
			if !sameNode(&n, old) || !samePosition(n.Position, old.Position) {
				b.p.UpdatedNodes = append(b.p.UpdatedNodes, n)
			}
			continue
		}
		b.p.AddedNodes = append(b.p.AddedNodes, n)
	}
	want := map[edgeID]bool{}
	for _, pe := range plan.Edges {
		e := cloneEdge(pe)
		e.From, e.To = final[pe.From], final[pe.To]
		want[keyOf(e)] = true
		b.p.AddedEdges = append(b.p.AddedEdges, e)
	}
	have := map[edgeID]bool{}
	for _, e := range b.w.Edges {
		if b.removed[e.From] || b.removed[e.To] {
			continue
		}
		have[keyOf(e)] = true
		if !want[keyOf(e)] {
			b.p.RemovedEdges = append(b.p.RemovedEdges, workflow.Edge{From: e.From, To: e.To, Output: copyOutput(e.Output)})
		}
	}
	kept := b.p.AddedEdges[:0]
	for _, e := range b.p.AddedEdges {
		if !have[keyOf(e)] {
			kept = append(kept, e)
		}
	}
	b.p.AddedEdges = kept
}

func samePosition(a, b *workflow.Position) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func (b *builder) extendWith(plan *workflow.Workflow, reused int) {
	nodes := make([]workflow.Node, len(plan.Nodes))
	for i := range plan.Nodes {
		nodes[i] = cloneNode(plan.Nodes[i])
	}
	edges := make([]workflow.Edge, len(plan.Edges))
	for i := range plan.Edges {
		edges[i] = cloneEdge(plan.Edges[i])
	}
	b.adoptNodes(nodes)
	incoming := map[string]bool{}
	for _, e := range edges {
		incoming[e.To] = true
	}
	entry := ""
	for _, n := range nodes {
		if !incoming[n.ID] {
			entry = n.ID
			break
		}
	}
	anchor, label, _ := b.appendPoint()
	b.p.AddedNodes = nodes
	b.p.AddedEdges = edges
	where := "as a separate flow"
	if anchor != "" && entry != "" {
		b.p.AddedEdges = append(b.p.AddedEdges, workflow.Edge{From: anchor, To: entry, Output: copyOutput(label)})
		where = fmt.Sprintf("after '%s'", b.w.Nodes[b.byID[anchor]].Label())
	}
	b.warn(StageClassify, "", "the reply is a whole new plan, not a patch; it reuses %d of the workflow's %d step keys, so its %d step(s) are shown as an extension of the workflow, added %s",
		reused, len(b.w.Nodes), len(nodes), where)
	b.place()
}
