package planner

import "testing"

func TestJSCondition(t *testing.T) {
	for in, want := range map[string]string{
		"a.x === 1":                   "a.x == 1",
		"a.x !== 'b === c'":           "a.x != 'b === c'",
		"a.body != null && undefined": "a.body != nil && nil",
		"a.nullable == 1":             "a.nullable == 1",
		"a.null":                      "a.null",
		"x == 1":                      "x == 1",
		`"unterminated === `:          `"unterminated === `,
	} {
		if got, _ := jsCondition(in); got != want {
			t.Errorf("jsCondition(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestTemplateCondition: template braces around the references of a
// condition are read as the expression; a literal holding braces, and
// what would not compile, are left alone.
func TestTemplateCondition(t *testing.T) {
	for in, want := range map[string]string{
		"{{check.exit_code}} == 0":              "check.exit_code == 0",
		"{{ a.ok }}":                            "a.ok",
		"{{a.count}} > 3 && {{b.stdout}} != ''": "a.count > 3 && b.stdout != ''",
		`a.stdout contains "{{"`:                `a.stdout contains "{{"`,
		"{{a.count}} >":                         "{{a.count}} >",
		"{{":                                    "{{",
	} {
		if got, _ := templateCondition(in); got != want {
			t.Errorf("templateCondition(%q) = %q, want %q", in, got, want)
		}
	}
	w, ws, err := ParseOutput(`{"steps": [{"id": "check", "step_type": "Tool", "tool_name": "run_command", "arguments": {"command": "true"}},
		{"id": "ok", "step_type": "If", "condition": "{{check.exit_code}} == 0", "then": [{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "y"}}],
		"else": [{"step_type": "Tool", "tool_name": "log", "arguments": {"message": "n"}}]}]}`, ParseOptions{Catalog: testCatalog()})
	if err != nil || w.Nodes[1].Params.Condition != "check.exit_code == 0" || len(WarningsOf(ws, StageMap)) == 0 {
		t.Errorf("%v %q %v", err, w.Nodes[1].Params.Condition, ws)
	}
}
