package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestPinned(t *testing.T) {
	nodes := ns(cmd("a", "echo a"), ifn("ok", "a.exit_code == 0"), logn("yes", "{{a.stdout}}"), logn("no", "no"))
	edges := []workflow.Edge{e("a", "ok"), eo("ok", "yes", ifT), eo("ok", "no", ifF)}
	full := map[string]any{"stdout": "hi", "stderr": "", "exit_code": 0.0}
	cases := []struct {
		name   string
		pinned map[string]any
		code   string // "" for no problem at all
		sev    Severity
		want   string
	}{
		{"a whole pin", map[string]any{"a": full}, "", "", ""},
		{"with the common fields", map[string]any{"a": map[string]any{"stdout": "hi", "stderr": "", "exit_code": 1.0, "success": true}}, "", "", ""},
		{"not an object", map[string]any{"a": "hi"}, CodePinnedInvalid, SeverityError, "must be a JSON object"},
		{"an array", map[string]any{"a": []any{1.0}}, CodePinnedInvalid, SeverityError, "must be a JSON object"},
		{"on an If", map[string]any{"ok": map[string]any{}}, CodePinnedInvalid, SeverityError, "only steps"},
		{"a deleted node", map[string]any{"gone": full}, CodePinnedOrphan, SeverityWarning, "'gone'"},
		{"an unknown field", map[string]any{"a": map[string]any{"stdout": "hi", "stderr": "", "exit_code": 0.0, "stdot": 1.0}}, CodePinnedFields, SeverityWarning, "'stdot'"},
		{"a missing field", map[string]any{"a": map[string]any{"stdout": "hi"}}, CodePinnedFields, SeverityWarning, "lacks 'exit_code' and 'stderr'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := wf(nodes, edges...)
			w.Pinned = c.pinned
			r := Validate(w, catalog)
			if c.code == "" {
				if len(r.Problems) != 0 {
					t.Fatalf("want no problems, got %v", r.Problems)
				}
				return
			}
			var found *Problem
			for i := range r.Problems {
				if r.Problems[i].Code == c.code {
					found = &r.Problems[i]
				}
			}
			if found == nil {
				t.Fatalf("%s not reported; got %v", c.code, r.Problems)
			}
			if found.Severity != c.sev || !strings.Contains(found.Message, c.want) {
				t.Errorf("got %s %q; want %s containing %q", found.Severity, found.Message, c.sev, c.want)
			}
			if r.Valid != (c.sev != SeverityError) {
				t.Errorf("valid = %v with a %s", r.Valid, c.sev)
			}
		})
	}
}
