// Package runner executes workflows: it walks the graph from its entry,
// runs Tool nodes with the built-in tools and MCP servers, AI nodes with
// the model, evaluates If/Switch/Loop conditions over node outputs, and
// recovers from failures at run time: per-node retries with backoff,
// verification, failure classification, adaptive retry context for AI
// steps, escalation to the user (retry, skip, abort, fix, replan) and
// learning which responses resolved which failures. Every run leaves a
// folder with events.jsonl, retry.log and a summary.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/subflow"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Retry defaults and limits (flow's).
const (
	DefaultBackoffInitial = flow.DefaultBackoffInitial
	DefaultBackoffMult    = flow.DefaultBackoffMult
	DefaultBackoffMax     = flow.DefaultBackoffMax
	MaxAttemptsLimit      = flow.MaxAttemptsLimit
)

// Options configure a Runner. Only Settings matter for a plain run; the
// rest plug in the model, MCP, the user and the planner.
type Options struct {
	// Settings supply run.default_retries, run.retention_runs and
	// mcp_servers.
	Settings settings.Settings
	// LLM runs AiStep and AiTransform nodes; nil makes them fail with a
	// configuration error.
	LLM llm.Client
	// MCP, when set, is used (and left running) instead of a manager the
	// run creates from Settings.MCPServers and closes at its end.
	MCP *mcp.Manager
	// Escalation answers failures automated recovery cannot fix; nil
	// makes such a failure end the run (OutcomeFailed).
	Escalation EscalationHandler
	// Replanner makes the replan response (and AutoReplan) possible.
	Replanner Replanner
	// Critic judges done_when criteria (package critic); nil makes a
	// done_when with criteria fail with a configuration error.
	Critic failure.Critic
	// AutoReplan asks the Replanner at once, without escalating, for
	// CRITICAL and HIGH failures (seed 004). It needs a Replanner.
	// Settings.Run.AutoReplan.Enabled turns it on too.
	AutoReplan bool
	// MaxAutoReplans bounds the automatic replans of a run, counting those
	// of the versions it was replanned from (ReplanInfo.AutoReplans); 0
	// means run.auto_replan.max_per_run. Capped at AutoReplanHardCap.
	MaxAutoReplans int
	// AutoReplanMinSeverity is the least severe failure that replans
	// automatically (SevCritical or SevHigh); "" means
	// run.auto_replan.min_severity, else SevHigh.
	AutoReplanMinSeverity failure.Severity
	// Approvals says which model-written steps a person approved (by
	// content fingerprint, package approval). Run starts nothing while a
	// step a model wrote or changed needs approval and is not approved:
	// it returns an *ApprovalError listing them. nil approves nothing.
	// The application layer asks the person before it calls Run; this is
	// the last check, so no caller can skip it.
	Approvals approval.Checker
	// ApprovalCatalog describes the tools for the approval check (MCP
	// tools and their annotations); nil means the built-ins, so MCP tools
	// count as unknown and need approval.
	ApprovalCatalog *tools.Catalog
	// ReviewFile says the workflow's file is not trusted (its bytes are
	// not ones Weft wrote or the person reviewed): every step that acts or
	// routes needs approval, whoever wrote it (approval.Scope.File).
	ReviewFile bool
	// KeepAttempts writes the attempts record (attempts.jsonl) in the
	// run folder: each attempt's arguments and whole outputs, secrets
	// hidden, for recording a test case from the run (attempts.go).
	KeepAttempts bool
	// UsePinned makes steps with pinned data (Workflow.Pinned) use it
	// instead of running: the editor's development runs. Without it such
	// steps run for real and a warning says so (headless runs, unless
	// asked). partial.go.
	UsePinned bool
	// From starts the run at this node instead of the entry ("run from
	// here"); a node inside a loop starts at its outermost Loop. The steps
	// before it do not run: they read Reuse.
	From string
	// Inputs are the values given for the workflow's declared inputs
	// (Workflow.Inputs): Run checks them (inputs.Resolve: defaults,
	// required, types) and refuses to start when they do not fit.
	Inputs map[string]any
	// Reuse are the outputs of an earlier run by node key, given to the
	// steps before From (only those).
	Reuse map[string]any
	// ReusedFrom names the run Reuse comes from, for messages.
	ReusedFrom string
	// ReuseOf is the workflow the earlier run ran: a step before From
	// that changed since makes Run refuse (its outputs would be stale).
	ReuseOf *workflow.Workflow
	// OnEvent receives every event as it happens, on the run's goroutine:
	// it must not block for long. Events are redacted (Redactor) first.
	OnEvent func(Event)
	// Redactor holds the secrets to keep out of events, logs, the
	// Result and the environment of commands and MCP servers; build it
	// with NewRedactor. The run works on a copy, to which it adds the
	// secrets of Settings (so nil still hides those) and the credentials
	// it meets (secrets.go).
	Redactor *redact.Redactor
	// Secrets is the credentials store the {{secrets.NAME}} references
	// of the steps are read from, when a call makes them (secretrefs.go);
	// nil makes a step that refers to one fail.
	Secrets SecretSource
	// Source is who started the run, recorded in its summary (manual when
	// unset).
	Source RunSource
	// RunID names the run and its folder (NewRunID); "" makes a new one.
	// A caller that runs several at once knows each run's id before it
	// starts.
	RunID string
	// WorkflowPath is the file the workflow was loaded from, if any: runs
	// are logged in .weft/runs beside it, and relative paths start in its
	// folder.
	WorkflowPath string
	// Dir overrides the folder relative paths start from.
	Dir string
	// Chain is the workflow files of the runs this one is inside (a
	// sub-workflow's run), outermost first; Parent the run whose
	// Workflow step started it (recorded in its summary).
	Chain  subflow.Chain
	Parent *flow.RunLink
	// GateChild says what the approvals and the file's trust are for a
	// sub-workflow's file (data: its bytes as read) before it runs; nil
	// reviews the whole file and approves nothing, so a sub-workflow
	// that acts does not run.
	GateChild func(ctx context.Context, w *workflow.Workflow, path string, data []byte) (ChildGate, error)
	// Children is how Workflow steps reach and run the workflows they
	// call on an engine whose workers cannot read this machine's files
	// (package temporal); nil reads each file when its step runs and runs
	// it here, gated by GateChild.
	Children Children
	// RunsDir overrides where run folders go.
	RunsDir string
	// Patterns is the learning store; nil means the default one in the
	// XDG data dir.
	Patterns *failure.PatternStore
	// Tools adds (or overrides) tools by name.
	Tools map[string]Tool
	// Effects, when set, answers every tool call and every AI step in
	// place of the tools, the MCP servers and the model (standin.go):
	// a run in which nothing acts, for workflow tests. Since nothing a
	// model wrote can act, such a run needs no approval.
	Effects Effects
	// ExprTimeout bounds each condition evaluation (default 500ms).
	ExprTimeout time.Duration
	// MaxLogBytes caps events.jsonl and retry.log each (default
	// DefaultMaxLogBytes); past it only what matters for recovery is
	// written.
	MaxLogBytes int64
	Logger      *slog.Logger
	// Sleep waits between attempts; tests may replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; tests may replace it.
	Now func() time.Time
}

// Runner runs workflows. It is safe to run several workflows at once.
type Runner struct {
	opts  Options
	tools map[string]Tool
}

// New returns a Runner.
func New(opts Options) *Runner {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	ts := builtinTools()
	for name, t := range opts.Tools {
		ts[name] = t
	}
	return &Runner{opts: opts, tools: ts}
}

// InvalidError is returned by Run for a workflow that does not validate.
type InvalidError struct {
	Problems []validate.Problem
}

func (e *InvalidError) Error() string {
	var msgs []string
	for _, p := range e.Problems {
		msgs = append(msgs, p.Message+" ["+p.Code+"]")
		if len(msgs) == 5 {
			break
		}
	}
	more := ""
	if len(e.Problems) > len(msgs) {
		more = fmt.Sprintf(" (and %d more)", len(e.Problems)-len(msgs))
	}
	return fmt.Sprintf("the workflow is not valid, so it cannot run: %s%s; run `weft validate` or open it in Weft to fix it", strings.Join(msgs, "; "), more)
}

// Catalog returns the built-in tools plus every tool of the configured MCP
// servers (as server.tool), for the palette and the planner; servers that
// fail to start are reported in the map and left out.
func Catalog(ctx context.Context, s settings.Settings) (*tools.Catalog, map[string]error) {
	return mcp.Catalog(ctx, s.MCPServers, tools.Builtin(), mcp.Options{Redactor: NewRedactor(s)})
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run is the state of one run.
type run struct {
	rn   *Runner
	opts *Options
	w    *workflow.Workflow
	g    *flow.Graph
	id   string
	dir  string // the workflow's folder
	log  *runLog
	eval *evaluator
	mcp  *mcp.Manager
	pats *failure.PatternStore
	// fw is the walk (package flow) a Run drives; nil when one step runs
	// on its own (Step) or a goal is judged for another engine (Judge).
	fw *flow.Walk
	// red hides secrets at every sink (secrets.go); secretSources are
	// the output paths, by node key, that credential headers read; env
	// is the environment of the commands the run starts.
	red           *redact.Redactor
	secretSources map[string][][]string
	env           []string
	// confined are the read steps the effect gate confines to root, the
	// workflow's folder (effects.go).
	confined map[string]bool
	root     string
	// attempts is the attempts record (Options.KeepAttempts).
	attempts attemptLog

	// vars are the outputs by node key (every key; maps are never
	// mutated once set), set the keys that have some: the walk's, or
	// given (Step, Judge).
	vars map[string]any
	set  map[string]bool
	// details are the steps' statistics for a goal judged for another
	// engine (Judge); a Run reads its walk's.
	details []NodeStat

	// subRuns are the runs its Workflow steps started.
	subRuns []flow.RunLink

	mcpMu      sync.Mutex
	mcpSchemas map[string]map[string]string // tool → property → JSON type
}

// admit is every check a run passes before it starts, in order:
// validation, the graph and where it starts, the outputs it reuses, the
// approvals (gate.go), the inputs. A sub-workflow is admitted by its
// caller's step the same way before any engine is asked to run it.
func (rn *Runner) admit(w *workflow.Workflow) (admitted, error) {
	cat := tools.Builtin()
	var extra []tools.Tool
	for name := range rn.opts.Tools {
		if !cat.Has(name) {
			extra = append(extra, tools.Tool{Name: name})
		}
	}
	if len(extra) > 0 {
		cat = tools.NewCatalog(append(cat.List(), extra...)...)
	}
	res := validate.Validate(w, cat)
	if !res.Valid {
		return admitted{}, &InvalidError{Problems: res.Errors()}
	}
	g, err := flow.NewGraph(w)
	if err != nil {
		return admitted{}, err
	}
	start, err := g.StartAt(rn.opts.From)
	if err != nil {
		return admitted{}, err
	}
	if err := g.CheckReuse(w, start, rn.opts.ReuseOf, rn.opts.ReusedFrom); err != nil {
		return admitted{}, err
	}
	if err := rn.checkApproval(w); err != nil { // gate.go: model-written steps
		return admitted{}, err
	}
	given, err := inputs.Resolve(w.Inputs, rn.opts.Inputs, nil)
	if err != nil {
		return admitted{}, err
	}
	return admitted{valid: res, g: g, given: given}, nil
}

// admitted is what admit found: the validation's result, the graph, the
// inputs resolved.
type admitted struct {
	valid validate.Result
	g     *flow.Graph
	given map[string]any
}

// Run executes w. It returns an error (and no Result) only when the run
// cannot start: an invalid workflow (*InvalidError) or an unwritable run
// folder. How the run itself went is in Result.Outcome.
func (rn *Runner) Run(ctx context.Context, w *workflow.Workflow) (*Result, error) {
	if w == nil {
		return nil, errors.New("no workflow to run")
	}
	w = w.Clone() // fixes edit the run's copy, never the caller's
	ad, err := rn.admit(w)
	if err != nil {
		return nil, err
	}
	o := &rn.opts
	g, given, res := ad.g, ad.given, ad.valid

	dir, err := rn.runDir()
	if err != nil {
		return nil, err
	}
	runsDir := o.RunsDir
	if runsDir == "" {
		if runsDir, err = DefaultRunsDir(o.WorkflowPath); err != nil {
			return nil, err
		}
	}
	started := o.Now()
	id := o.RunID
	if id == "" {
		id = NewRunID(started)
	} else if !runIDRe.MatchString(id) {
		return nil, fmt.Errorf("run id %q is not one NewRunID makes", id)
	}
	red, sources := runRedactor(o, w, given)
	log, err := openRunLog(filepath.Join(runsDir, id), id, o.OnEvent, o.Now, red)
	if err != nil {
		return nil, err
	}
	log.forWorkflow(o.WorkflowPath)
	if o.MaxLogBytes > 0 {
		log.maxBytes = o.MaxLogBytes
	}

	r := rn.newRun(w, g, id, dir, log, red, sources)
	if r.mcp == nil {
		r.mcp = mcp.NewManager(o.Settings.MCPServers, mcp.Options{Dir: dir, Logger: o.Logger, Redactor: red})
		defer r.mcp.Close()
	}
	warnings := ValidationWarnings(res, w, func(tool string) bool { _, _, ok := r.mcp.Resolve(tool); return ok })
	r.pats = o.Patterns
	if r.pats == nil {
		if r.pats, err = failure.DefaultPatternStore(); err != nil {
			warnings = append(warnings, "failure patterns are not recorded: "+err.Error())
		}
	}
	keep := o.Settings.Run.RetentionRuns
	if keep <= 0 {
		keep = settings.DefaultRetentionRuns
	}
	if err := pruneRuns(runsDir, id, keep, started); err != nil {
		warnings = append(warnings, err.Error())
	}
	if err := r.log.writeWorkflow(w); err != nil {
		warnings = append(warnings, "could not save the workflow copy: "+err.Error())
	}

	r.fw, err = flow.New(w, flow.Config{RunID: id, From: o.From, Reuse: o.Reuse, ReusedFrom: o.ReusedFrom, UsePinned: o.UsePinned,
		DefaultRetries: o.Settings.Run.DefaultRetries, CanAsk: o.Escalation != nil, CanReplan: o.Replanner != nil,
		AutoReplan: o.autoReplanPolicy(), Seed: uint64(started.UnixNano()), Warnings: warnings, Inputs: given,
		Emit: r.log.emit, OnOutputs: r.noteSourceSecrets, KnownFixes: r.knownFixes, Learn: r.learn})
	if err != nil {
		r.log.close()
		return nil, err
	}
	r.vars, r.set = r.fw.Vars(), r.fw.SetKeys()

	result := r.drive(ctx, r.fw.Start(started))
	result.RunID, result.Dir, result.Started, result.Source = id, log.dir, started, o.source()
	result.Parent, result.SubRuns = o.Parent, r.subRuns
	result.Finished = o.Now()
	result.Live = map[string]any{}
	for _, id := range result.Completed {
		if n := g.ByID[id]; n != nil && r.set[n.Key] {
			result.Live[n.Key] = r.vars[n.Key]
		}
	}
	redactResult(r.red, result)
	if err := r.writeAttempts(); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("the attempts record is incomplete: "+err.Error()))
	}
	if err := r.log.writeWorkflow(w); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("could not save the workflow copy: "+err.Error()))
	}
	if err := r.log.writeSummary(result, w); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("could not write summary.json: "+err.Error()))
	}
	if err := r.log.close(); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("the run log is incomplete: "+err.Error()))
	}
	return result, nil
}

// ValidationWarnings are the problems of a valid workflow that do not
// stop a run: its first warnings. A tool mcpTool says an MCP server
// provides is not one (its server is asked only when the step runs).
func ValidationWarnings(res validate.Result, w *workflow.Workflow, mcpTool func(string) bool) []string {
	var out []string
	for _, p := range res.Problems {
		if p.Code == validate.CodeUnknownTool && len(p.NodeIDs) > 0 {
			if n := w.NodeByID(p.NodeIDs[0]); n != nil && mcpTool(n.Params.Tool) {
				continue
			}
		}
		out = append(out, p.Message)
	}
	return out
}

// StartWarnings are the warnings a run of w starts with under settings
// s, for an engine that runs it elsewhere (Temporal): the submitter knows
// the MCP servers the person configured, as a local run does.
func StartWarnings(w *workflow.Workflow, s settings.Settings) []string {
	m := mcp.NewManager(s.MCPServers, mcp.Options{})
	return ValidationWarnings(validate.Validate(w, tools.Builtin()), w, func(tool string) bool { _, _, ok := m.Resolve(tool); return ok })
}

// drive does what the walk asks, on this machine, until the run ends:
// the local engine. Its only decisions are how to do each thing.
func (r *run) drive(ctx context.Context, c flow.Command) *Result {
	o := r.opts
	for c.Kind != flow.KindDone {
		var in flow.Input
		switch c.Kind {
		case flow.KindAttempt:
			in.Outputs, in.Failure = r.runAttempt(ctx, c)
		case flow.KindCondition:
			v, err := r.eval.evalBool(c.Condition, r.vars, "", nil)
			in.Value = v
			if err != nil {
				in.Error = err.Error()
			}
		case flow.KindWait:
			in.Canceled = o.Sleep(ctx, c.Delay) != nil
		case flow.KindAsk:
			resp, err := o.Escalation.Escalate(ctx, redactEscalation(r.red, *c.Escalation)) // shown as the event shows it
			in.Response = resp
			if err != nil {
				in.Error = err.Error()
			}
		case flow.KindReplan:
			nw, err := r.replan(ctx, c.Node, c.Failures, c.Auto)
			in.Workflow = nw
			if err != nil {
				in.Error = err.Error()
			}
		case flow.KindGoal:
			v, err := r.judge(ctx, r.w.DoneWhen, nil, nil)
			in.Verdict = v
			if err != nil {
				in.Failure = GoalFailure(r.red, err)
			}
		default:
			in.Error = fmt.Sprintf("the local engine cannot do %q", c.Kind)
		}
		in.Now = o.Now()
		in.Canceled = in.Canceled || ctx.Err() != nil
		c = r.fw.Next(in)
	}
	return c.Result
}

// runAttempt runs one attempt the walk asked for (both engines: Step
// calls it too): a Tool node's arguments are filled in once per attempt
// (a fix may have changed them) and shown with the attempt.
func (r *run) runAttempt(ctx context.Context, c flow.Command) (map[string]any, *failure.Record) {
	n := c.Node
	var args map[string]any
	var argErr error
	switch n.Type {
	case workflow.TypeTool:
		args, argErr = r.renderArgs(n.Params.Tool, n.Params.Arguments)
	case workflow.TypeWorkflow:
		args, argErr = r.renderInputs(n.Params.Inputs)
	}
	r.log.emit(Event{Type: EvAttempt, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRunning, Attempt: c.Attempt, MaxAttempts: c.MaxAttempts, Arguments: shownArgs(args)}) // long values cut, as outputs'
	var rc *retryContext
	if isAI(n) && (len(c.Failures) > 0 || c.Instruction != "") {
		rc = &retryContext{Attempt: c.Attempt, MaxAttempts: c.MaxAttempts, Failures: c.Failures, Instruction: c.Instruction, Learnings: r.learnings(flow.ToolName(n), 3)}
	}
	out, f := r.attempt(ctx, n, c.Attempt, rc, args, argErr)
	r.keepAttempt(n, c.Attempt, args, out, f)
	return out, f
}

// newRun is the state of a run of w (Run), or of one step of it (Step):
// every node's outputs read as empty until it runs.
func (rn *Runner) newRun(w *workflow.Workflow, g *flow.Graph, id, dir string, log *runLog, red *redact.Redactor, sources map[string][][]string) *run {
	o := &rn.opts
	r := &run{rn: rn, opts: o, w: w, g: g, id: id, dir: dir, log: log,
		red: red, secretSources: sources, env: childEnv(red),
		vars: make(map[string]any, len(w.Nodes)), set: map[string]bool{},
		mcpSchemas: map[string]map[string]string{},
		mcp:        o.MCP,
		confined:   rn.confinedReads(w), root: rn.confinementRoot()}
	keys := make([]string, 0, len(w.Nodes))
	for i := range w.Nodes {
		k := w.Nodes[i].Key
		keys = append(keys, k)
		r.vars[k] = map[string]any{} // not run yet: fields read as nil
	}
	r.vars[inputs.Root] = map[string]any{} // none given: {{inputs.X}} says so
	r.eval = newEvaluator(withInputs(keys), o.ExprTimeout)
	return r
}

// summaryDoc is summary.json: the result with bounded outputs, the
// workflow's id and name, and the name of its file (file; "" unsaved).
func summaryDoc(res *Result, w *workflow.Workflow, file string) any {
	outs := map[string]any{}
	for k, v := range res.Outputs {
		if m, ok := v.(map[string]any); ok {
			outs[k] = bounded(m, 4000)
		}
	}
	doc := *res
	doc.Outputs = outs
	doc.Replanned = nil
	return struct {
		WorkflowID   string `json:"workflow_id"`
		WorkflowName string `json:"workflow_name"`
		WorkflowFile string `json:"workflow_file,omitempty"`
		Replanned    bool   `json:"replanned,omitempty"`
		Result
	}{w.ID, w.Name, file, res.Replanned != nil, doc}
}

// warn emits a warning of the run (kept in its Result by the walk).
func (r *run) warn(n *workflow.Node, msg string) {
	if r.fw != nil {
		r.fw.Warn(n, msg)
		return
	}
	e := Event{Type: EvWarning, Message: msg}
	if n != nil {
		e.NodeID, e.NodeKey, e.NodeName = n.ID, n.Key, n.Name
	}
	r.log.emit(e)
}

// Completion is how a run that reached the end of its path ended
// (flow.Completion).
func Completion(s Summary, v *Verdict) *Result { return flow.Completion(s, v) }

// MergePatch applies an RFC 7396 JSON merge patch (flow.MergePatch).
func MergePatch(target, patch map[string]any) map[string]any { return flow.MergePatch(target, patch) }

// ---- step nodes: attempts, retries, escalation ----

func isAI(n *workflow.Node) bool {
	return n.Type == workflow.TypeAiStep || n.Type == workflow.TypeAiTransform
}

// attempt runs a node once, with its timeout, and checks verify. It returns
// the outputs and, when the attempt failed, its failure record.
func (r *run) attempt(ctx context.Context, n *workflow.Node, attempt int, rc *retryContext, args map[string]any, argErr error) (map[string]any, *failure.Record) {
	actx := ctx
	if n.TimeoutMs > 0 {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, millis(int64(n.TimeoutMs), maxTimeoutMs))
		defer cancel()
	}
	start := r.opts.Now()
	var (
		outputs map[string]any
		trace   string
		err     error
	)
	switch n.Type {
	case workflow.TypeTool:
		if err = argErr; err != nil {
			err = argErrorf("arguments: %v", err)
		} else {
			outputs, err = r.callTool(actx, n, n.Params.Tool, args)
		}
	case workflow.TypeAiStep, workflow.TypeAiTransform:
		outputs, trace, err = r.ai(actx, n, attempt, rc)
	case workflow.TypeWorkflow:
		if err = argErr; err != nil {
			err = argErrorf("inputs: %v", err)
		} else {
			outputs, err = r.runSubflow(actx, n, args)
		}
	}
	out := make(map[string]any, len(outputs)+2)
	for k, v := range outputs {
		out[k] = v
	}
	out["success"] = err == nil
	out["error"] = ""
	ft := failure.FailExecution
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			ft = failure.FailTimeout
			if actx.Err() != nil {
				err = fmt.Errorf("no result within the node's timeout_ms of %dms: %w", n.TimeoutMs, err)
			}
		}
		var rej *rejectedError
		if errors.As(err, &rej) {
			ft = failure.FailRejected
		}
	}
	if err != nil && strings.TrimSpace(n.Verify) != "" && statusOnly(err) {
		err = nil // the node's verify decides instead of the default status check
	}
	if err == nil && strings.TrimSpace(n.Verify) != "" {
		ok, verr := r.eval.evalBool(n.Verify, r.vars, n.Key, out)
		switch {
		case verr != nil:
			err = fmt.Errorf("verify `%s` could not be evaluated: %v", n.Verify, verr)
			ft = failure.FailVerification
		case !ok:
			err = fmt.Errorf("verify `%s` is false", n.Verify)
			ft = failure.FailVerification
		}
		if err != nil {
			out["success"] = false
		}
	}
	var verdict *Verdict
	if err == nil && !n.DoneWhen.IsZero() {
		verdict, err = r.checkStep(actx, n, out)
		var rej *rejectedError
		if errors.As(err, &rej) {
			ft = failure.FailRejected
		}
		if err != nil {
			out["success"] = false
		}
	}
	if err == nil {
		return out, nil
	}
	out["error"] = err.Error()
	c := Classify(ft, err, out, isAI(n))
	if verdict != nil && len(verdict.Suggestions) > 0 {
		c.SuggestedFix = strings.Join(verdict.Suggestions, "; ")
	}
	var retryAfter time.Duration
	var hse *HTTPStatusError
	if errors.As(err, &hse) && hse.RetryAfter > 0 && c.Retryable {
		retryAfter = hse.RetryAfter
		if retryAfter > maxRetryAfter {
			// Waiting silently for an hour is not recovery: say when.
			c.Retryable = false
			c.SuggestedFix = fmt.Sprintf("The server asks to wait %v (retry after %s), longer than Weft waits between attempts (%v): retry then, or skip.",
				retryAfter.Round(time.Second), r.opts.Now().Add(retryAfter).Format("15:04"), maxRetryAfter)
			retryAfter = 0
		}
	}
	summary := outputSummary(out, 1500)
	if trace != "" {
		summary = truncate("tool calls:\n"+trace+"\n"+summary, 3000)
	}
	// Failure records are redacted where they are made: they travel to
	// escalations, replan requests, AI retries and learned patterns.
	return out, &failure.Record{Attempt: attempt, Time: start, FailureType: ft, Error: r.red.String(err.Error()), OutputSummary: r.red.String(summary),
		Classification: c, DurationMs: r.opts.Now().Sub(start).Milliseconds(), RetryAfterMs: retryAfter.Milliseconds()}
}

// ai runs one attempt of an AI step: with the model, or by the stand-in
// (Options.Effects) when there is one.
func (r *run) ai(ctx context.Context, n *workflow.Node, attempt int, rc *retryContext) (map[string]any, string, error) {
	switch {
	case r.opts.Effects != nil:
		out, err := r.opts.Effects.AI(ctx, n, attempt)
		return out, "", err
	case n.Type == workflow.TypeAiStep:
		return r.aiStep(ctx, n, rc)
	default:
		return r.aiTransform(ctx, n, rc)
	}
}

// statusOnly reports whether err is only a tool's status check (an exit
// status or HTTP status the node did not accept), which a node's verify
// replaces. A signal is not: the command did not finish.
func statusOnly(err error) bool {
	var ese *ExitStatusError
	if errors.As(err, &ese) {
		return ese.Signal == 0
	}
	var hse *HTTPStatusError
	return errors.As(err, &hse)
}

// callTool is the effect gate (effects.go): every tool call of a run
// passes here when it happens. It dispatches to a built-in or extra tool,
// else to an MCP server.
func (r *run) callTool(ctx context.Context, n *workflow.Node, name string, args map[string]any) (map[string]any, error) {
	if args == nil {
		args = map[string]any{}
	}
	if r.opts.Effects != nil { // a stand-in answers: no secret is read, nothing acts
		return r.opts.Effects.Tool(ctx, EffectCall{Node: n, Name: name, Args: args, Dir: r.dir})
	}
	args, sec, err := r.openSecrets(name, args)
	if err != nil {
		return nil, err
	}
	if name == "http_request" {
		r.noteRequestSecrets(args)
	}
	if t, ok := r.rn.tools[name]; ok {
		root, literal, err := r.access(n, name, args)
		if err != nil {
			return nil, err
		}
		tc := ToolCall{Name: name, Args: args, Dir: r.dir, Root: root, LiteralPath: literal, Env: sec.callEnv(r.env), Log: func(msg string) {
			r.log.emit(Event{Type: EvLog, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Message: msg})
		}}
		if sec != nil {
			tc.Redirect = sec.redirect
		}
		out, err := t.Call(ctx, tc)
		return sec.scrub(out), err
	}
	srv, tool, ok := r.mcp.Resolve(name)
	if !ok {
		return nil, argErrorf("unknown tool %q: it is not built in and no MCP server in settings (mcp_servers) provides it", name)
	}
	if types, err := r.mcpArgTypes(ctx, name); err == nil {
		args = coerceArgs(args, types)
	}
	res, err := r.mcp.Call(ctx, srv, tool, args)
	var me *mcp.Error
	if err != nil && !errors.As(err, &me) {
		return nil, err
	}
	if err != nil && me.Kind != mcp.KindTool {
		return nil, err
	}
	return sec.scrub(res.Outputs()), err
}

// mcpTool finds an MCP tool's catalog entry (starting its server).
func (r *run) mcpTool(ctx context.Context, name string) (tools.Tool, bool, error) {
	srv, _, ok := r.mcp.Resolve(name)
	if !ok {
		return tools.Tool{}, false, nil
	}
	ts, err := r.mcp.Tools(ctx, srv)
	if err != nil {
		return tools.Tool{}, false, err
	}
	for _, t := range ts {
		if t.Name == name {
			return t, true, nil
		}
	}
	return tools.Tool{}, false, argErrorf("the MCP server %q has no tool %q", srv, strings.TrimPrefix(name, srv+"."))
}

// mcpArgTypes returns the JSON types of a tool's top-level arguments.
func (r *run) mcpArgTypes(ctx context.Context, name string) (map[string]string, error) {
	r.mcpMu.Lock()
	types, ok := r.mcpSchemas[name]
	r.mcpMu.Unlock()
	if ok {
		return types, nil
	}
	t, found, err := r.mcpTool(ctx, name)
	if err != nil || !found {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	json.Unmarshal(t.InputSchema, &schema)
	types = map[string]string{}
	for k, p := range schema.Properties {
		if s, ok := p.Type.(string); ok {
			types[k] = s
		}
	}
	r.mcpMu.Lock()
	r.mcpSchemas[name] = types
	r.mcpMu.Unlock()
	return types, nil
}

// coerceArgs converts template results to the types the schema asks for:
// "{{n.count}}" gives a number where a string is wanted, and "5" a string
// where an integer is.
func coerceArgs(args map[string]any, types map[string]string) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = render.CoerceArg(v, types[k]) // the rule validation applies too
	}
	return out
}
