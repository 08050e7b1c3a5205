// Package assistant is the chat beside the canvas: it answers in prose,
// proposes a plan for an empty workflow or a patch for a non-empty one, and
// makes the model's reply reliable the way the planner does (lenient
// parsing, local repair, control-flow inference, validation of the merged
// result, re-asking with every problem), within max_repair_attempts calls.
package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Kind is what a reply proposes.
type Kind string

const (
	KindConversation Kind = "conversation" // prose only
	KindPlan         Kind = "plan"         // a workflow for an empty canvas
	KindPatch        Kind = "patch"        // a change to a non-empty workflow
)

// ProgressKind names a progress event.
type ProgressKind string

const (
	ProgressThinking    ProgressKind = "thinking"    // the first call for this message starts
	ProgressRepairing   ProgressKind = "repairing"   // a re-ask with feedback starts
	ProgressSummarizing ProgressKind = "summarizing" // older turns are being summarised
)

// Progress is reported to Config.OnProgress while Chat works.
type Progress struct {
	Kind    ProgressKind `json:"kind"`
	Attempt int          `json:"attempt,omitempty"` // 1-based model call of this message
	Max     int          `json:"max,omitempty"`     // calls allowed
	// Received counts the reply's characters streamed in so far for this
	// call (0 until the first arrive), so the UI can show the model working.
	Received int `json:"received,omitempty"`
	// ElapsedMs is how long the model has been asked (for a long wait);
	// WaitMs and Wait say it waits before trying again, and why (a rate
	// limit, a failed attempt).
	ElapsedMs int64  `json:"elapsed_ms,omitempty"`
	WaitMs    int64  `json:"wait_ms,omitempty"`
	Wait      string `json:"wait,omitempty"`
}

// Config tunes Chat; the app fills it from the settings.
type Config struct {
	// MaxRepairAttempts: 0 = one call, reply not validated; 1 = one call,
	// validated; N = up to N calls in total (reask.Calls).
	MaxRepairAttempts int
	Features          planner.Features
	// Catalog lists the tools; nil means the built-ins.
	Catalog *tools.Catalog
	// RecentMessages go to the model verbatim (default 6); older ones are
	// summarised.
	RecentMessages int
	// OnProgress, when set, hears about each call (for the UI).
	OnProgress func(Progress)
	// ChatOptions are passed to every call.
	ChatOptions llm.Options
	// Now stamps the conversation's messages; nil means time.Now.
	Now func() time.Time
	// Check, when set, judges a change that is usable as it is (the
	// workflow's test cases, played against the merged workflow): its
	// feedback asks again; its Tests go to Result.Tests.
	Check reask.Check
}

// Request is one user message in the chat of one workflow.
type Request struct {
	Workflow *workflow.Workflow
	Message  string
	// Conversation holds the earlier turns; nil starts a new one. It is not
	// modified: Result.Conversation is the updated copy to save.
	Conversation *Conversation
	// RunResults, optional, is the latest run per node key.
	RunResults map[string]NodeRun
}

// Result is the assistant's answer to one message.
type Result struct {
	Kind    Kind   `json:"kind"`
	Message string `json:"message"`
	// Patch is nil for conversation. A plan is a patch that adds every node
	// and edge to the empty workflow.
	Patch *WorkflowPatch `json:"patch"`
	// Workflow is the workflow with the patch merged, for the preview; nil
	// for conversation.
	Workflow *workflow.Workflow `json:"workflow,omitempty"`
	Diff     *Diff              `json:"diff,omitempty"`
	// Changes describes the patch field by field, old and new values in
	// full, for the review; nil for conversation.
	Changes *ChangeSet `json:"changes,omitempty"`
	// Warnings are every local repair, guess and drop, and, when Valid is
	// false, every validation problem.
	Warnings []Warning          `json:"warnings"`
	Problems []validate.Problem `json:"problems"`
	// Valid is false when the patch could not be read or leaves the
	// workflow invalid after all attempts: the UI must not apply it silently.
	Valid bool `json:"valid"`
	// Unused is what the change left out of the model's reply. Steps
	// left out make a valid change one the UI asks about before applying
	// (Usable).
	Unused planner.Unused `json:"unused"`
	// Validated is false when validation was skipped (MaxRepairAttempts 0).
	Validated bool `json:"validated"`
	// Tries says, for each reply before the one used, why it could not be
	// used and what Weft had fixed locally in it: the repair the user can
	// open, also when the last attempt succeeded.
	Tries []Try `json:"tries,omitempty"`
	// Attempts counts the model calls for the answer; LLMCalls adds the
	// summary call, if any.
	Attempts int       `json:"attempts"`
	LLMCalls int       `json:"llm_calls"`
	Usage    llm.Usage `json:"usage"`
	// Tests are the workflow's test cases played against Workflow
	// (Config.Check); nil when it has none.
	Tests *reask.Tests `json:"tests,omitempty"`
	// Conversation is the request's conversation with this exchange added
	// (and its summary updated): save it with SaveChat.
	Conversation *Conversation `json:"-"`
}

// Usable says whether the change may be applied without asking: valid,
// and leaving no step of the reply out.
func (r *Result) Usable() bool { return r.Valid && !r.Unused.Dropped() }

// ErrConfig marks a Chat call that cannot work as configured.
var ErrConfig = errors.New("assistant: not configured")

// Try is one reply that could not be used and was asked again.
type Try struct {
	Attempt int `json:"attempt"`
	// Why lists what made it unusable (the problems the re-ask named).
	Why []string `json:"why"`
	// Fixed lists what Weft had repaired or dropped while reading it.
	Fixed []string `json:"fixed,omitempty"`
}

// tryOf says what went wrong with an outcome that was asked again.
func tryOf(o *outcome) Try {
	t := Try{Attempt: o.attempt}
	switch {
	case o.truncated:
		t.Why = []string{"cut off at the length limit"}
	case o.stageErr != nil:
		t.Why = []string{o.stageErr.Error()}
	case o.dodged:
		t.Why = []string{"answered in prose while its change was still invalid"}
	case o.testError != "":
		t.Why = []string{"under the workflow's test cases: " + o.testError}
	default:
		for _, p := range o.errors {
			t.Why = append(t.Why, p.Message+" ["+p.Code+"]")
		}
	}
	for _, w := range o.warnings {
		if w.Stage != planner.StageLayout {
			t.Fixed = append(t.Fixed, w.Message)
		}
	}
	return t
}

// run is the state of one Chat call.
type run struct {
	client llm.Client
	cfg    Config
	req    Request
	w      *workflow.Workflow
	ws     []Warning // history warnings, reported with every outcome
	calls  int
	usage  llm.Usage
}

func (r *run) warn(stage, nodeID, format string, a ...any) {
	r.ws = append(r.ws, Warning{Stage: stage, NodeID: nodeID, Message: sprintf(format, a...)})
}

func (r *run) emit(p Progress) {
	if r.cfg.OnProgress != nil {
		r.cfg.OnProgress(p)
	}
}

func (r *run) chat(ctx context.Context, msgs []llm.Message) (llm.Reply, error) {
	if err := ctx.Err(); err != nil {
		return llm.Reply{}, err
	}
	r.calls++
	opts := r.cfg.ChatOptions
	if opts.Schema == nil {
		opts.Schema = ReplySchema(r.cfg.Catalog, r.cfg.Features)
	}
	reply, err := r.client.Chat(ctx, msgs, opts)
	if err != nil {
		return reply, err
	}
	r.usage.PromptTokens += reply.Usage.PromptTokens
	r.usage.CompletionTokens += reply.Usage.CompletionTokens
	r.usage.TotalTokens += reply.Usage.TotalTokens
	return reply, nil
}

// Chat answers one message. A reply that stays unusable or invalid after
// the allowed calls is not an error: Result.Valid is false and the
// warnings say why. The error is for configuration, transport errors from
// the client (never counted as repair attempts) and cancellation.
func Chat(ctx context.Context, client llm.Client, req Request, cfg Config) (*Result, error) {
	if client == nil {
		return nil, errors.Join(ErrConfig, errors.New("no LLM client"))
	}
	if strings.TrimSpace(req.Message) == "" {
		return nil, errors.Join(ErrConfig, errors.New("the message is empty"))
	}
	if cfg.Catalog == nil {
		cfg.Catalog = tools.Builtin()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	w := req.Workflow
	if w == nil {
		w = workflow.New("")
	}
	r := &run{client: client, cfg: cfg, req: req, w: w}
	conv := req.Conversation.clone()
	if conv.WorkflowID == "" {
		conv.WorkflowID = w.ID
	}

	hist, err := r.historyMessages(ctx, conv)
	if err != nil {
		return nil, err
	}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: SystemPrompt(w, cfg.Catalog, cfg.Features, req.RunResults, conv.Summary)}}
	msgs = append(msgs, hist...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: strings.TrimSpace(req.Message)})

	calls := reask.Calls(cfg.MaxRepairAttempts)
	var best, last, done *outcome
	var tries []Try
	sawChange := false
	opts := r.cfg.ChatOptions
	if opts.Schema == nil {
		opts.Schema = ReplySchema(r.cfg.Catalog, r.cfg.Features)
	}
	run, err := reask.Ask(ctx, client, msgs, reask.Config{MaxRepairAttempts: cfg.MaxRepairAttempts, Options: opts,
		OnCall: func(attempt, max int, _ string) {
			if attempt == 1 {
				r.emit(Progress{Kind: ProgressThinking, Attempt: 1, Max: max})
			} else {
				r.emit(Progress{Kind: ProgressRepairing, Attempt: attempt, Max: max})
			}
		}}, func(attempt int, reply llm.Reply, _ []llm.Message) reask.Verdict {
		o := r.evaluate(ctx, reply)
		o.attempt = attempt
		if o.kind == KindConversation && sawChange {
			// A model that answers a correction with prose has not fixed
			// anything; ask again, or fall back to its last patch.
			o.dodged = true
		}
		checked := r.check(ctx, o)
		if o.ok() && checked.Feedback == nil {
			done = o
			return reask.Verdict{OK: true}
		}
		if o.kind != KindConversation {
			sawChange = true
		}
		if o.patch != nil && (best == nil || len(o.errors) <= len(best.errors)) {
			best = o
		}
		last = o
		if attempt < calls {
			tries = append(tries, tryOf(o))
		}
		if fb := checked.Feedback; fb != nil {
			fb.Answer = feedback(o).Answer
			return reask.Verdict{Reason: checked.Reason, Feedback: fb}
		}
		return reask.Verdict{Feedback: feedback(o)}
	})
	r.calls += run.Calls
	r.usage.PromptTokens += run.Usage.PromptTokens
	r.usage.CompletionTokens += run.Usage.CompletionTokens
	r.usage.TotalTokens += run.Usage.TotalTokens
	if err != nil {
		return nil, err
	}
	if done != nil {
		res := r.finish(conv, done, done.attempt)
		res.Tries = tries
		return res, nil
	}
	chosen := best
	if chosen == nil {
		chosen = last
	}
	res := r.finish(conv, chosen, run.Calls)
	res.Tries = tries
	return res, nil
}

// check plays the test cases (Config.Check) against a change that is
// usable as it is (with max_repair_attempts 0, one that was read: the
// check validates before it plays); what it found stays with the outcome.
func (r *run) check(ctx context.Context, o *outcome) reask.Checked {
	if r.cfg.Check == nil || !o.ok() || o.merged == nil {
		return reask.Checked{}
	}
	c := r.cfg.Check(ctx, o.merged)
	o.tests = c.Tests
	if c.Feedback != nil {
		o.testError = c.Reason
	}
	return c
}

// outcome is what became of one reply.
type outcome struct {
	attempt   int
	text      string
	kind      Kind
	message   string
	patch     *WorkflowPatch
	merged    *workflow.Workflow
	warnings  []Warning
	truncated bool
	stageErr  *planner.StageError
	dodged    bool
	validated bool
	problems  []validate.Problem
	errors    []validate.Problem
	unused    planner.Unused // what the patch left out of the reply
	// tests are the test cases played against merged (Config.Check);
	// testError says why they made it unusable.
	tests     *reask.Tests
	testError string
}

// valid: the reply was read into a change that passes validation.
func (o *outcome) valid() bool {
	return !o.truncated && o.stageErr == nil && !o.dodged && len(o.errors) == 0
}

// ok: valid, and nothing that looks like a step was left out.
func (o *outcome) ok() bool { return o.valid() && !o.unused.Dropped() }

// evaluate classifies a reply and, for a change, builds, merges and
// validates it.
func (r *run) evaluate(ctx context.Context, reply llm.Reply) *outcome {
	o := &outcome{text: reply.Text}
	if reply.FinishReason == "length" {
		// A cut-off reply could be closed by the repair and look fine
		// while missing its end: never use it as it is.
		o.truncated = true
		o.kind = KindPatch
		o.message = strings.TrimSpace(stripThink(reply.Text))
		return o
	}
	c := classify(reply.Text)
	o.kind, o.message, o.warnings = c.kind, c.message, c.warnings
	if c.err != nil {
		o.stageErr = c.err
		return o
	}
	opts := patchOptions{Features: r.cfg.Features, Catalog: r.cfg.Catalog}
	empty := len(r.w.Nodes) == 0
	switch c.kind {
	case KindConversation:
		return o
	case KindPlan:
		plan, ws, unused, err := planner.ReadReply(ctx, reply.Text, planner.ParseOptions{Features: opts.Features, Catalog: opts.Catalog})
		o.warnings, o.unused = ws, unused // ReadReply ran extraction and repair itself
		if err != nil {
			o.stageErr = asStageError(err)
			return o
		}
		if empty {
			o.patch = &WorkflowPatch{Name: planName(plan, r.w, true), AddedNodes: plan.Nodes, AddedEdges: plan.Edges}
		} else {
			p, ws := planToPatch(plan, r.w, opts)
			o.patch, o.kind = p, KindPatch
			o.warnings = append(o.warnings, ws...)
		}
		if o.message == "" {
			o.message = firstNonEmpty(c.prose, "Here is a plan for the workflow.")
		}
	case KindPatch:
		p, msg, ws, err := buildPatch(c.json, r.w, opts)
		o.warnings = append(o.warnings, ws...)
		if err != nil {
			o.stageErr = asStageError(err)
			return o
		}
		o.message = firstNonEmpty(msg, c.prose)
		if p.Empty() {
			// Only a message: that is conversation.
			o.kind = KindConversation
			if o.message == "" {
				o.message = "I have no changes to propose."
			}
			return o
		}
		o.patch = p
		o.unused = planner.MeasureUnused(reply.Text, append(slices.Clone(p.AddedNodes), p.UpdatedNodes...), p.AddedEdges, opts.Features)
		o.warnings = append(o.warnings, o.unused.Warnings()...)
		if empty {
			o.kind = KindPlan
		}
		if o.message == "" {
			o.message = "Here are the proposed changes."
		}
	}
	merged, mws := MergePatchIntoWorkflow(r.w, o.patch)
	o.merged = merged
	o.warnings = append(o.warnings, mws...)
	if r.cfg.MaxRepairAttempts > 0 {
		o.validated = true
		res := validate.Validate(merged, r.cfg.Catalog)
		// A tool the patch names must exist; a node the person placed
		// keeps its warning (its MCP server may just not be running).
		o.problems = planner.StrictTools(res.Problems, merged, r.cfg.Catalog, func(id string) bool {
			old := r.w.NodeByID(id)
			n := merged.NodeByID(id)
			return old == nil || n == nil || !sameTools(old, n)
		})
		o.errors = nil
		for _, p := range o.problems {
			if p.Severity == validate.SeverityError {
				o.errors = append(o.errors, p)
			}
		}
		if !res.Valid && len(o.errors) == 0 {
			o.errors = []validate.Problem{{Code: "invalid", Severity: validate.SeverityError, Message: "the workflow is invalid"}}
		}
	}
	return o
}

func asStageError(err error) *planner.StageError {
	var se *planner.StageError
	if errors.As(err, &se) {
		return se
	}
	return &planner.StageError{Stage: StagePatch, Msg: err.Error()}
}

// finish turns the chosen outcome into the Result and records the exchange.
func (r *run) finish(conv *Conversation, o *outcome, attempts int) *Result {
	res := &Result{
		Kind: o.kind, Message: o.message, Patch: o.patch, Workflow: o.merged,
		Valid: o.valid(), Validated: o.validated, Problems: o.problems, Unused: o.unused,
		Attempts: attempts, LLMCalls: r.calls, Usage: r.usage, Tests: o.tests,
	}
	res.Warnings = append(append([]Warning{}, r.ws...), o.warnings...)
	if o.dodged {
		res.Warnings = append(res.Warnings, Warning{Stage: planner.StageReask, Message: "asked to correct its change, the model answered in prose: " + cut(o.message, 300)})
	}
	switch {
	case o.truncated:
		res.Warnings = append(res.Warnings, Warning{Stage: planner.StageTruncation, Message: "the reply was cut off at the length limit; nothing of it was used"})
	case o.stageErr != nil:
		res.Warnings = append(res.Warnings, Warning{Stage: o.stageErr.Stage, Message: "the reply could not be used: " + o.stageErr.Error()})
	}
	if !res.Valid {
		for _, p := range o.errors {
			w := Warning{Stage: planner.StageValidate, Message: p.Message + " [" + p.Code + "]"}
			if len(p.NodeIDs) > 0 {
				w.NodeID = p.NodeIDs[0]
			}
			res.Warnings = append(res.Warnings, w)
		}
	}
	if res.Problems == nil {
		res.Problems = []validate.Problem{}
	}
	if res.Patch != nil {
		p := res.Patch.normalized()
		p.Warnings = res.Warnings
		res.Patch = &p
		d := DiffForPreview(r.w, o.merged)
		res.Diff = &d
		cs := DescribeChanges(r.w, o.merged)
		res.Changes = &cs
	}
	if res.Kind == "" {
		res.Kind = KindConversation
	}
	if res.Message == "" && !res.Valid {
		res.Message = "I could not produce a usable change."
	}

	res.Conversation = recordExchange(conv, r.req.Message, res, r.cfg.Now())
	return res
}

// classified is a reply sorted into conversation, plan or patch.
type classified struct {
	kind     Kind
	message  string // the JSON's "message", or the prose for conversation
	prose    string // the text around the JSON
	json     string // the repaired JSON (patch)
	warnings []Warning
	err      *planner.StageError
}

// classify decides what a reply is, with the planner's extraction and
// repair: no JSON is conversation; a JSON object in the patch format is a
// patch; one with "steps" or "nodes" is a plan; other JSON (an example in
// an explanation) leaves the reply conversation. JSON that looks like a
// change but cannot be repaired is an error for the re-ask.
func classify(text string) classified {
	visible := strings.TrimSpace(stripThink(text))
	js, ews, err := planner.ExtractJSON(text)
	if err != nil {
		return classified{kind: KindConversation, message: visible}
	}
	prose := proseAround(visible, js)
	var ws []Warning
	for _, w := range ews {
		// The extractor looks for plans; for a patch this note is noise.
		if !strings.HasPrefix(w.Message, `no JSON block holds "steps" or "nodes"`) {
			ws = append(ws, w)
		}
	}
	fixed, rws, rerr := planner.RepairJSON(js)
	if rerr != nil {
		if alt, where, ok := planner.FindObject(context.Background(), text, "patch"); ok && isPatchObject(gjson.Parse(alt)) {
			ws = append(ws, Warning{Stage: planner.StageAlign, Message: "the reply is not in the patch format; read the patch at " + where})
			return classified{kind: KindPatch, prose: prose, json: alt, warnings: ws}
		}
		kind := changeKind(js)
		if kind == "" {
			return classified{kind: KindConversation, message: visible}
		}
		return classified{kind: kind, prose: prose, warnings: ws, err: asStageError(rerr)}
	}
	ws = append(ws, rws...)
	root := gjson.Parse(fixed)
	if !isPatchObject(root) && !isPlan(root) {
		// The extractor looks for plans: a patch object left unclosed
		// loses to a complete block nested in it. Try the object that
		// holds the first patch key instead.
		if alt, aws, ok := patchFromText(visible); ok {
			return classified{kind: KindPatch, prose: proseAround(visible, alt), json: alt, warnings: aws}
		}
		// Under an envelope, at any depth, inside a JSON string: the
		// object whose keys are the patch's.
		if alt, where, ok := planner.FindObject(context.Background(), text, "patch"); ok && isPatchObject(gjson.Parse(alt)) {
			ws = append(ws, Warning{Stage: planner.StageAlign, Message: "the reply is not in the patch format; read the patch at " + where})
			return classified{kind: KindPatch, prose: prose, json: alt, warnings: ws}
		}
	}
	switch {
	case isPatchObject(root):
		return classified{kind: KindPatch, prose: prose, json: fixed, warnings: ws}
	case isPlan(root):
		msg := ""
		if root.IsObject() {
			if v, _, ok := lookupKey(objectKeys(root), "message"); ok {
				msg = strings.TrimSpace(v.String())
			}
		}
		return classified{kind: KindPlan, message: msg, prose: prose, warnings: ws}
	case root.IsObject():
		keys := objectKeys(root)
		if v, _, ok := lookupKey(keys, "message", "reply", "answer", "response", "text"); ok && len(keys) == 1 {
			return classified{kind: KindConversation, message: strings.TrimSpace(v.String())}
		}
	}
	return classified{kind: KindConversation, message: visible}
}

// isPlan reports whether repaired JSON is a plan in the planner's forms.
func isPlan(root gjson.Result) bool {
	switch {
	case root.IsObject():
		keys := objectKeys(root)
		if _, _, ok := lookupKey(keys, "steps", "nodes"); ok {
			return true
		}
		if _, _, ok := lookupKey(keys, "step_type", "tool_name"); ok {
			return true
		}
		// {"plan": {"steps": …}} and similar wrappers.
		for _, v := range keys {
			if v.IsObject() {
				if _, _, ok := lookupKey(objectKeys(v), "steps", "nodes"); ok {
					return true
				}
			}
		}
	case root.IsArray():
		items := root.Array()
		if len(items) == 0 || !items[0].IsObject() {
			return false
		}
		_, _, ok := lookupKey(objectKeys(items[0]), "step_type", "tool_name")
		return ok
	}
	return false
}

// changeKind guesses, from JSON that does not parse, whether it meant a
// patch or a plan ("" for neither).
func changeKind(js string) Kind {
	for _, k := range patchKeyOrder {
		for _, name := range append([]string{k}, patchKeys(k)...) {
			if strings.Contains(js, `"`+name+`"`) || strings.Contains(js, name+":") {
				return KindPatch
			}
		}
	}
	for _, k := range []string{"steps", "nodes", "step_type", "tool_name"} {
		if strings.Contains(js, `"`+k+`"`) || strings.Contains(js, k+":") {
			return KindPlan
		}
	}
	return ""
}

// patchFromText finds the object around the first patch key of text,
// running to its closing bracket or, unclosed, to the end of the text, and
// repairs it.
func patchFromText(text string) (string, []Warning, bool) {
	first := -1
	for _, k := range patchKeyOrder {
		for _, name := range append([]string{k}, patchKeys(k)...) {
			for _, pat := range []string{`"` + name + `"`, `'` + name + `'`, name + ":"} {
				if i := strings.Index(text, pat); i >= 0 && (first < 0 || i < first) {
					first = i
				}
			}
		}
	}
	if first < 0 {
		return "", nil, false
	}
	start := strings.LastIndexByte(text[:first], '{')
	if start < 0 {
		return "", nil, false
	}
	body := text[start:]
	if end := strings.Index(body, "\n```"); end >= 0 {
		body = body[:end]
	}
	if end := strings.LastIndexAny(body, "}]"); end >= 0 && strings.TrimSpace(body[end+1:]) != "" {
		body = body[:end+1]
	}
	fixed, ws, err := planner.RepairJSON(strings.TrimSpace(body))
	if err != nil || !isPatchObject(gjson.Parse(fixed)) {
		return "", nil, false
	}
	return fixed, ws, true
}

// proseAround is the text of a reply outside its JSON and code fences.
func proseAround(visible, js string) string {
	i := strings.Index(visible, js)
	if i < 0 {
		return ""
	}
	s := visible[:i] + " " + visible[i+len(js):]
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

// stripThink removes <think>…</think> reasoning blocks (and a reasoning
// prefix whose opening tag the chat template sent) from prose.
// TODO: use the planner's once exported (planner.stripThink).
func stripThink(s string) string {
	for _, tag := range []string{"think", "thinking", "reasoning"} {
		open, close := "<"+tag+">", "</"+tag+">"
		for {
			lower := strings.ToLower(s)
			c := strings.Index(lower, close)
			o := strings.Index(lower, open)
			switch {
			case c >= 0 && (o < 0 || c < o):
				s = s[c+len(close):]
				continue
			case o >= 0 && c > o:
				s = s[:o] + s[c+len(close):]
				continue
			case o >= 0:
				s = s[:o]
			}
			break
		}
	}
	return s
}

// sameTools reports whether a node still calls the tools it did.
func sameTools(a, b *workflow.Node) bool {
	return a.Params.Tool == b.Params.Tool && slices.Equal(a.Params.AllowedTools, b.Params.AllowedTools)
}

// ReplySchema is the shape of the assistant's reply: a message, and a
// patch (or, for an empty workflow, a plan), all optional; built from the
// same step and edge schemas as the planner's.
func ReplySchema(cat *tools.Catalog, f planner.Features) *llm.Schema {
	steps := map[string]any{"type": "array", "items": map[string]any{"anyOf": planner.StepSchemas(cat, f)}}
	edges := map[string]any{"type": "array", "items": planner.EdgeSchema()}
	doc := map[string]any{"type": "object", "required": []string{"message"}, "properties": map[string]any{
		"message":         map[string]any{"type": "string"},
		"nodes":           steps,
		"edges":           edges,
		"add_nodes":       steps,
		"add_edges":       edges,
		"remove_node_ids": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
		"remove_edges":    edges,
		"update":          map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []string{"id"}}},
	}}
	b, _ := json.Marshal(doc)
	return &llm.Schema{Name: "weft_assistant_reply", JSON: b}
}
