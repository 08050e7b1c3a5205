package assistant

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// maxFeedbackFixes bounds the local-repair lines of one re-ask; validation
// problems are never cut, since the model must fix them all.
const maxFeedbackFixes = 10

// feedback is the user turn after a reply that could not be used: the
// exact failure (stage with line, column and item; or every validation
// problem with its code and the nodes by name and key), what the local
// stages changed, and what to send back.
func feedback(o *outcome, attempt, calls int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Your reply (attempt %d of %d) could not be used.\n\n", attempt, calls)
	switch {
	case o.truncated:
		b.WriteString("It was cut off at the length limit, so none of it was used. Send a shorter reply: only the JSON, short names and arguments. Start again from the beginning; do not continue the cut-off text.\n")
	case o.stageErr != nil:
		e := o.stageErr
		fmt.Fprintf(&b, "It failed at the %s stage: %s\n", e.Stage, e.Msg)
		if e.Line > 0 {
			fmt.Fprintf(&b, "Position in the JSON: line %d, column %d.\n", e.Line, e.Column)
		}
		if e.Path != "" {
			fmt.Fprintf(&b, "Item: %s\n", e.Path)
		}
	case o.dodged:
		b.WriteString("You answered in prose, but the change you proposed before is still invalid. Send the corrected change as JSON.\n")
	default:
		writeProblems(&b, o)
	}
	var fixes []string
	for _, w := range o.warnings {
		if w.Stage == planner.StageLayout {
			continue
		}
		fixes = append(fixes, w.Message)
	}
	if len(fixes) > 0 {
		b.WriteString("\nWhile reading your reply, Weft changed or dropped:\n")
		for i, f := range fixes {
			if i == maxFeedbackFixes {
				fmt.Fprintf(&b, "- … and %d more\n", len(fixes)-i)
				break
			}
			b.WriteString("- " + f + "\n")
		}
	}
	if o.kind == KindPlan {
		b.WriteString("\nReply with the complete corrected plan as one JSON object and nothing else.")
	} else {
		b.WriteString("\nReply with the complete corrected patch as one JSON object and nothing else, against the workflow as shown in the system prompt (not on top of your previous patch).")
	}
	return b.String()
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
