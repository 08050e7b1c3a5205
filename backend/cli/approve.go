package cli

// Approval on the command line: the terminal prompt and --approve of
// `weft run`, and `weft approve`. What needs approval and what is recorded
// is decided by backend/service (package approval's rule); this file only
// shows the steps, in full, and reads the answers.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
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
	if len(steps) == 1 {
		return "1 step written or changed by a model waits for your approval"
	}
	return fmt.Sprintf("%d steps written or changed by a model wait for your approval", len(steps))
}

// writeApprovalSteps lists steps with everything approval covers.
func writeApprovalSteps(w io.Writer, steps []approval.Step) {
	for i, st := range steps {
		writeApprovalStep(w, i+1, len(steps), st)
	}
}

// writeApprovalStep shows one step in full: never shortened (a `; touch …`
// past a cut would run unseen), with characters a terminal would not show
// escaped.
func writeApprovalStep(w io.Writer, i, n int, st approval.Step) {
	name := st.Key
	if st.Name != "" && st.Name != st.Key {
		name = fmt.Sprintf("%s (%s)", st.Key, vis(st.Name))
	}
	what := string(st.Type)
	if st.Tool != "" {
		what = st.Tool
	}
	fmt.Fprintf(w, "\n[%d/%d] %s · %s · %s", i, n, name, what, st.Reason)
	if st.Provenance.Via != "" {
		fmt.Fprintf(w, " · %s", viaText(st.Provenance.Via))
	}
	fmt.Fprintln(w)
	keys := make([]string, 0, len(st.Arguments))
	for k := range st.Arguments {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		writeField(w, vis(k), st.Arguments[k])
	}
	if st.Prompt != "" {
		writeField(w, "prompt", st.Prompt)
	}
	if len(st.Tools) > 0 {
		writeField(w, "may call", strings.Join(st.Tools, ", "))
	}
	var rest map[string]any
	if json.Unmarshal([]byte(st.Content), &rest) == nil {
		// Anything else approval covers (retry, verify, timeout…).
		delete(rest, "params")
		delete(rest, "type")
		delete(rest, "key")
		others := make([]string, 0, len(rest))
		for k := range rest {
			others = append(others, k)
		}
		sort.Strings(others)
		for _, k := range others {
			writeField(w, vis(k), rest[k])
		}
	}
	fmt.Fprintf(w, "    fingerprint: %s\n", st.Fingerprint)
}

func viaText(via string) string {
	switch via {
	case approval.ViaPlan:
		return "planned by a model"
	case approval.ViaPatch:
		return "changed by the assistant"
	case approval.ViaReplan:
		return "replanned after a failure"
	case approval.ViaFix:
		return "a fix a model suggested"
	}
	return "written by a model"
}

// writeField prints name: value, a multi-line value indented under it.
func writeField(w io.Writer, name string, v any) {
	var s string
	switch t := v.(type) {
	case string:
		s = vis(t)
	default:
		b, err := json.MarshalIndent(t, "      ", "  ")
		if err != nil {
			s = fmt.Sprint(t)
		} else {
			s = vis(string(b))
		}
	}
	if !strings.Contains(s, "\n") {
		fmt.Fprintf(w, "    %s: %s\n", name, s)
		return
	}
	fmt.Fprintf(w, "    %s:\n", name)
	for _, line := range strings.Split(s, "\n") {
		fmt.Fprintf(w, "      │ %s\n", line)
	}
}

func vis(s string) string {
	out, _ := assistant.Visible(s)
	return out
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
			fmt.Fprintf(c.stdout, "approved %d step(s) written or changed by a model:\n", len(approved))
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
