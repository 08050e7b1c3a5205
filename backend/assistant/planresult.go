package assistant

import (
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// PlanResult is a plan the planner made for the empty workflow w, as the
// assistant's answer to message: a patch that adds its steps and edges,
// previewed and described like any change, with the exchange added to
// conv (not modified: Result.Conversation is the copy to save). The
// planner has already repaired and validated the plan; nothing is asked
// again here. A planner that produced no workflow gives a conversation
// reply that says why, not valid.
func PlanResult(w *workflow.Workflow, conv *Conversation, message string, pr planner.Result, now time.Time) *Result {
	if w == nil {
		w = workflow.New("")
	}
	res := &Result{Kind: KindConversation, Message: pr.Summary, Valid: pr.Valid && pr.Workflow != nil, Validated: pr.Validated,
		Problems: pr.Problems, Attempts: len(pr.Attempts), LLMCalls: pr.LLMCalls, Usage: pr.Usage, Tests: pr.Tests,
		Warnings: append([]Warning{}, pr.Warnings...)}
	for _, a := range pr.Attempts {
		if a.Error != "" && a.N < len(pr.Attempts) {
			res.Tries = append(res.Tries, Try{Attempt: a.N, Why: []string{a.Error}})
		}
	}
	if res.Problems == nil {
		res.Problems = []validate.Problem{}
	}
	if pr.Workflow != nil {
		patch := WorkflowPatch{AddedNodes: pr.Workflow.Nodes, AddedEdges: pr.Workflow.Edges}
		merged, ws := MergePatchIntoWorkflow(w, &patch)
		res.Warnings = append(res.Warnings, ws...)
		if !res.Valid {
			for _, p := range pr.Problems {
				if p.Severity == validate.SeverityError {
					wn := Warning{Stage: planner.StageValidate, Message: p.Message + " [" + p.Code + "]"}
					if len(p.NodeIDs) > 0 {
						wn.NodeID = p.NodeIDs[0]
					}
					res.Warnings = append(res.Warnings, wn)
				}
			}
		}
		patch = patch.normalized()
		patch.Warnings = res.Warnings
		d, cs := DiffForPreview(w, merged), DescribeChanges(w, merged)
		res.Kind, res.Patch, res.Workflow, res.Diff, res.Changes = KindPlan, &patch, merged, &d, &cs
	}
	if strings.TrimSpace(res.Message) == "" {
		res.Message = "I could not produce a usable plan."
	}

	c := conv.clone()
	if c.WorkflowID == "" {
		c.WorkflowID = w.ID
	}
	res.Conversation = recordExchange(c, message, res, now)
	return res
}

// recordExchange adds the user's message and the answer res to conv (the
// copy this exchange owns) and returns it.
func recordExchange(conv *Conversation, message string, res *Result, now time.Time) *Conversation {
	conv.Messages = append(conv.Messages, ChatMessage{Role: RoleUser, Content: strings.TrimSpace(message), Time: now})
	am := ChatMessage{Role: RoleAssistant, Content: res.Message, Time: now, Kind: res.Kind, Patch: res.Patch}
	if res.Patch != nil {
		v := res.Valid
		am.Valid = &v
	}
	conv.Messages = append(conv.Messages, am)
	return conv
}

// PlanProgress turns the planner's progress into the assistant's, for a
// door that shows a plan made for a chat as it shows the chat's calls.
func PlanProgress(f func(Progress)) func(planner.Event) {
	if f == nil {
		return nil
	}
	return func(e planner.Event) {
		if e.Kind != planner.EventCalling {
			return
		}
		kind := ProgressThinking
		if e.Attempt > 1 {
			kind = ProgressRepairing
		}
		f(Progress{Kind: kind, Attempt: e.Attempt, Max: e.Max})
	}
}
