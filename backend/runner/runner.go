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
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Retry defaults for nodes whose retry.backoff leaves a field out.
const (
	DefaultBackoffInitial = 500 * time.Millisecond
	DefaultBackoffMult    = 2.0
	DefaultBackoffMax     = 30 * time.Second
	DefaultBackoffJitter  = 0.2
	// MaxAttemptsLimit caps retry.max_attempts.
	MaxAttemptsLimit = 100
	// maxRefusals bounds how often an escalation is asked again after
	// answers it cannot act on, before the run is aborted.
	maxRefusals = 5
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
	// UsePinned makes steps with pinned data (Workflow.Pinned) use it
	// instead of running: the editor's development runs. Without it such
	// steps run for real and a warning says so (headless runs, unless
	// asked). partial.go.
	UsePinned bool
	// From starts the run at this node instead of the entry ("run from
	// here"); a node inside a loop starts at its outermost Loop. The steps
	// before it do not run: they read Reuse.
	From string
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
	// WorkflowPath is the file the workflow was loaded from, if any: runs
	// are logged in .weft/runs beside it, and relative paths start in its
	// folder.
	WorkflowPath string
	// Dir overrides the folder relative paths start from.
	Dir string
	// RunsDir overrides where run folders go.
	RunsDir string
	// Patterns is the learning store; nil means the default one in the
	// XDG data dir.
	Patterns *failure.PatternStore
	// Tools adds (or overrides) tools by name.
	Tools map[string]Tool
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
	rn    *Runner
	opts  *Options
	w     *workflow.Workflow
	g     *graph
	start *workflow.Node // where the walk begins (From, or the entry)
	id    string
	dir   string // the workflow's folder
	log   *runLog
	eval  *evaluator
	mcp   *mcp.Manager
	pats  *failure.PatternStore
	rand  *rand.Rand
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

	vars      map[string]any // node key → outputs (maps are never mutated once set)
	set       map[string]bool
	iter      map[string]int // Loop id → current iteration
	completed []string       // ids of the nodes that succeeded, in first-success order
	done      map[string]bool
	warnings  []string
	// autoReplans counts the automatic replans asked for (autoreplan.go).
	autoReplans int
	// verdict is the workflow's done_when check (done.go).
	verdict *Verdict

	stats   map[string]*NodeStat
	order   []string
	summary Summary

	mcpMu      sync.Mutex
	mcpSchemas map[string]map[string]string // tool → property → JSON type
}

// Run executes w. It returns an error (and no Result) only when the run
// cannot start: an invalid workflow (*InvalidError) or an unwritable run
// folder. How the run itself went is in Result.Outcome.
func (rn *Runner) Run(ctx context.Context, w *workflow.Workflow) (*Result, error) {
	if w == nil {
		return nil, errors.New("no workflow to run")
	}
	w = w.Clone() // fixes edit the run's copy, never the caller's
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
		return nil, &InvalidError{Problems: res.Errors()}
	}
	g, err := newGraph(w)
	if err != nil {
		return nil, err
	}
	start, err := g.startAt(rn.opts.From)
	if err != nil {
		return nil, err
	}
	if err := g.checkReuse(w, start, rn.opts.ReuseOf, rn.opts.ReusedFrom); err != nil {
		return nil, err
	}
	if err := rn.checkApproval(w); err != nil { // gate.go: model-written steps
		return nil, err
	}

	o := &rn.opts
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
	id := newRunID(started)
	red, sources := runRedactor(o, w)
	log, err := openRunLog(filepath.Join(runsDir, id), id, o.OnEvent, o.Now, red)
	if err != nil {
		return nil, err
	}
	log.workflowMode = workflowMode(o.WorkflowPath)
	if o.MaxLogBytes > 0 {
		log.maxBytes = o.MaxLogBytes
	}

	r := rn.newRun(w, g, start, id, dir, log, red, sources, started)
	if r.mcp == nil {
		r.mcp = mcp.NewManager(o.Settings.MCPServers, mcp.Options{Dir: dir, Logger: o.Logger, Redactor: red})
		defer r.mcp.Close()
	}
	for _, p := range res.Problems {
		if p.Code == validate.CodeUnknownTool && len(p.NodeIDs) > 0 {
			if n := g.byID[p.NodeIDs[0]]; n != nil {
				if _, _, ok := r.mcp.Resolve(n.Params.Tool); ok {
					continue // an MCP tool: its server is only asked when the node runs
				}
			}
		}
		r.warnings = append(r.warnings, p.Message)
	}

	r.pats = o.Patterns
	if r.pats == nil {
		if r.pats, err = failure.DefaultPatternStore(); err != nil {
			r.warnings = append(r.warnings, "failure patterns are not recorded: "+err.Error())
		}
	}

	r.log.emit(Event{Type: EvRunStarted, Message: fmt.Sprintf("%s: %d nodes, %d edges", w.Name, len(w.Nodes), len(w.Edges))})
	for _, wn := range r.warnings {
		r.log.emit(Event{Type: EvWarning, Message: wn})
	}
	keep := o.Settings.Run.RetentionRuns
	if keep <= 0 {
		keep = settings.DefaultRetentionRuns
	}
	if err := pruneRuns(runsDir, id, keep, started); err != nil {
		r.warn(nil, err.Error())
	}
	if err := r.log.writeWorkflow(w); err != nil {
		r.warn(nil, "could not save the workflow copy: "+err.Error())
	}
	r.notePinned()
	r.reuse()

	result := r.walk(ctx)
	result.RunID, result.Dir, result.Started, result.Source = id, log.dir, started, o.source()
	result.Finished = o.Now()
	result.Completed = r.completed
	result.Outputs = map[string]any{}
	for k := range r.set {
		result.Outputs[k] = r.vars[k]
	}
	result.Live = map[string]any{}
	for _, id := range r.completed {
		if n := g.byID[id]; n != nil && r.set[n.Key] {
			result.Live[n.Key] = r.vars[n.Key]
		}
	}
	r.summary.DurationMs = result.Finished.Sub(started).Milliseconds()
	for _, id := range r.order {
		r.summary.Details = append(r.summary.Details, *r.stats[id])
	}
	if r.summary.Details == nil {
		r.summary.Details = []NodeStat{}
	}
	result.Summary = r.summary
	result.Warnings = r.warnings
	redactResult(r.red, result)

	fin := Event{Type: EvRunFinished, Outcome: result.Outcome, Message: result.Error, Summary: &result.Summary, DurationMs: r.summary.DurationMs, Verdict: result.Verdict}
	if result.StoppedAt != nil {
		fin.NodeID, fin.NodeKey, fin.NodeName = result.StoppedAt.ID, result.StoppedAt.Key, result.StoppedAt.Name
	}
	r.log.emit(fin)
	if err := r.log.writeWorkflow(w); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("could not save the workflow copy: "+err.Error()))
	}
	if err := r.log.writeJSON(summaryFile, summaryDoc(result, w)); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("could not write summary.json: "+err.Error()))
	}
	if err := r.log.close(); err != nil {
		result.Warnings = append(result.Warnings, r.red.String("the run log is incomplete: "+err.Error()))
	}
	return result, nil
}

// newRun is the state of a run of w (Run), or of one step of it (Step):
// every node's outputs read as empty until it runs.
func (rn *Runner) newRun(w *workflow.Workflow, g *graph, start *workflow.Node, id, dir string, log *runLog, red *redact.Redactor, sources map[string][][]string, started time.Time) *run {
	o := &rn.opts
	r := &run{rn: rn, opts: o, w: w, g: g, start: start, id: id, dir: dir, log: log,
		red: red, secretSources: sources, env: childEnv(red),
		rand: rand.New(rand.NewPCG(uint64(started.UnixNano()), 0x5eed)),
		vars: make(map[string]any, len(w.Nodes)), set: map[string]bool{}, iter: map[string]int{}, done: map[string]bool{},
		stats: map[string]*NodeStat{}, mcpSchemas: map[string]map[string]string{},
		summary:  Summary{FailureTypes: map[failure.Type]int{}, Categories: map[failure.Category]int{}},
		mcp:      o.MCP,
		confined: rn.confinedReads(w), root: rn.confinementRoot()}
	keys := make([]string, 0, len(w.Nodes))
	for i := range w.Nodes {
		k := w.Nodes[i].Key
		keys = append(keys, k)
		r.vars[k] = map[string]any{} // not run yet: fields read as nil
	}
	r.eval = newEvaluator(keys, o.ExprTimeout)
	return r
}

// summaryDoc is summary.json: the result with bounded outputs.
func summaryDoc(res *Result, w *workflow.Workflow) any {
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
		Replanned    bool   `json:"replanned,omitempty"`
		Result
	}{w.ID, w.Name, res.Replanned != nil, doc}
}

// maxWarnings bounds the warnings a Result carries (every one is in
// events.jsonl): a warning per loop iteration must not grow memory.
const maxWarnings = 100

func (r *run) warn(n *workflow.Node, msg string) {
	e := Event{Type: EvWarning, Message: msg}
	if n != nil {
		e.NodeID, e.NodeKey, e.NodeName = n.ID, n.Key, n.Name
	}
	r.log.emit(e)
	switch {
	case len(r.warnings) < maxWarnings:
		r.warnings = append(r.warnings, msg)
	case len(r.warnings) == maxWarnings:
		r.warnings = append(r.warnings, "more warnings are in events.jsonl")
	}
}

func ref(n *workflow.Node) *NodeRef { return &NodeRef{ID: n.ID, Key: n.Key, Name: n.Name} }

// setVar records a node's outputs under its key.
func (r *run) setVar(n *workflow.Node, outputs map[string]any) {
	r.noteSourceSecrets(n, outputs)
	r.vars[n.Key] = outputs
	r.set[n.Key] = true
	r.log.emit(Event{Type: EvVariableSet, NodeID: n.ID, NodeKey: n.Key, Outputs: bounded(outputs, 2000)})
}

// walk follows the graph from the entry until a path ends or the run
// stops.
func (r *run) walk(ctx context.Context) *Result {
	cur := r.start
	var prev *workflow.Node
	for cur != nil {
		if err := ctx.Err(); err != nil {
			return &Result{Outcome: OutcomeCanceled, Error: "canceled before " + cur.Label(), StoppedAt: ref(cur)}
		}
		var next *workflow.Node
		switch cur.Type {
		case workflow.TypeTool, workflow.TypeAiStep, workflow.TypeAiTransform:
			if !cur.IsEnabled() {
				r.noteStat(cur, "disabled", 0, 0)
				r.summary.Disabled++
				r.setVar(cur, SkippedOutputs("disabled"))
				r.log.emit(Event{Type: EvNodeSkipped, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Status: StatusSkipped, Message: "disabled: passed through"})
			} else if out, ok := r.pinned(cur); ok {
				r.usePinned(cur, out)
			} else {
				res, failed := r.execNode(ctx, cur)
				if res != nil {
					return res
				}
				if failed && cur.ErrorMode() == workflow.OnErrorBranch {
					next = r.g.branch(cur.ID, workflow.OutError, "")
					break
				}
			}
			next = r.g.next(cur.ID)
		case workflow.TypeIf:
			taken := workflow.OutIfTrue
			if cur.IsEnabled() {
				ok, err := r.eval.evalBool(cur.Params.Condition, r.vars, "", nil)
				if err != nil {
					return r.conditionFailed(cur, "condition", cur.Params.Condition, err)
				}
				if !ok {
					taken = workflow.OutIfFalse
				}
				r.log.emit(Event{Type: EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(taken), Condition: cur.Params.Condition})
			} else {
				r.log.emit(Event{Type: EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(taken), Message: "disabled: passed through on IfTrue"})
			}
			next = r.g.branch(cur.ID, taken, "")
		case workflow.TypeSwitch:
			n, res := r.switchNext(cur)
			if res != nil {
				return res
			}
			next = n
		case workflow.TypeLoop:
			n, res := r.loopNext(cur, prev)
			if res != nil {
				return res
			}
			next = n
		case workflow.TypeEndLoop:
			next = r.g.byID[cur.Params.LoopID]
		default:
			return &Result{Outcome: OutcomeFailed, Error: fmt.Sprintf("%s has the unknown type %q", cur.Label(), cur.Type), StoppedAt: ref(cur)}
		}
		prev, cur = cur, next
	}
	return r.finish(ctx)
}

// finish decides how a run that reached the end of its path ended: it
// succeeded only when every step that ran succeeded and its done_when
// holds (done.go).
func (r *run) finish(ctx context.Context) *Result {
	if res := r.checkDone(ctx); res != nil {
		return res
	}
	return Completion(r.summary, r.verdict)
}

// Completion is how a run that reached the end of its path ended, from
// its summary and goal check: a success only when nothing was skipped or
// handled by on_error and the done_when (if any) holds; else partial,
// saying why. Every engine ends its runs by it.
func Completion(s Summary, v *Verdict) *Result {
	if s.Skipped == 0 && s.Handled == 0 && (v == nil || v.Approved) {
		return &Result{Outcome: OutcomeSucceeded, Verdict: v}
	}
	var parts []string
	if n := s.Skipped; n > 0 {
		parts = append(parts, plural(n, "step", "steps")+" skipped")
	}
	if n := s.Handled; n > 0 {
		parts = append(parts, plural(n, "failure", "failures")+" handled by on_error")
	}
	if v != nil && !v.Approved {
		parts = append(parts, "the done_when check not met (accepted)")
	}
	return &Result{Outcome: OutcomePartial, Error: "completed with " + strings.Join(parts, ", "), Verdict: v}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// conditionFailed ends the run on a condition that cannot be evaluated (a
// type mismatch the validator cannot see): the graph cannot tell which way
// to go, and retrying gives the same answer.
func (r *run) conditionFailed(n *workflow.Node, what, cond string, err error) *Result {
	msg := fmt.Sprintf("the %s of %s %q (`%s`) could not be evaluated: %v", what, n.Type, n.Label(), cond, err)
	msg = r.red.String(msg)
	fr := &failure.Record{Attempt: 1, Time: r.opts.Now(), FailureType: failure.FailExecution, Error: msg,
		Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatLogic, SuggestedFix: "Fix the expression: compare values of the same type, and check the field names of the node outputs it reads."}}
	r.log.emit(Event{Type: EvFailure, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Failure: fr, Condition: cond})
	r.summary.FailureTypes[fr.FailureType]++
	r.summary.Categories[fr.Category]++
	return &Result{Outcome: OutcomeFailed, Error: msg, StoppedAt: ref(n)}
}

func (r *run) switchNext(n *workflow.Node) (*workflow.Node, *Result) {
	if !n.IsEnabled() {
		if d := r.g.branch(n.ID, workflow.OutSwitchDefault, ""); d != nil {
			r.log.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutSwitchDefault), Message: "disabled: passed through on the default branch"})
			return d, nil
		}
		r.warn(n, fmt.Sprintf("Switch %q is disabled and has no default branch: this path ends here", n.Label()))
		return nil, nil
	}
	for _, c := range n.Params.Cases {
		ok, err := r.eval.evalBool(c.Condition, r.vars, "", nil)
		if err != nil {
			return nil, r.conditionFailed(n, fmt.Sprintf("case %q", c.Name), c.Condition, err)
		}
		if ok {
			r.log.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: c.Name, Condition: c.Condition})
			return r.g.branch(n.ID, workflow.OutSwitchCase, c.Name), nil
		}
	}
	if d := r.g.branch(n.ID, workflow.OutSwitchDefault, ""); d != nil {
		r.log.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutSwitchDefault)})
		return d, nil
	}
	r.warn(n, fmt.Sprintf("no case of Switch %q matched and it has no default branch: this path ends here", n.Label()))
	return nil, nil
}

// loopNext implements the do-while Loop: entering runs the body; coming
// back from the EndLoop checks exit_condition, then max_iterations.
func (r *run) loopNext(n *workflow.Node, prev *workflow.Node) (*workflow.Node, *Result) {
	back := prev != nil && prev.Type == workflow.TypeEndLoop && prev.Params.LoopID == n.ID
	max := n.LoopMax()
	if !n.IsEnabled() {
		max = 1 // passed through: the body runs once
	}
	body := func(i int) *workflow.Node {
		r.iter[n.ID] = i
		if i == loopDetailIterations+1 {
			// Later iterations write only what matters to events.jsonl
			// (the live stream keeps every event): a long loop must not
			// fill the disk with identical lines.
			r.log.emit(Event{Type: EvLoopIteration, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Iteration: i, Branch: string(workflow.OutLoopBody),
				Message: fmt.Sprintf("events.jsonl keeps the first %d iterations in full; from here on failures, warnings and log lines only (summary.json has the final outputs)", loopDetailIterations)})
			r.log.setThin(n.ID, true)
		}
		r.setVar(n, map[string]any{"iteration": i, "max_iterations": max})
		r.log.emit(Event{Type: EvLoopIteration, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Iteration: i, Branch: string(workflow.OutLoopBody)})
		return r.g.branch(n.ID, workflow.OutLoopBody, "")
	}
	if !back {
		r.log.setThin(n.ID, false) // entered afresh (an outer loop's next iteration)
		return body(1), nil
	}
	i := r.iter[n.ID]
	done := r.g.branch(n.ID, workflow.OutLoopDone, "")

	if cond := n.Params.ExitCondition; strings.TrimSpace(cond) != "" && n.IsEnabled() {
		ok, err := r.eval.evalBool(cond, r.vars, "", nil)
		if err != nil {
			return nil, r.conditionFailed(n, "exit condition", cond, err)
		}
		if ok {
			r.log.setThin(n.ID, false) // done: its end is written in full
			r.log.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutLoopDone), Condition: cond, Iteration: i})
			return done, nil
		}
		if i >= max {
			r.warn(n, fmt.Sprintf("Loop %q stopped at its max_iterations (%d) before its exit condition `%s` became true", n.Label(), max, cond))
		}
	}
	if i >= max {
		r.log.setThin(n.ID, false)
		r.log.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutLoopDone), Iteration: i, Message: fmt.Sprintf("max_iterations %d reached", max)})
		return done, nil
	}
	return body(i + 1), nil
}

// ---- step nodes: attempts, retries, escalation ----

type policy struct {
	maxAttempts int
	initial     time.Duration
	mult        float64
	max         time.Duration
	jitter      float64
}

func (r *run) policy(n *workflow.Node) policy {
	p := policy{maxAttempts: 1 + r.opts.Settings.Run.DefaultRetries, initial: DefaultBackoffInitial, mult: DefaultBackoffMult, max: DefaultBackoffMax, jitter: DefaultBackoffJitter}
	if n.Retry != nil {
		if n.Retry.MaxAttempts > 0 {
			p.maxAttempts = n.Retry.MaxAttempts
		}
		if b := n.Retry.Backoff; b != nil {
			if b.InitialMs > 0 {
				p.initial = millis(int64(b.InitialMs), maxBackoffMs)
			}
			if b.Multiplier >= 1 {
				p.mult = min(b.Multiplier, validate.MaxBackoffMultiplier)
			}
			if b.MaxMs > 0 {
				p.max = millis(int64(b.MaxMs), maxBackoffMs)
			}
			if b.Jitter > 0 && b.Jitter <= 1 {
				p.jitter = b.Jitter
			}
		}
	}
	p.maxAttempts = min(max(p.maxAttempts, 1), MaxAttemptsLimit)
	return p
}

// delay is the wait before the retry that follows the k-th failure of a
// round: initial × multiplier^(k-1), capped, ± jitter.
func (p policy) delay(k int, rnd float64) time.Duration {
	d := float64(p.initial) * math.Pow(p.mult, float64(k-1))
	if d > float64(p.max) {
		d = float64(p.max)
	}
	d *= 1 + p.jitter*(2*rnd-1)
	return time.Duration(d)
}

func toolName(n *workflow.Node) string {
	switch n.Type {
	case workflow.TypeTool:
		return n.Params.Tool
	case workflow.TypeAiTransform:
		return "AiTransform/" + n.Params.Kind
	}
	return string(n.Type)
}

func isAI(n *workflow.Node) bool {
	return n.Type == workflow.TypeAiStep || n.Type == workflow.TypeAiTransform
}

// execNode runs a step node to an end: success, skip, a failure its
// on_error handles (failed is true), or a Result that stops the run.
func (r *run) execNode(ctx context.Context, n *workflow.Node) (res *Result, failed bool) {
	p := r.policy(n)
	maxA := p.maxAttempts
	var failures []failure.Record
	roundFailures := 0
	instruction := "" // from a fix response, for AI nodes
	lastResponse := ""
	escalated := false
	tool := toolName(n)
	r.log.emit(Event{Type: EvNodeStarted, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRunning, Tool: tool, MaxAttempts: maxA})
	started := r.opts.Now()
	for attempt := 1; ; attempt++ {
		// A Tool node's arguments are filled in once per attempt (a fix
		// may have changed them) and shown with the attempt.
		var args map[string]any
		var argErr error
		if n.Type == workflow.TypeTool {
			args, argErr = r.renderArgs(n.Params.Tool, n.Params.Arguments)
		}
		r.log.emit(Event{Type: EvAttempt, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRunning, Attempt: attempt, MaxAttempts: maxA, Arguments: shownArgs(args)}) // long values cut, as outputs'
		var rc *retryContext
		if isAI(n) && (len(failures) > 0 || instruction != "") {
			rc = &retryContext{Attempt: attempt, MaxAttempts: maxA, Failures: failures, Instruction: instruction, Learnings: r.learnings(tool, 3)}
			r.log.retryf(n.Key, "injecting_feedback attempt=%d failures=%d", attempt, len(failures))
		}
		outputs, fr := r.attempt(ctx, n, attempt, rc, args, argErr)
		if fr == nil {
			r.setVar(n, outputs)
			if !r.done[n.ID] { // once per node: a loop must not grow it
				r.done[n.ID] = true
				r.completed = append(r.completed, n.ID)
			}
			result := "ok"
			if attempt > 1 {
				result = "ok_after_retry"
				r.summary.RetrySuccesses++
				r.log.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Attempt: attempt, Message: "succeeded on attempt " + fmt.Sprint(attempt)})
				r.log.retryf(n.Key, "resolved status=success total_attempts=%d", attempt)
				resolution := "retry"
				if lastResponse != "" {
					resolution = lastResponse
				}
				r.learn(n, failures, resolution, instruction, attempt)
			} else {
				r.summary.FirstAttemptSuccesses++
			}
			r.countExecution(n, result, attempt, len(failures))
			r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Attempt: attempt, DurationMs: r.opts.Now().Sub(started).Milliseconds()})
			return nil, false
		}
		if ctx.Err() != nil {
			r.setVar(n, outputs)
			r.countExecution(n, "canceled", attempt, len(failures))
			r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusCanceled, Attempt: attempt, Message: "canceled"})
			return &Result{Outcome: OutcomeCanceled, Error: "canceled during " + n.Label(), StoppedAt: ref(n)}, false
		}
		failures = append(failures, *fr)
		roundFailures++
		r.summary.FailureTypes[fr.FailureType]++
		r.summary.Categories[fr.Category]++
		r.log.emit(Event{Type: EvFailure, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, MaxAttempts: maxA, Failure: fr})
		r.log.retryf(n.Key, "attempt=%d status=failed type=%s category=%s severity=%s retryable=%t", attempt, fr.FailureType, fr.Category, fr.Severity, fr.Retryable)
		r.log.retryf(n.Key, "error=%q", truncate(fr.Error, 200))
		if fr.SuggestedFix != "" {
			r.log.retryf(n.Key, "suggested_fix=%q", fr.SuggestedFix)
		}

		if fr.Retryable && attempt < maxA {
			d := max(p.delay(roundFailures, r.rand.Float64()), time.Duration(fr.RetryAfterMs)*time.Millisecond)
			r.log.emit(Event{Type: EvRetry, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRetrying, Attempt: attempt + 1, MaxAttempts: maxA, DelayMs: d.Milliseconds(), Message: truncate(fr.Error, 200)})
			r.log.retryf(n.Key, "retrying attempt=%d of %d in %v", attempt+1, maxA, d.Round(time.Millisecond))
			if err := r.opts.Sleep(ctx, d); err != nil {
				r.setVar(n, outputs)
				r.countExecution(n, "canceled", attempt, len(failures))
				r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusCanceled, Attempt: attempt, Message: "canceled while waiting to retry"})
				return &Result{Outcome: OutcomeCanceled, Error: "canceled while waiting to retry " + n.Label(), StoppedAt: ref(n)}, false
			}
			continue
		}

		if mode := n.ErrorMode(); mode != workflow.OnErrorStop {
			r.handleFailure(n, mode, outputs, fr, attempt, len(failures))
			return nil, true
		}
		reason := "max_attempts"
		if !fr.Retryable {
			reason = "not_retryable"
		}
		if !escalated {
			escalated = true
			r.summary.Escalations++
		}
		resp, res := r.recover(ctx, n, failures, attempt, maxA, reason, outputs, []Action{ActRetry, ActSkip, ActAbort, ActFix})
		if res != nil {
			r.setVar(n, outputs)
			status := map[Outcome]string{OutcomeAborted: "aborted", OutcomeCanceled: "canceled", OutcomeReplanned: "replanned"}[res.Outcome]
			if status == "" {
				status = "failed"
			}
			if res.Outcome != OutcomeCanceled {
				r.summary.Failed++ // the step failed, whatever the person did about it
			}
			r.countExecution(n, status, attempt, len(failures))
			st := StatusFailed
			if res.Outcome == OutcomeCanceled {
				st = StatusCanceled
			}
			r.log.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: st, Attempt: attempt, Message: status})
			r.log.retryf(n.Key, "resolved status=%s total_attempts=%d", status, attempt)
			r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: st, Attempt: attempt, Message: res.Error})
			return res, false
		}
		switch resp.Action {
		case ActSkip:
			skipped := map[string]any{"success": false, "skipped": true, "error": fr.Error}
			for k, v := range outputs {
				if _, ok := skipped[k]; !ok {
					skipped[k] = v
				}
			}
			r.setVar(n, skipped)
			r.summary.Skipped++
			r.countExecution(n, "skipped", attempt, len(failures))
			r.learn(n, failures, "skip", "", attempt)
			r.log.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusSkipped, Attempt: attempt, Message: "skipped"})
			r.log.retryf(n.Key, "resolved status=skipped total_attempts=%d", attempt)
			r.log.emit(Event{Type: EvNodeSkipped, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusSkipped, Message: "skipped after escalation"})
			if readers := r.g.readers(r.w, n.Key, n.ID); len(readers) > 0 {
				var names []string
				for _, rd := range readers {
					label := rd.Name
					if label == "" {
						label = rd.Key
					}
					names = append(names, fmt.Sprintf("%q", label))
				}
				r.warn(n, fmt.Sprintf("%s was skipped; %s read its outputs and may fail or take another branch", n.Label(), strings.Join(names, ", ")))
			}
			return nil, false
		case ActRetry, ActFix:
			lastResponse = "user_retry"
			if resp.Action == ActFix {
				lastResponse = "fix"
				if n.Type == workflow.TypeTool {
					n.Params.Arguments = MergePatch(n.Params.Arguments, resp.Arguments)
					instruction = string(must(json.Marshal(resp.Arguments)))
				} else {
					instruction = resp.Instruction
				}
			}
			maxA = attempt + p.maxAttempts // a fresh round of attempts
			roundFailures = 0
			r.log.emit(Event{Type: EvRetry, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRetrying, Attempt: attempt + 1, MaxAttempts: maxA, Message: "after " + describeResponse(resp)})
		}
	}
}

func must(b []byte, _ error) []byte { return b }

// handleFailure records a failure the node's on_error takes: the run goes
// on (along the normal edge for continue, the Error edge for branch) with
// the failure in the node's outputs.
func (r *run) handleFailure(n *workflow.Node, mode workflow.OnError, outputs map[string]any, fr *failure.Record, attempt, failures int) {
	r.setVar(n, HandledOutputs(outputs, fr, attempt))
	r.summary.Handled++
	r.countExecution(n, "handled", attempt, failures)
	msg := fmt.Sprintf("failed; on_error %s: the run goes on", mode)
	if mode == workflow.OnErrorBranch {
		msg = "failed; on_error branch: the run takes the Error edge"
	}
	r.log.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Message: "handled by on_error " + string(mode)})
	r.log.retryf(n.Key, "resolved status=handled on_error=%s total_attempts=%d", mode, attempt)
	r.log.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Message: msg})
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
	case workflow.TypeAiStep:
		outputs, trace, err = r.aiStep(actx, n, rc)
	case workflow.TypeAiTransform:
		outputs, trace, err = r.aiTransform(actx, n, rc)
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
		out[k] = v
		switch types[k] {
		case "string":
			switch v.(type) {
			case float64, int, int64, bool:
				out[k] = toText(v)
			}
		case "integer", "number":
			if s, ok := v.(string); ok {
				var f float64
				if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &f); err == nil {
					out[k] = f
				}
			}
		case "boolean":
			if s, ok := v.(string); ok && (s == "true" || s == "false") {
				out[k] = s == "true"
			}
		}
	}
	return out
}

// MergePatch applies an RFC 7396 JSON merge patch to arguments (null
// removes a key): how a fix response changes a Tool node, in a run and when
// the person keeps the fix in the workflow (service.KeepFix).
func MergePatch(target map[string]any, patch map[string]any) map[string]any {
	out := make(map[string]any, len(target)+len(patch))
	for k, v := range target {
		out[k] = v
	}
	for k, v := range patch {
		if v == nil {
			delete(out, k)
			continue
		}
		if pm, ok := v.(map[string]any); ok {
			if tm, ok := out[k].(map[string]any); ok {
				out[k] = MergePatch(tm, pm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// countExecution adds one execution of a step node to the statistics.
func (r *run) countExecution(n *workflow.Node, result string, attempts, failures int) {
	r.summary.Nodes++
	if attempts > 1 {
		r.summary.Retried++
	}
	r.noteStat(n, result, attempts, failures)
}

func (r *run) noteStat(n *workflow.Node, result string, attempts, failures int) {
	s := r.stats[n.ID]
	if s == nil {
		s = &NodeStat{NodeRef: *ref(n)}
		r.stats[n.ID] = s
		r.order = append(r.order, n.ID)
	}
	s.Executions++
	s.Attempts += attempts
	s.Failures += failures
	s.Result = result
}
