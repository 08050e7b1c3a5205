package approval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// Where a step to review comes from.
const (
	// OriginModel: a model wrote or changed the step (its provenance mark).
	OriginModel = "model"
	// OriginFile: the workflow file's bytes are not ones Weft wrote for the
	// person or the person reviewed (a clone, a download, an edit in
	// another editor), so everything in it that acts or routes is shown.
	OriginFile = "file"
)

// Next is one outgoing edge of a node as a review shows it: the output it
// leaves by and the key of the node it leads to.
type Next struct {
	Output string `json:"output,omitempty"`
	To     string `json:"to"`
}

// NextOf lists n's outgoing edges in w by output and target key, sorted,
// so the same wiring gives the same list whatever the edge ids and order.
func NextOf(w *workflow.Workflow, n *workflow.Node) []Next {
	var out []Next
	if w == nil || n == nil {
		return out
	}
	for _, e := range w.Edges {
		if e.From != n.ID {
			continue
		}
		to := e.To
		if t := w.NodeByID(e.To); t != nil {
			to = t.Key
		}
		var o string
		if e.Output != nil {
			o = string(e.Output.Type)
			if e.Output.Name != "" {
				o += ":" + e.Output.Name
			}
		}
		out = append(out, Next{Output: o, To: to})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Output != out[j].Output {
			return out[i].Output < out[j].Output
		}
		return out[i].To < out[j].To
	})
	return out
}

// sameNext reports whether two wirings are the same.
func sameNext(a, b []Next) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FlowContent is what review covers of a node that routes: its content
// and where it leads.
func FlowContent(w *workflow.Workflow, n *workflow.Node) map[string]any {
	m := Content(n)
	next := NextOf(w, n)
	if next == nil {
		next = []Next{}
	}
	m["next"] = next
	return m
}

// FlowFingerprint identifies FlowContent: a model (or another editor)
// that loosens a condition or rewires an edge changes it.
func FlowFingerprint(w *workflow.Workflow, n *workflow.Node) string {
	return fingerprintOf(FlowContent(w, n), n)
}

// routes says why n decides where a run goes, "" when it does not: a
// control node's condition, a step's on_error, verify or done_when, and
// wiring a model changed (the mark's Flow). In a file to review every node
// with outgoing edges routes (where it leads is part of what it does).
func routes(w *workflow.Workflow, n *workflow.Node, pv Provenance, file bool) string {
	switch n.Type {
	case workflow.TypeIf:
		return "decides where the run goes: if " + n.Params.Condition
	case workflow.TypeSwitch:
		var cs []string
		for _, c := range n.Params.Cases {
			cs = append(cs, c.Name+": "+c.Condition)
		}
		return "decides where the run goes: " + strings.Join(cs, "; ")
	case workflow.TypeLoop:
		return fmt.Sprintf("decides how often its body runs (exit when %s)", n.Params.ExitCondition)
	}
	var why []string
	if n.OnError != "" && n.OnError != workflow.OnErrorStop {
		why = append(why, "decides what happens when it fails (on_error: "+string(n.OnError)+")")
	}
	if n.Verify != "" {
		why = append(why, "decides whether it succeeded (verify)")
	}
	if n.DoneWhen != nil {
		why = append(why, "decides whether it reached its goal (done_when)")
	}
	if len(why) > 0 {
		return strings.Join(why, "; ")
	}
	if next := NextOf(w, n); len(next) > 0 && (pv.Flow || file) {
		var to []string
		for _, x := range next {
			to = append(to, x.To)
		}
		if pv.Flow {
			return "a model changed where it leads: to " + strings.Join(to, ", ")
		}
		return "leads to " + strings.Join(to, ", ")
	}
	return ""
}
