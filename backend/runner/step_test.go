package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
)

func TestStep(t *testing.T) {
	e := newEnv(t)
	w := parse(t, chainWF)
	rn := New(e.opts)
	// The template reads the outputs given, inserted as quoted data.
	res, err := rn.Step(t.Context(), w, "b", map[string]any{"a": map[string]any{"stdout": "x; touch pwned"}}, 1)
	if err != nil || res.Failure != nil {
		t.Fatal(err, res)
	}
	if got := e.rec.logs(); len(got) != 1 || got[0] != "a said x; touch pwned" {
		t.Fatalf("logs %q", got)
	}
	if res.Events[0].Type != EvAttempt || res.Events[0].Attempt != 1 {
		t.Errorf("events %+v", res.Events)
	}
	// A failing attempt returns its failure record, not an error.
	bad := parse(t, `"nodes":[{"id":"f","key":"f","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 3"}}}],"edges":[]`)
	res, err = rn.Step(t.Context(), bad, "f", nil, 2)
	if err != nil || res.Failure == nil || res.Outputs["exit_code"] != 3 {
		t.Fatalf("failing step: %v %+v", err, res)
	}
	if last := res.Events[len(res.Events)-1]; last.Type != EvFailure || last.Attempt != 2 {
		t.Errorf("last event %+v", last)
	}
	// Not a step, no such node.
	if _, err := rn.Step(t.Context(), parse(t, ifWF), "i", nil, 1); err == nil || !strings.Contains(err.Error(), "not a step") {
		t.Errorf("If: %v", err)
	}
	if _, err := rn.Step(t.Context(), w, "nope", nil, 1); err == nil {
		t.Error("unknown node ran")
	}
	// The approval gate holds: a model-written command waits for approval.
	m := w.Clone()
	approval.Mark(&m.Nodes[0], approval.Provenance{Source: "model", Via: "plan"})
	var ae *ApprovalError
	if _, err := rn.Step(t.Context(), m, "b", nil, 1); !errors.As(err, &ae) {
		t.Fatalf("unapproved: %v", err)
	}
	e.opts.Approvals = approval.Set{approval.Fingerprint(&m.Nodes[0]): true}
	if _, err := New(e.opts).Step(t.Context(), m, "b", map[string]any{"a": map[string]any{"stdout": "ok"}}, 1); err != nil {
		t.Fatalf("approved: %v", err)
	}
}
