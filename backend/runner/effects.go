package runner

import (
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

// The effect gate: every tool call of a run (a Tool step's, each call an
// AI step makes, a step the Temporal engine runs through Runner.Step)
// passes through callTool at the moment it happens, and callTool asks
// access how it may touch files. The approval check before the run
// (checkApproval) judged paths as they were then; what is at a path can
// change during the run (a step unpacks an archive holding a symbolic
// link), so the gate makes the rule hold when the file is opened.

// access is the gate's decision for one call of tool name by node n with
// its arguments (rendered): the folder its file tool is confined to ("" =
// not confined), and whether its path is the step's as written.
func (r *run) access(n *workflow.Node, name string, args map[string]any) (root string, literal bool, err error) {
	if r.confined[n.ID] && n.Type == workflow.TypeTool && n.Params.Tool == name {
		if r.root == "" {
			return "", false, argErrorf("%s: a step a model wrote reads only inside a saved workflow's folder unless a person approves it", name)
		}
		return r.root, false, nil
	}
	return "", literalPath(n, args), nil
}

// literalPath says whether the path argument of n's call is the one its
// Tool step names as written: no template, so a person or an approved
// model step wrote exactly that path (an AI step's calls never are).
func literalPath(n *workflow.Node, args map[string]any) bool {
	if n.Type != workflow.TypeTool {
		return false
	}
	written, ok := n.Params.Arguments["path"].(string)
	got, _ := args["path"].(string)
	return ok && written == got && !strings.Contains(written, "{{")
}

// confinedReads are the read_file and list_files steps of w that the gate
// confines to the workflow's folder: those approval reviews (a model
// wrote them, or the file is under review), except the ones a person
// approved as reading outside the folder. Computed from the approval
// rule, not beside it: Required with no folder lists every such read, and
// one that needed no approval inside the folder was approved by no one.
// A read judged outside and not approved never got here (checkApproval).
func (rn *Runner) confinedReads(w *workflow.Workflow) map[string]bool {
	out := map[string]bool{}
	reads := &workflow.Workflow{Extra: w.Extra} // whether a read is reviewed does not depend on the rest
	for _, n := range w.Nodes {
		if n.Type == workflow.TypeTool && (n.Params.Tool == "read_file" || n.Params.Tool == "list_files") {
			reads.Nodes = append(reads.Nodes, n)
		}
	}
	if len(reads.Nodes) == 0 {
		return out
	}
	sc := rn.approvalScope()
	anywhere := sc
	anywhere.Dir = "" // every read counts as outside
	outside := false
	for _, s := range approval.Required(reads, anywhere) {
		out[s.NodeID] = true
		if k, _, _ := approval.Needs(reads.NodeByID(s.NodeID), sc); k == approval.KindReadOutside {
			outside = true
		}
	}
	if !outside {
		return out
	}
	approved := rn.approvals().Approved
	for _, s := range approval.Required(w, sc) { // the whole workflow: what was approved
		if s.Kind == approval.KindReadOutside && approved(s.Fingerprint) {
			delete(out, s.NodeID) // the person approved it reading where it names
		}
	}
	return out
}

// confinementRoot is the folder confined reads open beneath: the
// workflow's (absolute), "" when unsaved.
func (rn *Runner) confinementRoot() string {
	d := rn.workflowDir()
	if d == "" {
		return ""
	}
	if abs, err := filepath.Abs(d); err == nil {
		return abs
	}
	return d
}
