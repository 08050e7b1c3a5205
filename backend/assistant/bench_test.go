package assistant

import (
	"fmt"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// bigChain is a valid linear workflow of n log steps, each quoting the
// previous step's output.
func bigChain(n int) *workflow.Workflow {
	w := workflow.New("big")
	w.Nodes = make([]workflow.Node, n)
	w.Edges = make([]workflow.Edge, 0, n-1)
	for i := range w.Nodes {
		w.Nodes[i] = workflow.Node{ID: fmt.Sprintf("n%05d", i), Key: fmt.Sprintf("step_%d", i), Name: fmt.Sprintf("Step %d", i),
			Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hello"}},
			Position: &workflow.Position{Y: float64(i) * 130}}
		if i > 0 {
			w.Edges = append(w.Edges, workflow.Edge{From: w.Nodes[i-1].ID, To: w.Nodes[i].ID})
		}
	}
	return w
}

// twentyNodePatch inserts 16 steps between steps 5000 and 5001, updates two
// and removes two from the middle of the chain (reconnecting around them).
func twentyNodePatch() *WorkflowPatch {
	p := &WorkflowPatch{RemovedEdges: []workflow.Edge{{From: "n05000", To: "n05001"}}}
	prev := "n05000"
	for i := 0; i < 16; i++ {
		id := fmt.Sprintf("new%02d", i)
		p.AddedNodes = append(p.AddedNodes, workflow.Node{ID: id, Key: fmt.Sprintf("added_%d", i), Name: "Added",
			Type: workflow.TypeTool, Params: workflow.Params{Tool: "wait", Arguments: map[string]any{"ms": 10}}})
		p.AddedEdges = append(p.AddedEdges, workflow.Edge{From: prev, To: id})
		prev = id
	}
	p.AddedEdges = append(p.AddedEdges, workflow.Edge{From: prev, To: "n05001"})
	p.UpdatedNodes = []workflow.Node{
		{ID: "n00010", Name: "Renamed", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "x"}}},
		{Key: "step_9000", Name: "Renamed too", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "y"}}},
	}
	p.RemovedNodeIDs = []string{"n07000", "step_7001"}
	p.AddedEdges = append(p.AddedEdges, workflow.Edge{From: "n06999", To: "n07002"})
	return p
}

func TestTwentyNodePatchOnBigWorkflowIsValid(t *testing.T) {
	if testing.Short() {
		t.Skip("10k nodes")
	}
	w := bigChain(10_000)
	m, ws := MergePatchIntoWorkflow(w, twentyNodePatch())
	if len(ws) != 0 {
		t.Fatalf("warnings: %v", ws)
	}
	if res := validate.Validate(m, tools.Builtin()); !res.Valid {
		t.Fatalf("invalid: %+v", res.Errors())
	}
	if len(m.Nodes) != 10_000+16-2 || len(w.Nodes) != 10_000 {
		t.Fatalf("nodes: merged %d, input %d", len(m.Nodes), len(w.Nodes))
	}
}

// BenchmarkMergeValidate is the cost of one preview of an assistant patch:
// merge a 20-node patch into a 10k-node workflow and validate the result.
func BenchmarkMergeValidate(b *testing.B) {
	w := bigChain(10_000)
	p := twentyNodePatch()
	cat := tools.Builtin()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		m, _ := MergePatchIntoWorkflow(w, p)
		if !validate.Validate(m, cat).Valid {
			b.Fatal("invalid")
		}
	}
	reportCPU(b, start)
}

// reportCPU adds CPU time per operation, which stays meaningful on a
// machine busy with other work (wall-clock ns/op does not).
func reportCPU(b *testing.B, start time.Duration) {
	if end := cpuTime(); end > 0 && b.N > 0 {
		b.ReportMetric(float64(end-start)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

// BenchmarkMerge is the merge alone.
func BenchmarkMerge(b *testing.B) {
	w := bigChain(10_000)
	p := twentyNodePatch()
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		MergePatchIntoWorkflow(w, p)
	}
	reportCPU(b, start)
}
