package devserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Sub-workflows through the same service call on both engines: the local
// engine runs the parent and its child (the child's output reaches the
// parent's step), the Temporal engine refuses the workflow at submission,
// saying why, and starts nothing. (Temporal does not run sub-workflows
// yet: docs/file-format.md#sub-workflows.)
func TestEngineContractSubflow(t *testing.T) {
	_, st, _ := temporalSetup(t, "weft-contract-subflow")
	st.Run.DefaultRetries = 0
	svc := newService(&st)
	shared := filepath.Join(t.TempDir(), "shared")
	trustTestFolders(t, shared)
	if err := os.MkdirAll(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	child := filepath.Join(shared, "child.weft.json")
	if err := os.WriteFile(child, []byte(`{"format":"weft/v1","id":"child","name":"child",
 "inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
 "nodes":[{"id":"e","key":"echo","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}}"}}}],"edges":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tc := contractCase{name: "subflow", doc: `{"format":"weft/v1","id":"parent","name":"parent","nodes":[
 {"id":"s","key":"sub","type":"Workflow","params":{"path":"` + child + `","inputs":{"name":"a; touch MARK"}}},
 {"id":"l","key":"said","type":"Tool","params":{"tool":"log","arguments":{"message":"{{sub.outputs.echo.stdout}}"}}}],
 "edges":[{"from":"s","to":"l"}]}`}
	local := runOnEngine(t, svc, "local", tc)
	if local.err != "" || !strings.Contains(local.finished, `"Outcome":"succeeded"`) || !strings.Contains(local.outputs, "a; touch MARK") {
		t.Fatalf("local: %s %s %s", local.err, local.finished, local.outputs)
	}
	var linked bool
	for _, e := range local.events {
		linked = linked || strings.Contains(e, `"sub_run"`)
	}
	if !linked {
		t.Errorf("no local event links the child's run: %v", local.events)
	}
	if _, err := os.Stat(filepath.Join(shared, "MARK")); err == nil {
		t.Error("an input ran as code")
	}
	remote := runOnEngine(t, svc, "temporal", tc)
	if !strings.Contains(remote.err, "does not run sub-workflows") || len(remote.events) != 0 {
		t.Fatalf("temporal: refused %q, events %v", remote.err, remote.events)
	}
}
