package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// chatJSON is what `weft chat --json` prints; slices are never null.
type chatJSON struct {
	Kind      assistant.Kind           `json:"kind"`
	Message   string                   `json:"message"`
	Patch     *assistant.WorkflowPatch `json:"patch"`
	Warnings  []assistant.Warning      `json:"warnings"`
	Valid     bool                     `json:"valid"`
	Validated bool                     `json:"validated"`
	Problems  []validate.Problem       `json:"problems"`
	Attempts  int                      `json:"attempts"`
	LLMCalls  int                      `json:"llm_calls"`
	Applied   bool                     `json:"applied"`
	Error     string                   `json:"error,omitempty"`
}

// chat sends one message to the assistant about a workflow file. The
// conversation is kept beside the file (FILE minus .json, plus .chat.json).
// With --apply a valid patch is written back to the file, atomically.
func (c *cli) chat(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	message := fs.String("message", "", "what to ask or change")
	apply := fs.Bool("apply", false, "write the changed workflow back to FILE when the change is valid")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	usage := "usage: weft chat FILE --message TEXT [--apply] [--json]"
	if err := fs.Parse(interspersed(args, map[string]bool{"message": true})); err != nil {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	if fs.NArg() != 1 || strings.TrimSpace(*message) == "" {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	file := fs.Arg(0)
	var extra []assistant.Warning
	fail := func(code int, err error) int {
		if *asJSON {
			c.writeJSON(chatJSON{Kind: assistant.KindConversation, Warnings: append([]assistant.Warning{}, extra...),
				Problems: []validate.Problem{}, Error: err.Error()})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return code
	}

	st, err := c.store()
	if err != nil {
		return fail(exitUnusable, err)
	}
	s, warnings, err := st.Effective()
	c.printWarnings(warnings)
	if err != nil {
		return fail(exitUnusable, err)
	}
	if strings.TrimSpace(s.LLM.Model) == "" {
		return fail(exitUnusable, errors.New(noModelMsg))
	}
	w, loadWarnings, err := workflow.Load(file)
	if err != nil {
		return fail(exitUnusable, err)
	}
	for _, wn := range loadWarnings {
		c.log.Info("load", "warning", wn)
	}

	chatPath, err := assistant.ChatPath(file, w.ID)
	if err != nil {
		return fail(exitUnusable, err)
	}
	conv, cws, err := assistant.LoadChat(chatPath, w.ID)
	extra = append(extra, cws...)
	saveChat := true
	if err != nil {
		// An unreadable history must not block the question, nor be
		// overwritten by a conversation that forgot it.
		extra = append(extra, assistant.Warning{Stage: assistant.StageHistory, Message: err.Error() + "; the conversation is not saved this time"})
		saveChat = false
	}
	for _, wn := range extra {
		fmt.Fprintf(c.stderr, "weft: %s\n", wn.Message)
	}

	client, err := c.newLLM(s)
	if err != nil {
		return fail(exitUnusable, err)
	}
	cfg := assistant.Config{
		MaxRepairAttempts: s.MaxRepairAttempts,
		Features:          planner.Features{AllowAITransforms: s.Features.AllowAITransforms, AllowAgentSteps: s.Features.AllowAgentSteps},
		Catalog:           c.toolCatalog(ctx, s, w),
		OnProgress:        c.chatProgress,
	}
	res, err := assistant.Chat(ctx, client, assistant.Request{Workflow: w, Message: *message, Conversation: conv}, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitCanceled, errors.New("chat canceled"))
		}
		return fail(exitUnusable, err)
	}
	if saveChat {
		if err := assistant.SaveChat(chatPath, res.Conversation); err != nil {
			extra = append(extra, assistant.Warning{Stage: assistant.StageHistory, Message: err.Error()})
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
		}
	}

	applied := false
	hasChange := res.Patch != nil && !res.Patch.Empty() && res.Workflow != nil
	if *apply && hasChange && res.Valid {
		ok := true
		if !res.Validated {
			// Validation was switched off for the model's replies; the
			// file is still never written invalid.
			vr := validate.Validate(res.Workflow, cfg.Catalog)
			if !vr.Valid {
				ok = false
				res.Valid = false
				res.Problems = vr.Problems
			}
		}
		if ok {
			if err := workflow.Save(file, res.Workflow); err != nil {
				return fail(exitUnusable, err)
			}
			applied = true
		}
	}

	if *asJSON {
		j := chatJSON{Kind: res.Kind, Message: res.Message, Patch: res.Patch, Warnings: append(extra, res.Warnings...),
			Valid: res.Valid, Validated: res.Validated, Problems: res.Problems, Attempts: res.Attempts, LLMCalls: res.LLMCalls, Applied: applied}
		if j.Problems == nil {
			j.Problems = []validate.Problem{}
		}
		c.writeJSON(j)
	} else {
		c.chatReport(res, w, file, *apply, applied, hasChange)
	}
	if !res.Valid {
		return exitInvalid
	}
	return exitOK
}

func (c *cli) chatProgress(p assistant.Progress) {
	switch p.Kind {
	case assistant.ProgressThinking:
		fmt.Fprintf(c.stderr, "weft: asking the model (attempt 1/%d)…\n", p.Max)
	case assistant.ProgressRepairing:
		fmt.Fprintf(c.stderr, "weft: the change is not usable; re-asking with feedback (attempt %d/%d)…\n", p.Attempt, p.Max)
	case assistant.ProgressSummarizing:
		fmt.Fprintln(c.stderr, "weft: summarising the older conversation…")
	}
}

// chatReport prints the reply on stdout and the account of the change
// (what it adds, removes and updates; warnings; verdict) after it.
func (c *cli) chatReport(res *assistant.Result, orig *workflow.Workflow, file string, apply, applied, hasChange bool) {
	fmt.Fprintln(c.stdout, res.Message)
	if !hasChange {
		for _, wn := range res.Warnings {
			fmt.Fprintf(c.stderr, "  %s: %s\n", wn.Stage, wn.Message)
		}
		return
	}
	p, w := res.Patch, res.Workflow
	label := func(id string) string {
		n := w.NodeByID(id)
		if n == nil {
			n = orig.NodeByID(id)
		}
		if n != nil {
			return fmt.Sprintf("'%s' (%s)", n.Label(), n.Key)
		}
		return id
	}
	edge := func(e workflow.Edge) string {
		s := label(e.From) + " → " + label(e.To)
		if e.Output != nil {
			s += " [" + e.Output.String() + "]"
		}
		return s
	}
	fmt.Fprintf(c.stdout, "\nproposed %s:\n", res.Kind)
	for _, n := range p.AddedNodes {
		fmt.Fprintf(c.stdout, "  + node %s\n", label(n.ID))
	}
	for _, n := range p.UpdatedNodes {
		fmt.Fprintf(c.stdout, "  ~ node %s\n", label(n.ID))
	}
	for _, id := range p.RemovedNodeIDs {
		fmt.Fprintf(c.stdout, "  - node %s\n", label(id))
	}
	for _, e := range p.AddedEdges {
		fmt.Fprintf(c.stdout, "  + edge %s\n", edge(e))
	}
	for _, e := range p.RemovedEdges {
		fmt.Fprintf(c.stdout, "  - edge %s\n", edge(e))
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(c.stdout, "warnings:")
		for _, wn := range res.Warnings {
			fmt.Fprintf(c.stdout, "  %s: %s\n", wn.Stage, wn.Message)
		}
	}
	fmt.Fprintf(c.stdout, "%d LLM call(s)\n", res.LLMCalls)
	switch {
	case applied:
		fmt.Fprintf(c.stdout, "valid; applied to %s\n", file)
	case !res.Valid && apply:
		fmt.Fprintf(c.stdout, "INVALID after %d attempt(s); %s was not changed\n", res.Attempts, file)
	case !res.Valid:
		fmt.Fprintf(c.stdout, "INVALID after %d attempt(s)\n", res.Attempts)
	case !res.Validated:
		fmt.Fprintf(c.stdout, "not validated (max_repair_attempts is 0); not applied (--apply writes changes to %s)\n", file)
	default:
		fmt.Fprintf(c.stdout, "valid; not applied (--apply writes changes to %s)\n", file)
	}
}
