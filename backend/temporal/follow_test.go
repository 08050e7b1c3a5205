package temporal

import (
	"context"
	"errors"
	"strings"
	"testing"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/weft-dev/weft/backend/runner"
)

// fakeService is a Temporal service whose run never answers a query the
// way it is asked (its workflow code never ran), in status, with or
// without a worker on queue.
type fakeService struct {
	client.Client
	status  enumspb.WorkflowExecutionStatus
	queue   string
	pollers bool
	result  error
}

func (f fakeService) QueryWorkflow(context.Context, string, string, string, ...any) (converter.EncodedValue, error) {
	return nil, serviceerror.NewQueryFailed("unknown queryType weft.state. KnownQueryTypes=[__stack_trace __open_sessions]")
}

func (f fakeService) DescribeWorkflowExecution(context.Context, string, string) (*workflowservice.DescribeWorkflowExecutionResponse, error) {
	return &workflowservice.DescribeWorkflowExecutionResponse{
		ExecutionConfig:       &workflowpb.WorkflowExecutionConfig{TaskQueue: &taskqueuepb.TaskQueue{Name: f.queue}},
		WorkflowExecutionInfo: &workflowpb.WorkflowExecutionInfo{Status: f.status},
	}, nil
}

func (f fakeService) DescribeTaskQueue(context.Context, string, enumspb.TaskQueueType) (*workflowservice.DescribeTaskQueueResponse, error) {
	r := &workflowservice.DescribeTaskQueueResponse{}
	if f.pollers {
		r.Pollers = []*taskqueuepb.PollerInfo{{LastAccessTime: timestamppb.Now(), Identity: "w"}}
	}
	return r, nil
}

func (f fakeService) GetWorkflow(context.Context, string, string) client.WorkflowRun {
	return fakeRun{err: f.result}
}

type fakeRun struct {
	client.WorkflowRun
	err error
}

func (r fakeRun) Get(context.Context, any) error { return r.err }

// A run whose workflow code never ran cannot be asked how it goes: the
// follower says why in words (not "unknown queryType"), and reads the end
// of one that has ended from its history.
func TestFollowRunThatNeverStarted(t *testing.T) {
	ctx := context.Background()
	ended := errors.New("workflow execution error: unable to decode the workflow function input payload")
	eng := &Engine{Client: fakeService{status: enumspb.WORKFLOW_EXECUTION_STATUS_FAILED, queue: "weft", pollers: true, result: ended}}
	if _, err := eng.Follow(ctx, "r1", Handler{}); !errors.Is(err, ended) {
		t.Fatalf("ended run: %v", err)
	}
	eng.Client = fakeService{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, queue: "weft", pollers: true}
	_, err := eng.Follow(ctx, "r1", Handler{})
	if err == nil || strings.Contains(err.Error(), "unknown queryType") || !strings.Contains(err.Error(), "never started on a worker") {
		t.Fatalf("running run: %v", err)
	}
}

// A follower that cannot read the run (sealed with a key it lacks, or
// unsealed while it has one) is told so, naming the keys, rather than
// waiting; Respond refuses before sending an answer the worker would drop.
func TestFollowUnreadableRun(t *testing.T) {
	ctx := context.Background()
	k := key(t)
	sealedQ := TaskQueue("weft", k)
	for _, c := range []struct {
		queue string
		own   []byte
		want  []string
	}{
		{sealedQ, nil, []string{KeyID(k), "does not have"}},
		{sealedQ, key(t), []string{KeyID(k), "this process has key"}},
		{"weft", k, []string{"not sealed", KeyID(k)}},
	} {
		eng := &Engine{Client: fakeService{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, queue: c.queue, pollers: true}, Config: Config{Key: c.own}}
		var se *SealError
		_, err := eng.Follow(ctx, "r1", Handler{})
		rerr := eng.Respond(ctx, "r1", runner.Response{Action: runner.ActSkip})
		for _, e := range []error{err, rerr} {
			if !errors.As(e, &se) {
				t.Fatalf("%s, own key %v: %v", c.queue, c.own != nil, e)
			}
			for _, w := range c.want {
				if !strings.Contains(e.Error(), w) {
					t.Errorf("%s: %q lacks %q", c.queue, e, w)
				}
			}
		}
	}
	// Readable: nothing to refuse.
	eng := &Engine{Client: fakeService{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, queue: sealedQ, pollers: true}, Config: Config{Key: k}}
	if sv, err := eng.Serving(ctx, "r1"); err != nil || sv.Unreadable != nil || sv.Missing != "" {
		t.Fatalf("%+v %v", sv, err)
	}
	eng.Client = fakeService{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, queue: sealedQ}
	if sv, _ := eng.Serving(ctx, "r1"); !strings.Contains(sv.Missing, "no worker polls task queue "+sealedQ) || !strings.Contains(sv.Missing, KeyID(k)) || !strings.Contains(sv.Missing, "--task-queue weft)") {
		t.Fatalf("missing: %q", sv.Missing)
	}
}
