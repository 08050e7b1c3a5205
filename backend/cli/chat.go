package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/reveal"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// chatJSON is what `weft chat --json` prints; slices are never null.
type chatJSON struct {
	Kind    assistant.Kind `json:"kind"`
	Message string         `json:"message"`
	// Tests are the workflow's test cases played against the change.
	Tests *reask.Tests `json:"tests,omitempty"`
	// Patch is the patch as reviewed: with a proposal, byte for byte (once
	// compacted) the patch saved under ProposalID.
	Patch json.RawMessage `json:"patch"`
	// Changes describes the patch field by field, old and new in full.
	Changes        *assistant.ChangeSet `json:"changes,omitempty"`
	ProposalID     string               `json:"proposal_id,omitempty"`
	PatchSHA256    string               `json:"patch_sha256,omitempty"`
	WorkflowSHA256 string               `json:"workflow_sha256,omitempty"`
	ApplyCommand   string               `json:"apply_command,omitempty"`
	Warnings       []assistant.Warning  `json:"warnings"`
	Valid          bool                 `json:"valid"`
	Validated      bool                 `json:"validated"`
	Problems       []validate.Problem   `json:"problems"`
	Attempts       int                  `json:"attempts"`
	LLMCalls       int                  `json:"llm_calls"`
	Applied        bool                 `json:"applied"`
	// PreviousVersion is the version the file was kept as before the
	// change was applied (`weft versions FILE`).
	PreviousVersion int    `json:"previous_version,omitempty"`
	Error           string `json:"error,omitempty"`
}

const chatUsage = `usage: weft chat FILE --message TEXT [--json]          ask; a change is shown and saved as a proposal
       weft chat FILE --apply ID [--json]              apply the reviewed proposal ID, exactly as shown
       weft chat FILE --message TEXT --apply [--json]  ask and apply the answer at once`

// applyFlag is --apply: alone a switch (ask and apply), --apply=ID names
// a proposal; `--apply ID` leaves the id as the second argument.
type applyFlag struct {
	on bool
	id string
}

func (f *applyFlag) String() string   { return f.id }
func (f *applyFlag) IsBoolFlag() bool { return true }
func (f *applyFlag) Set(s string) error {
	switch s {
	case "true":
		f.on = true
	case "false":
		f.on, f.id = false, ""
	default:
		f.on, f.id = true, s
	}
	return nil
}

// chat sends one message to the assistant about a workflow file, or
// applies a proposal it made earlier. The conversation is kept in the
// .weft folder beside the file (assistant.ChatPath). A proposed change is saved
// under an id (assistant.SaveProposal) with the hash of the file it was
// reviewed against; `--apply ID` writes exactly that patch, never a new
// answer of the model.
func (c *cli) chat(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	message := fs.String("message", "", "what to ask or change")
	var apply applyFlag
	fs.Var(&apply, "apply", "alone: write the answer's change to FILE when valid; with an ID: apply that reviewed proposal")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(interspersed(args, map[string]bool{"message": true})); err != nil {
		fmt.Fprintln(c.stderr, chatUsage)
		return exitUnusable
	}
	pos := fs.Args()
	if len(pos) == 2 && apply.on && apply.id == "" {
		apply.id = pos[1]
		pos = pos[:1]
	}
	hasMessage := strings.TrimSpace(*message) != ""
	switch {
	case len(pos) != 1:
		fmt.Fprintln(c.stderr, chatUsage)
		return exitUnusable
	case apply.id != "" && hasMessage:
		fmt.Fprintln(c.stderr, "weft: --apply ID applies a reviewed proposal; it cannot take a --message")
		fmt.Fprintln(c.stderr, chatUsage)
		return exitUnusable
	case apply.id == "" && !hasMessage:
		fmt.Fprintln(c.stderr, chatUsage)
		return exitUnusable
	}
	if apply.id != "" {
		return c.chatApply(ctx, pos[0], apply.id, *asJSON)
	}
	return c.chatAsk(ctx, pos[0], *message, apply.on, *asJSON)
}

// chatFail reports an error (in JSON too with --json) and returns code.
func (c *cli) chatFail(asJSON bool, extra []assistant.Warning, code int, err error) int {
	if asJSON {
		c.writeJSON(chatJSON{Kind: assistant.KindConversation, Patch: json.RawMessage("null"),
			Warnings: append([]assistant.Warning{}, extra...), Problems: []validate.Problem{}, Error: err.Error()})
	}
	fmt.Fprintf(c.stderr, "weft: %s\n", visible(err.Error()))
	return code
}

// readWorkflow reads a workflow file once and returns its bytes (what a
// proposal's hash covers) with the parsed workflow.
func readWorkflow(file string) ([]byte, *workflow.Workflow, []string, error) {
	data, err := atomicfile.ReadBounded(file, workflow.MaxFileSize)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read workflow: %w", err)
	}
	w, warnings, err := workflow.ParseFile(file, data)
	if err != nil {
		var pe *workflow.ParseError
		if errors.As(err, &pe) {
			return nil, nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		return nil, nil, nil, fmt.Errorf("parse workflow %s: %w", file, err)
	}
	return data, w, warnings, nil
}

func (c *cli) chatAsk(ctx context.Context, file, message string, apply, asJSON bool) int {
	var extra []assistant.Warning
	fail := func(code int, err error) int { return c.chatFail(asJSON, extra, code, err) }

	s, err := c.effective()
	if err != nil {
		return fail(exitUnusable, err)
	}
	content, w, loadWarnings, err := readWorkflow(file)
	if err != nil {
		return fail(exitUnusable, err)
	}
	for _, wn := range loadWarnings {
		c.log.Info("load", "warning", wn)
	}

	svc := c.runService(s, true)
	res, err := svc.Chat(ctx, service.ChatRequest{Workflow: w, Path: file, Message: message, OnProgress: c.chatProgress})
	if err != nil {
		if ctx.Err() != nil {
			return fail(exitCanceled, errors.New("chat canceled"))
		}
		return fail(exitUnusable, noModel(err))
	}
	// What reading and saving the history said comes first, on stderr too.
	for _, wn := range res.Warnings {
		if wn.Stage == assistant.StageHistory {
			fmt.Fprintf(c.stderr, "weft: %s\n", visible(wn.Message))
		}
	}

	hasChange := res.Patch != nil && !res.Patch.Empty() && res.Workflow != nil
	j := chatJSON{Kind: res.Kind, Message: res.Message, Patch: json.RawMessage("null"), Changes: res.Changes,
		Valid: res.Valid, Validated: res.Validated, Problems: res.Problems, Attempts: res.Attempts, LLMCalls: res.LLMCalls, Tests: res.Tests}
	if res.Patch != nil {
		if b, err := json.Marshal(res.Patch); err == nil {
			j.Patch = b
		}
	}

	// A usable change (valid, leaving no step of the reply out) is kept
	// as a proposal: what is applied later (or below, with --apply) is
	// these bytes, checked against this file.
	var prop *assistant.Proposal
	saved := false
	if hasChange && res.Usable() {
		prop, err = assistant.NewProposal(file, content, message, res, time.Now())
		if err != nil {
			extra = append(extra, assistant.Warning{Stage: assistant.StagePatch, Message: err.Error()})
		} else {
			j.Patch, j.PatchSHA256, j.WorkflowSHA256 = prop.Patch, prop.PatchSHA256, prop.WorkflowSHA256
			if _, err := assistant.SaveProposal(prop, time.Now()); err != nil {
				extra = append(extra, assistant.Warning{Stage: assistant.StagePatch,
					Message: err.Error() + "; the change cannot be applied later by id"})
			} else {
				saved = true
				j.ProposalID = prop.ID
				j.ApplyCommand = applyCommand(file, prop.ID)
			}
		}
	}

	var ap *applied
	var applyErr error
	if apply && prop != nil {
		ap, applyErr = c.applyProposal(ctx, svc, prop, file)
		if ap != nil {
			extra = append(extra, ap.warnings...)
			if !ap.valid {
				res.Valid, j.Valid, j.Problems = false, false, ap.problems
			}
			if ap.written {
				j.Applied, j.PreviousVersion = true, ap.kept.Version.N
				j.ApplyCommand = ""
				if saved {
					if err := assistant.DeleteProposal(prop.ID); err != nil {
						c.log.Warn("delete applied proposal", "id", prop.ID, "error", err)
					}
				}
			}
		}
	}
	j.Warnings = append(append([]assistant.Warning{}, extra...), res.Warnings...)
	if applyErr != nil {
		j.Error = applyErr.Error()
	}

	if asJSON {
		if j.Problems == nil {
			j.Problems = []validate.Problem{}
		}
		c.writeJSON(j)
	} else {
		c.chatReport(res, file, j, apply, hasChange, saved)
		if applyErr != nil {
			fmt.Fprintf(c.stderr, "weft: %s\n", visible(applyErr.Error()))
		}
	}
	switch {
	case applyErr != nil && errors.Is(applyErr, assistant.ErrStaleProposal):
		return exitInvalid
	case applyErr != nil:
		return exitUnusable
	case !res.Usable() && hasChange:
		return exitInvalid
	case !res.Valid:
		return exitInvalid
	}
	return exitOK
}

// chatApply applies a saved proposal: no model is asked.
func (c *cli) chatApply(ctx context.Context, file, id string, asJSON bool) int {
	fail := func(code int, err error) int { return c.chatFail(asJSON, nil, code, err) }
	s, err := c.effective()
	if err != nil {
		return fail(exitUnusable, err)
	}
	prop, err := assistant.LoadProposal(id)
	if err != nil {
		return fail(exitUnusable, err)
	}
	ap, err := c.applyProposal(ctx, c.runService(s, true), prop, file)
	if err != nil {
		if errors.Is(err, assistant.ErrStaleProposal) {
			return fail(exitInvalid, err)
		}
		return fail(exitUnusable, err)
	}
	if ap.written {
		if err := assistant.DeleteProposal(prop.ID); err != nil {
			c.log.Warn("delete applied proposal", "id", prop.ID, "error", err)
		}
	}
	j := chatJSON{Kind: prop.Kind, Message: prop.Message, Patch: prop.Patch, Changes: &ap.changes,
		ProposalID: prop.ID, PatchSHA256: prop.PatchSHA256, WorkflowSHA256: prop.WorkflowSHA256,
		Warnings: nonNilWarnings(ap.warnings), Valid: ap.valid, Validated: true, Problems: ap.problems, Applied: ap.written,
		PreviousVersion: ap.kept.Version.N}
	if !ap.written {
		j.ApplyCommand = applyCommand(file, prop.ID)
	}
	if asJSON {
		c.writeJSON(j)
	} else {
		fmt.Fprintf(c.stdout, "proposal %s, reviewed %s: %s\n", prop.ID, prop.Created.Local().Format("2006-01-02 15:04"), visible(prop.Message))
		fmt.Fprintln(c.stdout, "\nchanges:")
		printChanges(c.stdout, ap.changes)
		printWarningList(c, ap.warnings)
		if ap.written {
			fmt.Fprintf(c.stdout, "applied to %s (no model was asked)\n", file)
		} else {
			fmt.Fprintf(c.stdout, "INVALID; %s was not changed\n", file)
			for _, p := range ap.problems {
				fmt.Fprintf(c.stdout, "  %s: %s\n", p.Code, visible(p.Message))
			}
		}
	}
	if !ap.written {
		return exitInvalid
	}
	return exitOK
}

// applied is what became of applying a proposal.
type applied struct {
	changes  assistant.ChangeSet
	warnings []assistant.Warning
	valid    bool
	problems []validate.Problem
	written  bool
	kept     kept // the version the file was kept as before it was written
}

// applyProposal reads FILE afresh, merges the proposal's patch into it
// when it is still the reviewed content, and writes the result when it is
// valid. A stale file is an error wrapping assistant.ErrStaleProposal; an
// invalid result is reported, not written.
func (c *cli) applyProposal(ctx context.Context, svc *service.Service, p *assistant.Proposal, file string) (*applied, error) {
	content, err := atomicfile.ReadBounded(file, workflow.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read workflow: %w", err)
	}
	before, after, ws, err := p.Apply(file, content)
	if err != nil {
		return nil, err
	}
	// Described from the very workflow that is written.
	ap := &applied{changes: assistant.DescribeChanges(before, after), warnings: ws, problems: []validate.Problem{}}
	// The file is never written invalid, whatever validated the proposal.
	vr := validate.Validate(after, svc.CatalogFor(ctx, after))
	ap.valid = vr.Valid
	if !vr.Valid {
		ap.problems = vr.Errors()
		return ap, nil
	}
	// What the file held is kept first: a change applied by mistake can
	// be undone from the versions store.
	k, err := c.keepVersion(before, reasonBeforeChatApply)
	if err != nil {
		return ap, fmt.Errorf("%s was not changed: %w", file, err)
	}
	ap.kept = k
	// The file's trust carries over (a file nobody reviewed stays to be
	// reviewed; the patch's steps carry the model's marks either way).
	if err := svc.SaveWorkflow(ctx, file, after, file); err != nil {
		return ap, err
	}
	ap.written = true
	return ap, nil
}

func nonNilWarnings(ws []assistant.Warning) []assistant.Warning {
	if ws == nil {
		return []assistant.Warning{}
	}
	return ws
}

var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./@%+=:,-]+$`)

// applyCommand is the command that applies a proposal, FILE quoted for a
// POSIX shell when it needs it (shown to copy, never run).
func applyCommand(file, id string) string {
	q := file
	if !plainWord.MatchString(file) {
		q = "'" + strings.ReplaceAll(file, "'", `'\''`) + "'"
	}
	return "weft chat " + q + " --apply " + id
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

// visible escapes what would not show on a terminal (escape sequences, bidi
// overrides): the model wrote it, and the review must show what runs.
func visible(s string) string {
	v, _ := reveal.Text(s)
	return v
}

func printWarningList(c *cli, ws []assistant.Warning) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(c.stdout, "warnings:")
	for _, wn := range ws {
		fmt.Fprintf(c.stdout, "  %s: %s\n", wn.Stage, visible(wn.Message))
	}
}

// chatReport prints the reply on stdout and the review of the change after
// it: every added, removed and updated node with its fields, old → new in
// full; edges; warnings; verdict; and how to apply the saved proposal.
func (c *cli) chatReport(res *assistant.Result, file string, j chatJSON, apply, hasChange, saved bool) {
	fmt.Fprintln(c.stdout, visible(res.Message))
	if !hasChange {
		for _, wn := range j.Warnings {
			fmt.Fprintf(c.stderr, "  %s: %s\n", wn.Stage, visible(wn.Message))
		}
		return
	}
	fmt.Fprintf(c.stdout, "\nproposed %s:\n", res.Kind)
	if res.Changes != nil {
		printChanges(c.stdout, *res.Changes)
	}
	printWarningList(c, j.Warnings)
	printTests(c.stdout, res.Tests)
	fmt.Fprintf(c.stdout, "%d LLM call(s)\n", res.LLMCalls)
	switch {
	case j.Applied:
		fmt.Fprintf(c.stdout, "valid; applied to %s\n", file)
	case !j.Valid && apply:
		fmt.Fprintf(c.stdout, "INVALID after %d attempt(s); %s was not changed\n", res.Attempts, file)
		for _, p := range j.Problems {
			if p.Severity == validate.SeverityError {
				fmt.Fprintf(c.stdout, "  %s: %s\n", p.Code, visible(p.Message))
			}
		}
	case !j.Valid:
		fmt.Fprintf(c.stdout, "INVALID after %d attempt(s); not saved as a proposal\n", res.Attempts)
	case apply:
		fmt.Fprintf(c.stdout, "valid; %s was not changed\n", file)
	case !res.Validated:
		fmt.Fprintln(c.stdout, "not validated (max_repair_attempts is 0); not applied (applying validates it)")
	default:
		fmt.Fprintln(c.stdout, "valid; not applied")
	}
	if saved && !j.Applied {
		fmt.Fprintf(c.stdout, "proposal %s saved; to apply exactly this change:\n  %s\n", j.ProposalID, visible(j.ApplyCommand))
	}
}
