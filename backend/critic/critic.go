// Package critic asks the model whether a run reached its goal (seed 002's
// critic): given the goal, the done_when criteria, the plan and the step
// results, it returns a verdict with the model's confidence, feedback and
// suggested fixes. The reply goes through the same layers as every model
// reply (extract, local repair, lenient decoding, then re-asking with what
// was wrong), bounded by max_repair_attempts.
package critic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
)

// Bounds of what the critic is shown: the model's context is finite and
// the run's outputs are not.
const (
	MaxGoal     = 4000
	MaxCriteria = 4000
	MaxPlan     = 8000
	MaxResults  = 16000
	// MaxFeedback and MaxSuggestions bound what is kept of the reply.
	MaxFeedback    = 2000
	MaxSuggestions = 8
)

// Input is what the critic judges; each part is cut to its bound.
type Input = failure.CriticInput

// Verdict is the critic's answer.
type Verdict = failure.CriticVerdict

// Critic implements failure.Critic with a model.
type Critic struct {
	Client llm.Client
	// MaxRepairs is the setting max_repair_attempts: up to that many
	// calls in all (reask.Calls).
	MaxRepairs int
}

// Check asks the model for a verdict.
func (c *Critic) Check(ctx context.Context, in Input) (Verdict, error) {
	return Check(ctx, c.Client, in, c.MaxRepairs)
}

// ErrNoVerdict is a reply the critic could not read after every attempt.
var ErrNoVerdict = errors.New("the model gave no usable verdict")

const system = `You check whether an automation run reached its goal. You are strict and concrete: approve only when the results show that the criteria hold; when they do not, or the results do not show it, reject.

Reply with one JSON object and nothing else:
{"approved": true or false, "confidence": a number from 0 to 1, "feedback": "what holds or what is missing, citing the results", "suggestions": ["a concrete change to the workflow that would make the criteria hold", ...]}`

// VerdictSchema is the shape of the critic's reply, for servers that can
// enforce it.
var VerdictSchema = &llm.Schema{Name: "weft_verdict", JSON: []byte(`{"type":"object","required":["approved","confidence","feedback","suggestions"],"additionalProperties":false,"properties":{"approved":{"type":"boolean"},"confidence":{"type":"number","minimum":0,"maximum":1},"feedback":{"type":"string"},"suggestions":{"type":"array","items":{"type":"string"}}}}`)}

// Check asks client for a verdict, in the one re-ask loop (package
// reask): up to max_repair_attempts calls in all (at least one), each
// reply read leniently, the unusable ones asked again with why.
func Check(ctx context.Context, client llm.Client, in Input, maxRepairAttempts int) (Verdict, error) {
	if client == nil {
		return Verdict{}, errors.New("checking done_when criteria needs a model: set one up in Preferences → Model (or weft settings set llm.model …)")
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: Prompt(in)}}
	var repairs []string
	var got *Verdict
	var lastErr error
	run, err := reask.Ask(ctx, client, msgs, reask.Config{MaxRepairAttempts: maxRepairAttempts, Options: llm.Options{Schema: VerdictSchema}},
		func(attempt int, reply llm.Reply, _ []llm.Message) reask.Verdict {
			v, notes, err := Decode(reply.Text)
			repairs = append(repairs, notes...)
			if err == nil {
				got = &v
				return reask.Verdict{OK: true}
			}
			lastErr = err
			repairs = append(repairs, fmt.Sprintf("reply %d: %v", attempt, err))
			return reask.Verdict{Reason: err.Error(), Feedback: &reask.Feedback{Failure: err.Error() + ".", Fixes: notes,
				Answer: `Reply again with only the JSON object {"approved": …, "confidence": …, "feedback": …, "suggestions": […]}.`}}
		})
	if err != nil {
		return Verdict{}, fmt.Errorf("asking the model to check the goal: %w", err)
	}
	if got != nil {
		got.Repairs = repairs
		return *got, nil
	}
	return Verdict{Repairs: repairs}, fmt.Errorf("%w after %d replies: %v", ErrNoVerdict, run.Calls, lastErr)
}

// Prompt renders the user turn, each part within its bound.
func Prompt(in Input) string {
	var b strings.Builder
	goal := strings.TrimSpace(in.Goal)
	if goal == "" {
		goal = "(not stated; judge by the criteria)"
	}
	fmt.Fprintf(&b, "# Goal\n\n%s\n\n# Criteria (done when)\n\n%s\n\n# Plan\n\n%s\n\n# Step results\n\n%s\n\nDoes the run meet the criteria? Reply with the JSON object only.",
		clip(goal, MaxGoal), clip(strings.TrimSpace(in.Criteria), MaxCriteria), clip(in.Plan, MaxPlan), clip(in.Results, MaxResults))
	return b.String()
}

// Decode reads a verdict from a reply: it finds the JSON (prose, fences,
// <think> blocks), repairs it locally, and accepts the shapes models
// write ("approved": "yes", "verdict": "rejected", "confidence": "80%",
// "suggestions": "one string"). It returns notes on what it fixed.
func Decode(text string) (Verdict, []string, error) {
	var notes []string
	raw, warns, err := planner.ExtractJSON(text)
	for _, w := range warns {
		notes = append(notes, w.String())
	}
	if err != nil {
		return Verdict{}, notes, fmt.Errorf("no JSON object in the reply")
	}
	fixed, warns, err := planner.RepairJSON(raw)
	for _, w := range warns {
		notes = append(notes, w.String())
	}
	if err != nil {
		return Verdict{}, notes, fmt.Errorf("the JSON could not be repaired: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(fixed), &m); err != nil || m == nil {
		return Verdict{}, notes, fmt.Errorf("the reply is not a JSON object")
	}
	var v Verdict
	approved, ok := readApproved(m)
	if !ok {
		return Verdict{}, notes, fmt.Errorf(`the reply has no "approved": true or false`)
	}
	v.Approved = approved
	v.Confidence, ok = readConfidence(m["confidence"])
	if !ok {
		notes = append(notes, "decode: no usable confidence; taken as 0.5")
		v.Confidence = 0.5
	}
	v.Feedback = clip(strings.TrimSpace(str(first(m, "feedback", "reason", "reasoning", "explanation"))), MaxFeedback)
	v.Suggestions = readSuggestions(first(m, "suggestions", "suggested_fixes", "fixes"))
	if !v.Approved && v.Feedback == "" {
		v.Feedback = "The model rejected the result without saying why."
	}
	return v, notes, nil
}

func first(m map[string]any, names ...string) any {
	for _, n := range names {
		if v, ok := m[n]; ok && v != nil {
			return v
		}
	}
	return nil
}

func readApproved(m map[string]any) (bool, bool) {
	switch t := first(m, "approved", "approve", "met", "done", "passed").(type) {
	case bool:
		return t, true
	case string:
		return wordBool(t)
	}
	if s, ok := first(m, "verdict", "decision", "result").(string); ok {
		return wordBool(s)
	}
	return false, false
}

func wordBool(s string) (bool, bool) {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(s), ".!\"'")) {
	case "true", "yes", "approved", "approve", "met", "pass", "passed", "done", "accept", "accepted":
		return true, true
	case "false", "no", "rejected", "reject", "not met", "fail", "failed", "not done", "denied":
		return false, true
	}
	return false, false
}

func readConfidence(v any) (float64, bool) {
	var f float64
	switch t := v.(type) {
	case float64:
		f = t
	case string:
		s := strings.TrimSpace(t)
		pct := strings.HasSuffix(s, "%")
		p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil {
			return 0, false
		}
		f = p
		if pct {
			f /= 100
		}
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, false
	}
	if f > 1 && f <= 100 {
		f /= 100 // a percentage
	}
	if f > 1 {
		return 0, false
	}
	return f, true
}

func readSuggestions(v any) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" && len(out) < MaxSuggestions {
			out = append(out, clip(s, 500))
		}
	}
	switch t := v.(type) {
	case string:
		add(t)
	case []any:
		for _, x := range t {
			add(str(x))
		}
	}
	return out
}

func str(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// clip cuts s to n bytes, saying it did (reask.Clip).
func clip(s string, n int) string { return reask.Clip(s, n) }
