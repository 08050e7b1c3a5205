package trigger

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// A delivery's values: top-level members by input name (others ignored),
// or the mapping's paths; a missing path is left out (Resolve says
// whether that is allowed); text that looks like a template stays text.
func TestFill(t *testing.T) {
	s, probs := inputs.Parse(json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string"},"n":{"type":"integer"}}}`))
	if len(probs) > 0 {
		t.Fatal(probs)
	}
	body := []byte(`{"repo":"{{secrets.X}}","n":3,"other":true,"data":{"object":{"id":"o1"}}}`)
	hook := workflow.Trigger{Type: workflow.TriggerWebhook}
	got, err := Fill(&hook, s, body, "")
	if want := map[string]any{"repo": "{{secrets.X}}", "n": float64(3)}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("by name: %v %v", got, err)
	}
	hook.Inputs = map[string]string{"repo": "{{ body.data.object.id }}", "n": "{{body.data.missing}}"}
	got, err = Fill(&hook, s, body, "")
	if want := map[string]any{"repo": "o1"}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("mapped: %v %v", got, err)
	}
	for _, bad := range []string{``, `[1]`, `"x"`, `{"a":1} {"b":2}`, `{`} {
		if _, err := Fill(&hook, s, []byte(bad), ""); !errors.Is(err, ErrBadBody) {
			t.Errorf("%q: %v", bad, err)
		}
	}
	file := workflow.Trigger{Type: workflow.TriggerFile}
	if got, _ := Fill(&file, s, nil, "inbox/a.csv"); !reflect.DeepEqual(got, map[string]any{"path": "inbox/a.csv"}) {
		t.Fatalf("file: %v", got)
	}
	file.Inputs = map[string]string{"repo": "{{file.path}}"}
	if got, _ := Fill(&file, s, nil, "inbox/a.csv"); !reflect.DeepEqual(got, map[string]any{"repo": "inbox/a.csv"}) {
		t.Fatalf("file mapped: %v", got)
	}
}
