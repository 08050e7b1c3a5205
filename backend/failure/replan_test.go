package failure

import (
	"encoding/json"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func parse(t *testing.T, body string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"test",` + body + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestReplanMark(t *testing.T) {
	w := parse(t, `"nodes":[],"edges":[]`)
	if _, ok := ReplanInfoOf(w); ok {
		t.Fatal("a plain workflow is not replanned")
	}
	MarkReplanned(w, ReplanInfo{RunID: "r1", FailedNode: "fetch", Auto: true, Replans: 1, AutoReplans: 1, FromVersion: 2})
	// The mark survives saving and loading.
	data, err := workflow.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	w2, _, err := workflow.Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	info, ok := ReplanInfoOf(w2)
	if !ok || info.RunID != "r1" || info.FailedNode != "fetch" || !info.Auto || info.AutoReplans != 1 || info.FromVersion != 2 {
		t.Fatalf("info %+v ok %v", info, ok)
	}
	// A mark that cannot be read still marks.
	w2.Extra[ReplanExtraKey] = json.RawMessage(`"garbage"`)
	if _, ok := ReplanInfoOf(w2); !ok {
		t.Fatal("an unreadable mark must still require approval")
	}
	ClearReplanned(w2)
	if _, ok := ReplanInfoOf(w2); ok || w2.Extra != nil {
		t.Fatalf("cleared: %v", w2.Extra)
	}
}

func TestReplanMarkNil(t *testing.T) {
	if _, ok := ReplanInfoOf(nil); ok {
		t.Fatal("a nil workflow is not replanned")
	}
	ClearReplanned(nil) // must not panic
	w := &workflow.Workflow{}
	ClearReplanned(w)
	if w.Extra != nil {
		t.Fatalf("clearing an unmarked workflow made Extra %v", w.Extra)
	}
	// Other top-level fields survive clearing the mark.
	w.Extra = workflow.Extra{"other": json.RawMessage(`1`)}
	MarkReplanned(w, ReplanInfo{RunID: "r"})
	ClearReplanned(w)
	if _, ok := ReplanInfoOf(w); ok || string(w.Extra["other"]) != "1" || len(w.Extra) != 1 {
		t.Fatalf("extra after clearing: %v", w.Extra)
	}
}
