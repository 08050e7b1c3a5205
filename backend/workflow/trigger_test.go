package workflow

import (
	"strings"
	"testing"
)

// Triggers round-trip as written, fields a later version adds included,
// and a workflow without them saves none.
func TestTriggersRoundTrip(t *testing.T) {
	src := `{"format":"weft/v1","id":"w","name":"n","triggers":[{"type":"webhook","path":"/hooks/a","secret":"{{secrets.A}}","scheme":"github","inputs":{"x":"{{body.a.b}}"},"later":{"k":1}},{"type":"file","glob":"inbox/*.csv"}],"nodes":[],"edges":[]}`
	for _, data := range []string{src, " " + src} {
		w, _, err := Parse([]byte(data))
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Triggers) != 2 || w.Triggers[0].Scheme != SchemeGitHub || w.Triggers[0].Inputs["x"] != "{{body.a.b}}" || w.Triggers[1].Glob != "inbox/*.csv" {
			t.Fatalf("triggers %+v", w.Triggers)
		}
		out, err := Marshal(w.Clone())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), `"later": {`) && !strings.Contains(string(out), `"later":{`) {
			t.Fatalf("an unknown trigger field was dropped:\n%s", out)
		}
	}
	w, _, _ := Parse([]byte(`{"format":"weft/v1","id":"w","name":"n","nodes":[],"edges":[]}`))
	if out, _ := Marshal(w); strings.Contains(string(out), "triggers") {
		t.Fatalf("a workflow without triggers saved some:\n%s", out)
	}
}
