// Package flow is the walk of a workflow's graph as a pure state machine:
// given the workflow, the state so far and the outcome of what it asked
// for last (a step attempt, a condition's value, a wait, a person's
// answer, a replan, the goal check), it says what happens next and emits
// the run's events. It has no context, clock, goroutines or I/O: the
// engines (package runner on this machine, package temporal on a
// cluster) do the asking and keep only their own effects, so the same
// workflow walks the same way, with the same events, wherever it runs.
package flow

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// Retry defaults for nodes whose retry.backoff leaves a field out, and
// the walk's other limits.
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
	// maxWarnings bounds the warnings a Result carries (every one is an
	// event): a warning per loop iteration must not grow memory.
	maxWarnings = 100
	// LoopDetailIterations is how many iterations of a loop a run log
	// keeps in full; the event that passes it says so (Message set).
	LoopDetailIterations = 3
)

// Kind is what the walk asks its engine for.
type Kind string

const (
	// KindAttempt: run attempt Command.Attempt of the step Command.Node
	// (of Command.MaxAttempts); answer with Input.Outputs and, when it
	// failed, Input.Failure. The engine emits the attempt's own events
	// (attempt, tool calls, logs, the step's verdict); the walk emits the
	// failure.
	KindAttempt Kind = "attempt"
	// KindCondition: evaluate Command.Condition over Vars; answer with
	// Input.Value, or Input.Error when it cannot be evaluated.
	KindCondition Kind = "condition"
	// KindWait: wait Command.Delay before the next attempt.
	KindWait Kind = "wait"
	// KindAsk: ask the person about Command.Escalation; answer with
	// Input.Response, or Input.Error when no answer can come.
	KindAsk Kind = "ask"
	// KindReplan: ask the replanner for a new workflow after the failures
	// of Command.Node (Command.Auto: without asking); answer with
	// Input.Workflow, already marked as replanned, or Input.Error.
	KindReplan Kind = "replan"
	// KindGoal: check the workflow's done_when; answer with Input.Verdict,
	// or Input.Failure when it could not be checked.
	KindGoal Kind = "goal"
	// KindDone: the run ended: Command.Result.
	KindDone Kind = "done"
)

// Command is what the walk needs next.
type Command struct {
	Kind        Kind
	Node        *workflow.Node
	Attempt     int
	MaxAttempts int
	// Failures and Instruction are an AI step's retry context: what
	// failed so far and a person's fix.
	Failures    []failure.Record
	Instruction string
	Condition   string
	Delay       time.Duration
	Escalation  *Escalation
	Auto        bool
	Result      *Result
}

// Input is the engine's answer to the last Command. Now is the engine's
// clock (a Temporal workflow's deterministic one); Canceled says the run
// was canceled while the engine did what was asked.
type Input struct {
	Now      time.Time
	Canceled bool
	Outputs  map[string]any
	Failure  *failure.Record
	Value    bool
	Error    string
	Response Response
	Verdict  *Verdict
	Workflow *workflow.Workflow
	// Refused says the engine will not run the step at all (not
	// approved, not loadable): no answer can help, so the run fails there.
	Refused string
}

// AutoReplan is a run's automatic replanning: on for failures at least
// as severe as Min, at most Max times for the run and the versions it
// was replanned from.
type AutoReplan struct {
	Enabled bool
	Max     int
	Min     failure.Severity
}

// Config is what a walk needs besides the workflow.
type Config struct {
	// RunID names the run in escalations.
	RunID string
	// From starts at this node instead of the entry (its outermost Loop
	// for a node in a loop body); Reuse are the outputs, by key, of an
	// earlier run (ReusedFrom) for the steps before it.
	From       string
	Reuse      map[string]any
	ReusedFrom string
	// UsePinned uses pinned data instead of running those steps.
	UsePinned bool
	// DefaultRetries applies to steps without a retry policy.
	DefaultRetries int
	// CanAsk says someone answers escalations; without, a failure that
	// needs one ends the run.
	CanAsk bool
	// CanReplan offers replan as an answer.
	CanReplan  bool
	AutoReplan AutoReplan
	// Seed makes the retry jitter reproducible.
	Seed uint64
	// Inputs are the run's values of the workflow's declared inputs, as
	// inputs.Resolve gave them: read as {{inputs.NAME}} and in conditions
	// as inputs.NAME, recorded in the Result (secret ones hidden).
	Inputs map[string]any
	// Warnings are emitted after run_started (validation, the engine's).
	Warnings []string
	// Emit receives every event, in order, stamped with Input.Now.
	Emit func(Event)
	// OnOutputs hears a node's outputs as they are set (the runner keeps
	// the credential headers they feed).
	OnOutputs func(n *workflow.Node, outputs map[string]any)
	// KnownFixes are the recorded resolutions of failures like f, for
	// escalations; Learn records what resolved a step's failures. Either
	// may be nil (Temporal's workflow code has no pattern store).
	KnownFixes func(tool string, f failure.Record) []failure.Pattern
	Learn      func(n *workflow.Node, failures []failure.Record, resolution, fix string, attempts int)
}

// Walk is one run's walk. Its methods are not safe for concurrent use:
// an engine drives it from one goroutine (or one Temporal workflow).
type Walk struct {
	cfg   Config
	w     *workflow.Workflow
	g     *Graph
	start *workflow.Node
	rand  *rand.Rand

	vars      map[string]any // node key → outputs (maps are never mutated once set)
	set       map[string]bool
	iter      map[string]int // Loop id → current iteration
	completed []string       // ids of the steps that succeeded, in first-success order
	done      map[string]bool
	stats     map[string]*NodeStat
	order     []string
	taken     map[*workflow.Edge]int // edge (Graph.Out's) → times taken
	edgeOrder []*workflow.Edge
	reads     map[string][]string // node id → Reads, for node_started
	sum       Summary
	warnings  []string
	verdict   *Verdict
	// autoReplans counts the automatic replans asked for.
	autoReplans int

	now, started time.Time
	cur, prev    *workflow.Node
	resume       func(Input) Command
	canceled     bool
}

// New prepares the walk of w, which must be valid (package validate):
// the walk changes it (a fix merges into a step's arguments), so it is
// the engine's copy.
func New(w *workflow.Workflow, cfg Config) (*Walk, error) {
	g, err := NewGraph(w)
	if err != nil {
		return nil, err
	}
	start, err := g.StartAt(cfg.From)
	if err != nil {
		return nil, err
	}
	if cfg.Emit == nil {
		cfg.Emit = func(Event) {}
	}
	m := &Walk{cfg: cfg, w: w, g: g, start: start, rand: rand.New(rand.NewPCG(cfg.Seed, 0x5eed)),
		vars: make(map[string]any, len(w.Nodes)), set: map[string]bool{}, iter: map[string]int{}, done: map[string]bool{},
		stats: map[string]*NodeStat{}, taken: map[*workflow.Edge]int{}, reads: map[string][]string{}, sum: Summary{FailureTypes: map[failure.Type]int{}, Categories: map[failure.Category]int{}}}
	for i := range w.Nodes {
		m.vars[w.Nodes[i].Key] = map[string]any{} // not run yet: fields read as nil
	}
	m.vars[inputs.Root] = map[string]any{}
	if cfg.Inputs != nil {
		m.vars[inputs.Root] = cfg.Inputs
	}
	return m, nil
}

// Reads are what a step or condition of the run may read: the outputs so
// far by key and, when the run was given any, its inputs (an engine
// hands them to the step it runs elsewhere).
func (m *Walk) Reads() map[string]any {
	out := m.Outputs()
	if len(m.cfg.Inputs) > 0 {
		out[inputs.Root] = m.cfg.Inputs
	}
	return out
}

// Vars are the outputs so far by node key (every key; a step that has not
// run reads as an empty object). Read only.
func (m *Walk) Vars() map[string]any { return m.vars }

// SetKeys are the node keys that have outputs of this run. Read only.
func (m *Walk) SetKeys() map[string]bool { return m.set }

// Outputs are the outputs of the nodes that have some, by key.
func (m *Walk) Outputs() map[string]any {
	out := make(map[string]any, len(m.set))
	for k := range m.set {
		out[k] = m.vars[k]
	}
	return out
}

// Completed are the ids of the steps that succeeded (ran, or reused).
func (m *Walk) Completed() []string { return slices.Clone(m.completed) }

// Details are the per-step statistics so far, in first-run order.
func (m *Walk) Details() []NodeStat {
	out := make([]NodeStat, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, *m.stats[id])
	}
	return out
}

// Start emits run_started and walks to the first thing it needs.
func (m *Walk) Start(now time.Time) Command {
	m.now, m.started = now, now
	m.emit(Event{Type: EvRunStarted, Message: fmt.Sprintf("%s: %d nodes, %d edges", m.w.Name, len(m.w.Nodes), len(m.w.Edges))})
	for _, wn := range m.cfg.Warnings {
		m.Warn(nil, wn)
	}
	m.notePinned()
	m.reuse()
	m.cur = m.start
	return m.advance()
}

// Next gives the walk the answer to its last Command and returns the
// next one. After KindDone it keeps returning that.
func (m *Walk) Next(in Input) Command {
	if !in.Now.IsZero() {
		m.now = in.Now
	}
	if m.resume == nil {
		return Command{Kind: KindDone, Result: &Result{Outcome: OutcomeFailed, Error: "the walk was asked to go on after it ended"}}
	}
	m.canceled = in.Canceled
	r := m.resume
	m.resume = nil
	return r(in)
}

// Warn emits a warning and keeps it for the Result.
func (m *Walk) Warn(n *workflow.Node, msg string) {
	e := Event{Type: EvWarning, Message: msg}
	if n != nil {
		e.NodeID, e.NodeKey, e.NodeName = n.ID, n.Key, n.Name
	}
	m.emit(e)
	switch {
	case len(m.warnings) < maxWarnings:
		m.warnings = append(m.warnings, msg)
	case len(m.warnings) == maxWarnings:
		m.warnings = append(m.warnings, "more warnings are in events.jsonl")
	}
}

func (m *Walk) emit(e Event) {
	if e.Time.IsZero() {
		e.Time = m.now
	}
	m.cfg.Emit(e)
}

// Ref names a node in results.
func Ref(n *workflow.Node) *NodeRef { return &NodeRef{ID: n.ID, Key: n.Key, Name: n.Name} }

// ask returns a command and remembers what to do with its answer.
func (m *Walk) ask(c Command, then func(Input) Command) Command {
	m.resume = then
	return c
}

// setVar records a node's outputs under its key.
func (m *Walk) setVar(n *workflow.Node, outputs map[string]any) {
	if m.cfg.OnOutputs != nil {
		m.cfg.OnOutputs(n, outputs)
	}
	m.vars[n.Key] = outputs
	m.set[n.Key] = true
	m.emit(Event{Type: EvVariableSet, NodeID: n.ID, NodeKey: n.Key, Outputs: Bounded(outputs, 2000)})
}

func (m *Walk) complete(n *workflow.Node) {
	if !m.done[n.ID] { // once per node: a loop must not grow it
		m.done[n.ID] = true
		m.completed = append(m.completed, n.ID)
	}
}

// countExecution adds one execution of a step node to the statistics.
func (m *Walk) countExecution(n *workflow.Node, result string, attempts, failures int) {
	m.sum.Nodes++
	m.sum.Ran++
	if attempts > 1 {
		m.sum.Retried++
	}
	m.noteStat(n, result, attempts, failures)
}

func (m *Walk) noteStat(n *workflow.Node, result string, attempts, failures int) {
	s := m.stats[n.ID]
	if s == nil {
		s = &NodeStat{NodeRef: *Ref(n)}
		m.stats[n.ID] = s
		m.order = append(m.order, n.ID)
	}
	s.Executions++
	s.Attempts += attempts
	s.Failures += failures
	s.Result = result
}

func (m *Walk) move(next *workflow.Node) { m.prev, m.cur = m.cur, next }

// take follows the edge e (nil ends the path) and counts it: the one
// place a run's edge counts (Summary.Edges) come from.
func (m *Walk) take(e *workflow.Edge) {
	if e == nil {
		m.move(nil)
		return
	}
	if m.taken[e] == 0 {
		m.edgeOrder = append(m.edgeOrder, e)
	}
	m.taken[e]++
	m.move(m.g.ByID[e.To])
}

// Edges are the edges taken so far and how often, in first-taken order.
func (m *Walk) Edges() []EdgeCount {
	out := make([]EdgeCount, 0, len(m.edgeOrder))
	for _, e := range m.edgeOrder {
		out = append(out, EdgeCount{From: e.From, To: e.To, Output: e.Output, Taken: m.taken[e]})
	}
	return out
}

// advance walks from m.cur until it needs the engine or the path ends;
// a run canceled (the engine's last word) stops before the next node.
func (m *Walk) advance() Command {
	for m.cur != nil {
		cur := m.cur
		if m.canceled {
			return m.finish(&Result{Outcome: OutcomeCanceled, Error: "canceled before " + cur.Label(), StoppedAt: Ref(cur)})
		}
		switch {
		case cur.Type.IsStep():
			if !cur.IsEnabled() {
				m.noteStat(cur, "disabled", 0, 0)
				m.sum.Disabled++
				m.setVar(cur, SkippedOutputs("disabled"))
				m.emit(Event{Type: EvNodeSkipped, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Status: StatusSkipped, Message: "disabled: passed through"})
			} else if out, ok := m.pinned(cur); ok {
				m.usePinned(cur, out)
			} else {
				return m.startStep(cur)
			}
			m.take(m.g.NextEdge(cur.ID))
		case cur.Type == workflow.TypeIf:
			if !cur.IsEnabled() {
				m.emit(Event{Type: EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(workflow.OutIfTrue), Message: "disabled: passed through on IfTrue"})
				m.take(m.g.BranchEdge(cur.ID, workflow.OutIfTrue, ""))
				continue
			}
			m.sum.Ran++
			return m.condition(cur, "condition", cur.Params.Condition, func(ok bool) Command {
				taken := workflow.OutIfTrue
				if !ok {
					taken = workflow.OutIfFalse
				}
				m.emit(Event{Type: EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(taken), Condition: cur.Params.Condition})
				m.take(m.g.BranchEdge(cur.ID, taken, ""))
				return m.advance()
			})
		case cur.Type == workflow.TypeSwitch:
			if !cur.IsEnabled() {
				if d := m.g.BranchEdge(cur.ID, workflow.OutSwitchDefault, ""); d != nil {
					m.emit(Event{Type: EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(workflow.OutSwitchDefault), Message: "disabled: passed through on the default branch"})
					m.take(d)
				} else {
					m.Warn(cur, fmt.Sprintf("Switch %q is disabled and has no default branch: this path ends here", cur.Label()))
					m.move(nil)
				}
				continue
			}
			m.sum.Ran++
			return m.switchCase(cur, 0)
		case cur.Type == workflow.TypeLoop:
			if c, wait := m.loop(cur); wait {
				return c
			}
		case cur.Type == workflow.TypeEndLoop:
			if e := m.g.NextEdge(cur.ID); e != nil && e.To == cur.Params.LoopID {
				m.take(e) // the jump back, drawn as an edge: it counts too
			} else {
				m.move(m.g.ByID[cur.Params.LoopID])
			}
		default:
			return m.finish(&Result{Outcome: OutcomeFailed, Error: fmt.Sprintf("%s has the unknown type %q", cur.Label(), cur.Type), StoppedAt: Ref(cur)})
		}
	}
	return m.goalCheck()
}

// condition asks for a condition's value; one that cannot be evaluated
// (a type mismatch the validator cannot see) ends the run: the graph
// cannot tell which way to go, and retrying gives the same answer.
func (m *Walk) condition(n *workflow.Node, what, cond string, then func(bool) Command) Command {
	return m.ask(Command{Kind: KindCondition, Node: n, Condition: cond}, func(in Input) Command {
		if in.Error == "" {
			return then(in.Value)
		}
		msg := fmt.Sprintf("the %s of %s %q (`%s`) could not be evaluated: %s", what, n.Type, n.Label(), cond, in.Error)
		fr := &failure.Record{Attempt: 1, Time: m.now, FailureType: failure.FailExecution, Error: msg,
			Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatLogic, SuggestedFix: "Fix the expression: compare values of the same type, and check the field names of the node outputs it reads."}}
		m.emit(Event{Type: EvFailure, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Failure: fr, Condition: cond})
		m.sum.FailureTypes[fr.FailureType]++
		m.sum.Categories[fr.Category]++
		return m.finish(&Result{Outcome: OutcomeFailed, Error: msg, StoppedAt: Ref(n)})
	})
}

// switchCase evaluates the Switch's cases from the i-th on; the first
// that holds is taken, else the default branch.
func (m *Walk) switchCase(n *workflow.Node, i int) Command {
	if i < len(n.Params.Cases) {
		c := n.Params.Cases[i]
		return m.condition(n, fmt.Sprintf("case %q", c.Name), c.Condition, func(ok bool) Command {
			if !ok {
				return m.switchCase(n, i+1)
			}
			m.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: c.Name, Condition: c.Condition})
			m.take(m.g.BranchEdge(n.ID, workflow.OutSwitchCase, c.Name))
			return m.advance()
		})
	}
	if d := m.g.BranchEdge(n.ID, workflow.OutSwitchDefault, ""); d != nil {
		m.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutSwitchDefault)})
		m.take(d)
	} else {
		m.Warn(n, fmt.Sprintf("no case of Switch %q matched and it has no default branch: this path ends here", n.Label()))
		m.move(nil)
	}
	return m.advance()
}

// loop is the do-while Loop: entering runs the body; coming back from its
// EndLoop checks exit_condition, then max_iterations. wait says the
// command returned must go to the engine (the exit condition).
func (m *Walk) loop(n *workflow.Node) (Command, bool) {
	back := m.prev != nil && m.prev.Type == workflow.TypeEndLoop && m.prev.Params.LoopID == n.ID
	max := n.LoopMax()
	if !n.IsEnabled() {
		max = 1 // passed through: the body runs once
	}
	if !back {
		if n.IsEnabled() {
			m.sum.Ran++ // once a loop, however often it repeats
		}
		m.body(n, 1, max)
		return Command{}, false
	}
	i := m.iter[n.ID]
	ended := func() {
		m.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutLoopDone), Iteration: i, Message: fmt.Sprintf("max_iterations %d reached", max)})
		m.take(m.g.BranchEdge(n.ID, workflow.OutLoopDone, ""))
	}
	cond := n.Params.ExitCondition
	if strings.TrimSpace(cond) == "" || !n.IsEnabled() {
		if i >= max {
			ended()
		} else {
			m.body(n, i+1, max)
		}
		return Command{}, false
	}
	return m.condition(n, "exit condition", cond, func(ok bool) Command {
		switch {
		case ok:
			m.emit(Event{Type: EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(workflow.OutLoopDone), Condition: cond, Iteration: i})
			m.take(m.g.BranchEdge(n.ID, workflow.OutLoopDone, ""))
		case i >= max:
			m.Warn(n, fmt.Sprintf("Loop %q stopped at its max_iterations (%d) before its exit condition `%s` became true", n.Label(), max, cond))
			ended()
		default:
			m.body(n, i+1, max)
		}
		return m.advance()
	}), true
}

func (m *Walk) body(n *workflow.Node, i, max int) {
	m.iter[n.ID] = i
	if i == LoopDetailIterations+1 {
		// A run log keeps later iterations thin (failures, warnings and
		// log lines): a long loop must not fill the disk with identical
		// lines. This event says so where it starts.
		m.emit(Event{Type: EvLoopIteration, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Iteration: i, Branch: string(workflow.OutLoopBody),
			Message: fmt.Sprintf("events.jsonl keeps the first %d iterations in full; from here on failures, warnings and log lines only (summary.json has the final outputs)", LoopDetailIterations)})
	}
	m.setVar(n, map[string]any{"iteration": i, "max_iterations": max})
	m.emit(Event{Type: EvLoopIteration, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Iteration: i, Branch: string(workflow.OutLoopBody)})
	m.take(m.g.BranchEdge(n.ID, workflow.OutLoopBody, ""))
}

// finish ends the run with res: the rest of the Result comes from the
// walk's state, and run_finished says how it went.
func (m *Walk) finish(res *Result) Command {
	res.Completed = m.Completed()
	res.Outputs = m.Outputs()
	res.Inputs = inputs.Shown(m.w.Inputs, m.cfg.Inputs)
	m.sum.DurationMs = m.now.Sub(m.started).Milliseconds()
	m.sum.Details = m.Details()
	m.sum.Edges = m.Edges()
	res.Summary = m.sum
	res.Warnings = slices.Clone(m.warnings)
	if res.Verdict == nil {
		res.Verdict = m.verdict
	}
	fin := Event{Type: EvRunFinished, Outcome: res.Outcome, Message: res.Error, Summary: &res.Summary, DurationMs: m.sum.DurationMs, Verdict: res.Verdict}
	if res.StoppedAt != nil {
		fin.NodeID, fin.NodeKey, fin.NodeName = res.StoppedAt.ID, res.StoppedAt.Key, res.StoppedAt.Name
	}
	m.emit(fin)
	done := Command{Kind: KindDone, Result: res}
	m.resume = func(Input) Command { return done }
	return done
}

// Completion is how a run that reached the end of its path ended, from
// its summary and goal check: a success only when nothing was skipped or
// handled by on_error and the done_when (if any) holds; else partial,
// saying why.
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

// SkippedOutputs are a step's outputs when it did not run: disabled, or
// skipped after a failure (err is its error then).
func SkippedOutputs(err string) map[string]any {
	if err == "" {
		err = "disabled"
	}
	return map[string]any{"success": false, "skipped": true, "error": err}
}

// HandledOutputs are a failed step's outputs when its on_error took the
// failure (continue or branch).
func HandledOutputs(outputs map[string]any, fr *failure.Record, attempts int) map[string]any {
	out := make(map[string]any, len(outputs)+3)
	for k, v := range outputs {
		out[k] = v
	}
	out["success"] = false
	out["error"] = fr.Error
	out["error_record"] = map[string]any{
		"type": string(fr.FailureType), "category": string(fr.Category), "severity": string(fr.Severity),
		"retryable": fr.Retryable, "error": fr.Error, "suggested_fix": fr.SuggestedFix, "attempts": attempts,
	}
	return out
}

// MergePatch applies an RFC 7396 JSON merge patch to arguments (null
// removes a key): how a fix response changes a Tool node, in a run and when
// the person keeps the fix in the workflow.
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

// ---- pinned data and run from here ----

func (m *Walk) pinned(n *workflow.Node) (map[string]any, bool) {
	if !m.cfg.UsePinned {
		return nil, false
	}
	return m.w.PinnedOutputs(n.ID)
}

// usePinned gives the step its pinned outputs instead of running it.
func (m *Walk) usePinned(n *workflow.Node, out map[string]any) {
	m.setVar(n, workflow.CloneValue(out).(map[string]any))
	m.noteStat(n, SourcePinned, 0, 0)
	m.sum.Pinned++
	m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Source: SourcePinned,
		Message: "pinned data used: the step did not run", Outputs: Bounded(out, 2000)})
}

// notePinned warns, in a run that does not use pinned data, about the
// steps that have some and run for real.
func (m *Walk) notePinned() {
	if m.cfg.UsePinned || len(m.w.Pinned) == 0 {
		return
	}
	var names []string
	for i := range m.w.Nodes {
		n := &m.w.Nodes[i]
		if _, ok := m.w.PinnedOutputs(n.ID); ok && IsStep(n) && n.IsEnabled() {
			names = append(names, fmt.Sprintf("%q", n.Label()))
		}
	}
	if len(names) > 0 {
		m.Warn(nil, fmt.Sprintf("pinned data is not used in this run (ask for it with --pinned): %s run for real", strings.Join(names, ", ")))
	}
}

// reuse gives the steps before the start their outputs from the earlier
// run (Config.Reuse), and says which ones have none.
func (m *Walk) reuse() {
	if m.cfg.From == "" {
		return
	}
	m.sum.From, m.sum.ReusedFrom = Ref(m.start), m.cfg.ReusedFrom
	if m.start.ID != m.cfg.From {
		if asked := m.g.ByID[m.cfg.From]; asked != nil {
			m.Warn(asked, fmt.Sprintf("%s is inside the loop %q: the run starts at the loop", asked.Label(), m.start.Label()))
		}
	}
	before := m.g.Before(m.w, m.start)
	after := m.g.After(m.start)
	from := "an earlier run"
	if m.cfg.ReusedFrom != "" {
		from = "run " + m.cfg.ReusedFrom
	}
	var missing []string
	for i := range m.w.Nodes {
		n := &m.w.Nodes[i]
		if !before[n.ID] || !IsStep(n) {
			continue
		}
		if out, ok := m.pinned(n); ok && n.IsEnabled() {
			m.usePinned(n, out)
			continue
		}
		out, ok := m.cfg.Reuse[n.Key].(map[string]any)
		if !ok {
			if n.IsEnabled() && readByAny(m.g.Readers(m.w, n.Key, ""), after) {
				missing = append(missing, fmt.Sprintf("%q", n.Label()))
			}
			continue
		}
		m.setVar(n, workflow.CloneValue(out).(map[string]any))
		m.complete(n)
		m.noteStat(n, SourceReused, 0, 0)
		m.sum.Reused++
		m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Source: SourceReused,
			Message: "outputs reused from " + from + ": the step did not run again", Outputs: Bounded(out, 2000)})
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		m.Warn(nil, fmt.Sprintf("%s left no outputs of %s, which steps after %q read: they read them as empty", from, strings.Join(missing, ", "), m.start.Label()))
	}
}

// ---- step nodes: attempts, retries, on_error, escalation ----

// Policy is a step's retry policy, its limits applied.
type Policy struct {
	MaxAttempts int
	Initial     time.Duration
	Mult        float64
	Max         time.Duration
	Jitter      float64
}

// PolicyOf is the retry policy of n (defaultRetries for a node without
// one).
func PolicyOf(n *workflow.Node, defaultRetries int) Policy {
	p := Policy{MaxAttempts: 1 + defaultRetries, Initial: DefaultBackoffInitial, Mult: DefaultBackoffMult, Max: DefaultBackoffMax, Jitter: DefaultBackoffJitter}
	if n.Retry != nil {
		if n.Retry.MaxAttempts > 0 {
			p.MaxAttempts = n.Retry.MaxAttempts
		}
		if b := n.Retry.Backoff; b != nil {
			if b.InitialMs > 0 {
				p.Initial = millis(int64(b.InitialMs))
			}
			if b.Multiplier >= 1 {
				p.Mult = min(b.Multiplier, workflow.MaxBackoffMultiplier)
			}
			if b.MaxMs > 0 {
				p.Max = millis(int64(b.MaxMs))
			}
			if b.Jitter > 0 && b.Jitter <= 1 {
				p.Jitter = b.Jitter
			}
		}
	}
	p.MaxAttempts = min(max(p.MaxAttempts, 1), MaxAttemptsLimit)
	return p
}

func millis(ms int64) time.Duration {
	return time.Duration(min(ms, workflow.MaxBackoffMs)) * time.Millisecond
}

// Delay is the wait before the retry that follows the k-th failure of a
// round: initial × multiplier^(k-1), capped, ± jitter (rnd in [0, 1)).
func (p Policy) Delay(k int, rnd float64) time.Duration {
	d := float64(p.Initial) * math.Pow(p.Mult, float64(k-1))
	if d > float64(p.Max) {
		d = float64(p.Max)
	}
	d *= 1 + p.Jitter*(2*rnd-1)
	return time.Duration(d)
}

// ToolName is what a step runs, for statistics and learned patterns.
func ToolName(n *workflow.Node) string {
	switch n.Type {
	case workflow.TypeTool:
		return n.Params.Tool
	case workflow.TypeAiTransform:
		return "AiTransform/" + n.Params.Kind
	case workflow.TypeWorkflow:
		return "Workflow/" + n.Params.Path
	}
	return string(n.Type)
}

func isAI(n *workflow.Node) bool {
	return n.Type == workflow.TypeAiStep || n.Type == workflow.TypeAiTransform
}

// stepRun is a step node's execution in progress.
type stepRun struct {
	n             *workflow.Node
	p             Policy
	maxA, attempt int
	roundFailures int
	failures      []failure.Record
	outputs       map[string]any // the last attempt's
	instruction   string         // from a fix response, for AI nodes
	lastResponse  string
	escalated     bool
	started       time.Time
}

func (m *Walk) startStep(n *workflow.Node) Command {
	p := PolicyOf(n, m.cfg.DefaultRetries)
	s := &stepRun{n: n, p: p, maxA: p.MaxAttempts, started: m.now}
	reads, ok := m.reads[n.ID]
	if !ok { // once a node: a loop starts it again
		reads = Reads(m.w, n)
		m.reads[n.ID] = reads
	}
	m.emit(Event{Type: EvNodeStarted, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRunning, Tool: ToolName(n), MaxAttempts: s.maxA, Reads: reads})
	return m.attempt(s, 1)
}

func (m *Walk) attempt(s *stepRun, attempt int) Command {
	s.attempt = attempt
	c := Command{Kind: KindAttempt, Node: s.n, Attempt: attempt, MaxAttempts: s.maxA}
	if isAI(s.n) && (len(s.failures) > 0 || s.instruction != "") {
		c.Failures, c.Instruction = slices.Clone(s.failures), s.instruction
	}
	return m.ask(c, func(in Input) Command { return m.attempted(s, in) })
}

func (m *Walk) attempted(s *stepRun, in Input) Command {
	n, attempt, fr := s.n, s.attempt, in.Failure
	s.outputs = in.Outputs
	if in.Refused != "" {
		m.sum.Failed++
		m.countExecution(n, "failed", attempt, len(s.failures)+1)
		m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Message: in.Refused})
		return m.finish(&Result{Outcome: OutcomeFailed, Error: in.Refused, StoppedAt: Ref(n)})
	}
	if fr == nil {
		m.setVar(n, in.Outputs)
		m.complete(n)
		result := "ok"
		if attempt > 1 {
			result = "ok_after_retry"
			m.sum.RetrySuccesses++
			m.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Attempt: attempt, Message: "succeeded on attempt " + fmt.Sprint(attempt)})
			resolution := "retry"
			if s.lastResponse != "" {
				resolution = s.lastResponse
			}
			m.learn(n, s.failures, resolution, s.instruction, attempt)
		} else {
			m.sum.FirstAttemptSuccesses++
		}
		m.countExecution(n, result, attempt, len(s.failures))
		m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusOK, Attempt: attempt, DurationMs: m.now.Sub(s.started).Milliseconds()})
		m.take(m.g.NextEdge(n.ID))
		return m.advance()
	}
	if in.Canceled {
		m.setVar(n, in.Outputs)
		m.countExecution(n, "canceled", attempt, len(s.failures))
		m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusCanceled, Attempt: attempt, Message: "canceled"})
		return m.finish(&Result{Outcome: OutcomeCanceled, Error: "canceled during " + n.Label(), StoppedAt: Ref(n)})
	}
	s.failures = append(s.failures, *fr)
	s.roundFailures++
	m.sum.FailureTypes[fr.FailureType]++
	m.sum.Categories[fr.Category]++
	m.emit(Event{Type: EvFailure, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, MaxAttempts: s.maxA, Failure: fr})

	if fr.Retryable && attempt < s.maxA {
		d := max(s.p.Delay(s.roundFailures, m.rand.Float64()), time.Duration(fr.RetryAfterMs)*time.Millisecond)
		m.emit(Event{Type: EvRetry, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRetrying, Attempt: attempt + 1, MaxAttempts: s.maxA, DelayMs: d.Milliseconds(), Message: Truncate(fr.Error, 200)})
		return m.ask(Command{Kind: KindWait, Node: n, Delay: d, Attempt: attempt + 1, MaxAttempts: s.maxA}, func(in Input) Command {
			if in.Canceled {
				m.setVar(n, s.outputs)
				m.countExecution(n, "canceled", attempt, len(s.failures))
				m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusCanceled, Attempt: attempt, Message: "canceled while waiting to retry"})
				return m.finish(&Result{Outcome: OutcomeCanceled, Error: "canceled while waiting to retry " + n.Label(), StoppedAt: Ref(n)})
			}
			return m.attempt(s, attempt+1)
		})
	}

	if mode := n.ErrorMode(); mode != workflow.OnErrorStop {
		m.handleFailure(n, mode, s.outputs, fr, attempt, len(s.failures))
		next := m.g.NextEdge(n.ID)
		if mode == workflow.OnErrorBranch {
			next = m.g.BranchEdge(n.ID, workflow.OutError, "")
		}
		m.take(next)
		return m.advance()
	}
	reason := "max_attempts"
	if !fr.Retryable {
		reason = "not_retryable"
	}
	if !s.escalated {
		s.escalated = true
		m.sum.Escalations++
	}
	choices := []Action{ActRetry, ActSkip, ActAbort, ActFix}
	if n.Type == workflow.TypeWorkflow {
		choices = choices[:3] // a sub-workflow is fixed in its own file, not by an answer
	}
	return m.recover(&recovery{n: n, failures: s.failures, attempt: attempt, maxA: s.maxA, reason: reason,
		choices:  choices,
		answered: func(resp Response) Command { return m.stepAnswered(s, resp) },
		ended:    func(res *Result) Command { return m.stepEnded(s, res) }})
}

// handleFailure records a failure the node's on_error takes: the run goes
// on (along the normal edge for continue, the Error edge for branch) with
// the failure in the node's outputs.
func (m *Walk) handleFailure(n *workflow.Node, mode workflow.OnError, outputs map[string]any, fr *failure.Record, attempt, failures int) {
	m.setVar(n, HandledOutputs(outputs, fr, attempt))
	m.sum.Handled++
	m.countExecution(n, "handled", attempt, failures)
	msg := fmt.Sprintf("failed; on_error %s: the run goes on", mode)
	if mode == workflow.OnErrorBranch {
		msg = "failed; on_error branch: the run takes the Error edge"
	}
	m.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Message: "handled by on_error " + string(mode)})
	m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Message: msg})
}

// stepEnded ends the run at a step whose failure was not recovered.
func (m *Walk) stepEnded(s *stepRun, res *Result) Command {
	n := s.n
	m.setVar(n, s.outputs)
	status := map[Outcome]string{OutcomeAborted: "aborted", OutcomeCanceled: "canceled", OutcomeReplanned: "replanned"}[res.Outcome]
	if status == "" {
		status = "failed"
	}
	if res.Outcome != OutcomeCanceled {
		m.sum.Failed++ // the step failed, whatever the person did about it
	}
	m.countExecution(n, status, s.attempt, len(s.failures))
	st := StatusFailed
	if res.Outcome == OutcomeCanceled {
		st = StatusCanceled
	}
	m.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: st, Attempt: s.attempt, Message: status})
	m.emit(Event{Type: EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: st, Attempt: s.attempt, Message: res.Error})
	return m.finish(res)
}

// stepAnswered acts on an accepted answer about a step: skip it, or a
// fresh round of attempts (retry, fix).
func (m *Walk) stepAnswered(s *stepRun, resp Response) Command {
	n := s.n
	fr := s.failures[len(s.failures)-1]
	if resp.Action == ActSkip {
		skipped := SkippedOutputs(fr.Error)
		for k, v := range s.outputs {
			if _, ok := skipped[k]; !ok {
				skipped[k] = v
			}
		}
		m.setVar(n, skipped)
		m.sum.Skipped++
		m.countExecution(n, "skipped", s.attempt, len(s.failures))
		m.learn(n, s.failures, "skip", "", s.attempt)
		m.emit(Event{Type: EvResolved, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusSkipped, Attempt: s.attempt, Message: "skipped"})
		m.emit(Event{Type: EvNodeSkipped, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusSkipped, Message: "skipped after escalation"})
		if readers := m.g.Readers(m.w, n.Key, n.ID); len(readers) > 0 {
			var names []string
			for _, rd := range readers {
				label := rd.Name
				if label == "" {
					label = rd.Key
				}
				names = append(names, fmt.Sprintf("%q", label))
			}
			m.Warn(n, fmt.Sprintf("%s was skipped; %s read its outputs and may fail or take another branch", n.Label(), strings.Join(names, ", ")))
		}
		m.take(m.g.NextEdge(n.ID))
		return m.advance()
	}
	s.lastResponse = "user_retry"
	if resp.Action == ActFix {
		s.lastResponse = "fix"
		if n.Type == workflow.TypeTool {
			n.Params.Arguments = MergePatch(n.Params.Arguments, resp.Arguments)
			b, _ := json.Marshal(resp.Arguments)
			s.instruction = string(b)
		} else {
			s.instruction = resp.Instruction
		}
	}
	s.maxA = s.attempt + s.p.MaxAttempts // a fresh round of attempts
	s.roundFailures = 0
	m.emit(Event{Type: EvRetry, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusRetrying, Attempt: s.attempt + 1, MaxAttempts: s.maxA, Message: "after " + DescribeResponse(resp)})
	return m.attempt(s, s.attempt+1)
}

func (m *Walk) learn(n *workflow.Node, failures []failure.Record, resolution, fix string, attempts int) {
	if m.cfg.Learn != nil && len(failures) > 0 {
		m.cfg.Learn(n, failures, resolution, fix, attempts)
	}
}

// ---- recovery: automatic replanning, escalation, answers ----

// recovery is what happens after a node's automated recovery is exhausted
// (or cannot help): an automatic replan, else an escalation, else the
// run fails. answered acts on an accepted answer (retry, fix, skip);
// ended ends the run.
type recovery struct {
	n        *workflow.Node
	failures []failure.Record
	attempt  int
	maxA     int
	reason   string
	choices  []Action
	answered func(Response) Command
	ended    func(*Result) Command

	esc      Escalation
	refusals int
}

func (m *Walk) recover(rc *recovery) Command {
	n, last := rc.n, rc.failures[len(rc.failures)-1]
	notice := ""
	auto, limited := m.mayAutoReplan(last)
	if limited != "" {
		notice = limited
		m.Warn(n, notice)
	}
	if auto {
		return m.ask(Command{Kind: KindReplan, Node: n, Failures: slices.Clone(rc.failures), Auto: true}, func(in Input) Command {
			switch {
			case in.Canceled:
				return rc.ended(&Result{Outcome: OutcomeCanceled, Error: "canceled while replanning", StoppedAt: Ref(n)})
			case in.Error == "" && in.Workflow != nil:
				return rc.ended(m.replanned(n, in.Workflow))
			}
			msg := "automatic replanning failed: " + replanError(in)
			m.Warn(n, msg)
			return m.escalate(rc, msg)
		})
	}
	return m.escalate(rc, notice)
}

func replanError(in Input) string {
	if in.Error != "" {
		return in.Error
	}
	return "the planner returned no workflow"
}

func (m *Walk) replanned(n *workflow.Node, nw *workflow.Workflow) *Result {
	return &Result{Outcome: OutcomeReplanned, Error: fmt.Sprintf("%s failed; a new plan was made", n.Label()), StoppedAt: Ref(n), Replanned: nw}
}

// mayAutoReplan says whether a failure replans without asking. When the
// failure is severe enough but the limit is reached, notice says so.
func (m *Walk) mayAutoReplan(f failure.Record) (ok bool, notice string) {
	p := m.cfg.AutoReplan
	if !p.Enabled || SeverityRank(f.Severity) < SeverityRank(p.Min) {
		return false, ""
	}
	used := m.autoReplans
	if info, marked := failure.ReplanInfoOf(m.w); marked {
		used += info.AutoReplans
	}
	if used >= p.Max {
		return false, fmt.Sprintf("automatic replanning stopped: %d automatic replan(s) already made for this run and the versions replanned from it (the limit is %d)", used, p.Max)
	}
	m.autoReplans++
	return true, ""
}

// SeverityRank orders severities, CRITICAL highest.
func SeverityRank(s failure.Severity) int {
	switch s {
	case failure.SevCritical:
		return 4
	case failure.SevHigh:
		return 3
	case failure.SevMedium:
		return 2
	case failure.SevLow:
		return 1
	}
	return 0
}

func (m *Walk) escalate(rc *recovery, notice string) Command {
	n, last := rc.n, rc.failures[len(rc.failures)-1]
	if !m.cfg.CanAsk {
		msg := fmt.Sprintf("%s failed after %d attempt(s): %s", n.Label(), rc.attempt, last.Error)
		if rc.reason == "not_retryable" {
			msg = fmt.Sprintf("%s failed with a %s error that retrying cannot fix: %s", n.Label(), last.Category, last.Error)
		}
		return rc.ended(&Result{Outcome: OutcomeFailed, Error: msg, StoppedAt: Ref(n)})
	}
	e := Escalation{RunID: m.cfg.RunID, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, NodeType: n.Type, Reason: rc.reason,
		Attempts: rc.attempt, MaxAttempts: rc.maxA, Failures: rc.failures, LastError: last.Error, Classification: last.Classification,
		Notice: notice, CanReplan: m.cfg.CanReplan, Choices: slices.Clone(rc.choices)}
	if m.cfg.KnownFixes != nil {
		e.KnownFixes = m.cfg.KnownFixes(ToolName(n), last)
	}
	if n.Type == workflow.TypeTool {
		e.Tool = n.Params.Tool
	}
	if e.CanReplan {
		e.Choices = append(e.Choices, ActReplan)
	}
	rc.esc = e
	return m.askPerson(rc)
}

func (m *Walk) askPerson(rc *recovery) Command {
	n := rc.n
	e := rc.esc
	m.emit(Event{Type: EvEscalated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: StatusEscalated, Attempt: rc.attempt, MaxAttempts: rc.maxA, Escalation: &e, Message: e.Notice})
	return m.ask(Command{Kind: KindAsk, Node: n, Attempt: rc.attempt, MaxAttempts: rc.maxA, Escalation: &e}, func(in Input) Command { return m.answered(rc, in) })
}

func (m *Walk) answered(rc *recovery, in Input) Command {
	n := rc.n
	last := rc.failures[len(rc.failures)-1]
	if in.Canceled {
		return rc.ended(&Result{Outcome: OutcomeCanceled, Error: "canceled while waiting for an answer about " + n.Label(), StoppedAt: Ref(n)})
	}
	if in.Error != "" {
		return rc.ended(&Result{Outcome: OutcomeAborted, Error: "the escalation handler failed: " + in.Error, StoppedAt: Ref(n)})
	}
	resp := in.Response
	m.emit(Event{Type: EvUserResponse, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Response: &resp})
	refuse := func(msg string) Command {
		rc.esc.Notice = msg
		m.Warn(n, msg)
		rc.refusals++
		if rc.refusals >= maxRefusals {
			return rc.ended(&Result{Outcome: OutcomeAborted, Error: fmt.Sprintf("aborted at %s: %d answers could not be acted on (last: %s)", n.Label(), maxRefusals, msg), StoppedAt: Ref(n)})
		}
		return m.askPerson(rc)
	}
	if resp.Action != ActReplan && resp.Action != ActAbort && !slices.Contains(rc.choices, resp.Action) {
		return refuse(fmt.Sprintf("%q is not one of the answers here: %s", resp.Action, actionList(rc.esc.Choices)))
	}
	switch resp.Action {
	case ActRetry, ActSkip:
		return rc.answered(resp)
	case ActAbort:
		return rc.ended(&Result{Outcome: OutcomeAborted, Error: fmt.Sprintf("aborted at %s after %d failed attempt(s): %s", n.Label(), rc.attempt, last.Error), StoppedAt: Ref(n)})
	case ActFix:
		if n.Type == workflow.TypeTool && resp.Arguments == nil {
			var args map[string]any
			if json.Unmarshal([]byte(strings.TrimSpace(resp.Instruction)), &args) == nil && args != nil {
				resp.Arguments = args
			}
		}
		switch {
		case n.Type == workflow.TypeTool && len(resp.Arguments) == 0:
			return refuse(fmt.Sprintf("a fix for the Tool node %s is a JSON object merged into its arguments, such as {\"path\": \"notes.txt\"}; %q is not one", n.Label(), Truncate(resp.Instruction, 80)))
		case n.Type != workflow.TypeTool && strings.TrimSpace(resp.Instruction) == "" && len(resp.Arguments) == 0:
			return refuse("a fix needs an instruction for the AI step")
		}
		if n.Type != workflow.TypeTool && strings.TrimSpace(resp.Instruction) == "" {
			b, _ := json.Marshal(resp.Arguments)
			resp.Instruction = string(b)
		}
		return rc.answered(resp)
	case ActReplan:
		if !m.cfg.CanReplan {
			return refuse("replanning is not available: no planner is configured for this run; answer retry, skip, abort or fix")
		}
		return m.ask(Command{Kind: KindReplan, Node: n, Failures: slices.Clone(rc.failures)}, func(in Input) Command {
			switch {
			case in.Canceled:
				return rc.ended(&Result{Outcome: OutcomeCanceled, Error: "canceled while replanning", StoppedAt: Ref(n)})
			case in.Error == "" && in.Workflow != nil:
				return rc.ended(m.replanned(n, in.Workflow))
			}
			return refuse("replanning failed: " + replanError(in))
		})
	}
	return refuse(fmt.Sprintf("%q is not a response the runner knows; answer retry, skip, abort, fix or replan", resp.Action))
}

func actionList(as []Action) string {
	var s []string
	for _, a := range as {
		s = append(s, string(a))
	}
	return strings.Join(s, ", ")
}

// DescribeResponse is an answer in one line, for events and logs.
func DescribeResponse(resp Response) string {
	switch {
	case len(resp.Arguments) > 0:
		b, _ := json.Marshal(resp.Arguments)
		return fmt.Sprintf("%s %s", resp.Action, Truncate(string(b), 200))
	case resp.Instruction != "":
		return fmt.Sprintf("%s: %s", resp.Action, Truncate(resp.Instruction, 200))
	}
	return string(resp.Action)
}

// ---- the workflow's goal check ----

// goalCheck checks the workflow's done_when once every step ran. A
// rejection escalates (retry the check, accept it, abort, replan with the
// critic's feedback); without anyone to ask the run fails.
func (m *Walk) goalCheck() Command {
	if m.w.DoneWhen.IsZero() {
		return m.finish(Completion(m.sum, nil))
	}
	var failures []failure.Record
	var check func(attempt int) Command
	check = func(attempt int) Command {
		start := m.now
		return m.ask(Command{Kind: KindGoal, Node: GoalCheckNode(), Attempt: attempt}, func(in Input) Command {
			n := GoalCheckNode()
			if in.Canceled {
				return m.finish(&Result{Outcome: OutcomeCanceled, Error: "canceled during the goal check", StoppedAt: Ref(n)})
			}
			v := in.Verdict
			if v != nil {
				m.verdict = v
				m.emitVerdict(v)
				if v.Approved {
					return m.finish(Completion(m.sum, v))
				}
			}
			fr := failure.Record{Attempt: attempt, Time: start, DurationMs: m.now.Sub(start).Milliseconds()}
			switch {
			case v == nil && in.Failure != nil:
				fr.FailureType, fr.Error, fr.Classification = failure.FailExecution, in.Failure.Error, in.Failure.Classification
			case v == nil:
				fr.FailureType, fr.Error = failure.FailExecution, "the goal check gave no verdict"
				fr.Classification = failure.Classification{Severity: failure.SevHigh, Category: failure.CatUnknown}
			default:
				fr.FailureType = failure.FailRejected
				fr.Error = "the run's result does not meet its done_when: " + v.Feedback
				fr.Classification = failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true,
					SuggestedFix: strings.Join(v.Suggestions, "; ")}
				if fr.SuggestedFix == "" {
					fr.SuggestedFix = "Change the workflow so that the criteria hold, or replan with this feedback."
				}
			}
			failures = append(failures, fr)
			m.sum.FailureTypes[fr.FailureType]++
			m.sum.Categories[fr.Category]++
			m.emit(Event{Type: EvFailure, NodeKey: n.Key, NodeName: n.Name, Status: StatusFailed, Attempt: attempt, Failure: &fr})
			return m.recover(&recovery{n: n, failures: failures, attempt: attempt, maxA: attempt, reason: "not_retryable",
				choices: []Action{ActRetry, ActSkip, ActAbort},
				answered: func(resp Response) Command {
					if resp.Action == ActSkip {
						if m.verdict == nil {
							m.verdict = &Verdict{Condition: m.w.DoneWhen.Condition, Criteria: m.w.DoneWhen.Criteria, CheckedBy: "unchecked", Feedback: fr.Error}
						}
						m.verdict.Accepted = true
						m.emitVerdict(m.verdict)
						return m.finish(Completion(m.sum, m.verdict))
					}
					return check(attempt + 1)
				},
				ended: func(res *Result) Command {
					if res.Outcome != OutcomeCanceled {
						m.sum.Failed++
					}
					res.Verdict = m.verdict
					return m.finish(res)
				}})
		})
	}
	return check(1)
}

func (m *Walk) emitVerdict(v *Verdict) {
	m.emit(Event{Type: EvVerdict, Verdict: v, NodeKey: GoalCheckKey, NodeName: GoalCheckNode().Name, Message: v.Line()})
}

// ReplanRequest is what the replanner is asked after the failures of n:
// the workflow, the outputs and completed steps so far, and the goal
// check's critique when the goal check failed.
func (m *Walk) ReplanRequest(n *workflow.Node, failures []failure.Record, auto bool) failure.ReplanRequest {
	req := failure.ReplanRequest{Workflow: m.w.Clone(), FailedNode: *n, Failures: failures, Outputs: m.Outputs(),
		Completed: m.Completed(), Auto: auto}
	if n.ID == "" && n.Key == GoalCheckKey && m.verdict != nil {
		v := m.verdict
		req.Critique = &failure.Critique{Condition: v.Condition, Criteria: v.Criteria, Feedback: v.Feedback, Suggestions: v.Suggestions, Confidence: v.Confidence}
	}
	return req
}
