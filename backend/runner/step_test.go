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
	res, err := rn.Step(t.Context(), w, "b", map[string]any{"a": map[string]any{"stdout": "x; touch pwned"}}, Attempt{Number: 1})
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
	res, err = rn.Step(t.Context(), bad, "f", nil, Attempt{Number: 2})
	if err != nil || res.Failure == nil || res.Outputs["exit_code"] != 3 {
		t.Fatalf("failing step: %v %+v", err, res)
	}
	// The attempt's own events; the walk that asked for it emits the
	// failure (with the attempts it allows), on every engine.
	if last := res.Events[len(res.Events)-1]; last.Type != EvAttempt || last.Attempt != 2 || res.Failure.Attempt != 2 {
		t.Errorf("last event %+v", last)
	}
	// Not a step, no such node.
	if _, err := rn.Step(t.Context(), parse(t, ifWF), "i", nil, Attempt{Number: 1}); err == nil || !strings.Contains(err.Error(), "not a step") {
		t.Errorf("If: %v", err)
	}
	if _, err := rn.Step(t.Context(), w, "nope", nil, Attempt{Number: 1}); err == nil {
		t.Error("unknown node ran")
	}
	// The approval gate holds: a model-written command waits for approval.
	m := w.Clone()
	approval.Mark(&m.Nodes[0], approval.Provenance{Source: "model", Via: "plan"})
	var ae *ApprovalError
	if _, err := rn.Step(t.Context(), m, "b", nil, Attempt{Number: 1}); !errors.As(err, &ae) {
		t.Fatalf("unapproved: %v", err)
	}
	e.opts.Approvals = approval.Set{approval.Fingerprint(&m.Nodes[0]): true}
	if _, err := New(e.opts).Step(t.Context(), m, "b", map[string]any{"a": map[string]any{"stdout": "ok"}}, Attempt{Number: 1}); err != nil {
		t.Fatalf("approved: %v", err)
	}
}
