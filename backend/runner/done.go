package runner

import (
	"context"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// Done criteria (seeds 002 and 003): steps can all succeed and the run
// still miss its goal. A done_when's condition is checked without a model;
// its criteria are judged by the model as a critic. A result that does not
// hold is a failure of type rejected, which escalates like a failed step.

// What the critic is shown of the plan and the results (it cuts again).
const (
	maxCriticPlan    = 8000
	maxCriticResults = 16000
)

// goalCheckKey and goalCheckNode are flow's.
const goalCheckKey = flow.GoalCheckKey

func goalCheckNode() *workflow.Node { return flow.GoalCheckNode() }

// judge checks a done_when: for a step, self is its outputs and nodeKey
// its key. An error means it could not be checked (a condition that does
// not evaluate, no model, a model that gave no usable verdict).
func (r *run) judge(ctx context.Context, d *workflow.DoneWhen, n *workflow.Node, self map[string]any) (*Verdict, error) {
	v := &Verdict{Condition: d.Condition, Criteria: d.Criteria, Confidence: 1}
	selfKey := ""
	if n != nil {
		v.NodeKey, selfKey = n.Key, n.Key
	}
	if c := strings.TrimSpace(d.Condition); c != "" {
		v.CheckedBy = "condition"
		ok, err := r.eval.evalBool(c, r.vars, selfKey, self)
		if err != nil {
			return nil, fmt.Errorf("the done_when condition `%s` could not be evaluated: %v", c, err)
		}
		if !ok {
			v.Feedback = fmt.Sprintf("The done_when condition `%s` is false.", c)
			return v, nil
		}
		v.Approved = true
	}
	if strings.TrimSpace(d.Criteria) == "" {
		return v, nil
	}
	if v.CheckedBy == "" {
		v.CheckedBy = "model"
	} else {
		v.CheckedBy = "condition+model"
	}
	if r.opts.Critic == nil {
		return nil, &configError{"checking done_when criteria needs a model: set one up in Preferences → Model (or weft settings set llm.model …)"}
	}
	cv, err := r.opts.Critic.Check(ctx, failure.CriticInput{Goal: r.goal(), Criteria: d.Criteria, Plan: r.planText(), Results: r.resultsText(n, self)})
	if err != nil {
		return nil, err
	}
	v.Approved, v.Confidence = cv.Approved, cv.Confidence
	v.Feedback = r.red.String(cv.Feedback)
	for _, s := range cv.Suggestions {
		v.Suggestions = append(v.Suggestions, r.red.String(s))
	}
	return v, nil
}

func (r *run) goal() string {
	if g := strings.TrimSpace(r.w.Goal); g != "" {
		return g
	}
	return r.w.Name
}

// planText lists the steps for the critic, one line each.
func (r *run) planText() string {
	var b strings.Builder
	for i := range r.w.Nodes {
		n := &r.w.Nodes[i]
		fmt.Fprintf(&b, "- %s (%s", n.Key, n.Type)
		if n.Type == workflow.TypeTool {
			fmt.Fprintf(&b, ", tool %s", n.Params.Tool)
		}
		b.WriteString(")")
		if n.Name != "" {
			fmt.Fprintf(&b, ": %s", n.Name)
		}
		b.WriteByte('\n')
		if b.Len() > maxCriticPlan {
			break
		}
	}
	return b.String()
}

// resultsText renders what the steps did (redacted: it goes to the
// model's provider), or only the step's own outputs for a step's check.
func (r *run) resultsText(n *workflow.Node, self map[string]any) string {
	if n != nil {
		return r.red.String(fmt.Sprintf("%s: %s", n.Key, outputSummary(self, maxCriticResults-200)))
	}
	details := r.details
	if r.fw != nil {
		details = r.fw.Details()
	}
	var b strings.Builder
	for _, st := range details {
		nd := r.g.ByID[st.ID]
		if nd == nil {
			continue
		}
		outs, _ := r.vars[nd.Key].(map[string]any)
		fmt.Fprintf(&b, "- %s: %s\n  %s\n", nd.Key, st.Result, outputSummary(outs, 1500))
		if b.Len() > maxCriticResults {
			break
		}
	}
	if b.Len() == 0 {
		return "No step ran."
	}
	return r.red.String(b.String())
}

func (r *run) emitVerdict(n *workflow.Node, v *Verdict) {
	e := Event{Type: EvVerdict, Verdict: v, NodeKey: goalCheckKey, NodeName: goalCheckNode().Name, Message: v.Line()}
	if n != nil {
		e.NodeID, e.NodeKey, e.NodeName = n.ID, n.Key, n.Name
	}
	r.log.emit(e)
}

// checkStep checks a step's done_when after it succeeded; a non-nil error
// fails the attempt (rejected when the check ran and said no).
func (r *run) checkStep(ctx context.Context, n *workflow.Node, out map[string]any) (*Verdict, error) {
	v, err := r.judge(ctx, n.DoneWhen, n, out)
	if err != nil {
		return nil, err
	}
	r.emitVerdict(n, v)
	if !v.Approved {
		return v, &rejectedError{"done_when not met: " + v.Feedback}
	}
	return v, nil
}
