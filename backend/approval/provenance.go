// Package approval decides which steps of a workflow need a person's
// approval before they run, and remembers what was approved. The rule is
// small: a step a model wrote or changed (it carries model provenance)
// whose kind can act on the world (commands, file writes, any HTTP request,
// reads outside the workflow's folder, MCP tools that are not read-only
// and closed-world, AI agents that may call such tools) runs only after a
// person approved its exact content, identified by a content fingerprint.
// Hand-written steps need no approval. Both the desktop app and the CLI
// ask through the application layer, which calls this package; the runner
// checks it again before anything runs.
package approval

import (
	"encoding/json"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// ProvenanceKey is the node field that records who wrote the node. It is
// kept in the workflow file, so a model-written step is still known as one
// after save, reopen and restart, and it stays after approval: approval is
// recorded per content fingerprint, so if the content changes again (by a
// model, or by hand) it is asked about again.
const ProvenanceKey = workflow.ProvenanceKey

// Source values.
const SourceModel = "model"

// Via says which feature of Weft brought the model's content in.
const (
	ViaPlan   = "plan"   // the planner's workflow
	ViaPatch  = "patch"  // an assistant patch (added or changed node)
	ViaReplan = "replan" // a replanned version after a failure
	ViaFix    = "fix"    // a fix the model suggested for a failing step
	// ViaCopy marks a step copied in the editor out of a workflow file
	// nobody reviewed (source "file"): pasted into another document it is
	// still reviewed before it acts, as a model's step is.
	ViaCopy = "copy"
	// ViaEdit marks a model's step the person changed since (a fix kept
	// from an escalation): still reviewed, since the rest is the model's,
	// but the last change is not called the model's.
	ViaEdit = "edit"
)

// Said says who wrote a step to review, in words, by its mark.
func Said(p Provenance) string {
	switch p.Via {
	case ViaPlan:
		return "planned by a model"
	case ViaPatch:
		return "changed by the assistant"
	case ViaReplan:
		return "replanned after a failure"
	case ViaFix:
		return "a fix a model suggested"
	case ViaCopy:
		return "copied from a file you have not reviewed"
	case ViaEdit:
		return "written by a model, changed by you"
	}
	return "written by a model"
}

// SourceFile is the source of a step copied out of a file nobody reviewed.
const SourceFile = "file"

// Provenance is what the mark says.
type Provenance struct {
	Source string    `json:"source"`
	Via    string    `json:"via,omitempty"`
	Model  string    `json:"model,omitempty"`
	Time   time.Time `json:"time,omitzero"`
	// Flow says that the model changed where the node leads (an edge out
	// of it added, removed or rewired, or a node it led to removed): the
	// node is then reviewed with its wiring, whatever its kind.
	Flow bool `json:"flow,omitempty"`
}

// Mark records that a model wrote or changed n.
func Mark(n *workflow.Node, p Provenance) { setMark(&n.Extra, ProvenanceKey, p) }

// setMark writes a mark into a node's or the workflow's extra fields.
func setMark(extra *workflow.Extra, key string, p Provenance) {
	if p.Source == "" {
		p.Source = SourceModel
	}
	b, err := json.Marshal(p)
	if err != nil {
		return
	}
	if *extra == nil {
		*extra = workflow.Extra{}
	}
	(*extra)[key] = b
}

// readMark reads a mark; one present but unreadable still counts as a
// model's: the safe side.
func readMark(extra workflow.Extra, key string) (Provenance, bool) {
	raw, ok := extra[key]
	if !ok {
		return Provenance{}, false
	}
	var p Provenance
	if json.Unmarshal(raw, &p) != nil || p.Source == "" {
		return Provenance{Source: SourceModel}, true
	}
	return p, true
}

// MarkAll marks every node of w, and its done_when (a plan or a
// replanned version).
func MarkAll(w *workflow.Workflow, p Provenance) {
	if w == nil {
		return
	}
	for i := range w.Nodes {
		Mark(&w.Nodes[i], p)
	}
	if len(w.Triggers) > 0 {
		markTriggers(w, p)
	}
	if !w.DoneWhen.IsZero() {
		markGoal(w, p)
	}
}

// GoalProvenanceKey is the workflow field that records that a model wrote
// or changed the workflow's done_when, which decides whether a run
// reached its goal: it is then reviewed like a step that routes.
const GoalProvenanceKey = "done_when_provenance"

func markGoal(w *workflow.Workflow, p Provenance) { setMark(&w.Extra, GoalProvenanceKey, p) }

// goalOf reads the done_when mark.
func goalOf(w *workflow.Workflow) (Provenance, bool) { return readMark(w.Extra, GoalProvenanceKey) }

// sameGoal reports whether two done_when say the same.
func sameGoal(a, b *workflow.DoneWhen) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	return *a == *b
}

// MarkChanged marks the nodes of nw that are new or whose content differs
// from the node with the same id in old (a replan, a patch result). Nodes
// the model kept as they were keep old's mark, or none, whatever nw says.
func MarkChanged(old, nw *workflow.Workflow, p Provenance) []string {
	return MarkChangedAmong(old, nw, nil, p, false)
}

// MarkChangedAmong is MarkChanged looking only at the content of the
// nodes of nw whose ids are in among (the ones a merge touched; the others
// are copies; nil means all). With keepModelMarks a changed node that
// already carries a model's mark saying how keeps it (a replanned step
// that reaches the canvas as a patch stays "replan"). Wiring is compared
// for every node: a node whose outgoing edges differ from old's (an edge
// added, removed or rewired, a node it led to removed, a new node with
// edges out) is marked with Flow, so it is reviewed with its wiring. A
// plan of an empty workflow reaches nothing of the person's, so its
// wiring is not marked.
func MarkChangedAmong(old, nw *workflow.Workflow, among map[string]bool, p Provenance, keepModelMarks bool) []string {
	if nw == nil {
		return nil
	}
	wired := old != nil && len(old.Nodes) > 0
	markTriggersChanged(old, nw, p)
	switch {
	case old != nil && sameGoal(old.DoneWhen, nw.DoneWhen):
		if pv, ok := goalOf(old); ok {
			markGoal(nw, pv)
		} else {
			delete(nw.Extra, GoalProvenanceKey)
		}
	case !nw.DoneWhen.IsZero():
		markGoal(nw, p)
	default:
		delete(nw.Extra, GoalProvenanceKey)
	}
	var ids []string
	for i := range nw.Nodes {
		n := &nw.Nodes[i]
		var o *workflow.Node
		if old != nil {
			o = old.NodeByID(n.ID)
		}
		rewired := wired && !sameNext(NextOf(old, o), NextOf(nw, n))
		if among != nil && !among[n.ID] && !rewired {
			continue
		}
		if o != nil && Fingerprint(o) == Fingerprint(n) {
			pv, had := Of(o)
			switch {
			case rewired && !had:
				pv = p
				fallthrough
			case rewired:
				pv.Flow = true
				Mark(n, pv)
				ids = append(ids, n.ID)
			case had:
				Mark(n, pv)
			default:
				Clear(n)
			}
			continue
		}
		mark := p
		if pv, ok := Of(n); keepModelMarks && ok && pv.Source == SourceModel && pv.Via != "" {
			mark = pv
		}
		if prev, ok := Of(o); ok && prev.Flow {
			mark.Flow = true
		}
		mark.Flow = mark.Flow || rewired
		Mark(n, mark)
		ids = append(ids, n.ID)
	}
	return ids
}

// Of reads the mark. A mark that is present but cannot be read still
// counts as a model's: the safe side.
func Of(n *workflow.Node) (Provenance, bool) {
	if n == nil {
		return Provenance{}, false
	}
	return readMark(n.Extra, ProvenanceKey)
}

// FromModel reports whether n carries a model's mark. Only the model
// source exists today; any other value is treated as a model's too.
func FromModel(n *workflow.Node) bool {
	_, ok := Of(n)
	return ok
}

// Clear removes the mark.
func Clear(n *workflow.Node) {
	if n != nil && n.Extra != nil {
		delete(n.Extra, ProvenanceKey)
		if len(n.Extra) == 0 {
			n.Extra = nil
		}
	}
}
