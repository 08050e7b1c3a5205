package temporal

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

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

func (c Config) queue() string {
	if c.TaskQueue == "" {
		return DefaultTaskQueue
	}
	return c.TaskQueue
}

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
	b, err := wf.Marshal(w)
	if err != nil {
		return "", err
	}
	in.Workflow = b
	id := fmt.Sprintf("weft-%s-%d", w.ID, time.Now().UnixNano())
	run, err := e.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: e.Config.queue(),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE}, WorkflowType, in)
	if err != nil {
		return "", fmt.Errorf("temporal: start the run: %w", err)
	}
	return run.GetID(), nil
}

// Handler hears a followed run: every event once, in order, and each
// escalation once; an escalation's answer (ok true) is signalled to the
// run. Escalation may block: the run waits anyway.
type Handler struct {
	Event      func(runner.Event)
	Escalation func(ctx context.Context, e runner.Escalation) (runner.Response, bool)
}

// pollEvery is how often a follower asks the run for news.
const pollEvery = 250 * time.Millisecond

// Follow follows a run until it ends and returns its result. When ctx
// ends first it returns ctx's error and the run goes on (detached).
func (e *Engine) Follow(ctx context.Context, runID string, h Handler) (*runner.Result, error) {
	var after int64
	answered := int64(-1)
	for {
		st, err := e.State(ctx, runID, after)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			// A closed run with no worker to answer the query: its result
			// is in the history.
			if res, rerr := e.Result(ctx, runID); rerr == nil {
				return res, nil
			}
			return nil, err
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
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// State asks the run for its state and the events after a seq.
func (e *Engine) State(ctx context.Context, runID string, after int64) (State, error) {
	var st State
	v, err := e.Client.QueryWorkflow(ctx, runID, "", QueryState, after)
	if err != nil {
		return st, fmt.Errorf("temporal: ask run %s: %w", runID, err)
	}
	if err := v.Get(&st); err != nil {
		return st, err
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

// Respond answers the escalation the run waits at.
func (e *Engine) Respond(ctx context.Context, runID string, resp runner.Response) error {
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
	// Status is running, completed, failed, canceled, terminated,
	// timed out or continued as new.
	Status  string    `json:"status"`
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
	}
	return "unknown"
}
