package approval

import (
	"reflect"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// Notes and groups are no steps (docs/trust.md): whoever wrote them,
// whatever a note says, they add nothing to review, and adding, editing
// or moving them changes no step's fingerprint or review.
func TestAnnotationsNeedNoApproval(t *testing.T) {
	w := &workflow.Workflow{Name: "wf", Nodes: []workflow.Node{
		*node(t, `{"id":"a","key":"cmd","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"ls"}}}`),
		*node(t, `{"id":"b","key":"hand","type":"Tool","params":{"tool":"write_file","arguments":{"path":"x","content":"y"}}}`),
	}, Edges: []workflow.Edge{{From: "a", To: "b"}}}
	plain := w.Clone()
	w.Notes = []workflow.Note{{ID: "n", Text: "{{cmd.stdout}} $(rm -rf ~) run_command", Size: workflow.Size{Width: 100, Height: 100},
		Extra: workflow.Extra{"provenance": []byte(`{"source":"model"}`)}}}
	w.Groups = []workflow.Group{{ID: "g", Title: "rm -rf /", Size: workflow.Size{Width: 100, Height: 100}, Nodes: []string{"a", "b"},
		Extra: workflow.Extra{"provenance": []byte(`{"source":"model"}`)}}}
	for _, sc := range []Scope{{}, {File: true}, {File: true, Dir: t.TempDir()}} {
		want, got := Required(plain, sc), Required(w, sc)
		if len(want) == 0 || !reflect.DeepEqual(want, got) {
			t.Fatalf("scope %+v: notes and groups changed what is reviewed:\n%+v\n%+v", sc, want, got)
		}
	}
}
