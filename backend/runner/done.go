package runner

import (
	"context"
	"errors"
	"fmt"
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

// goalCheckKey names the workflow's goal check in events and escalations;
// it is not a valid node key ("done_when" is, so the dot keeps them apart).
const goalCheckKey = "done_when"

// goalCheckNode stands for the workflow's done_when where the runner
// speaks of a node (events, escalation, replan request). Its id is empty:
// it is on no canvas.
func goalCheckNode() *workflow.Node {
	return &workflow.Node{Key: goalCheckKey, Name: "Goal check (done_when)", Type: workflow.NodeType("DoneWhen")}
}

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
	var b strings.Builder
	for _, id := range r.order {
		st := r.stats[id]
		nd := r.g.byID[id]
		if st == nil || nd == nil {
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

// Line is the one-line form of a verdict, for logs and the CLI.
func (v *Verdict) Line() string {
	state := "met"
	if !v.Approved {
		state = "not met"
		if v.Accepted {
			state = "not met, accepted"
		}
	}
	s := fmt.Sprintf("goal check %s (%s", state, v.CheckedBy)
	if strings.Contains(v.CheckedBy, "model") {
		s += fmt.Sprintf(", %.0f%% confident", v.Confidence*100)
	}
	s += ")"
	if v.Feedback != "" {
		s += ": " + truncate(v.Feedback, 300)
	}
	return s
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

// checkDone checks the workflow's done_when once every step ran. A
// rejection escalates (retry the check, accept it, abort, replan with the
// critic's feedback); without anyone to ask the run fails. A nil Result
// lets the run finish (r.verdict says how the check went).
func (r *run) checkDone(ctx context.Context) *Result {
	d := r.w.DoneWhen
	if d.IsZero() {
		return nil
	}
	n := goalCheckNode()
	var failures []failure.Record
	for attempt := 1; ; attempt++ {
		start := r.opts.Now()
		v, err := r.judge(ctx, d, nil, nil)
		if ctx.Err() != nil {
			return &Result{Outcome: OutcomeCanceled, Error: "canceled during the goal check", StoppedAt: ref(n)}
		}
		if v != nil {
			r.verdict = v
			r.emitVerdict(nil, v)
			if v.Approved {
				return nil
			}
		}
		fr := failure.Record{Attempt: attempt, Time: start, DurationMs: r.opts.Now().Sub(start).Milliseconds()}
		if err != nil {
			fr.FailureType, fr.Error = failure.FailExecution, r.red.String(err.Error())
			fr.Classification = Classify(failure.FailExecution, err, nil, false)
		} else {
			fr.FailureType = failure.FailRejected
			fr.Error = "the run's result does not meet its done_when: " + v.Feedback
			fr.Classification = failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true,
				SuggestedFix: strings.Join(v.Suggestions, "; ")}
			if fr.SuggestedFix == "" {
				fr.SuggestedFix = "Change the workflow so that the criteria hold, or replan with this feedback."
			}
		}
		failures = append(failures, fr)
		r.summary.FailureTypes[fr.FailureType]++
		r.summary.Categories[fr.Category]++
		r.log.emit(Event{Type: EvFailure, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Failure: &fr})
		reason := "not_retryable"
		resp, res := r.recover(ctx, n, failures, attempt, attempt, reason, nil, []Action{ActRetry, ActSkip, ActAbort})
		if res != nil {
			if res.Outcome != OutcomeCanceled {
				r.summary.Failed++
			}
			res.Verdict = r.verdict
			return res
		}
		if resp.Action == ActSkip {
			if r.verdict == nil {
				r.verdict = &Verdict{Condition: d.Condition, Criteria: d.Criteria, CheckedBy: "unchecked", Feedback: fr.Error}
			}
			r.verdict.Accepted = true
			r.emitVerdict(nil, r.verdict)
			return nil
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return &Result{Outcome: OutcomeCanceled, Error: "canceled during the goal check", StoppedAt: ref(n)}
		}
	}
}
