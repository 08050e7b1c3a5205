package temporal

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
)

// Sealed runs go to a task queue of their own, named after the key's id
// (TaskQueue): only workers with that key poll it, so a worker without it
// (or with another) never takes a sealed run, which it could only fail.
// A worker with a key polls only its sealed queue: its codec refuses
// unsealed payloads, so runs submitted without a key (on the plain queue)
// are for workers without one.

// sealedInfix joins the base queue and the key id.
const sealedInfix = "-sealed-"

// TaskQueue is the queue of runs submitted with key on base ("" =
// DefaultTaskQueue): base itself without a key, else base-sealed-KEYID.
// Submitters and workers both name their queue with it.
func TaskQueue(base string, key []byte) string {
	if base == "" {
		base = DefaultTaskQueue
	}
	if key == nil {
		return base
	}
	return base + sealedInfix + KeyID(key)
}

// splitQueue undoes TaskQueue: the base queue and the key id ("" for a
// plain queue).
func splitQueue(queue string) (base, keyID string) {
	i := strings.LastIndex(queue, sealedInfix)
	if i < 0 {
		return queue, ""
	}
	return queue[:i], queue[i+len(sealedInfix):]
}

// pollerFresh is how recently a worker must have polled to count as up: a
// live one polls again at least every minute (the server's long poll), a
// dead one is listed for minutes after.
const pollerFresh = 90 * time.Second

// Serving is who serves a run: its task queue, whether it still runs, and
// Missing, a sentence saying no worker polls that queue ("" when one
// does), for a follower to show instead of waiting without a word.
type Serving struct {
	Queue   string
	Running bool
	Missing string
	// Unreadable is set when this process cannot read the run: it is
	// sealed with a key this process does not have, or this process has a
	// key and the run is not sealed.
	Unreadable *SealError
}

// Serving looks up who serves run runID.
func (e *Engine) Serving(ctx context.Context, runID string) (Serving, error) {
	var sv Serving
	d, err := e.Client.DescribeWorkflowExecution(ctx, runID, "")
	if err != nil {
		return sv, fmt.Errorf("temporal: describe run %s: %w", runID, err)
	}
	sv.Queue = d.GetExecutionConfig().GetTaskQueue().GetName()
	sv.Running = d.GetWorkflowExecutionInfo().GetStatus() == enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	base, id := splitQueue(sv.Queue)
	own := ""
	if e.Config.Key != nil {
		own = KeyID(e.Config.Key)
	}
	if id != own {
		sv.Unreadable = &SealError{Sealed: id != "", PayloadKey: id, OwnKey: own}
	}
	tq, err := e.Client.DescribeTaskQueue(ctx, sv.Queue, enumspb.TASK_QUEUE_TYPE_WORKFLOW)
	if err != nil {
		return sv, fmt.Errorf("temporal: describe task queue %s: %w", sv.Queue, err)
	}
	var last time.Time
	for _, p := range tq.GetPollers() {
		if t := p.GetLastAccessTime().AsTime(); t.After(last) {
			last = t
		}
	}
	if !last.IsZero() && time.Since(last) < pollerFresh {
		return sv, nil
	}
	sv.Missing = fmt.Sprintf("no worker polls task queue %s", sv.Queue)
	if !last.IsZero() {
		sv.Missing = fmt.Sprintf("no worker has polled task queue %s since %s", sv.Queue, last.Local().Format("15:04:05"))
	}
	if id != "" {
		sv.Missing += fmt.Sprintf(" (the run is sealed: it needs a worker with payload key %s in %s)", id, EnvKey)
	}
	what := "the run waits for one"
	if !sv.Running {
		what = "the run has ended, and its events wait for one to replay it"
	}
	sv.Missing += fmt.Sprintf("; %s (start one: weft worker --task-queue %s)", what, base)
	return sv, nil
}

// noticeAfter is how long a run may take to answer before a follower
// looks for a worker.
const noticeAfter = 3 * time.Second

// ErrEndedUnanswered: the run has ended and no worker polls its queue to
// answer for it (its end is in the history: Result).
var ErrEndedUnanswered = errors.New("the run has ended and no worker answers for it")

// AskState is State for a follower: when the run does not answer within
// noticeAfter and no worker polls its queue, tell hears why (the query
// goes on waiting for one), or, when the run has ended, it gives up with
// ErrEndedUnanswered.
func (e *Engine) AskState(ctx context.Context, runID string, after int64, tell func(string)) (State, error) {
	qctx, cancel := context.WithCancelCause(ctx)
	var (
		mu       sync.Mutex
		answered bool
		done     = make(chan struct{})
	)
	go func() {
		defer close(done)
		select {
		case <-qctx.Done():
			return
		case <-time.After(noticeAfter):
		}
		sv, err := e.Serving(qctx, runID)
		if err != nil || sv.Missing == "" {
			return
		}
		if !sv.Running {
			cancel(ErrEndedUnanswered)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if !answered && tell != nil {
			tell(sv.Missing)
		}
	}()
	st, err := e.State(qctx, runID, after)
	mu.Lock()
	answered = true
	mu.Unlock()
	cause := context.Cause(qctx)
	cancel(nil)
	<-done
	if err != nil && errors.Is(cause, ErrEndedUnanswered) {
		return st, ErrEndedUnanswered
	}
	return st, err
}
