package cli

// Approval on the command line: the terminal prompt and --approve of
// `weft run`, and `weft approve`. What needs approval and what is recorded
// is decided by backend/service (package approval's rule); this file only
// shows the steps, in full, and reads the answers.

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/workflow"
)

const approveUsage = "usage: weft approve FILE [--list] [--json]"

// cliApprover shows the steps waiting for approval on stderr and approves
// all of them (--approve) or asks about each on the terminal.
type cliApprover struct {
	c   *cli
	all bool
	in  *bufio.Reader
}

func (a *cliApprover) Approve(ctx context.Context, req service.ApprovalRequest) ([]string, error) {
	w := a.c.stderr
	fmt.Fprintf(w, "%s before the workflow runs:\n", approvalHeading(req.Steps))
	if !req.File.Trusted && req.File.Why != "" {
		fmt.Fprintf(w, "(%s: %s)\n", req.File.Path, req.File.Why)
	}
	if a.all {
		writeApprovalSteps(w, req.Steps)
		fmt.Fprintln(w, "approved (--approve)")
		return service.Fingerprints(req.Steps), nil
	}
	h := &promptHandler{c: a.c, in: a.in}
	var yes []string
	for i, st := range req.Steps {
		writeApprovalStep(w, i+1, len(req.Steps), st)
		for answered := false; !answered; {
			fmt.Fprint(w, "approve this step? [y]es, [n]o, [a]ll the rest, [q]uit: ")
			line, err := h.readLine(ctx)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return yes, nil // no answer: what was not approved stays waiting
			}
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				yes, answered = append(yes, st.Fingerprint), true
			case "n", "no":
				answered = true
			case "a", "all":
				return append(yes, service.Fingerprints(req.Steps[i:])...), nil
			case "q", "quit":
				return yes, nil
			}
		}
	}
	return yes, nil
}

func approvalHeading(steps []approval.Step) string {
	n := fmt.Sprintf("%d steps", len(steps))
	verb := "wait"
	if len(steps) == 1 {
		n, verb = "1 step", "waits"
	}
	for _, st := range steps {
		if st.Origin == approval.OriginFile {
			return fmt.Sprintf("this workflow file was not written by Weft or changed since you reviewed it: %s that act or decide where the run goes %s for your review", n, verb)
		}
	}
	return fmt.Sprintf("%s written or changed by a model %s for your approval", n, verb)
}

// writeApprovalSteps lists steps with everything approval covers.
func writeApprovalSteps(w io.Writer, steps []approval.Step) {
	for i, st := range steps {
		writeApprovalStep(w, i+1, len(steps), st)
	}
}

// writeApprovalStep shows one step in full: never shortened (a `; touch …`
// past a cut would run unseen), in its display form (approval.Display:
// what would not show is escaped, as the desktop shows it).
func writeApprovalStep(w io.Writer, i, n int, st approval.Step) {
	d := st.Display()
	name := d.Key
	if d.Name != "" && d.Name != d.Key {
		name = fmt.Sprintf("%s (%s)", d.Key, d.Name)
	}
	what := string(st.Type)
	if d.Tool != "" {
		what = d.Tool
	}
	fmt.Fprintf(w, "\n[%d/%d] %s · %s · %s", i, n, name, what, d.Reason)
	if st.Said != "" && st.Provenance.Via != "" {
		fmt.Fprintf(w, " · %s", st.Said)
	}
	fmt.Fprintln(w)
	if d.Escaped {
		fmt.Fprintf(w, "    (%s)\n", d.Note)
	}
	for _, f := range d.Arguments {
		writeField(w, f.Name, f.Value)
	}
	if d.Prompt != "" {
		writeField(w, "prompt", d.Prompt)
	}
	if len(d.Tools) > 0 {
		writeField(w, "may call", strings.Join(d.Tools, ", "))
	}
	for _, f := range d.Other { // the rest approval covers (retry, verify, timeout…)
		writeField(w, f.Name, f.Value)
	}
	if st.Origin == approval.OriginFile {
		if st.Previous == "" {
			fmt.Fprintln(w, "    (new since you last trusted this file, or a file Weft has not seen)")
		} else {
			writeField(w, "was, when you last trusted this file", d.Previous)
		}
	}
	fmt.Fprintf(w, "    fingerprint: %s\n", st.Fingerprint)
}

// writeField prints name: value, a multi-line value indented under it.
func writeField(w io.Writer, name, value string) {
	if !strings.Contains(value, "\n") {
		fmt.Fprintf(w, "    %s: %s\n", name, value)
		return
	}
	fmt.Fprintf(w, "    %s:\n", name)
	for _, line := range strings.Split(value, "\n") {
		fmt.Fprintf(w, "      │ %s\n", line)
	}
}

// notApproved reports a run (or schedule: what) that was refused because steps a model wrote
// were not approved; they are listed in full (JSON: needs_approval).
func (c *cli) notApproved(what string, steps []approval.Step, denied, asJSON bool) int {
	msg := what + ": " + strings.ToLower(approvalHeading(steps)[:1]) + approvalHeading(steps)[1:]
	if asJSON {
		c.writeJSONLine(map[string]any{"type": "error", "error": msg, "needs_approval": steps})
	}
	fmt.Fprintf(c.stderr, "weft: %s\n", msg)
	if !denied && !asJSON {
		writeApprovalSteps(c.stderr, steps)
		fmt.Fprintln(c.stderr, "\nweft: review them, then run on a terminal to be asked, pass --approve, or approve them with `weft approve FILE`")
		for _, st := range steps {
			if st.Origin == approval.OriginFile {
				fmt.Fprintln(c.stderr, "weft: for workflows checked into a repository you review there (CI), `weft trust DIR` trusts the files beneath DIR as they are")
				break
			}
		}
	}
	return exitInvalid
}

// approve lists the steps of FILE that wait for approval and approves them
// all without running (--list only lists). Exit 0 when nothing waits any
// more, 1 when something still waits (--list), 2 unusable input.
func (c *cli) approve(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("approve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, `print {"approved": [...], "pending": [...]} as JSON`)
	list := fs.Bool("list", false, "only list the steps that wait for approval")
	if err := fs.Parse(interspersed(args, nil)); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, approveUsage)
		return exitUnusable
	}
	path := fs.Arg(0)
	fail := func(err error) int {
		if *asJSON {
			c.writeJSONLine(map[string]any{"type": "error", "error": err.Error()})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		return fail(err)
	}
	s, err := c.effective()
	if err != nil {
		return fail(err)
	}
	svc := c.runService(s, true)
	state, err := svc.PendingApprovals(ctx, w, path)
	if err != nil {
		return fail(err)
	}
	c.printWarnings(state.Warnings)
	approved := []approval.Step{}
	if !*list && len(state.Pending) > 0 {
		approved = state.Pending
		state, err = svc.Approve(ctx, w, path, service.Fingerprints(approved), "weft approve")
		if err != nil {
			if errors.Is(err, service.ErrNotPending) {
				return fail(fmt.Errorf("the workflow changed while it was being approved; run weft approve again: %w", err))
			}
			return fail(err)
		}
	}
	if *asJSON {
		c.writeJSONLine(map[string]any{"approved": approved, "pending": state.Pending})
	} else {
		switch {
		case len(approved) > 0:
			fmt.Fprintf(c.stdout, "approved %d step(s):\n", len(approved))
			writeApprovalSteps(c.stdout, approved)
		case len(state.Pending) > 0:
			fmt.Fprintf(c.stdout, "%s:\n", approvalHeading(state.Pending))
			writeApprovalSteps(c.stdout, state.Pending)
		default:
			fmt.Fprintln(c.stdout, "nothing waits for approval")
		}
	}
	if len(state.Pending) > 0 {
		return exitInvalid
	}
	return exitOK
}
