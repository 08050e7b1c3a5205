package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// recover decides what happens after a node's automated recovery is
// exhausted (or cannot help): an automatic replan, else an escalation to
// the handler, else the run fails. It returns either a response to act on
// (retry, fix, skip) or a Result that ends the run.
//
// choices are the answers offered (replan is added when possible).
func (r *run) recover(ctx context.Context, n *workflow.Node, failures []failure.Record, attempt, maxA int, reason string, outputs map[string]any, choices []Action) (Response, *Result) {
	last := failures[len(failures)-1]
	notice := ""
	auto, limited := r.mayAutoReplan(last) // autoreplan.go: setting, severity and limits
	if limited != "" {
		notice = limited
		r.warn(n, notice)
	}
	if auto {
		r.log.retryf(n.Key, "auto_replan severity=%s category=%s", last.Severity, last.Category)
		res, err := r.replan(ctx, n, failures, true)
		if err == nil {
			return Response{}, res
		}
		if ctx.Err() != nil {
			return Response{}, &Result{Outcome: OutcomeCanceled, Error: "canceled while replanning", StoppedAt: ref(n)}
		}
		notice = "automatic replanning failed: " + err.Error()
		r.warn(n, notice)
	}
	if r.opts.Escalation == nil {
		msg := fmt.Sprintf("%s failed after %d attempt(s): %s", n.Label(), attempt, last.Error)
		if reason == "not_retryable" {
			msg = fmt.Sprintf("%s failed with a %s error that retrying cannot fix: %s", n.Label(), last.Category, last.Error)
		}
		r.log.retryf(n.Key, "escalating reason=%q handler=none", reason)
		return Response{}, &Result{Outcome: OutcomeFailed, Error: msg, StoppedAt: ref(n)}
	}

	e := Escalation{RunID: r.id, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, NodeType: n.Type, Reason: reason,
		Attempts: attempt, MaxAttempts: maxA, Failures: failures, LastError: last.Error, Classification: last.Classification,
		KnownFixes: r.knownFixes(toolName(n), last), Notice: notice, CanReplan: r.opts.Replanner != nil,
		Choices: append([]Action(nil), choices...)}
	if n.Type == workflow.TypeTool {
		e.Tool = n.Params.Tool
	}
	if e.CanReplan {
		e.Choices = append(e.Choices, ActReplan)
	}
	for refusals := 0; ; refusals++ {
		shown := redactEscalation(r.red, e) // the handler shows it as the event does
		r.log.emit(Event{Type: EvEscalated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusEscalated, Attempt: attempt, MaxAttempts: maxA, Escalation: &shown, Message: shown.Notice})
		r.log.retryf(n.Key, "escalating reason=%q attempts=%d", reason, attempt)
		resp, err := r.opts.Escalation.Escalate(ctx, shown)
		if err != nil || ctx.Err() != nil {
			msg := "canceled while waiting for an answer about " + n.Label()
			if ctx.Err() == nil {
				msg = "the escalation handler failed: " + err.Error()
				return Response{}, &Result{Outcome: OutcomeAborted, Error: msg, StoppedAt: ref(n)}
			}
			return Response{}, &Result{Outcome: OutcomeCanceled, Error: msg, StoppedAt: ref(n)}
		}
		r.log.emit(Event{Type: EvUserResponse, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Response: &resp})
		r.log.retryf(n.Key, "user_response=%q", describeResponse(resp))

		refuse := func(msg string) {
			e.Notice = msg
			r.warn(n, msg)
		}
		if resp.Action != ActReplan && resp.Action != ActAbort && !slices.Contains(choices, resp.Action) {
			refuse(fmt.Sprintf("%q is not one of the answers here: %s", resp.Action, actionList(e.Choices)))
			resp.Action = ""
		}
		switch resp.Action {
		case "":
		case ActRetry, ActSkip:
			return resp, nil
		case ActAbort:
			return resp, &Result{Outcome: OutcomeAborted, Error: fmt.Sprintf("aborted at %s after %d failed attempt(s): %s", n.Label(), attempt, last.Error), StoppedAt: ref(n)}
		case ActFix:
			if n.Type == workflow.TypeTool && resp.Arguments == nil {
				var args map[string]any
				if json.Unmarshal([]byte(strings.TrimSpace(resp.Instruction)), &args) == nil && args != nil {
					resp.Arguments = args
				}
			}
			switch {
			case n.Type == workflow.TypeTool && len(resp.Arguments) == 0:
				refuse(fmt.Sprintf("a fix for the Tool node %s is a JSON object merged into its arguments, such as {\"path\": \"notes.txt\"}; %q is not one", n.Label(), truncate(resp.Instruction, 80)))
			case n.Type != workflow.TypeTool && strings.TrimSpace(resp.Instruction) == "" && len(resp.Arguments) == 0:
				refuse("a fix needs an instruction for the AI step")
			default:
				if n.Type != workflow.TypeTool && strings.TrimSpace(resp.Instruction) == "" {
					resp.Instruction = string(must(json.Marshal(resp.Arguments)))
				}
				return resp, nil
			}
		case ActReplan:
			if r.opts.Replanner == nil {
				refuse("replanning is not available: no planner is configured for this run; answer retry, skip, abort or fix")
				break
			}
			res, err := r.replan(ctx, n, failures, false)
			if err == nil {
				return resp, res
			}
			if ctx.Err() != nil {
				return Response{}, &Result{Outcome: OutcomeCanceled, Error: "canceled while replanning", StoppedAt: ref(n)}
			}
			refuse("replanning failed: " + err.Error())
		default:
			refuse(fmt.Sprintf("%q is not a response the runner knows; answer retry, skip, abort, fix or replan", resp.Action))
		}
		if refusals+1 >= maxRefusals {
			return resp, &Result{Outcome: OutcomeAborted, Error: fmt.Sprintf("aborted at %s: %d answers could not be acted on (last: %s)", n.Label(), maxRefusals, e.Notice), StoppedAt: ref(n)}
		}
	}
}

func actionList(as []Action) string {
	var s []string
	for _, a := range as {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

func describeResponse(resp Response) string {
	switch {
	case len(resp.Arguments) > 0:
		return fmt.Sprintf("%s %s", resp.Action, truncate(string(must(json.Marshal(resp.Arguments))), 200))
	case resp.Instruction != "":
		return fmt.Sprintf("%s: %s", resp.Action, truncate(resp.Instruction, 200))
	}
	return string(resp.Action)
}

// replan asks the Replanner for a new workflow; the run ends with
// OutcomeReplanned and the caller decides whether to run it.
func (r *run) replan(ctx context.Context, n *workflow.Node, failures []failure.Record, auto bool) (*Result, error) {
	outs := make(map[string]any, len(r.set))
	for k := range r.set {
		outs[k] = r.vars[k]
	}
	// The planner sends this to the model's provider: outputs are
	// redacted (failures already are). The workflow is left whole, or a
	// replan could not keep its credentials.
	if m, ok := r.red.Value(outs).(map[string]any); ok {
		outs = m
	}
	req := failure.ReplanRequest{Workflow: r.w.Clone(), FailedNode: *n, Failures: failures, Outputs: outs,
		Completed: append([]string(nil), r.completed...), Patterns: r.learnings(toolName(n), 5), Auto: auto}
	if n.ID == "" && n.Key == goalCheckKey && r.verdict != nil {
		v := r.verdict
		req.Critique = &failure.Critique{Condition: v.Condition, Criteria: v.Criteria, Feedback: v.Feedback, Suggestions: v.Suggestions, Confidence: v.Confidence}
	}
	nw, err := r.opts.Replanner.Replan(ctx, req)
	if err != nil {
		return nil, err
	}
	if nw == nil {
		return nil, fmt.Errorf("the planner returned no workflow")
	}
	r.log.retryf(n.Key, "replanned auto=%t nodes=%d", auto, len(nw.Nodes))
	r.replanned(nw, n, failures, auto) // autoreplan.go: mark the version, learn the fix
	return &Result{Outcome: OutcomeReplanned, Error: fmt.Sprintf("%s failed; a new plan was made", n.Label()), StoppedAt: ref(n), Replanned: nw}, nil
}

// learn records what resolved the failures of one execution, once per
// distinct failure signature.
func (r *run) learn(n *workflow.Node, failures []failure.Record, resolution, fix string, attempts int) {
	if r.pats == nil || len(failures) == 0 {
		return
	}
	seen := map[string]bool{}
	for i := len(failures) - 1; i >= 0; i-- {
		f := failures[i]
		sig := failure.Signature(f.Error)
		if seen[sig] {
			continue
		}
		seen[sig] = true
		p := failure.Pattern{Time: r.opts.Now(), Tool: toolName(n), Category: f.Category, FailureType: f.FailureType,
			Signature: sig, Error: f.Error, Resolution: resolution, Fix: r.red.String(fix), Attempts: attempts}
		if err := r.pats.Record(p); err != nil {
			r.warn(n, "could not record the failure pattern: "+err.Error())
			return
		}
	}
}

// learnings are the patterns recorded for a tool, for retry contexts and
// the planner.
func (r *run) learnings(tool string, limit int) []failure.Pattern {
	if r.pats == nil {
		return nil
	}
	ps, err := r.pats.Relevant(tool, limit)
	if err != nil {
		return nil
	}
	return ps
}

// knownFixes are the learnings that match the failure (same signature
// first, then same category).
func (r *run) knownFixes(tool string, f failure.Record) []failure.Pattern {
	all := r.learnings(tool, 0)
	sig := failure.Signature(f.Error)
	var same, related []failure.Pattern
	for _, p := range all {
		switch {
		case p.Signature == sig:
			same = append(same, p)
		case p.Category == f.Category:
			related = append(related, p)
		}
	}
	out := append(same, related...)
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
