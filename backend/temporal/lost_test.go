package temporal

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/weft-dev/weft/backend/runner"
)

// An attempt lost with its worker (heartbeat timeout) runs again without
// using the step's retries, at most MaxLostAttempts times; then the step
// fails, not retryable, and escalates saying so.
func TestLostAttemptsDoNotUseRetries(t *testing.T) {
	e, dir := env(t)
	calls := 0
	e.OnActivity("Attempt", mock.Anything, mock.Anything).Return(func(_ context.Context, in AttemptInput) (*runner.StepResult, error) {
		calls++
		return nil, temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_HEARTBEAT, nil)
	})
	var esc *runner.Escalation
	e.RegisterDelayedCallback(func() {
		var st State
		if v, err := e.QueryWorkflow(QueryState, int64(0)); err == nil {
			v.Get(&st)
		}
		esc = st.Escalation
		e.SignalWorkflow(SignalRespond, runner.Response{Action: runner.ActAbort})
	}, time.Hour)
	e.ExecuteWorkflow(Run, input(t, dir, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"true"}},"retry":{"max_attempts":1}}],"edges":[]`))
	res := result(t, e)
	if calls != 1+MaxLostAttempts {
		t.Errorf("the attempt ran %d times, want %d (one, and a re-run per lost worker)", calls, 1+MaxLostAttempts)
	}
	if esc == nil || esc.Attempts != 1 || esc.Reason != "not_retryable" || !strings.Contains(esc.LastError, "lost with its worker 4 times") {
		t.Fatalf("escalation %+v", esc)
	}
	if res.Outcome != runner.OutcomeAborted || res.Summary.Details[0].Attempts != 1 {
		t.Errorf("result %s %+v", res.Outcome, res.Summary.Details)
	}
}
