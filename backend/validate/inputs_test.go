package validate

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

const testInputs = `{"type":"object","properties":{"name":{"type":"string"},"cfg":{"type":"object"},"n":{"type":"integer","default":1}},"required":["name"]}`

// Every place a step reads inputs is checked against the schema: a
// declared input (and a field of an object input) passes, an undeclared
// one, a field of a scalar, or any input without a schema is
// unknown_input; an unusable schema is bad_inputs_schema.
func TestInputReferences(t *testing.T) {
	withIf := func(cond string) ([]workflow.Node, []workflow.Edge) {
		return ns(cmd("check", "true"), ifn("gate", cond), logn("yes", "y"), logn("no", "n")),
			[]workflow.Edge{e("check", "gate"), eo("gate", "yes", ifT), eo("gate", "no", ifF)}
	}
	cases := []struct {
		name, schema string
		nodes        []workflow.Node
		edges        []workflow.Edge
		code, msg    string
	}{
		{name: "command", schema: testInputs, nodes: ns(cmd("a", "echo {{inputs.name}} {{ inputs.n }}"))},
		{name: "nested object", schema: testInputs, nodes: ns(cmd("a", "echo {{inputs.cfg.depth.x}}"))},
		{name: "whole inputs", schema: testInputs, nodes: ns(logn("a", "{{inputs}}"))},
		{name: "unknown in command", schema: testInputs, nodes: ns(cmd("a", "echo {{inputs.nmae}}")), code: CodeUnknownInput, msg: "reads inputs.nmae, but the workflow declares no input 'nmae' (its inputs: name, cfg, n)"},
		{name: "raw unknown", schema: testInputs, nodes: ns(cmd("a", "echo {{raw inputs.x}}")), code: CodeUnknownInput, msg: "inputs.x"},
		{name: "field of a string", schema: testInputs, nodes: ns(cmd("a", "echo {{inputs.name.first}}")), code: CodeUnknownInput, msg: "the input name is a string, which has no field 'first'"},
		{name: "no schema", nodes: ns(cmd("a", "echo {{inputs.name}}")), code: CodeUnknownInput, msg: "declares no inputs"},
		{name: "in a log message", schema: testInputs, nodes: ns(logn("a", "hi {{inputs.who}}")), code: CodeUnknownInput, msg: "inputs.who"},
		{name: "in a prompt", schema: testInputs, nodes: ns(node("a", workflow.TypeAiStep, workflow.Params{Prompt: "Greet {{inputs.who}}"})), code: CodeUnknownInput, msg: "inputs.who"},
		{name: "in a condition", schema: testInputs, code: CodeUnknownInput, msg: "inputs.who"},
		{name: "condition ok", schema: testInputs},
		{name: "quoted text is no reference", schema: testInputs, nodes: ns(logn("a", "see 'inputs.who' and my_inputs.who"))},
		{name: "bad schema", schema: `{"type":"object","properties":{"a-b":{"type":"string"}}}`, nodes: ns(logn("a", "x")), code: CodeBadInputs, msg: "cannot be read as {{inputs.NAME}}"},
		{name: "schema not an object", schema: `[]`, nodes: ns(logn("a", "x")), code: CodeBadInputs, msg: "JSON Schema object"},
		{name: "bad default", schema: `{"type":"object","properties":{"a":{"type":"integer","default":"x"}}}`, nodes: ns(logn("a", "x")), code: CodeBadInputs, msg: "input a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nodes, edges := c.nodes, c.edges
			if nodes == nil {
				cond := "inputs.name == 'x' && inputs.n > 1"
				if c.code != "" {
					cond = "inputs.who == 'x'"
				}
				nodes, edges = withIf(cond)
			}
			w := wf(nodes, edges...)
			if c.schema != "" {
				w.Inputs = json.RawMessage(c.schema)
			}
			r := Validate(w, catalog)
			if c.code == "" {
				if len(r.Problems) != 0 {
					t.Fatalf("want no problems, got %v", r.Problems)
				}
				return
			}
			found := false
			for _, p := range r.Problems {
				if p.Code == c.code && strings.Contains(p.Message, c.msg) && p.Severity == SeverityError {
					found = true
				}
			}
			if !found || r.Valid {
				t.Fatalf("want an error %s with %q, got %v", c.code, c.msg, r.Problems)
			}
		})
	}
}

// {{raw inputs.X}} inserts what whoever starts the run wrote, as code.
func TestRawInputWarns(t *testing.T) {
	w := wf(ns(cmd("a", "echo {{raw inputs.name}}")))
	w.Inputs = json.RawMessage(testInputs)
	r := Validate(w, catalog)
	if !hasCode(r, CodeRawExternalValue) || !r.Valid {
		t.Fatalf("got %v", r.Problems)
	}
}

// An input in a place no value can go safely is said before the run.
func TestInputUnsafePlaceholder(t *testing.T) {
	w := wf(ns(cmd("a", "echo hi # {{inputs.name}}")))
	w.Inputs = json.RawMessage(testInputs)
	if r := Validate(w, catalog); !hasCode(r, CodeUnsafePlaceholder) {
		t.Fatalf("got %v", r.Problems)
	}
}
