package temporal

import (
	"io"
	"log/slog"
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// Histories recorded on a real server (temporal/devserver with
// WEFT_RECORD_HISTORY=1) replay on today's interpreter: a change of the
// worker's code that would break runs in flight fails here.
func TestReplayRecordedHistories(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "history-*.json"))
	if len(files) == 0 {
		t.Fatal("no recorded histories in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			rp := worker.NewWorkflowReplayer()
			rp.RegisterWorkflowWithOptions(Run, workflow.RegisterOptions{Name: WorkflowType})
			rp.RegisterWorkflowWithOptions(RunV1, workflow.RegisterOptions{Name: WorkflowTypeV1})
			if err := rp.ReplayWorkflowHistoryFromJSONFile(log.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), f); err != nil {
				t.Fatal(err)
			}
		})
	}
}
