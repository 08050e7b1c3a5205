package temporal

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// interp is the state of one run in workflow code. Everything here is
// deterministic: it changes only from activity results and signals.
type interp struct {
	ctx   workflow.Context
	in    RunInput
	w     *wf.Workflow
	nav   *runner.Nav
	vars  map[string]any
	iter  map[string]int
	state State
	sum   runner.Summary
	resp  workflow.ReceiveChannel
	keys  []string // every node key, for conditions
	esc   int
}

// Run is the Temporal workflow (WorkflowType): it walks the workflow in
// RunInput as runner.Run does and returns its result.
func Run(ctx workflow.Context, in RunInput) (*runner.Result, error) {
	w, _, err := wf.Parse(in.Workflow)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the workflow does not load: "+err.Error(), "weft.invalid", nil)
	}
	if vr := validate.Validate(w, tools.Builtin()); !vr.Valid {
		ie := &runner.InvalidError{Problems: vr.Errors()}
		return nil, temporal.NewNonRetryableApplicationError(ie.Error(), "weft.invalid", nil)
	}
	nav, err := runner.NewNav(w)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError(err.Error(), "weft.invalid", nil)
	}
	keys := make([]string, len(w.Nodes))
	for i := range w.Nodes {
		keys[i] = w.Nodes[i].Key
	}
	r := &interp{ctx: ctx, in: in, w: w, nav: nav, keys: keys, vars: map[string]any{}, iter: map[string]int{},
		state: State{Phase: PhaseRunning, Events: []runner.Event{}},
		sum:   runner.Summary{FailureTypes: map[failure.Type]int{}, Categories: map[failure.Category]int{}},
		resp:  workflow.GetSignalChannel(ctx, SignalRespond)}
	if err := workflow.SetQueryHandler(ctx, QueryState, func(after int64) (State, error) { return r.view(after), nil }); err != nil {
		return nil, err
	}
	started := workflow.Now(ctx)
	info := workflow.GetInfo(ctx)
	r.emit(runner.Event{Type: runner.EvRunStarted, Message: fmt.Sprintf("%s: %d nodes, %d edges (Temporal %s)", w.Name, len(w.Nodes), len(w.Edges), info.WorkflowExecution.ID)})
	res := r.walk()
	res.RunID, res.Source = info.WorkflowExecution.ID, in.Source
	res.Started, res.Finished = started, workflow.Now(ctx)
	res.Outputs = r.vars
	res.Summary = r.sum
	if res.Summary.Details == nil {
		res.Summary.Details = []runner.NodeStat{}
	}
	res.Summary.DurationMs = res.Finished.Sub(started).Milliseconds()
	fin := runner.Event{Type: runner.EvRunFinished, Outcome: res.Outcome, Message: res.Error, Summary: &res.Summary, DurationMs: res.Summary.DurationMs}
	if res.StoppedAt != nil {
		fin.NodeID, fin.NodeKey, fin.NodeName = res.StoppedAt.ID, res.StoppedAt.Key, res.StoppedAt.Name
	}
	r.emit(fin)
	r.state.Phase, r.state.Result = PhaseFinished, res
	return res, nil
}

// view is the state a follower sees: the events after seq.
func (r *interp) view(after int64) State {
	v := r.state
	v.Events = []runner.Event{}
	for _, e := range r.state.Events {
		if e.Seq > after {
			v.Events = append(v.Events, e)
		}
	}
	return v
}

func (r *interp) emit(e runner.Event) {
	r.state.LastSeq++
	e.Seq = r.state.LastSeq
	if e.Time.IsZero() {
		e.Time = workflow.Now(r.ctx)
	}
	r.state.Events = append(r.state.Events, e)
	if len(r.state.Events) > maxStateEvents {
		r.state.Events = r.state.Events[len(r.state.Events)-maxStateEvents:]
	}
}

func ref(n *wf.Node) *runner.NodeRef { return &runner.NodeRef{ID: n.ID, Key: n.Key, Name: n.Name} }

func (r *interp) stat(n *wf.Node, result string, attempts, failures int) {
	r.sum.Nodes++
	if attempts > 1 {
		r.sum.Retried++
	}
	for i := range r.sum.Details {
		if d := &r.sum.Details[i]; d.ID == n.ID {
			d.Executions++
			d.Attempts += attempts
			d.Failures += failures
			d.Result = result
			return
		}
	}
	r.sum.Details = append(r.sum.Details, runner.NodeStat{NodeRef: *ref(n), Executions: 1, Attempts: attempts, Failures: failures, Result: result})
}

func (r *interp) walk() *runner.Result {
	cur, err := r.nav.Start("")
	if err != nil {
		return &runner.Result{Outcome: runner.OutcomeFailed, Error: err.Error()}
	}
	var prev *wf.Node
	for cur != nil {
		var next *wf.Node
		switch cur.Type {
		case wf.TypeTool, wf.TypeAiStep, wf.TypeAiTransform:
			n := cur
			if !n.IsEnabled() {
				r.vars[n.Key] = runner.SkippedOutputs("disabled")
				r.sum.Disabled++
				r.emit(runner.Event{Type: runner.EvNodeSkipped, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusSkipped, Message: "disabled: passed through"})
				next = r.nav.Next(n.ID)
				break
			}
			if out, ok := r.w.PinnedOutputs(n.ID); ok && r.in.UsePinned {
				r.vars[n.Key] = out
				r.sum.Pinned++
				r.emit(runner.Event{Type: runner.EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusOK, Source: runner.SourcePinned, Message: "pinned data used: the step did not run"})
				next = r.nav.Next(n.ID)
				break
			}
			branch, res := r.step(n)
			if res != nil {
				return res
			}
			if branch {
				next = r.nav.Branch(n.ID, wf.OutError, "")
			} else {
				next = r.nav.Next(n.ID)
			}
		case wf.TypeIf:
			taken := wf.OutIfTrue
			if cur.IsEnabled() {
				ok, res := r.cond(cur, "condition", cur.Params.Condition)
				if res != nil {
					return res
				}
				if !ok {
					taken = wf.OutIfFalse
				}
			}
			ev := runner.Event{Type: runner.EvBranchEvaluated, NodeID: cur.ID, NodeKey: cur.Key, NodeName: cur.Name, Branch: string(taken), Condition: cur.Params.Condition}
			if !cur.IsEnabled() {
				ev.Condition, ev.Message = "", "disabled: passed through on IfTrue"
			}
			r.emit(ev)
			next = r.nav.Branch(cur.ID, taken, "")
		case wf.TypeSwitch:
			n, res := r.switchNext(cur)
			if res != nil {
				return res
			}
			next = n
		case wf.TypeLoop:
			n, res := r.loopNext(cur, prev)
			if res != nil {
				return res
			}
			next = n
		case wf.TypeEndLoop:
			next = r.nav.Node(cur.Params.LoopID)
		default:
			return &runner.Result{Outcome: runner.OutcomeFailed, Error: fmt.Sprintf("%s has the unknown type %q", cur.Label(), cur.Type), StoppedAt: ref(cur)}
		}
		prev, cur = cur, next
	}
	return r.finish()
}

// finish ends a run that reached the end of its path, as the runner does:
// the workflow's done_when is checked (a worker's activity: its model
// judges criteria); a result that does not hold escalates (retry the
// check, accept it, abort).
func (r *interp) finish() *runner.Result {
	if r.w.DoneWhen.IsZero() {
		return runner.Completion(r.sum, nil)
	}
	n := &wf.Node{Key: "done_when", Name: "Goal check (done_when)", Type: wf.NodeType("DoneWhen")}
	for attempt := 1; ; attempt++ {
		ctx := workflow.WithActivityOptions(r.ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, HeartbeatTimeout: 0,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
		var a *Activities
		var out GoalOutput
		if err := workflow.ExecuteActivity(ctx, a.Goal, GoalInput{Workflow: r.in.Workflow, Vars: r.vars, Details: r.sum.Details, Dir: r.in.Dir}).Get(ctx, &out); err != nil {
			out.Error = err.Error()
		}
		v := out.Verdict
		if v != nil {
			r.emit(runner.Event{Type: runner.EvVerdict, NodeKey: n.Key, NodeName: n.Name, Verdict: v, Message: v.Line()})
			if v.Approved {
				return runner.Completion(r.sum, v)
			}
		}
		fr := &failure.Record{Attempt: attempt, FailureType: failure.FailRejected,
			Classification: failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true}}
		if out.Error != "" {
			fr.FailureType, fr.Error = failure.FailExecution, "the done_when could not be checked: "+out.Error
		} else {
			fr.Error = "the run's result does not meet its done_when: " + v.Feedback
			fr.SuggestedFix = strings.Join(v.Suggestions, "; ")
		}
		r.sum.FailureTypes[fr.FailureType]++
		r.sum.Categories[fr.Category]++
		r.emit(runner.Event{Type: runner.EvFailure, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusFailed, Attempt: attempt, Failure: fr})
		resp := r.escalate(n, fr, attempt, attempt, runner.ActRetry, runner.ActSkip, runner.ActAbort)
		switch resp.Action {
		case runner.ActRetry:
			continue
		case runner.ActSkip:
			if v == nil {
				v = &runner.Verdict{Condition: r.w.DoneWhen.Condition, Criteria: r.w.DoneWhen.Criteria, CheckedBy: "unchecked", Feedback: fr.Error}
			}
			v.Accepted = true
			r.emit(runner.Event{Type: runner.EvVerdict, NodeKey: n.Key, NodeName: n.Name, Verdict: v, Message: v.Line()})
			return runner.Completion(r.sum, v)
		default:
			r.sum.Failed++
			return &runner.Result{Outcome: runner.OutcomeAborted, Error: "aborted at the goal check: " + fr.Error, StoppedAt: &runner.NodeRef{Key: n.Key, Name: n.Name}, Verdict: v}
		}
	}
}

// cond evaluates a condition in a local activity (recorded in the
// history, so a replay reads the same value).
func (r *interp) cond(n *wf.Node, what, cond string) (bool, *runner.Result) {
	ctx := workflow.WithLocalActivityOptions(r.ctx, workflow.LocalActivityOptions{StartToCloseTimeout: 10 * time.Second,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}})
	var out CondOutput
	var a *Activities
	if err := workflow.ExecuteLocalActivity(ctx, a.Condition, CondInput{Keys: r.keys, Cond: cond, Vars: r.vars}).Get(ctx, &out); err != nil {
		out.Error = err.Error()
	}
	if out.Error != "" {
		return false, &runner.Result{Outcome: runner.OutcomeFailed, StoppedAt: ref(n),
			Error: fmt.Sprintf("the %s of %s `%s` cannot be evaluated: %s", what, n.Label(), cond, out.Error)}
	}
	return out.Value, nil
}

func (r *interp) switchNext(n *wf.Node) (*wf.Node, *runner.Result) {
	if n.IsEnabled() {
		for _, c := range n.Params.Cases {
			ok, res := r.cond(n, fmt.Sprintf("case %q", c.Name), c.Condition)
			if res != nil {
				return nil, res
			}
			if ok {
				r.emit(runner.Event{Type: runner.EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: c.Name, Condition: c.Condition})
				return r.nav.Branch(n.ID, wf.OutSwitchCase, c.Name), nil
			}
		}
	}
	d := r.nav.Branch(n.ID, wf.OutSwitchDefault, "")
	if d == nil { // as the runner says it: the path ends, visibly
		r.emit(runner.Event{Type: runner.EvWarning, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name,
			Message: fmt.Sprintf("no case of Switch %q matched and it has no default branch: this path ends here", n.Label())})
		return nil, nil
	}
	r.emit(runner.Event{Type: runner.EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(wf.OutSwitchDefault)})
	return d, nil
}

// loopNext is runner's do-while Loop: entering runs the body; coming back
// from its EndLoop checks exit_condition, then max_iterations.
func (r *interp) loopNext(n, prev *wf.Node) (*wf.Node, *runner.Result) {
	back := prev != nil && prev.Type == wf.TypeEndLoop && prev.Params.LoopID == n.ID
	max := n.LoopMax()
	if !n.IsEnabled() {
		max = 1
	}
	body := func(i int) *wf.Node {
		r.iter[n.ID] = i
		r.vars[n.Key] = map[string]any{"iteration": i, "max_iterations": max}
		r.emit(runner.Event{Type: runner.EvLoopIteration, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Iteration: i, Branch: string(wf.OutLoopBody)})
		return r.nav.Branch(n.ID, wf.OutLoopBody, "")
	}
	if !back {
		return body(1), nil
	}
	i := r.iter[n.ID]
	done := r.nav.Branch(n.ID, wf.OutLoopDone, "")
	if c := n.Params.ExitCondition; strings.TrimSpace(c) != "" && n.IsEnabled() {
		ok, res := r.cond(n, "exit condition", c)
		if res != nil {
			return nil, res
		}
		if ok {
			r.emit(runner.Event{Type: runner.EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(wf.OutLoopDone), Condition: c, Iteration: i})
			return done, nil
		}
	}
	if i >= max {
		r.emit(runner.Event{Type: runner.EvBranchEvaluated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Branch: string(wf.OutLoopDone), Iteration: i, Message: fmt.Sprintf("max_iterations %d reached", max)})
		return done, nil
	}
	return body(i + 1), nil
}

// retryPolicy maps the node's retry policy (and the default retries) to
// Temporal's.
func (r *interp) retryPolicy(n *wf.Node) *temporal.RetryPolicy {
	p := &temporal.RetryPolicy{MaximumAttempts: int32(1 + r.in.DefaultRetries), InitialInterval: runner.DefaultBackoffInitial,
		BackoffCoefficient: runner.DefaultBackoffMult, MaximumInterval: runner.DefaultBackoffMax}
	if rt := n.Retry; rt != nil {
		if rt.MaxAttempts > 0 {
			p.MaximumAttempts = int32(min(rt.MaxAttempts, runner.MaxAttemptsLimit))
		}
		if b := rt.Backoff; b != nil {
			if b.InitialMs > 0 {
				p.InitialInterval = time.Duration(b.InitialMs) * time.Millisecond
			}
			if b.Multiplier >= 1 {
				p.BackoffCoefficient = b.Multiplier
			}
			if b.MaxMs > 0 {
				p.MaximumInterval = time.Duration(b.MaxMs) * time.Millisecond
			}
		}
	}
	if p.MaximumInterval < p.InitialInterval {
		p.MaximumInterval = p.InitialInterval
	}
	return p
}

// step runs a step node: its attempts as one activity under the node's
// retry policy; a failure its on_error takes, or an escalation answered
// by signal. branch says to follow the Error edge; res ends the run.
func (r *interp) step(n *wf.Node) (branch bool, res *runner.Result) {
	timeout := defaultStepTimeout
	if n.TimeoutMs > 0 {
		timeout = time.Duration(n.TimeoutMs)*time.Millisecond + time.Minute
	}
	pol := r.retryPolicy(n)
	r.emit(runner.Event{Type: runner.EvNodeStarted, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusRunning, Tool: n.Params.Tool, MaxAttempts: int(pol.MaximumAttempts)})
	escalated := false
	attempts, failures := 0, 0
	for {
		ctx := workflow.WithActivityOptions(r.ctx, workflow.ActivityOptions{StartToCloseTimeout: timeout, HeartbeatTimeout: heartbeatTimeout, RetryPolicy: pol})
		var a *Activities
		var out runner.StepResult
		err := workflow.ExecuteActivity(ctx, a.Step, StepInput{Workflow: r.in.Workflow, NodeID: n.ID, Vars: r.vars, Approved: r.in.Approved, ReviewFile: r.in.ReviewFile, Dir: r.in.Dir}).Get(ctx, &out)
		if err == nil {
			r.addEvents(out.Events)
			attempts++
			r.vars[n.Key] = out.Outputs
			result := "ok"
			if attempts > 1 {
				result = "ok_after_retry"
				r.sum.RetrySuccesses++
			} else {
				r.sum.FirstAttemptSuccesses++
			}
			r.stat(n, result, attempts, failures)
			r.emit(runner.Event{Type: runner.EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusOK, Attempt: attempts})
			return false, nil
		}
		fr, failed := failureOf(err)
		r.addEvents(failed.Events)
		if refused(err) { // not approved, not loadable: no answer can help
			r.sum.Failed++
			r.stat(n, "failed", max(1, attempts), failures+1)
			r.emit(runner.Event{Type: runner.EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusFailed, Message: fr.Error})
			return false, &runner.Result{Outcome: runner.OutcomeFailed, Error: fr.Error, StoppedAt: ref(n)}
		}
		attempts += max(1, lastAttempt(failed.Events))
		failures++
		r.sum.FailureTypes[fr.FailureType]++
		r.sum.Categories[fr.Category]++
		if temporal.IsCanceledError(err) || r.ctx.Err() != nil {
			r.stat(n, "canceled", attempts, failures)
			return false, &runner.Result{Outcome: runner.OutcomeCanceled, Error: "canceled during " + n.Label(), StoppedAt: ref(n)}
		}
		if mode := n.ErrorMode(); mode != wf.OnErrorStop {
			r.vars[n.Key] = runner.HandledOutputs(failed.Outputs, fr, attempts)
			r.sum.Handled++
			r.stat(n, "handled", attempts, failures)
			r.emit(runner.Event{Type: runner.EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusFailed, Attempt: attempts, Message: "failed; on_error " + string(mode)})
			return mode == wf.OnErrorBranch, nil
		}
		if !escalated {
			escalated = true
			r.sum.Escalations++
		}
		resp := r.escalate(n, fr, attempts, int(pol.MaximumAttempts))
		switch resp.Action {
		case runner.ActRetry:
			continue
		case runner.ActFix:
			if n.Type == wf.TypeTool && resp.Arguments != nil {
				n.Params.Arguments = runner.MergePatch(n.Params.Arguments, resp.Arguments)
				b, err := wf.Marshal(r.w)
				if err == nil {
					r.in.Workflow = b // the fix changes this run's copy only
				}
			}
			continue
		case runner.ActSkip:
			skipped := runner.SkippedOutputs(fr.Error)
			for k, v := range failed.Outputs {
				if _, ok := skipped[k]; !ok {
					skipped[k] = v
				}
			}
			r.vars[n.Key] = skipped
			r.sum.Skipped++
			r.stat(n, "skipped", attempts, failures)
			r.emit(runner.Event{Type: runner.EvNodeSkipped, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusSkipped, Message: "skipped after escalation"})
			return false, nil
		default: // abort
			r.sum.Failed++
			r.stat(n, "aborted", attempts, failures)
			r.emit(runner.Event{Type: runner.EvNodeFinished, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusFailed, Attempt: attempts, Message: "aborted"})
			return false, &runner.Result{Outcome: runner.OutcomeAborted, Error: fmt.Sprintf("aborted at %s: %s", n.Label(), fr.Error), StoppedAt: ref(n)}
		}
	}
}

// escalate waits, durably, for an answer to the step's failure.
func (r *interp) escalate(n *wf.Node, fr *failure.Record, attempts, maxA int, choices ...runner.Action) runner.Response {
	if len(choices) == 0 {
		choices = []runner.Action{runner.ActRetry, runner.ActSkip, runner.ActAbort, runner.ActFix}
	}
	reason := "max_attempts"
	if !fr.Retryable {
		reason = "not_retryable"
	}
	r.esc++
	e := &runner.Escalation{RunID: workflow.GetInfo(r.ctx).WorkflowExecution.ID, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, NodeType: n.Type,
		Tool: n.Params.Tool, Reason: reason, Attempts: attempts, MaxAttempts: maxA, Failures: []failure.Record{*fr}, LastError: fr.Error,
		Classification: fr.Classification, Choices: choices}
	for {
		r.state.Phase, r.state.Escalation = PhaseWaiting, e
		r.emit(runner.Event{Type: runner.EvEscalated, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Status: runner.StatusEscalated, Attempt: attempts, Escalation: e, Message: fr.Error})
		var resp runner.Response
		r.resp.Receive(r.ctx, &resp)
		r.state.Phase, r.state.Escalation = PhaseRunning, nil
		r.emit(runner.Event{Type: runner.EvUserResponse, NodeID: n.ID, NodeKey: n.Key, NodeName: n.Name, Response: &resp})
		if !slices.Contains(choices, resp.Action) {
			e.Notice = fmt.Sprintf("%q is not an answer here: %v", resp.Action, choices)
			continue
		}
		switch resp.Action {
		case runner.ActRetry, runner.ActSkip, runner.ActAbort:
			return resp
		case runner.ActFix:
			if n.Type == wf.TypeTool && resp.Arguments == nil {
				e.Notice = "fix needs arguments (a JSON object) for a Tool step"
				continue
			}
			return resp
		}
		e.Notice = fmt.Sprintf("%q is not an answer here: retry, skip, abort or fix", resp.Action)
	}
}

func (r *interp) addEvents(evs []runner.Event) {
	for _, e := range evs {
		e.Seq = 0
		r.emit(e)
	}
}

// lastAttempt is the number of the last attempt in a step's events: the
// attempts of that round (Temporal numbers each round's attempts from 1).
func lastAttempt(evs []runner.Event) int {
	n := 0
	for _, e := range evs {
		if e.Type == runner.EvAttempt && e.Attempt > n {
			n = e.Attempt
		}
	}
	return n
}

// failureOf reads the failure record (and the attempt's outputs and
// events) out of a step activity's error.
func failureOf(err error) (*failure.Record, runner.StepResult) {
	var out runner.StepResult
	var appErr *temporal.ApplicationError
	if errors.As(err, &appErr) && appErr.HasDetails() {
		if derr := appErr.Details(&out); derr == nil && out.Failure != nil {
			return out.Failure, out
		}
	}
	// A lost worker (heartbeat timeout), a refusal: the error itself.
	msg := err.Error()
	if errors.As(err, &appErr) {
		msg = appErr.Error()
	}
	fr := &failure.Record{Error: msg, FailureType: failure.FailExecution,
		Classification: failure.Classification{Severity: failure.SevHigh, Category: failure.CatUnknown}}
	return fr, out
}

// refused reports a step the worker would not run at all.
func refused(err error) bool {
	var appErr *temporal.ApplicationError
	return errors.As(err, &appErr) && (appErr.Type() == "weft.refused" || appErr.Type() == "weft.invalid")
}
