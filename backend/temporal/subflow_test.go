package temporal

import (
	"context"
	"strings"
	"testing"

	wf "github.com/weft-dev/weft/backend/workflow"
)

// A workflow with a sub-workflow is refused at submission and at
// scheduling, saying why, before the server is asked anything (the
// Engine here has no client: reaching it would panic).
func TestSubflowRefusedBeforeSubmission(t *testing.T) {
	w, _, err := wf.Parse([]byte(`{"format":"weft/v1","name":"p","nodes":[{"id":"1","key":"sub","name":"Sub","type":"Workflow","params":{"path":"child.weft.json"}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	var e Engine
	if _, err := e.Submit(context.Background(), w, RunInput{}); err == nil || !strings.Contains(err.Error(), "does not run sub-workflows") {
		t.Errorf("Submit: %v", err)
	}
	if err := e.Schedule(context.Background(), "s", "* * * * *", w, RunInput{}); err == nil || !strings.Contains(err.Error(), "child.weft.json") {
		t.Errorf("Schedule: %v", err)
	}
}
