package assistant

import (
	"fmt"
	"reflect"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

// Assistant stages, as they appear in Warning.Stage beside the planner's.
const (
	StagePatch    = "patch"    // turning the model's patch JSON into a WorkflowPatch
	StageMerge    = "merge"    // applying a WorkflowPatch to a workflow
	StageClassify = "classify" // deciding conversation / plan / patch
	StageHistory  = "history"  // summarising or truncating the conversation
	StageFeatures = "features" // node types disabled in the settings
)

// WorkflowPatch is a reviewed-before-applied change to a workflow. Node and
// edge references (removed_node_ids, updated_nodes[].id, edge from/to) name
// nodes by id or, failing that, by key. Updated nodes are whole nodes that
// replace the node with the same id (an empty key or position keeps the
// old one). A removed edge without an output removes every edge between the
// two nodes.
type WorkflowPatch struct {
	// Name renames the workflow: a plan's name, when the plan fills an
	// empty workflow or replaces it ("" keeps the name).
	Name           string          `json:"name,omitempty"`
	AddedNodes     []workflow.Node `json:"added_nodes"`
	RemovedNodeIDs []string        `json:"removed_node_ids"`
	UpdatedNodes   []workflow.Node `json:"updated_nodes"`
	AddedEdges     []workflow.Edge `json:"added_edges"`
	RemovedEdges   []workflow.Edge `json:"removed_edges"`
	Warnings       []Warning       `json:"warnings"`
}

// Empty reports whether the patch changes nothing.
func (p *WorkflowPatch) Empty() bool {
	return p == nil || len(p.AddedNodes)+len(p.RemovedNodeIDs)+len(p.UpdatedNodes)+len(p.AddedEdges)+len(p.RemovedEdges) == 0
}

// normalized returns the patch with nil slices replaced by empty ones, so
// the frontend always sees arrays.
func (p WorkflowPatch) normalized() WorkflowPatch {
	if p.AddedNodes == nil {
		p.AddedNodes = []workflow.Node{}
	}
	if p.RemovedNodeIDs == nil {
		p.RemovedNodeIDs = []string{}
	}
	if p.UpdatedNodes == nil {
		p.UpdatedNodes = []workflow.Node{}
	}
	if p.AddedEdges == nil {
		p.AddedEdges = []workflow.Edge{}
	}
	if p.RemovedEdges == nil {
		p.RemovedEdges = []workflow.Edge{}
	}
	if p.Warnings == nil {
		p.Warnings = []Warning{}
	}
	return p
}

// MergePatchIntoWorkflow returns w with p applied, in this order: remove
// nodes (and their edges), update nodes, add nodes, remove edges, add
// edges. It never modifies w or p. What cannot be applied (a missing node,
// an edge to nowhere, a duplicate) is skipped with a warning; it never
// fails. The assistant merges to validate a patch before showing it, and
// the app merges to preview and to apply it: there is no other merge.
func MergePatchIntoWorkflow(w *workflow.Workflow, p *WorkflowPatch) (*workflow.Workflow, []Warning) {
	var warnings []Warning
	warn := func(nodeID, format string, a ...any) {
		warnings = append(warnings, Warning{Stage: StageMerge, Message: fmt.Sprintf(format, a...), NodeID: nodeID})
	}
	out := &workflow.Workflow{Format: w.Format, ID: w.ID, Name: w.Name, Extra: cloneExtra(w.Extra)}
	if p != nil && p.Name != "" {
		out.Name = p.Name
	}
	if out.Format == "" {
		out.Format = workflow.Format
	}
	if p == nil {
		p = &WorkflowPatch{}
	}

	x := newNodeIndex(w)
	find := x.find

	// 1. Remove nodes.
	removed := x.removed
	for _, ref := range p.RemovedNodeIDs {
		i, ok := find(ref)
		if !ok {
			warn("", "cannot remove node %q: it is not in the workflow; skipped", ref)
			continue
		}
		removed[w.Nodes[i].ID] = true
	}

	// 2. Update nodes.
	updates := map[string]workflow.Node{}
	for _, u := range p.UpdatedNodes {
		ref := u.ID
		if ref == "" {
			ref = u.Key
		}
		i, ok := find(ref)
		switch {
		case !ok:
			warn("", "cannot update node %q: it is not in the workflow; skipped", ref)
			continue
		case removed[w.Nodes[i].ID]:
			warn(w.Nodes[i].ID, "node '%s' is both removed and updated; the removal wins", w.Nodes[i].Label())
			continue
		}
		old := &w.Nodes[i]
		n := cloneNode(u)
		n.ID = old.ID
		if n.Key == "" {
			n.Key = old.Key
		}
		if n.Position == nil {
			n.Position = clonePosition(old.Position)
		}
		if _, twice := updates[old.ID]; twice {
			warn(old.ID, "node '%s' is updated twice; the last update wins", old.Label())
		}
		updates[old.ID] = n
	}
	for id, n := range updates {
		if n.Key != w.Nodes[x.byID[id]].Key {
			x.renamed[id] = true
			x.newKeys[n.Key] = id
		}
	}

	// What the patch does not touch stays: the goal, its done_when, and
	// the pinned data of the nodes that remain (a person's, never the
	// model's: a patch cannot pin).
	out.Goal = w.Goal
	if w.DoneWhen != nil {
		d := *w.DoneWhen
		out.DoneWhen = &d
	}
	for id, v := range w.Pinned {
		if removed[id] {
			continue
		}
		if out.Pinned == nil {
			out.Pinned = map[string]any{}
		}
		out.Pinned[id] = cloneValue(v)
	}

	out.Nodes = make([]workflow.Node, 0, len(w.Nodes)-len(removed)+len(p.AddedNodes))
	positions := make([]workflow.Position, 0, len(w.Nodes)) // one allocation for all copied positions
	for i := range w.Nodes {
		id := w.Nodes[i].ID
		if removed[id] {
			continue
		}
		n, ok := updates[id]
		if !ok {
			pos := w.Nodes[i].Position
			n = w.Nodes[i]
			n.Position = nil
			n = cloneNode(n)
			if pos != nil {
				positions = append(positions, *pos)
				n.Position = &positions[len(positions)-1]
			}
		}
		out.Nodes = append(out.Nodes, n)
	}

	// 3. Add nodes.
	for _, a := range p.AddedNodes {
		n := cloneNode(a)
		if n.ID == "" {
			n.ID = workflow.NewID()
		} else if x.liveID(n.ID) {
			old := n.ID
			n.ID = workflow.NewID()
			warn(n.ID, "added node '%s' reused the id %q of an existing node; gave it a new id", n.Label(), old)
		}
		if _, taken := x.liveKey(n.Key); n.Key == "" || taken {
			base := n.Key
			if base == "" {
				base = workflow.KeyFromName(firstNonEmpty(n.Name, string(n.Type)))
			}
			k := base
			for i := 2; ; i++ {
				if _, taken := x.liveKey(k); !taken {
					break
				}
				k = fmt.Sprintf("%s_%d", base, i)
			}
			if n.Key != "" {
				warn(n.ID, "added node '%s' reused the key %q; renamed it %q", n.Label(), n.Key, k)
			}
			n.Key = k
		}
		x.added[n.ID] = true
		x.newKeys[n.Key] = n.ID
		out.Nodes = append(out.Nodes, n)
	}

	resolve := func(ref string) (string, bool) {
		if x.liveID(ref) {
			return ref, true
		}
		return x.liveKey(ref)
	}

	// Edges of removed nodes go with them.
	out.Edges = make([]workflow.Edge, 0, len(w.Edges)+len(p.AddedEdges))
	for _, e := range w.Edges {
		if removed[e.From] || removed[e.To] {
			continue
		}
		out.Edges = append(out.Edges, cloneEdge(e))
	}

	// 4. Remove edges.
	if len(p.RemovedEdges) > 0 {
		type spec struct {
			e    workflow.Edge
			ref  string
			used bool
		}
		byEnds := map[[2]string][]*spec{}
		var specs []*spec
		for _, r := range p.RemovedEdges {
			desc := edgeDesc(r)
			from, okF := resolve(r.From)
			to, okT := resolve(r.To)
			if !okF || !okT {
				if x.wasRemoved(r.From) || x.wasRemoved(r.To) {
					continue // already gone with its node
				}
				warn("", "cannot remove edge %s: no such node; skipped", desc)
				continue
			}
			s := &spec{e: workflow.Edge{From: from, To: to, Output: r.Output}, ref: desc}
			specs = append(specs, s)
			byEnds[[2]string{from, to}] = append(byEnds[[2]string{from, to}], s)
		}
		kept := out.Edges[:0]
		for _, e := range out.Edges {
			drop := false
			for _, s := range byEnds[[2]string{e.From, e.To}] {
				if s.e.Output == nil || e.SameAs(s.e) {
					drop, s.used = true, true
					break
				}
			}
			if !drop {
				kept = append(kept, e)
			}
		}
		out.Edges = kept
		for _, s := range specs {
			if !s.used {
				warn("", "cannot remove edge %s: the workflow has no such edge; skipped", s.ref)
			}
		}
	}

	// 5. Add edges.
	if len(p.AddedEdges) > 0 {
		existing := make(map[[2]string][]int, len(p.AddedEdges))
		want := map[[2]string]bool{}
		for _, a := range p.AddedEdges {
			if from, ok := resolve(a.From); ok {
				if to, ok := resolve(a.To); ok {
					want[[2]string{from, to}] = true
				}
			}
		}
		for i, e := range out.Edges {
			if k := [2]string{e.From, e.To}; want[k] {
				existing[k] = append(existing[k], i)
			}
		}
		for _, a := range p.AddedEdges {
			from, okF := resolve(a.From)
			to, okT := resolve(a.To)
			if !okF || !okT {
				missing := a.From
				if okF {
					missing = a.To
				}
				warn("", "cannot add edge %s: no node %q; skipped", edgeDesc(a), missing)
				continue
			}
			e := cloneEdge(a)
			e.From, e.To = from, to
			k := [2]string{from, to}
			dup := false
			for _, j := range existing[k] {
				if out.Edges[j].SameAs(e) {
					dup = true
					break
				}
			}
			if dup {
				warn(from, "edge %s is already in the workflow; not added twice", edgeDesc(a))
				continue
			}
			existing[k] = append(existing[k], len(out.Edges))
			out.Edges = append(out.Edges, e)
		}
	}
	// Every patch comes from a model (the assistant, a replan): the steps
	// it adds or changes are the model's until a person approves them,
	// whatever the patch says about provenance. No time stamp: merging the
	// same patch twice gives the same bytes (review, then apply).
	touched := make(map[string]bool, len(updates)+len(x.added))
	for id := range updates {
		touched[id] = true
	}
	for id := range x.added {
		touched[id] = true
	}
	approval.MarkChangedAmong(w, out, touched, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPatch}, true)
	return out, warnings
}

// nodeIndex finds nodes of a workflow being merged without indexing the
// result again: the input's ids (and, on first use, keys) plus what the
// patch removed, renamed and added.
type nodeIndex struct {
	w       *workflow.Workflow
	byID    map[string]int // first node with each id
	byKey   map[string]int // first node with each key; nil until needed
	removed map[string]bool
	renamed map[string]bool   // ids of updated nodes whose key changed
	newKeys map[string]string // keys of renamed and added nodes → id
	added   map[string]bool
}

func newNodeIndex(w *workflow.Workflow) *nodeIndex {
	x := &nodeIndex{w: w, byID: make(map[string]int, len(w.Nodes)), removed: map[string]bool{},
		renamed: map[string]bool{}, newKeys: map[string]string{}, added: map[string]bool{}}
	for i := range w.Nodes {
		if _, dup := x.byID[w.Nodes[i].ID]; !dup {
			x.byID[w.Nodes[i].ID] = i
		}
	}
	return x
}

func (x *nodeIndex) keyIndex() map[string]int {
	if x.byKey == nil {
		x.byKey = make(map[string]int, len(x.w.Nodes))
		for i := range x.w.Nodes {
			if k := x.w.Nodes[i].Key; k != "" {
				if _, dup := x.byKey[k]; !dup {
					x.byKey[k] = i
				}
			}
		}
	}
	return x.byKey
}

// find looks a reference up in the input: by id, then by key.
func (x *nodeIndex) find(ref string) (int, bool) {
	if i, ok := x.byID[ref]; ok {
		return i, true
	}
	i, ok := x.keyIndex()[ref]
	return i, ok
}

// liveID reports whether a node with the id is in the result.
func (x *nodeIndex) liveID(id string) bool {
	if x.added[id] {
		return true
	}
	_, ok := x.byID[id]
	return ok && !x.removed[id]
}

// liveKey returns the id of the result's node with the key.
func (x *nodeIndex) liveKey(k string) (string, bool) {
	if id, ok := x.newKeys[k]; ok {
		return id, true
	}
	i, ok := x.keyIndex()[k]
	if !ok {
		return "", false
	}
	id := x.w.Nodes[i].ID
	if x.removed[id] || x.renamed[id] {
		return "", false
	}
	return id, true
}

// wasRemoved reports whether ref named a node the patch removed.
func (x *nodeIndex) wasRemoved(ref string) bool {
	i, ok := x.find(ref)
	return ok && x.removed[x.w.Nodes[i].ID]
}

func edgeDesc(e workflow.Edge) string {
	s := e.From + " → " + e.To
	if e.Output != nil {
		s += " [" + e.Output.String() + "]"
	}
	return s
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// Diff says which nodes and edges a patch adds, removes and modifies, for
// the canvas preview (added green, removed red ghosts, modified amber).
type Diff struct {
	AddedNodeIDs    []string        `json:"added_node_ids"`
	RemovedNodeIDs  []string        `json:"removed_node_ids"`
	ModifiedNodeIDs []string        `json:"modified_node_ids"`
	AddedEdges      []workflow.Edge `json:"added_edges"`
	RemovedEdges    []workflow.Edge `json:"removed_edges"`
}

// DiffForPreview compares a workflow with its merged version. A node whose
// only change is its position does not count as modified.
func DiffForPreview(before, after *workflow.Workflow) Diff {
	d := Diff{AddedNodeIDs: []string{}, RemovedNodeIDs: []string{}, ModifiedNodeIDs: []string{},
		AddedEdges: []workflow.Edge{}, RemovedEdges: []workflow.Edge{}}
	old := make(map[string]*workflow.Node, len(before.Nodes))
	for i := range before.Nodes {
		old[before.Nodes[i].ID] = &before.Nodes[i]
	}
	seen := make(map[string]bool, len(after.Nodes))
	for i := range after.Nodes {
		n := &after.Nodes[i]
		seen[n.ID] = true
		o, ok := old[n.ID]
		switch {
		case !ok:
			d.AddedNodeIDs = append(d.AddedNodeIDs, n.ID)
		case !sameNode(o, n):
			d.ModifiedNodeIDs = append(d.ModifiedNodeIDs, n.ID)
		}
	}
	for i := range before.Nodes {
		if !seen[before.Nodes[i].ID] {
			d.RemovedNodeIDs = append(d.RemovedNodeIDs, before.Nodes[i].ID)
		}
	}
	type ek struct{ from, to, typ, name string }
	key := func(e workflow.Edge) ek {
		k := ek{from: e.From, to: e.To}
		if e.Output != nil {
			k.typ, k.name = string(e.Output.Type), e.Output.Name
		}
		return k
	}
	inBefore := make(map[ek]bool, len(before.Edges))
	for _, e := range before.Edges {
		inBefore[key(e)] = true
	}
	inAfter := make(map[ek]bool, len(after.Edges))
	for _, e := range after.Edges {
		inAfter[key(e)] = true
		if !inBefore[key(e)] {
			d.AddedEdges = append(d.AddedEdges, e)
		}
	}
	for _, e := range before.Edges {
		if !inAfter[key(e)] {
			d.RemovedEdges = append(d.RemovedEdges, e)
		}
	}
	return d
}

func sameNode(a, b *workflow.Node) bool {
	x, y := *a, *b
	x.Position, y.Position = nil, nil
	// The provenance mark is bookkeeping (a node whose edges a model
	// changed gets one): the edges show that change.
	x.Extra, y.Extra = withoutMark(x.Extra), withoutMark(y.Extra)
	return reflect.DeepEqual(x, y)
}

func withoutMark(e workflow.Extra) workflow.Extra {
	if _, ok := e[workflow.ProvenanceKey]; !ok {
		return e
	}
	out := workflow.Extra{}
	for k, v := range e {
		if k != workflow.ProvenanceKey {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Preview is what the canvas shows for a pending patch.
type Preview struct {
	Workflow *workflow.Workflow `json:"workflow"`
	Diff     Diff               `json:"diff"`
	// Changes is the review: every field the patch sets, old and new.
	Changes  ChangeSet `json:"changes"`
	Warnings []Warning `json:"warnings"`
}

// PreviewPatch merges p into w and diffs and describes the result, for the
// canvas and its review banner.
func PreviewPatch(w *workflow.Workflow, p *WorkflowPatch) Preview {
	merged, warnings := MergePatchIntoWorkflow(w, p)
	if warnings == nil {
		warnings = []Warning{}
	}
	return Preview{Workflow: merged, Diff: DiffForPreview(w, merged), Changes: DescribeChanges(w, merged), Warnings: warnings}
}
