package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// exitCanceled is what shells report for a process stopped by Ctrl+C.
const exitCanceled = 130

const noModelMsg = "no model configured: set llm.model with `weft settings set llm.model NAME` or WEFT_LLM_MODEL"

// planJSON is what `weft plan --json` prints; slices are never null.
type planJSON struct {
	Valid     bool               `json:"valid"`
	Validated bool               `json:"validated"`
	Workflow  *workflow.Workflow `json:"workflow"`
	Warnings  []planWarning      `json:"warnings"`
	Problems  []validate.Problem `json:"problems"`
	Attempts  []planner.Attempt  `json:"attempts"`
	LLMCalls  int                `json:"llm_calls"`
	Usage     llm.Usage          `json:"usage"`
	Summary   string             `json:"summary"`
	Error     string             `json:"error,omitempty"`
}

// planWarning always carries node_id (empty when the warning concerns no
// node), so scripts can rely on the key.
type planWarning struct {
	Stage   string `json:"stage"`
	Message string `json:"message"`
	NodeID  string `json:"node_id"`
}

func newPlanJSON(res planner.Result) planJSON {
	j := planJSON{Valid: res.Valid, Validated: res.Validated, Workflow: res.Workflow, Warnings: []planWarning{},
		Problems: res.Problems, Attempts: res.Attempts, LLMCalls: res.LLMCalls, Usage: res.Usage, Summary: res.Summary}
	for _, w := range res.Warnings {
		j.Warnings = append(j.Warnings, planWarning{Stage: w.Stage, Message: w.Message, NodeID: w.NodeID})
	}
	if j.Problems == nil {
		j.Problems = []validate.Problem{}
	}
	if j.Attempts == nil {
		j.Attempts = []planner.Attempt{}
	}
	return j
}

// plan asks the configured model for a workflow. The workflow goes to
// stdout (or --out) and the account of the attempts to stderr (stdout
// with --out), so `weft plan --goal … > wf.json` gives a clean file.
func (c *cli) plan(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	goal := fs.String("goal", "", "what the workflow should do")
	out := fs.String("out", "", "write the workflow to `FILE` (atomically) instead of printing it")
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	usage := "usage: weft plan --goal TEXT [--out FILE] [--json]"
	if err := fs.Parse(interspersed(args, map[string]bool{"goal": true, "out": true})); err != nil {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	if fs.NArg() != 0 || strings.TrimSpace(*goal) == "" {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	fail := func(code int, err error) int {
		if *asJSON {
			j := newPlanJSON(planner.Result{})
			j.Error = err.Error()
			c.writeJSON(j)
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
	client, err := c.newLLM(s)
	if err != nil {
		return fail(exitUnusable, err)
	}
	mem, err := planner.DefaultMemory()
	if err != nil {
		c.log.Warn("repair memory unavailable; planning without it", "error", err)
		mem = nil
	} else {
		mem.Log = c.log
	}

	cfg := planner.Config{
		MaxRepairAttempts: s.MaxRepairAttempts,
		Features:          planner.Features{AllowAITransforms: s.Features.AllowAITransforms, AllowAgentSteps: s.Features.AllowAgentSteps},
		// Configured MCP servers' tools are offered to the model too.
		Catalog:    c.toolCatalog(ctx, s, nil),
		Model:      s.LLM.Model,
		Memory:     mem,
		Logger:     c.log,
		OnProgress: func(e planner.Event) { c.progress(e) },
	}
	if pats, err := failure.DefaultPatternStore(); err == nil {
		cfg.Patterns = pats // failures seen at run time: the prompt's "Known failure patterns"
	}
	res, err := planner.PlanWorkflow(ctx, client, *goal, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitCanceled, errors.New("planning canceled"))
		}
		return fail(exitUnusable, err)
	}

	if *out != "" && res.Workflow != nil {
		if err := workflow.Save(*out, res.Workflow); err != nil {
			return fail(exitUnusable, err)
		}
	}
	if *asJSON {
		c.writeJSON(newPlanJSON(res))
	} else {
		report := c.stderr
		if *out != "" {
			report = c.stdout
		}
		c.planReport(report, res, *out)
		if *out == "" && res.Workflow != nil {
			data, err := workflow.Marshal(res.Workflow)
			if err != nil {
				return fail(exitUnusable, err)
			}
			c.stdout.Write(data)
		}
	}
	if !res.Valid {
		return exitInvalid
	}
	return exitOK
}

func (c *cli) progress(e planner.Event) {
	switch e.Kind {
	case planner.EventCalling:
		fmt.Fprintf(c.stderr, "weft: attempt %d/%d: asking the model…\n", e.Attempt, e.Max)
	case planner.EventRepairing:
		fmt.Fprintf(c.stderr, "weft: %s; re-asking with feedback\n", e.Reason)
	}
}

// planReport is the readable account of a plan: attempts, local repairs,
// problems and the verdict.
func (c *cli) planReport(w io.Writer, res planner.Result, out string) {
	for _, a := range res.Attempts {
		if a.Error == "" {
			fmt.Fprintf(w, "attempt %d: ok\n", a.N)
		} else {
			fmt.Fprintf(w, "attempt %d: %s\n", a.N, a.Error)
		}
	}
	if len(res.Warnings) > 0 {
		fmt.Fprintln(w, "repaired locally:")
		for _, wn := range res.Warnings {
			fmt.Fprintf(w, "  %s: %s\n", wn.Stage, wn.Message)
		}
	}
	if len(res.Problems) > 0 {
		fmt.Fprintln(w, "problems:")
		for _, p := range res.Problems {
			fmt.Fprintf(w, "  %s: %s [%s]\n", p.Severity, p.Message, p.Code)
		}
	}
	fmt.Fprintf(w, "%d LLM call(s), %d tokens\n", res.LLMCalls, res.Usage.TotalTokens)
	switch {
	case res.Valid:
		fmt.Fprintf(w, "%s\n", res.Summary)
	case res.Workflow != nil:
		fmt.Fprintf(w, "INVALID: %s\n", res.Summary)
	default:
		fmt.Fprintf(w, "FAILED: %s\n", res.Summary)
	}
	if out != "" && res.Workflow != nil {
		if res.Valid {
			fmt.Fprintf(w, "wrote %s\n", out)
		} else {
			fmt.Fprintf(w, "wrote the INVALID best draft to %s; fix it in the editor or run `weft validate %s`\n", out, out)
		}
	}
}
