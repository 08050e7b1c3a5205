package assistant

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// feedback is the re-ask after a reply that could not be used, in the
// words every re-ask uses (reask.Feedback): the exact failure (the stage
// with line, column and item; or every validation problem with its code
// and the nodes by name and key), what the local stages changed, and what
// to send back.
func feedback(o *outcome) *reask.Feedback {
	f := &reask.Feedback{Truncated: o.truncated}
	switch {
	case o.truncated:
	case o.stageErr != nil:
		f.Failure = o.stageErr.Describe()
	case o.dodged:
		f.Failure = "You answered in prose, but the change you proposed before is still invalid. Send the corrected change as JSON."
	default:
		var b strings.Builder
		if len(o.errors) > 0 {
			writeProblems(&b, o)
		}
		place := `"add_nodes" (new steps) or "update" (changed ones), in one JSON object`
		if o.kind == KindPlan {
			place = `the plan's one "steps" list (or "nodes" with "edges"), in one JSON object`
		}
		planner.WriteDropped(&b, o.unused, place)
		f.Problems = b.String()
	}
	for _, w := range o.warnings {
		if w.Stage != planner.StageLayout && !(w.Stage == planner.StageUnused && o.unused.Dropped()) {
			f.Fixes = append(f.Fixes, w.Message)
		}
	}
	if o.kind == KindPlan {
		f.Answer = "Reply with the complete corrected plan as one JSON object and nothing else."
	} else {
		f.Answer = "Reply with the complete corrected patch as one JSON object and nothing else, against the workflow as shown in the system prompt (not on top of your previous patch)."
	}
	return f
}

func writeProblems(b *strings.Builder, o *outcome) {
	fmt.Fprintf(b, "Applied to the workflow, your change leaves it invalid (%d error(s)). Fix every problem:\n", len(o.errors))
	n := planner.WriteProblemList(b, o.problems, func(p validate.Problem) string { return problemRefs(o.merged, p) })
	if n == 0 {
		for _, p := range o.errors {
			n++
			fmt.Fprintf(b, "%d. %s [%s]\n", n, p.Message, p.Code)
		}
	}
}

// problemRefs names a problem's nodes and edges by name and key, which is
// how the patch must refer to them.
func problemRefs(w *workflow.Workflow, p validate.Problem) string {
	var parts []string
	if len(p.NodeIDs) > 0 {
		names := make([]string, len(p.NodeIDs))
		for i, id := range p.NodeIDs {
			names[i] = nodeRef(w, id)
		}
		parts = append(parts, "node "+strings.Join(names, ", "))
	}
	for _, e := range p.Edges {
		s := fmt.Sprintf("edge %s → %s", nodeRef(w, e.From), nodeRef(w, e.To))
		if e.Output != nil {
			s += " [" + e.Output.String() + "]"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ")
}

func nodeRef(w *workflow.Workflow, id string) string {
	if w != nil {
		if n := w.NodeByID(id); n != nil {
			if n.Name != "" && n.Name != n.Key {
				return fmt.Sprintf("'%s' (key %s)", n.Name, n.Key)
			}
			return "key " + n.Key
		}
	}
	return fmt.Sprintf("%q", id)
}
