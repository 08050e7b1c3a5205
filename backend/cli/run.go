package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

const runUsage = "usage: weft run FILE [--input NAME=VALUE]... [--input-secret NAME=SECRET]... [--inputs JSON] [--dry-run [--case NAME]] [--json] [--on-escalate prompt|abort|skip] [--approve] [--pinned] [--source manual|schedule] [--require-sha256 HEX] [--engine local|temporal --temporal-address HOST:PORT [--namespace NS] [--task-queue Q] [--tls] [--api-key-env VAR] [--cancel-on-interrupt]]"

// stdinIsTerminal reports whether the escalation prompt can ask on r;
// tests replace it.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// run executes a workflow file with real tools. Progress goes to stdout
// (or, with --json, every event as a JSON line followed by the result);
// escalations are answered on the terminal, or by --on-escalate.
// A run that ends replanned saves the new version (versions store) and
// writes it beside FILE. Steps a model wrote that can act wait for a
// person's approval of their exact content (docs/trust.md): asked on a
// terminal, given by --approve, else the run does not start.
// A schedule's run (--source schedule --require-sha256 HEX) runs only the
// file's content approved when the schedule was made: other content runs
// nothing and is logged as needs_review.
// With --dry-run nothing runs: dryRun prints the walk.
// Exit: 0 succeeded (a dry run: printed), 1 failed, aborted, replanned, needs_review or not approved, 2 unusable input
// (unreadable or invalid workflow, bad flags, inputs that do not fit the workflow's inputs
// schema: --input NAME=VALUE, --inputs JSON), 130 cancelled (Ctrl+C).
func (c *cli) run(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, "stream the run's events as JSON lines, then the result")
	onEscalate := fs.String("on-escalate", "", "answer escalations by `MODE`: prompt (ask on the terminal), abort or skip; default prompt on a terminal, else abort")
	approve := fs.Bool("approve", false, "approve, without asking, the steps a model wrote that wait for approval (they are listed, in full, first)")
	engine := fs.String("engine", "", "run on the `ENGINE`: local (this process) or temporal (a Temporal service; see --temporal-address); default the settings' engine.kind")
	cancelOnInterrupt := fs.Bool("cancel-on-interrupt", false, "with --engine temporal: Ctrl+C cancels the run instead of detaching from it")
	topts := addTemporalFlags(fs, c.getenv)
	pinned := fs.Bool("pinned", false, "use the workflow's pinned data instead of running those steps (a development run; by default they run for real)")
	source := fs.String("source", string(runner.RunByPerson), "who starts the run, recorded with it: manual, or schedule (the scheduled command says so)")
	requireSHA := fs.String("require-sha256", "", "run FILE only if its bytes have this SHA-256 (`HEX`: the content approved when its schedule was made); other content runs nothing and is logged as needs_review")
	texts := addInputFlag(fs, "give the workflow's input")
	refs := addSecretInputFlag(fs, "give the workflow's secret input")
	dry := fs.Bool("dry-run", false, "run nothing: print each step the walk takes with its arguments filled in, answered by a case's mocks (--case) or the pinned data, and the branch each condition takes")
	dryCase := fs.String("case", "", "with --dry-run: answer the steps with the mocks of the test case named `NAME` (and use its inputs)")
	inputsJSON := fs.String("inputs", "", "give the workflow's inputs as one JSON object (`JSON`); --input NAME=VALUE overrides its members")
	valueFlags := map[string]bool{"on-escalate": true, "engine": true, "source": true, "require-sha256": true, "input": true, "input-secret": true, "inputs": true, "case": true}
	for k := range temporalValueFlags {
		valueFlags[k] = true
	}
	if err := fs.Parse(interspersed(args, valueFlags)); err != nil {
		fmt.Fprintln(c.stderr, runUsage)
		return exitUnusable
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, runUsage)
		return exitUnusable
	}
	path := fs.Arg(0)
	fail := func(err error, problems any) int {
		if *asJSON {
			c.writeJSONLine(map[string]any{"type": "error", "error": err.Error(), "problems": problems})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}

	terminal := stdinIsTerminal(c.stdin)
	mode := *onEscalate
	switch mode {
	case "":
		mode = "abort"
		if terminal {
			mode = "prompt"
		}
	case "prompt":
		if !terminal {
			return fail(errors.New("--on-escalate prompt needs a terminal on stdin to ask on; use --on-escalate abort or skip"), nil)
		}
	case "abort", "skip":
	default:
		return fail(fmt.Errorf("--on-escalate %q: use prompt, abort or skip", mode), nil)
	}

	values, err := inputsObject(*inputsJSON)
	if err != nil {
		return fail(err, nil)
	}
	values = inputs.WithRefs(values, refs)

	if *dry {
		return c.dryRun(ctx, service.DryRunRequest{Path: path, Case: *dryCase, Inputs: values, InputTexts: texts}, *asJSON)
	}
	if *dryCase != "" {
		return fail(errors.New("--case NAME goes with --dry-run (weft test FILE --case NAME plays a case)"), nil)
	}
	switch runner.RunSource(*source) {
	case runner.RunByPerson, runner.RunBySchedule:
	default:
		return fail(fmt.Errorf("--source %q: use manual or schedule", *source), nil)
	}
	w, loadWarnings, err := workflow.Load(path)
	if err != nil && *requireSHA == "" { // pinned: the service reads the file, and logs content it may not run
		return fail(err, nil)
	}
	for _, wn := range loadWarnings {
		c.log.Info("load", "warning", wn)
	}
	s, err := c.effective()
	if err != nil {
		return fail(err, nil)
	}

	p := &runPrinter{c: c, json: *asJSON}
	in := bufio.NewReader(c.stdin)
	var handler runner.EscalationHandler
	switch mode {
	case "prompt":
		handler = &promptHandler{c: c, in: in}
	case "skip":
		handler = fixedHandler{c: c, action: runner.ActSkip, quiet: *asJSON}
	default:
		handler = fixedHandler{c: c, action: runner.ActAbort, quiet: *asJSON}
	}
	c.temporalAPIKeyEnv = *topts.apiKeyEnv
	svc := c.runService(s, *asJSON)
	// The service tells what happens; escalations are answered here, in
	// order with the events (the run waits for the answer anyway).
	finished := make(chan *service.Finished, 1)
	sink := service.SinkFunc(func(e service.Event) {
		switch {
		case e.Run != nil:
			p.event(*e.Run)
		case e.Escalation != nil:
			resp, err := handler.Escalate(ctx, e.Escalation.Escalation)
			if err == nil {
				// It fails only when the run ended meanwhile (Ctrl+C).
				_ = svc.Respond(e.Escalation.ID, resp)
			}
		case e.Finished != nil:
			finished <- e.Finished
		case e.Notice != nil:
			fmt.Fprintf(c.stderr, "weft: %s\n", *e.Notice)
		}
	})
	// Steps a model wrote wait for approval: --approve gives it, a
	// terminal asks, and with neither the run does not start.
	var approver service.Approver
	by := "cli"
	switch {
	case *approve:
		approver, by = &cliApprover{c: c, all: true}, "cli --approve"
	case terminal:
		approver = &cliApprover{c: c, in: in}
	}
	req := service.StartRequest{Workflow: w, Path: path, Approver: approver, ApprovedBy: by, Sink: sink, UsePinned: *pinned, Engine: *engine,
		Detach: !*cancelOnInterrupt, Source: runner.RunSource(*source), RequireSHA256: *requireSHA, Inputs: values, InputTexts: texts}
	switch *engine {
	case "", "local":
	case "temporal":
		// The service runs it as the app does (approval, following,
		// replan); the flags say where the Temporal service is.
		if *topts.address == "" {
			return fail(errors.New("no Temporal service given: use --temporal-address HOST:PORT or set "+EnvTemporalAddress), nil)
		}
		req.Temporal = &settings.TemporalEngine{Address: *topts.address, Namespace: *topts.namespace, TaskQueue: *topts.queue, TLS: *topts.tls}
	default:
		return fail(fmt.Errorf("--engine %q: use local or temporal", *engine), nil)
	}
	started, err := svc.Start(ctx, req)
	if err != nil {
		return fail(err, nil)
	}
	if r := started.Refused; r != nil { // logged as a run that ran nothing
		return c.refused(r, *asJSON)
	}
	switch {
	case len(started.MissingSecrets) > 0: // nothing ran: exit 1, as a failed run
		if *asJSON {
			c.writeJSONLine(map[string]any{"type": "error", "error": started.Error, "missing_secrets": started.MissingSecrets})
		}
		fmt.Fprintf(c.stderr, "weft: %s\n", started.Error)
		return exitInvalid
	case len(started.Problems) > 0:
		return fail(&runner.InvalidError{Problems: started.Problems}, started.Problems)
	case len(started.InputProblems) > 0: // the inputs given do not fit: nothing ran
		if *asJSON {
			c.writeJSONLine(map[string]any{"type": "error", "error": started.Error, "input_problems": started.InputProblems})
		}
		for _, p := range started.InputProblems {
			fmt.Fprintf(c.stderr, "weft: %s\n", p.Message)
		}
		return exitUnusable
	case !started.Started && len(started.Approval) > 0:
		return c.notApproved("the run did not start", started.Approval, started.Denied, *asJSON)
	case !started.Started:
		return fail(errors.New(started.Error), nil)
	}
	for _, wn := range started.Warnings {
		fmt.Fprintf(c.stderr, "weft: warning: %s\n", wn)
	}
	if started.RunID != "" && !*asJSON {
		addr := s.Engine.Temporal.Address
		if req.Temporal != nil {
			addr = req.Temporal.Address
		}
		fmt.Fprintf(c.stdout, "submitted run %s to Temporal at %s\n", started.RunID, addr)
	}
	fin := <-finished
	if fin.Result == nil && fin.Err == nil { // detached from a Temporal run, or stopped
		fmt.Fprintf(c.stderr, "weft: %s\n", fin.Error)
		return exitCanceled
	}
	if fin.Err != nil {
		var ie *runner.InvalidError
		if errors.As(fin.Err, &ie) {
			return fail(fin.Err, ie.Problems)
		}
		var ae *runner.ApprovalError
		if errors.As(fin.Err, &ae) {
			return c.notApproved("the run did not start", ae.Steps, false, *asJSON)
		}
		return fail(fin.Err, nil)
	}
	res := fin.Result
	var rp *replannedReport
	if res.Outcome == runner.OutcomeReplanned && res.Replanned != nil && w != nil {
		rp = c.saveReplanned(svc.SaveReplanned(ctx, path, w, res.Replanned), res.Replanned)
	}
	if *asJSON {
		if rp != nil {
			c.writeJSONLine(rp.replannedJSON)
		}
		c.writeJSONLine(struct {
			Type string `json:"type"`
			*runner.Result
		}{"result", res})
	} else {
		p.summary(res)
		if rp != nil {
			c.printReplanned(path, rp)
		}
	}
	return exitStatus(res.Outcome)
}

// exitStatus is weft run's exit status for how a run ended: 0 succeeded,
// 130 canceled, 1 every other outcome (failed, aborted, partial,
// replanned, needs_review).
func exitStatus(o runner.Outcome) int {
	switch o {
	case runner.OutcomeSucceeded:
		return exitOK
	case runner.OutcomeCanceled:
		return exitCanceled
	}
	return exitInvalid
}

// refused reports a run logged without running anything (a schedule's run
// of content that was not approved: needs_review).
func (c *cli) refused(r *service.Record, asJSON bool) int {
	if asJSON {
		c.writeJSONLine(struct {
			Type string `json:"type"`
			*service.Record
		}{"result", r})
	} else {
		fmt.Fprintf(c.stdout, "Run %s: %s\n  log: %s\n", r.Outcome, r.Error, r.Dir)
	}
	fmt.Fprintf(c.stderr, "weft: %s\n", r.Error)
	return exitStatus(r.Outcome)
}

// writeJSONLine prints v as one compact JSON line (HTML characters kept).
func (c *cli) writeJSONLine(v any) {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(c.stderr, "weft: encode JSON: %v\n", err)
	}
}

// runPrinter shows the run as it happens.
type runPrinter struct {
	c    *cli
	json bool
}

func nodeLabel(e runner.Event) string {
	if e.NodeName != "" {
		return e.NodeName
	}
	return e.NodeKey
}

func (p *runPrinter) event(e runner.Event) {
	if p.json {
		p.c.writeJSONLine(e)
		return
	}
	out := p.c.stdout
	switch e.Type {
	case runner.EvRunStarted:
		fmt.Fprintf(out, "run %s: %s\n", e.RunID, e.Message)
	case runner.EvNodeStarted:
		tool := ""
		if e.Tool != "" {
			tool = " (" + e.Tool + ")"
		}
		fmt.Fprintf(out, "▸ %s%s\n", nodeLabel(e), tool)
	case runner.EvNodeFinished:
		switch e.Status {
		case runner.StatusOK:
			if e.Source == runner.SourcePinned {
				fmt.Fprintf(out, "  📌 %s: pinned data used, not run\n", nodeLabel(e))
				break
			}
			fmt.Fprintf(out, "  ✓ %s ok in %dms\n", nodeLabel(e), e.DurationMs)
		default:
			fmt.Fprintf(out, "  ✗ %s %s\n", nodeLabel(e), e.Status)
		}
	case runner.EvFailure:
		f := e.Failure
		fmt.Fprintf(out, "  ✗ attempt %d/%d failed: %s [%s, %s, %s]\n", e.Attempt, e.MaxAttempts, firstLine(f.Error), f.FailureType, f.Category, f.Severity)
		if f.FailureType == failure.FailVerification && f.OutputSummary != "" {
			fmt.Fprintf(out, "    %s\n", firstLine(truncateStr(f.OutputSummary, 200)))
		}
	case runner.EvRetry:
		fmt.Fprintf(out, "  ↻ retrying %d/%d in %dms\n", e.Attempt, e.MaxAttempts, e.DelayMs)
	case runner.EvNodeSkipped:
		fmt.Fprintf(out, "  ⤼ %s skipped: %s\n", nodeLabel(e), e.Message)
	case runner.EvBranchEvaluated:
		fmt.Fprintf(out, "◆ %s → %s\n", nodeLabel(e), e.Branch)
	case runner.EvLoopIteration:
		fmt.Fprintf(out, "⟳ %s iteration %d\n", nodeLabel(e), e.Iteration)
	case runner.EvLog:
		fmt.Fprintf(out, "  │ %s\n", e.Message)
	case runner.EvToolCall:
		fmt.Fprintf(out, "  · %s %s\n", e.Tool, e.Status)
	case runner.EvWarning:
		fmt.Fprintf(out, "! %s\n", e.Message)
	case runner.EvVerdict:
		fmt.Fprintf(out, "◎ %s\n", e.Message)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// summary prints seed 003's retry statistics.
func (p *runPrinter) summary(res *runner.Result) {
	out := p.c.stdout
	s := res.Summary
	label := string(res.Outcome)
	if res.Outcome == runner.OutcomePartial && res.Error != "" {
		label = res.Error // "completed with 1 step skipped": not a success
	}
	fmt.Fprintf(out, "\nRun %s in %s", label, (time.Duration(s.DurationMs) * time.Millisecond).String())
	if res.StoppedAt != nil {
		fmt.Fprintf(out, ", stopped at %s", res.StoppedAt.Key)
	}
	fmt.Fprintln(out)
	if res.Error != "" && res.Outcome != runner.OutcomePartial {
		fmt.Fprintf(out, "  %s\n", res.Error)
	}
	pct := func(n int) string {
		if s.Nodes == 0 {
			return ""
		}
		return fmt.Sprintf(" (%d%%)", n*100/s.Nodes)
	}
	fmt.Fprintf(out, "  nodes run             %d\n", s.Ran)
	fmt.Fprintf(out, "  step executions       %d\n", s.Nodes)
	fmt.Fprintf(out, "  first-attempt success %d%s\n", s.FirstAttemptSuccesses, pct(s.FirstAttemptSuccesses))
	fmt.Fprintf(out, "  retried               %d%s\n", s.Retried, pct(s.Retried))
	fmt.Fprintf(out, "  retry successes       %d\n", s.RetrySuccesses)
	fmt.Fprintf(out, "  escalations           %d\n", s.Escalations)
	fmt.Fprintf(out, "  skipped               %d\n", s.Skipped)
	fmt.Fprintf(out, "  failed                %d\n", s.Failed)
	if s.Handled > 0 {
		fmt.Fprintf(out, "  handled by on_error   %d\n", s.Handled)
	}
	if s.Pinned > 0 {
		fmt.Fprintf(out, "  pinned data used      %d (those steps did not run)\n", s.Pinned)
	}
	if v := res.Verdict; v != nil {
		fmt.Fprintf(out, "  goal check            %s\n", strings.TrimPrefix(v.Line(), "goal check "))
		for _, sg := range v.Suggestions {
			fmt.Fprintf(out, "    suggestion: %s\n", sg)
		}
	}
	if len(s.FailureTypes) > 0 {
		var parts []string
		for t, n := range s.FailureTypes {
			parts = append(parts, fmt.Sprintf("%s %d", t, n))
		}
		sort.Strings(parts)
		fmt.Fprintf(out, "  failure types         %s\n", strings.Join(parts, ", "))
	}
	if s.Retried > 0 || s.Skipped > 0 || s.Failed > 0 || s.Handled > 0 {
		fmt.Fprintln(out, "  node                  runs  attempts  result")
		for _, d := range s.Details {
			if d.Attempts > d.Executions || d.Result != "ok" {
				fmt.Fprintf(out, "  %-21s %4d  %8d  %s\n", d.Key, d.Executions, d.Attempts, d.Result)
			}
		}
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(out, "  warning: %s\n", w)
	}
	fmt.Fprintf(out, "  log: %s\n", res.Dir)
}

// describeEscalation renders seed 003's escalation message.
func describeEscalation(w io.Writer, e runner.Escalation) {
	name := e.NodeName
	if name == "" {
		name = e.NodeKey
	}
	fmt.Fprintf(w, "\n── %s needs you: %s ──\n", name, map[string]string{"max_attempts": "automated recovery is exhausted", "not_retryable": "retrying cannot fix this"}[e.Reason])
	fmt.Fprintf(w, "attempts %d of %d · %s · %s", e.Attempts, e.MaxAttempts, e.Category, e.Severity)
	if e.Tool != "" {
		fmt.Fprintf(w, " · tool %s", e.Tool)
	}
	fmt.Fprintln(w)
	for _, f := range e.Failures {
		fmt.Fprintf(w, "  #%d %s %-19s %s\n", f.Attempt, f.Time.Format("15:04:05"), f.FailureType, firstLine(truncateStr(f.Error, 160)))
	}
	fmt.Fprintf(w, "last error: %s\n", truncateStr(e.LastError, 600))
	if n := len(e.Failures); n > 0 && e.Failures[n-1].OutputSummary != "" {
		fmt.Fprintf(w, "last output: %s\n", truncateStr(e.Failures[n-1].OutputSummary, 600))
	}
	if e.SuggestedFix != "" {
		fmt.Fprintf(w, "suggested fix: %s\n", e.SuggestedFix)
	}
	for _, k := range e.KnownFixes {
		fix := k.Resolution
		if k.Fix != "" {
			fix += ": " + k.Fix
		}
		fmt.Fprintf(w, "worked before (%d×): %s\n", max(k.Count, 1), truncateStr(fix, 200))
	}
	if e.Notice != "" {
		fmt.Fprintf(w, "note: %s\n", e.Notice)
	}
}

func truncateStr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// promptHandler asks on the terminal.
type promptHandler struct {
	c  *cli
	in *bufio.Reader
}

func (h *promptHandler) Escalate(ctx context.Context, e runner.Escalation) (runner.Response, error) {
	w := h.c.stderr
	describeEscalation(w, e)
	choices := "retry, skip, abort, fix: <instruction>"
	if e.Tool != "" {
		choices = `retry, skip, abort, fix {"argument": "new value"}`
	}
	if e.CanReplan {
		choices += ", replan"
	}
	for {
		fmt.Fprintf(w, "answer (%s): ", choices)
		line, err := h.readLine(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return runner.Response{}, ctx.Err()
			}
			fmt.Fprintln(w, "(no answer: aborting)")
			return runner.Response{Action: runner.ActAbort}, nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		resp, err := runner.ParseResponse(line)
		if err != nil {
			fmt.Fprintf(w, "%v\n", err)
			continue
		}
		return resp, nil
	}
}

// readLine reads one line, giving up when ctx ends (Ctrl+C while asking).
func (h *promptHandler) readLine(ctx context.Context) (string, error) {
	type result struct {
		line string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := h.in.ReadString('\n')
		if err == io.EOF && line != "" {
			err = nil
		}
		ch <- result{strings.TrimRight(line, "\r\n"), err}
	}()
	select {
	case r := <-ch:
		return r.line, r.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// fixedHandler gives the same answer to every escalation (non-interactive
// runs), saying so on stderr.
type fixedHandler struct {
	c      *cli
	action runner.Action
	quiet  bool
}

func (h fixedHandler) Escalate(ctx context.Context, e runner.Escalation) (runner.Response, error) {
	if !h.quiet {
		describeEscalation(h.c.stderr, e)
		fmt.Fprintf(h.c.stderr, "answer: %s (--on-escalate %s)\n", h.action, h.action)
	}
	return runner.Response{Action: h.action}, nil
}

// addInputFlag adds --input NAME=VALUE (repeatable) to fs, what the
// values are for said by usage; the map it returns fills as fs parses.
func addInputFlag(fs *flag.FlagSet, usage string) map[string]string {
	texts := map[string]string{}
	fs.Func("input", usage+" `NAME=VALUE` (repeatable): a string input takes VALUE as it is, the others read it as JSON (3, true, {\"a\": 1})", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("%q: write NAME=VALUE", v)
		}
		texts[name] = value
		return nil
	})
	return texts
}

// addSecretInputFlag adds --input-secret NAME=SECRET (repeatable): the
// secret input NAME is given the stored secret SECRET by its name, never
// its value (inputs.SecretRef); the map it returns fills as fs parses.
func addSecretInputFlag(fs *flag.FlagSet, usage string) map[string]string {
	refs := map[string]string{}
	fs.Func("input-secret", usage+" `NAME=SECRET` (repeatable): the stored secret SECRET (weft secrets) by its name; the step gets its value only where {{secrets.SECRET}} would be opened", func(v string) error {
		name, secret, ok := strings.Cut(v, "=")
		if !ok || name == "" || secret == "" {
			return fmt.Errorf("%q: write NAME=SECRET", v)
		}
		refs[name] = secret
		return nil
	})
	return refs
}

// inputsObject reads --inputs JSON: one JSON object ("" is none).
func inputsObject(text string) (map[string]any, error) {
	if text == "" {
		return nil, nil
	}
	var values map[string]any
	if err := json.Unmarshal([]byte(text), &values); err != nil || values == nil {
		return nil, errors.New(`--inputs: give one JSON object, as {"name": "Ada", "count": 3}`)
	}
	return values, nil
}
