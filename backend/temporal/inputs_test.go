package temporal

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/runner"
)

const inputsWF = `"inputs":{"type":"object","properties":{"name":{"type":"string"},"times":{"type":"integer","default":2},"key":{"type":"string","format":"password"}},"required":["name"]},
 "nodes":[
 {"id":"a","key":"say","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}} > out.txt"}}},
 {"id":"i","key":"many","type":"If","params":{"condition":"inputs.times > 1"}},
 {"id":"b","key":"more","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf ' x%s' {{inputs.times}} >> out.txt"}}},
 {"id":"c","key":"once","type":"Tool","params":{"tool":"log","arguments":{"message":"once"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"b","output":"IfTrue"},{"from":"i","to":"c","output":"IfFalse"}]`

// The run's inputs reach the step activities and the conditions: the
// workflow code resolves them (defaults) and hands them on; the result
// records them, a password one hidden.
func TestInputsReachStepsAndConditions(t *testing.T) {
	e, dir := env(t)
	in := input(t, dir, inputsWF)
	in.Inputs = map[string]any{"name": "a; touch MARK $(touch MARK2)", "key": "pw-0123456789"}
	e.ExecuteWorkflow(Run, in)
	res := result(t, e)
	if res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("outcome %s: %s", res.Outcome, res.Error)
	}
	if got := read(t, dir, "out.txt"); got != "a; touch MARK $(touch MARK2) x2" {
		t.Fatalf("out.txt = %q", got)
	}
	if read(t, dir, "MARK") != "" || read(t, dir, "MARK2") != "" {
		t.Fatal("an input ran as code")
	}
	if res.Inputs["times"] != 2.0 || res.Inputs["key"] != redact.Placeholder {
		t.Fatalf("result inputs %v", res.Inputs)
	}
}

// Inputs that do not fit refuse the run before any step.
func TestInputsRefused(t *testing.T) {
	e, dir := env(t)
	in := input(t, dir, inputsWF)
	e.ExecuteWorkflow(Run, in)
	if !e.IsWorkflowCompleted() {
		t.Fatal("not completed")
	}
	err := e.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), "input name is required") {
		t.Fatalf("got %v", err)
	}
	if read(t, dir, "out.txt") != "" {
		t.Fatal("a step ran")
	}
}
