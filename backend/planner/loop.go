package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// loop is the state of one PlanWorkflow call: the conversation so far, what each
// attempt gave, and what it cost.
type loop struct {
	client   llm.Client
	goal     string
	schema   *llm.Schema
	cfg      Config
	log      *slog.Logger
	calls    int  // model calls allowed
	validate bool // false when MaxRepairAttempts is 0

	msgs     []llm.Message
	res      Result
	outcomes []*outcome
	used     int // tokens spent, as reported (estimated when the server reports none)
	lastCost int // tokens of the last call
	// first is the first user turn; "" means GoalPrompt(goal). Replanning
	// sets it (replan.go), and the rest of the loop is the same.
	first string
	// adopt, when set, makes a reply's workflow into the version the
	// person will see (a replan keeps the old ids), for Config.Check.
	adopt func(*workflow.Workflow) *workflow.Workflow
}

func newLoop(client llm.Client, goal string, cfg Config) *loop {
	if cfg.Catalog == nil {
		cfg.Catalog = tools.Builtin()
	}
	if cfg.TokenBudget <= 0 {
		cfg.TokenBudget = DefaultTokenBudget
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	return &loop{
		client:   client,
		goal:     goal,
		cfg:      cfg,
		log:      log,
		calls:    reask.Calls(cfg.MaxRepairAttempts),
		validate: reask.Validates(cfg.MaxRepairAttempts),
	}
}

func (l *loop) emit(e Event) {
	if l.cfg.OnProgress != nil {
		l.cfg.OnProgress(e)
	}
}

func (l *loop) run(ctx context.Context) (Result, error) {
	var mistakes []Mistake
	if l.cfg.Memory != nil {
		ms, err := l.cfg.Memory.Mistakes(l.cfg.Model, maxMistakes)
		if err != nil {
			l.log.Warn("repair memory unreadable; planning without it", "error", err)
		}
		mistakes = ms
	}
	first := l.first
	if first == "" {
		first = GoalPromptFor(l.goal, l.cfg.Catalog)
	}
	l.msgs = []llm.Message{
		// The known failure patterns come from the runner's learning (replan_patterns.go).
		{Role: llm.RoleSystem, Content: SystemPrompt(l.cfg.Catalog, l.cfg.Features, mistakes) + l.knownPatterns()},
		{Role: llm.RoleUser, Content: first},
	}

	run, err := reask.Ask(ctx, l.client, l.msgs, reask.Config{MaxRepairAttempts: l.cfg.MaxRepairAttempts, Options: l.chatOptions(),
		OnCall: func(n, max int, reason string) {
			if reason != "" {
				l.emit(Event{Kind: EventRepairing, Attempt: n, Max: max, Reason: reason})
			}
			l.emit(Event{Kind: EventCalling, Attempt: n, Max: max})
		},
		Stop: func(_ *reask.Run, _ llm.Reply, feedback string) string { return l.overBudget(feedback) },
	}, func(n int, reply llm.Reply, sent []llm.Message) reask.Verdict {
		l.account(reply, sent)
		o := l.evaluate(ctx, n, reply)
		checked := l.check(ctx, o)
		l.outcomes = append(l.outcomes, o)
		l.res.Attempts = append(l.res.Attempts, Attempt{N: n, Error: o.errorText()})
		l.log.Debug("plan attempt", "attempt", n, "max", l.calls, "ok", o.ok(), "error", o.errorText(),
			"warnings", len(o.warnings), "tokens", l.lastCost)
		if fb := checked.Feedback; fb != nil {
			fb.Answer = "Reply with the complete corrected plan as one JSON object and nothing else."
			return reask.Verdict{Reason: checked.Reason, Feedback: fb}
		}
		if o.ok() {
			return reask.Verdict{OK: true}
		}
		return reask.Verdict{Reason: o.reason(), Feedback: reaskFeedback(o, n, n+1 == l.calls)}
	})
	if err != nil {
		return l.fail(ctx, err)
	}
	stop := run.Stopped
	l.finish(stop)
	l.remember()
	l.emit(Event{Kind: EventDone, Attempt: len(l.outcomes), Max: l.calls, Valid: l.res.Valid, Reason: l.res.Summary})
	return l.res, nil
}

// check plays the test cases (Config.Check) against a reply that is
// usable as it is; what it found stays with the outcome.
func (l *loop) check(ctx context.Context, o *outcome) reask.Checked {
	if l.cfg.Check == nil || !o.ok() { // unvalidated (max_repair_attempts 0): the check validates first
		return reask.Checked{}
	}
	wf := o.wf
	if l.adopt != nil {
		wf = l.adopt(wf)
	}
	c := l.cfg.Check(ctx, wf)
	o.tests = c.Tests
	if c.Feedback != nil {
		o.testError = c.Reason
	}
	return c
}

// fail ends the plan on a transport, configuration or cancellation error.
// The failed call is not an attempt: nothing the model wrote was judged.
func (l *loop) fail(ctx context.Context, err error) (Result, error) {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w: %w", ctxErr, err)
		}
		err = fmt.Errorf("planning canceled: %w", err)
	} else {
		err = fmt.Errorf("plan: %w", err)
	}
	l.res.Summary = err.Error()
	l.emit(Event{Kind: EventDone, Attempt: len(l.outcomes), Max: l.calls, Reason: l.res.Summary})
	return l.res, err
}

// account adds a call's tokens to the totals. Servers that report no usage
// are charged an estimate, so the budget still holds.
func (l *loop) account(r llm.Reply, sent []llm.Message) {
	l.res.LLMCalls++
	u := r.Usage
	l.res.Usage.PromptTokens += u.PromptTokens
	l.res.Usage.CompletionTokens += u.CompletionTokens
	l.res.Usage.TotalTokens += u.TotalTokens
	cost := u.TotalTokens
	if cost == 0 {
		cost = u.PromptTokens + u.CompletionTokens
	}
	if cost == 0 {
		cost = estimateTokens(sent...) + estimateTokens(llm.Message{Content: r.Text})
	}
	l.used += cost
	l.lastCost = cost
}

// overBudget says why no re-ask may be sent: the budget is spent, or the
// next call (the whole conversation again, plus the reply and feedback)
// would overrun it.
func (l *loop) overBudget(feedback string) string {
	next := l.lastCost + estimateTokens(llm.Message{Content: feedback})
	if budget := l.cfg.TokenBudget; l.used+next > budget {
		return fmt.Sprintf("stopped re-asking: the token budget of %d is spent (%d used in %d call(s); a re-ask would need about %d more)",
			budget, l.used, l.res.LLMCalls, next)
	}
	return ""
}

// estimateTokens approximates a token count as one per four bytes, the
// usual rule of thumb for English and JSON.
func estimateTokens(msgs ...llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)/4 + 4
	}
	return n
}

// evaluate runs the local pipeline on one reply: truncation check, then
// ParseOutput, then validation.
func (l *loop) evaluate(ctx context.Context, n int, r llm.Reply) *outcome {
	o := &outcome{attempt: n, text: r.Text}
	if r.FinishReason == "length" {
		// A cut-off reply could be closed by the repair stage and look
		// fine while missing its end; never use it as it is.
		o.truncated = true
		return o
	}
	wf, warnings, unused, err := ReadReply(ctx, r.Text, ParseOptions{Features: l.cfg.Features, Catalog: l.cfg.Catalog})
	o.warnings, o.unused = warnings, unused
	if err != nil {
		var se *StageError
		if !errors.As(err, &se) {
			se = &StageError{Stage: StageDecode, Msg: err.Error()}
		}
		o.stageErr = se
		return o
	}
	o.wf = wf
	if l.validate {
		vr := validate.Validate(wf, l.cfg.Catalog)
		o.problems = StrictTools(vr.Problems, wf, l.cfg.Catalog, nil)
		o.errors = nil
		for _, p := range o.problems {
			if p.Severity == validate.SeverityError {
				o.errors = append(o.errors, p)
			}
		}
		if !vr.Valid && len(o.errors) == 0 {
			// Defensive: never present as valid what validate rejected.
			o.errors = []validate.Problem{{Code: "invalid", Severity: validate.SeverityError, Message: "the workflow is invalid"}}
		}
	}
	return o
}

// finish fills the result from the successful attempt or, failing that,
// the best draft.
func (l *loop) finish(stop string) {
	l.res.Validated = l.validate
	var chosen *outcome
	last := l.outcomes[len(l.outcomes)-1]
	if last.ok() {
		chosen = last
	} else {
		chosen = l.best()
	}
	if chosen != nil {
		// A plan that left steps of its reply out may still be valid:
		// it says so in Unused, and the doors ask before using it.
		l.res.Valid = chosen.valid()
		l.res.Workflow = chosen.wf
		l.res.Warnings = chosen.warnings
		l.res.Problems = chosen.problems
		l.res.Unused = chosen.unused
		l.res.Tests = chosen.tests
		if strings.TrimSpace(chosen.wf.Name) == "" {
			chosen.wf.Name = nameFromGoal(l.goal)
		}
		if chosen.wf.Goal == "" {
			chosen.wf.Goal = l.goal // what the done_when critic judges against
		}
		// Every step is the model's until a person approves it (package
		// approval): whatever the reply said about provenance.
		approval.MarkAll(chosen.wf, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan, Model: l.cfg.Model})
	}
	l.res.Summary = l.summary(chosen, stop)
}

// best returns the draft with the fewest validation errors, then the
// fewest steps of its reply left out (the earliest of equals, which keeps
// most of the goal: later attempts drift towards the simplified plan);
// nil when no reply could be parsed.
func (l *loop) best() *outcome {
	var b *outcome
	for _, o := range l.outcomes {
		if o.wf == nil {
			continue
		}
		if b == nil || len(o.errors) < len(b.errors) ||
			len(o.errors) == len(b.errors) && len(o.unused.Steps) < len(b.unused.Steps) {
			b = o
		}
	}
	return b
}

func (l *loop) summary(chosen *outcome, stop string) string {
	calls := plural(l.res.LLMCalls, "call", "calls")
	if l.res.Valid && chosen.unused.Dropped() {
		return fmt.Sprintf("plan with %s after %s, but %s: not used unless you accept that",
			plural(len(chosen.wf.Nodes), "step", "steps"), calls, chosen.unused.Summary())
	}
	if l.res.Valid {
		steps := plural(len(chosen.wf.Nodes), "step", "steps")
		switch {
		case !l.validate:
			return fmt.Sprintf("plan with %s parsed after %s; not validated (max_repair_attempts is 0)", steps, calls)
		case l.res.LLMCalls == 1:
			return fmt.Sprintf("valid plan with %s on the first call", steps)
		}
		return fmt.Sprintf("valid plan with %s after %s (%s)", steps, calls, plural(l.res.LLMCalls-1, "re-ask", "re-asks"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "no valid plan after %s", calls)
	if stop != "" {
		fmt.Fprintf(&b, " (%s)", stop)
	}
	if chosen == nil {
		fmt.Fprintf(&b, "; no reply could be used; the last failed with: %s", l.outcomes[len(l.outcomes)-1].errorText())
		return b.String()
	}
	fmt.Fprintf(&b, "; the best draft (attempt %d) is INVALID with %s", chosen.attempt,
		plural(len(chosen.errors), "error", "errors"))
	if len(chosen.errors) > 0 {
		fmt.Fprintf(&b, ", first: %s", chosen.errors[0].Message)
	}
	return b.String()
}

// maxNameRunes bounds a workflow name taken from the goal.
const maxNameRunes = 60

// nameFromGoal names a plan the model left unnamed: the goal's first line,
// shortened.
func nameFromGoal(goal string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(goal), "\n")
	r := []rune(strings.Join(strings.Fields(line), " "))
	if len(r) > maxNameRunes {
		return strings.TrimSpace(string(r[:maxNameRunes-1])) + "…"
	}
	return string(r)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// remember appends this plan to the repair memory. A memory that cannot be
// written costs the hints of later plans, not this plan.
func (l *loop) remember() {
	if l.cfg.Memory == nil {
		return
	}
	rec := Record{
		Model:    l.cfg.Model,
		Attempts: len(l.outcomes),
		LLMCalls: l.res.LLMCalls,
		Valid:    l.res.Valid,
	}
	seenF, seenR := map[string]bool{}, map[string]bool{}
	for _, o := range l.outcomes {
		for _, c := range o.failureClasses() {
			if !seenF[c] {
				seenF[c] = true
				rec.Failures = append(rec.Failures, c)
			}
		}
		for _, w := range o.warnings {
			if w.Stage != StageLayout && !seenR[w.Stage] {
				seenR[w.Stage] = true
				rec.Repairs = append(rec.Repairs, w.Stage)
			}
		}
	}
	if err := l.cfg.Memory.Append(rec); err != nil {
		l.log.Warn("could not record the plan in the repair memory", "error", err)
	}
}

// outcome is what became of one reply.
type outcome struct {
	attempt   int
	text      string
	truncated bool
	stageErr  *StageError
	wf        *workflow.Workflow
	warnings  []Warning
	problems  []validate.Problem // all, errors and warnings
	errors    []validate.Problem // error severity only
	unused    Unused             // what the reading left out of the reply
	// tests are the test cases played against it (Config.Check);
	// testError says why they made it unusable.
	tests     *reask.Tests
	testError string
}

// valid: the reply was read and passed validation.
func (o *outcome) valid() bool { return !o.truncated && o.stageErr == nil && len(o.errors) == 0 }

// ok: valid, and nothing that looks like a step was left out.
func (o *outcome) ok() bool { return o.valid() && !o.unused.Dropped() }

// reason is the short form of errorText, for progress events.
func (o *outcome) reason() string {
	switch {
	case o.truncated:
		return "the reply was cut off at the length limit"
	case o.stageErr != nil:
		return stageLabel(o.stageErr.Stage) + " failed"
	case len(o.errors) > 0:
		return plural(len(o.errors), "validation error", "validation errors")
	case o.unused.Dropped():
		return plural(len(o.unused.Steps), "step", "steps") + " of the reply left out"
	}
	return ""
}

// errorText says why the reply was unusable, for Attempt.Error.
func (o *outcome) errorText() string {
	switch {
	case o.truncated:
		return `reply cut off at the length limit (finish_reason "length"); not used`
	case o.stageErr != nil:
		return o.stageErr.Error()
	case len(o.errors) > 0:
		var b strings.Builder
		b.WriteString(plural(len(o.errors), "validation error", "validation errors"))
		b.WriteString(": ")
		for i, p := range o.errors {
			if i == 3 {
				fmt.Fprintf(&b, "; and %d more", len(o.errors)-3)
				break
			}
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "%s [%s]", p.Message, p.Code)
		}
		return b.String()
	case o.unused.Dropped():
		return o.unused.Summary()
	case o.testError != "":
		return "under the workflow's test cases: " + o.testError
	}
	return ""
}

// failureClasses are the memory's names for what went wrong:
// "stage:<stage>" for a reply that could not be used at all,
// "problem:<code>" for each validation error.
func (o *outcome) failureClasses() []string {
	switch {
	case o.truncated:
		return []string{"stage:" + StageTruncation}
	case o.stageErr != nil:
		return []string{"stage:" + o.stageErr.Stage}
	}
	var out []string
	for _, p := range o.errors {
		out = append(out, "problem:"+p.Code)
	}
	if o.unused.Dropped() {
		out = append(out, "stage:"+StageUnused)
	}
	return out
}

// chatOptions are the configured options with the plan's schema, so a
// server that can enforce the shape does (layer 0).
func (l *loop) chatOptions() llm.Options {
	opts := l.cfg.ChatOptions
	if opts.Schema == nil {
		if l.schema == nil {
			l.schema = PlanSchema(l.cfg.Catalog, l.cfg.Features)
		}
		opts.Schema = l.schema
	}
	return opts
}
