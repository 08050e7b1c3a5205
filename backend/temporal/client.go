package temporal

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/runner"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// Config is how to reach a Temporal service.
type Config struct {
	// Address is host:port of the frontend (a self-hosted cluster, a
	// Temporal Cloud namespace endpoint, or a dev server).
	Address   string
	Namespace string
	TaskQueue string
	// TLS connects with TLS (Temporal Cloud, a secured cluster); an
	// APIKey implies it.
	TLS    bool
	APIKey string
	// Key seals every payload (codec.go); nil sends them as they are.
	Key []byte
	// Logger hears the SDK; nil keeps it quiet.
	Logger *slog.Logger
}

// Queue is the task queue this configuration submits to and a worker of
// it polls: TaskQueue, or its sealed queue when there is a Key.
func (c Config) Queue() string { return TaskQueue(c.TaskQueue, c.Key) }

// Dial connects to the service.
func Dial(cfg Config) (client.Client, error) {
	if cfg.Address == "" {
		return nil, errors.New("temporal: no address (host:port) given")
	}
	l := cfg.Logger
	if l == nil {
		l = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dc, err := DataConverter(cfg.Key)
	if err != nil {
		return nil, err
	}
	opts := client.Options{HostPort: cfg.Address, Namespace: cfg.Namespace, Logger: tlog.NewStructuredLogger(l), DataConverter: dc}
	if cfg.APIKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(cfg.APIKey)
		cfg.TLS = true
	}
	if cfg.TLS {
		opts.ConnectionOptions.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	c, err := client.Dial(opts)
	if err != nil {
		return nil, fmt.Errorf("temporal: connect to %s: %w", cfg.Address, err)
	}
	return c, nil
}

// Engine submits and follows runs on a Temporal service.
type Engine struct {
	Client client.Client
	Config Config
}

// Submit starts a run of w (its content travels with it) and returns the
// run's id (the Temporal workflow id).
func (e *Engine) Submit(ctx context.Context, w *wf.Workflow, in RunInput) (string, error) {
	b, err := wf.Marshal(w.WithoutAnnotations()) // no run reads them
	if err != nil {
		return "", err
	}
	in.Workflow = b
	id := fmt.Sprintf("weft-%s-%d", w.ID, time.Now().UnixNano())
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.Config.Queue(),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, WorkflowType, in)
	if err != nil {
		return "", fmt.Errorf("temporal: start the run: %w", err)
	}
	return run.GetID(), nil
}

// Handler hears a followed run: every event once, in order, and each
// escalation once; an escalation's answer (ok true) is signalled to the
// run. Escalation may block: the run waits anyway. Notice hears, once
// each, why the run does not answer (no worker polls its task queue).
type Handler struct {
	Event      func(runner.Event)
	Escalation func(ctx context.Context, e runner.Escalation) (runner.Response, bool)
	Notice     func(string)
	// SubRun hears, once each, the runs of sub-workflows the run's steps
	// start, while they go.
	SubRun func(flow.RunLink)
}

// pollEvery is how often a follower asks the run for news.
const pollEvery = 250 * time.Millisecond

// Follow follows a run until it ends and returns its result. When ctx
// ends first it returns ctx's error and the run goes on (detached). While
// no worker polls the run's task queue it waits, and says so (Notice).
func (e *Engine) Follow(ctx context.Context, runID string, h Handler) (*runner.Result, error) {
	var after int64
	answered := int64(-1)
	subRuns := map[string]bool{}
	told := ""
	tell := func(msg string) {
		if msg != told && h.Notice != nil {
			h.Notice(msg)
		}
		told = msg
	}
	for {
		st, err := e.AskState(ctx, runID, after, tell)
		switch {
		case errors.Is(err, ErrEndedUnanswered):
			// Ended, and no worker to answer: its result is in the history.
			return e.Result(ctx, runID)
		case err != nil:
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			sv, serr := e.Serving(ctx, runID)
			if serr == nil && sv.Unreadable != nil {
				return nil, fmt.Errorf("temporal: run %s: %w", runID, sv.Unreadable)
			}
			if serr == nil && !sv.Running {
				// Ended: the query had no answer (no worker, or a run
				// whose workflow code never ran); its end is in the history.
				return e.Result(ctx, runID)
			}
			if serr != nil || sv.Missing == "" {
				return nil, err
			}
			tell(sv.Missing) // waits for a worker
		default:
			told = ""
			for _, l := range st.SubRuns {
				if h.SubRun != nil && !subRuns[l.RunID] {
					subRuns[l.RunID] = true
					h.SubRun(l)
				}
			}
			for _, ev := range st.Events {
				if h.Event != nil {
					h.Event(ev)
				}
				after = ev.Seq
			}
			if st.Escalation != nil && st.Phase == PhaseWaiting && answered != st.LastSeq && h.Escalation != nil {
				answered = st.LastSeq
				if resp, ok := h.Escalation(ctx, *st.Escalation); ok {
					if err := e.Respond(ctx, runID, resp); err != nil {
						return nil, err
					}
				}
			}
			if st.Phase == PhaseFinished {
				if st.Result != nil {
					return st.Result, nil
				}
				return e.Result(ctx, runID)
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// State asks the run for its state and the events after a seq; a worker
// answers (one replays an ended run to).
func (e *Engine) State(ctx context.Context, runID string, after int64) (State, error) {
	var st State
	v, err := e.Client.QueryWorkflow(ctx, runID, "", QueryState, after)
	if err != nil {
		var qf *serviceerror.QueryFailed
		if errors.As(err, &qf) && strings.Contains(qf.Message, "unknown queryType") {
			// The workflow code never ran far enough to answer: its
			// first task failed on the worker that took it.
			return st, fmt.Errorf("temporal: run %s cannot be asked how it goes: its workflow never started on a worker (the worker that took it failed its first task: `weft runs show %s` or the Temporal UI says why)", runID, runID)
		}
		return st, fmt.Errorf("temporal: ask run %s: %w", runID, err)
	}
	if err := v.Get(&st); err != nil {
		return st, fmt.Errorf("temporal: run %s's answer: %w", runID, err)
	}
	return st, nil
}

// Result waits for the run's result.
func (e *Engine) Result(ctx context.Context, runID string) (*runner.Result, error) {
	var res runner.Result
	if err := e.Client.GetWorkflow(ctx, runID, "").Get(ctx, &res); err != nil {
		return nil, fmt.Errorf("temporal: run %s: %w", runID, err)
	}
	return &res, nil
}

// Input is what run runID was started with (its workflow as submitted,
// its folder), from the first event of its history.
func (e *Engine) Input(ctx context.Context, runID string) (RunInput, error) {
	var in RunInput
	it := e.Client.GetWorkflowHistory(ctx, runID, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	if !it.HasNext() {
		return in, fmt.Errorf("temporal: run %s has no history", runID)
	}
	ev, err := it.Next()
	if err != nil {
		return in, fmt.Errorf("temporal: read run %s: %w", runID, err)
	}
	attrs := ev.GetWorkflowExecutionStartedEventAttributes()
	if attrs == nil || !slices.Contains(WorkflowTypes, attrs.GetWorkflowType().GetName()) {
		return in, fmt.Errorf("temporal: run %s is not a Weft run (%s)", runID, strings.Join(WorkflowTypes, ", "))
	}
	dc, err := DataConverter(e.Config.Key)
	if err != nil {
		return in, err
	}
	if err := dc.FromPayloads(attrs.GetInput(), &in); err != nil {
		return in, fmt.Errorf("temporal: read run %s's input: %w", runID, err)
	}
	return in, nil
}

// Respond answers the escalation the run waits at. An answer the run's
// worker would refuse (this process does not have the run's key) is
// refused here, saying so: the worker would drop it and wait on.
// Replanned sends the plan made for a replan answer (or why there is
// none) to a run; send it before the answer.
func (e *Engine) Replanned(ctx context.Context, runID string, a ReplanAnswer) error {
	if err := e.Client.SignalWorkflow(ctx, runID, "", SignalReplanned, a); err != nil {
		return fmt.Errorf("temporal: sending the new plan to run %s: %w", runID, err)
	}
	return nil
}

func (e *Engine) Respond(ctx context.Context, runID string, resp runner.Response) error {
	if sv, err := e.Serving(ctx, runID); err == nil && sv.Unreadable != nil {
		return fmt.Errorf("temporal: answer run %s: %w", runID, sv.Unreadable)
	}
	if err := e.Client.SignalWorkflow(ctx, runID, "", SignalRespond, resp); err != nil {
		return fmt.Errorf("temporal: answer run %s: %w", runID, err)
	}
	return nil
}

// Cancel asks the run to stop (the step in flight is canceled).
func (e *Engine) Cancel(ctx context.Context, runID string) error {
	if err := e.Client.CancelWorkflow(ctx, runID, ""); err != nil {
		return fmt.Errorf("temporal: cancel run %s: %w", runID, err)
	}
	return nil
}

// RunInfo is one run in List.
type RunInfo struct {
	RunID string `json:"run_id"`
	// Status is Temporal's: running, completed, failed, canceled,
	// terminated, timed out or continued as new.
	Status string `json:"status"`
	// Outcome is Weft's (Outcomes fills it in): running, or waiting for an
	// answer, while the run goes; then its result's outcome (succeeded,
	// partial, failed, aborted, canceled, replanned); "sealed" when the
	// result is sealed with a key this process does not have, "unsealed"
	// when this process has a key and the run was not sealed, "unknown"
	// when it could not be read (Note says why).
	Outcome string    `json:"outcome,omitempty"`
	Note    string    `json:"note,omitempty"`
	Started time.Time `json:"started"`
	Closed  time.Time `json:"closed,omitempty"`
}

// List returns the newest runs (at most limit).
func (e *Engine) List(ctx context.Context, limit int) ([]RunInfo, error) {
	resp, err := e.Client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: e.Config.Namespace, PageSize: int32(limit), Query: fmt.Sprintf("WorkflowType IN ('%s')", strings.Join(WorkflowTypes, "', '"))})
	if err != nil {
		return nil, fmt.Errorf("temporal: list runs: %w", err)
	}
	var out []RunInfo
	for _, x := range resp.Executions {
		ri := RunInfo{RunID: x.GetExecution().GetWorkflowId(), Status: statusName(x.GetStatus()), Started: x.GetStartTime().AsTime()}
		if ct := x.GetCloseTime(); ct != nil {
			ri.Closed = ct.AsTime()
		}
		out = append(out, ri)
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// askPhaseFor bounds asking the running runs whether they wait for an
// answer (a worker answers; with none up they read "running").
const askPhaseFor = 2 * time.Second

// Outcomes fills in each run's Outcome: an ended run's from its end (a
// read of its history), a running one's by asking it, all at once within
// askPhaseFor.
func (e *Engine) Outcomes(ctx context.Context, runs []RunInfo) {
	actx, cancel := context.WithTimeout(ctx, askPhaseFor)
	defer cancel()
	var wg sync.WaitGroup
	for i := range runs {
		r := &runs[i]
		if r.Status == "running" {
			r.Outcome = PhaseRunning
			wg.Add(1)
			go func() {
				defer wg.Done()
				// No events: only the phase is wanted.
				if st, err := e.State(actx, r.RunID, math.MaxInt64); err == nil && st.Phase == PhaseWaiting {
					r.Outcome = PhaseWaiting
				}
			}()
			continue
		}
		res, err := e.End(ctx, *r)
		var se *SealError
		switch {
		case errors.As(err, &se) && se.Sealed:
			r.Outcome, r.Note = "sealed", se.Error()
		case errors.As(err, &se):
			r.Outcome, r.Note = "unsealed", se.Error()
		case err != nil:
			r.Outcome, r.Note = "unknown", err.Error()
		default:
			r.Outcome = string(res.Outcome)
			if res.Outcome != runner.OutcomeSucceeded {
				r.Note = res.Error
			}
		}
	}
	wg.Wait()
}

// End is how the ended run r went: the result its workflow returned; when
// the service ended it (failed, canceled, terminated, timed out), a result
// that says so. The error: the result cannot be read (sealed with a key
// this process does not have, say).
func (e *Engine) End(ctx context.Context, r RunInfo) (*runner.Result, error) {
	res, err := e.Result(ctx, r.RunID)
	if r.Status == "completed" || r.Status == "continued_as_new" {
		return res, err
	}
	out := &runner.Result{RunID: r.RunID, Outcome: runner.OutcomeFailed, Started: r.Started, Finished: r.Closed,
		Error: fmt.Sprintf("the run ended %s on the Temporal service", r.Status)}
	if err != nil {
		out.Error += ": " + err.Error()
	}
	if r.Status == "canceled" || r.Status == "terminated" {
		out.Outcome = runner.OutcomeCanceled
	}
	return out, nil
}

func statusName(s enumspb.WorkflowExecutionStatus) string {
	switch s {
	case enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING:
		return "running"
	case enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED:
		return "completed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_FAILED:
		return "failed"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CANCELED:
		return "canceled"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TERMINATED:
		return "terminated"
	case enumspb.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
		return "timed_out"
	case enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW:
		return "continued_as_new"
	}
	return "unknown"
}
