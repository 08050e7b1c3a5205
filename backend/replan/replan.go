// Package replan turns a replanned workflow into what the user reviews: an
// assistant patch against the workflow that failed (the canvas preview,
// applied with assistant.MergePatchIntoWorkflow like any other patch),
// the field-level changes, and the side-effecting steps that need
// approval; and records both versions in the versions store.
package replan

import (
	"reflect"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// Proposal is a replanned version ready for review.
type Proposal struct {
	// Patch turns the failed workflow into the new version; apply it
	// with assistant.MergePatchIntoWorkflow (or the app's apply).
	Patch *assistant.WorkflowPatch `json:"patch"`
	// Preview is assistant.PreviewPatch of Patch: the merged workflow and
	// the ids to colour on the canvas.
	Preview assistant.Preview `json:"preview"`
	// Changes are the field-level changes, Summary their one-line form.
	Changes versions.Diff `json:"changes"`
	Summary string        `json:"summary"`
	// NeedsApproval are the steps of the new version a model wrote or
	// changed that can act (package approval): each runs only once a
	// person approved its exact content (already approved ones included).
	NeedsApproval []approval.Step `json:"needs_approval"`
	// Replan is the replan mark of the new version (run, failed step,
	// counts, version numbers), when it has one.
	Replan *failure.ReplanInfo `json:"replan,omitempty"`
}

// Propose prepares the review of nw, a replanned version of old. cat
// describes the tools for the approval list (nil: the built-ins, every
// MCP tool needing approval).
func Propose(old, nw *workflow.Workflow, cat *tools.Catalog) Proposal {
	p := Patch(old, nw)
	pv := assistant.PreviewPatch(old, p)
	ch := versions.Compare(old, pv.Workflow)
	prop := Proposal{Patch: p, Preview: pv, Changes: ch, Summary: ch.Summary(),
		NeedsApproval: approval.Required(pv.Workflow, approval.Scope{Catalog: cat})}
	if prop.NeedsApproval == nil {
		prop.NeedsApproval = []approval.Step{}
	}
	if info, ok := failure.ReplanInfoOf(nw); ok {
		prop.Replan = &info
	}
	return prop
}

// Patch is the assistant patch that turns old into nw. Nodes are matched by
// id, then by key, so a version whose nodes have fresh ids still shows
// its kept steps as modified rather than removed and added. Matched nodes
// keep old's ids; the workflow's name and top-level fields are not part
// of a patch.
func Patch(old, nw *workflow.Workflow) *assistant.WorkflowPatch {
	p := &assistant.WorkflowPatch{AddedNodes: []workflow.Node{}, RemovedNodeIDs: []string{}, UpdatedNodes: []workflow.Node{},
		AddedEdges: []workflow.Edge{}, RemovedEdges: []workflow.Edge{}, Warnings: []assistant.Warning{}}
	oldByID := map[string]int{}
	oldByKey := map[string]int{}
	for i := range old.Nodes {
		if _, dup := oldByID[old.Nodes[i].ID]; !dup {
			oldByID[old.Nodes[i].ID] = i
		}
		if k := old.Nodes[i].Key; k != "" {
			if _, dup := oldByKey[k]; !dup {
				oldByKey[k] = i
			}
		}
	}
	match := make([]int, len(nw.Nodes))
	used := make([]bool, len(old.Nodes))
	for i := range nw.Nodes {
		match[i] = -1
		if j, ok := oldByID[nw.Nodes[i].ID]; ok && !used[j] {
			match[i], used[j] = j, true
		}
	}
	for i := range nw.Nodes {
		if match[i] >= 0 || nw.Nodes[i].Key == "" {
			continue
		}
		if j, ok := oldByKey[nw.Nodes[i].Key]; ok && !used[j] {
			match[i], used[j] = j, true
		}
	}
	final := map[string]string{} // nw id → id in the result
	for i := range nw.Nodes {
		final[nw.Nodes[i].ID] = nw.Nodes[i].ID
		if match[i] >= 0 {
			final[nw.Nodes[i].ID] = old.Nodes[match[i]].ID
		}
	}
	removed := map[string]bool{}
	for j := range old.Nodes {
		if !used[j] {
			removed[old.Nodes[j].ID] = true
			p.RemovedNodeIDs = append(p.RemovedNodeIDs, old.Nodes[j].ID)
		}
	}
	for i := range nw.Nodes {
		n := cloneNode(&nw.Nodes[i])
		n.ID = final[n.ID]
		if id, ok := final[n.Params.LoopID]; ok {
			n.Params.LoopID = id
		}
		if match[i] < 0 {
			p.AddedNodes = append(p.AddedNodes, n)
			continue
		}
		if o := &old.Nodes[match[i]]; !reflect.DeepEqual(&n, o) {
			p.UpdatedNodes = append(p.UpdatedNodes, n)
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
	want := map[ek]bool{}
	var wanted []workflow.Edge
	for _, e := range nw.Edges {
		e2 := workflow.Edge{From: final[e.From], To: final[e.To], Output: copyOutput(e.Output), Extra: e.Extra}
		if e2.From == "" {
			e2.From = e.From
		}
		if e2.To == "" {
			e2.To = e.To
		}
		if !want[key(e2)] {
			want[key(e2)] = true
			wanted = append(wanted, e2)
		}
	}
	have := map[ek]bool{}
	for _, e := range old.Edges {
		if removed[e.From] || removed[e.To] {
			continue // goes with its node
		}
		have[key(e)] = true
		if !want[key(e)] {
			p.RemovedEdges = append(p.RemovedEdges, workflow.Edge{From: e.From, To: e.To, Output: copyOutput(e.Output)})
		}
	}
	for _, e := range wanted {
		if !have[key(e)] {
			p.AddedEdges = append(p.AddedEdges, e)
		}
	}
	return p
}

func copyOutput(o *workflow.EdgeOutput) *workflow.EdgeOutput {
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// cloneNode deep-copies a node through the workflow's own JSON form.
func cloneNode(n *workflow.Node) workflow.Node {
	w := &workflow.Workflow{Format: workflow.Format, Nodes: []workflow.Node{*n}, Edges: []workflow.Edge{}}
	return w.Clone().Nodes[0]
}

// Recorded is what Record saved.
type Recorded struct {
	// From is the version of the workflow that failed (an identical
	// latest version is reused); To the new version.
	From versions.Version `json:"from"`
	To   versions.Version `json:"to"`
}

// Record saves the workflow that failed (reason manual save, unless the
// latest version is the same) and its replanned version (reason replan)
// in the store, after writing the first number into nw's replan mark
// (FromVersion), so the two can be compared later
// (versions.Store.CompareVersions). nw must have old's id (the planner
// keeps it). The version saved is exactly nw, so running and replanning
// it again finds it as the latest version.
func Record(store *versions.Store, old, nw *workflow.Workflow) (Recorded, error) {
	from, err := store.Save(old, versions.ReasonManual)
	if err != nil {
		return Recorded{}, err
	}
	if info, marked := failure.ReplanInfoOf(nw); marked {
		info.FromVersion = from.N
		failure.MarkReplanned(nw, info)
	}
	to, err := store.SaveWithSummary(nw, versions.ReasonReplan, versions.Compare(old, nw).Summary())
	if err != nil {
		return Recorded{From: from}, err
	}
	return Recorded{From: from, To: to}, nil
}
