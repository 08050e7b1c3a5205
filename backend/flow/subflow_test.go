package flow

import (
	"slices"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// A Workflow node is a step: its attempt is the engine's (a run of its
// file), its failure is recovered as a step's, and the person is offered
// retry, skip or abort but no fix (a sub-workflow is fixed in its file).
func TestSubflowNodeIsAStep(t *testing.T) {
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"w","nodes":[
 {"id":"s","key":"sub","type":"Workflow","params":{"path":"child.weft.json"}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(w, Config{CanAsk: true})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(0, 0)
	c := m.Start(now)
	if c.Kind != KindAttempt || c.Node.Key != "sub" {
		t.Fatalf("first command %s, want the Workflow step's attempt", c.Kind)
	}
	c = m.Next(Input{Now: now, Failure: &failure.Record{Attempt: 1, Error: "the sub-workflow ended failed", FailureType: failure.FailExecution}})
	if c.Kind != KindAsk {
		t.Fatalf("after the failure: %s, want ask", c.Kind)
	}
	if want := []Action{ActRetry, ActSkip, ActAbort}; !slices.Equal(c.Escalation.Choices, want) {
		t.Errorf("choices %v, want %v", c.Escalation.Choices, want)
	}
	c = m.Next(Input{Now: now, Response: Response{Action: ActFix, Instruction: "try harder"}})
	if c.Kind != KindAsk || c.Escalation.Notice == "" {
		t.Errorf("a fix was taken: %s", c.Kind)
	}
}
