package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// exitCanceled is what shells report for a process stopped by Ctrl+C.
const exitCanceled = 130

// noModel says where to set the model when err is service.ErrNoModel.
func noModel(err error) error {
	if errors.Is(err, service.ErrNoModel) {
		return errors.New("no model configured: set llm.model with `weft settings set llm.model NAME` or " + settings.EnvModel)
	}
	return err
}

// planJSON is what `weft plan --json` prints; slices are never null.
type planJSON struct {
	Valid     bool               `json:"valid"`
	Validated bool               `json:"validated"`
	Workflow  *workflow.Workflow `json:"workflow"`
	Warnings  []planWarning      `json:"warnings"`
	Problems  []validate.Problem `json:"problems"`
	// Unused is what the plan left out of the model's reply.
	Unused   planner.Unused    `json:"unused"`
	Attempts []planner.Attempt `json:"attempts"`
	LLMCalls int               `json:"llm_calls"`
	Usage    llm.Usage         `json:"usage"`
	Summary  string            `json:"summary"`
	// Tests are the test cases beside --out played against the plan.
	Tests *reask.Tests `json:"tests,omitempty"`
	// Wrote is the file the workflow was written to: --out, or the
	// draft beside it when --out held a file that an invalid draft must
	// not replace.
	Wrote string `json:"wrote,omitempty"`
	// PreviousVersion is the version the replaced --out file was kept as.
	PreviousVersion int    `json:"previous_version,omitempty"`
	Error           string `json:"error,omitempty"`
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
		Problems: res.Problems, Unused: res.Unused, Attempts: res.Attempts, LLMCalls: res.LLMCalls, Usage: res.Usage, Summary: res.Summary, Tests: res.Tests}
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
	force := fs.Bool("force", false, "with --out: replace an existing FILE even with an invalid draft, or when it cannot be kept as a version")
	allowDropped := fs.Bool("allow-dropped", false, "accept a valid plan that left steps of the model's reply out (exit 0 instead of 1)")
	usage := "usage: weft plan --goal TEXT [--out FILE [--force]] [--allow-dropped] [--json]"
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

	s, err := c.effective()
	if err != nil {
		return fail(exitUnusable, err)
	}
	res, err := c.runService(s, true).Plan(ctx, service.PlanRequest{Goal: *goal, Path: *out, OnProgress: c.progress})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitCanceled, errors.New("planning canceled"))
		}
		return fail(exitUnusable, noModel(err))
	}

	// A valid plan is not usable when it left steps of the reply out or
	// errors under the workflow's test cases (a failure is a failure).
	unusable := ""
	switch {
	case !res.Valid:
	case res.Tests.Erring() > 0:
		unusable = fmt.Sprintf("the plan errors under %d of its test cases", res.Tests.Erring())
	case !res.Usable(*allowDropped):
		unusable = "the plan left steps of the reply out"
	}
	usable := res.Usable(*allowDropped) && unusable == ""
	var dest planDest
	if *out != "" && res.Workflow != nil {
		var err error
		// Written by Weft for the person: trusted as theirs (its steps
		// still carry the model's marks and wait for approval).
		save := func(path string, w *workflow.Workflow) error {
			return c.runService(s, true).SaveWorkflow(ctx, path, w, "")
		}
		if dest, err = c.writePlan(*out, res, unusable, *force, save); err != nil {
			return fail(exitUnusable, err)
		}
	}
	if *asJSON {
		j := newPlanJSON(res)
		j.Wrote, j.PreviousVersion = dest.file, dest.kept.Version.N
		c.writeJSON(j)
	} else {
		report := c.stderr
		if *out != "" {
			report = c.stdout
		}
		c.planReport(report, res, unusable, *out, dest)
		if *out == "" && res.Workflow != nil {
			data, err := workflow.Marshal(res.Workflow)
			if err != nil {
				return fail(exitUnusable, err)
			}
			c.stdout.Write(data)
		}
	}
	if !usable || dest.refused != "" {
		return exitInvalid
	}
	return exitOK
}

// planDest is where `weft plan --out` put the workflow.
type planDest struct {
	file string // where it was written
	// refused says why --out itself was not replaced ("" when it was).
	refused string
	kept    kept // the version the replaced file was kept as
}

// writePlan writes the planned workflow to out. A file already at out is
// never replaced by something worse nor lost: a draft that is not usable
// (invalid, or leaving steps of the reply out) goes beside it (draftPath)
// unless force, and before a replacement the old
// workflow is recorded in the versions store. The new workflow takes the
// old one's id, so `weft versions FILE` lists what it replaced.
func (c *cli) writePlan(out string, res planner.Result, unusable string, force bool, save func(string, *workflow.Workflow) error) (planDest, error) {
	old, exists, err := existingWorkflow(out)
	if !exists {
		if err := save(out, res.Workflow); err != nil {
			return planDest{}, err
		}
		return planDest{file: out}, nil
	}
	refuse := func(why string) (planDest, error) {
		draft := draftPath(out)
		if err := save(draft, res.Workflow); err != nil {
			return planDest{}, err
		}
		return planDest{file: draft, refused: why}, nil
	}
	switch {
	case force:
	case !res.Valid:
		return refuse(fmt.Sprintf("%s already exists and the draft is invalid", out))
	case unusable != "":
		return refuse(fmt.Sprintf("%s already exists and %s", out, unusable))
	}
	var k kept
	if err == nil {
		res.Workflow.ID = old.ID
		k, err = c.keepVersion(old, reasonBeforePlanOut)
	}
	if err != nil {
		if !force {
			return refuse(fmt.Sprintf("%s could not be kept as a version before replacing it (%v)", out, err))
		}
		c.log.Warn("replacing a workflow file that could not be kept as a version (--force)", "file", out, "error", err)
	}
	if err := save(out, res.Workflow); err != nil {
		return planDest{}, err
	}
	return planDest{file: out, kept: k}, nil
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
func (c *cli) planReport(w io.Writer, res planner.Result, unusable string, out string, dest planDest) {
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
	printTests(w, res.Tests)
	fmt.Fprintf(w, "%d LLM call(s), %d tokens\n", res.LLMCalls, res.Usage.TotalTokens)
	switch {
	case res.Valid && res.Tests.Erring() > 0:
		fmt.Fprintf(w, "FAILS ITS TESTS: %s; fix the plan (or the cases) and play them with `weft test`\n", unusable)
	case res.Valid && unusable != "":
		fmt.Fprintf(w, "LEFT OUT: %s\nCheck the plan; pass --allow-dropped to accept it as it is\n", res.Summary)
	case res.Valid:
		fmt.Fprintf(w, "%s\n", res.Summary)
	case res.Workflow != nil:
		fmt.Fprintf(w, "INVALID: %s\n", res.Summary)
	default:
		fmt.Fprintf(w, "FAILED: %s\n", res.Summary)
	}
	if dest.kept.Version.N > 0 {
		fmt.Fprintf(w, "kept the previous %s as version v%d (`weft versions %s`)\n", out, dest.kept.Version.N, out)
	}
	switch {
	case dest.file == "":
	case dest.refused != "":
		fmt.Fprintf(w, "%s was NOT replaced: %s\nwrote the plan to %s instead; check it with `weft validate %s`, or pass --force to replace %s\n",
			out, dest.refused, dest.file, dest.file, out)
	case res.Valid && unusable != "":
		fmt.Fprintf(w, "wrote the plan (%s) to %s\n", unusable, dest.file)
	case res.Valid:
		fmt.Fprintf(w, "wrote %s\n", dest.file)
	default:
		fmt.Fprintf(w, "wrote the INVALID best draft to %s; fix it in the editor or run `weft validate %s`\n", dest.file, dest.file)
	}
}
