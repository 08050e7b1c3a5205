package assistant

import (
	"fmt"
	"math"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// laidChain is n log steps s0 → s1 → …, laid out along dx, dy.
func laidChain(n int, dx, dy float64) *workflow.Workflow {
	w := workflow.New("chain")
	for i := range n {
		k := fmt.Sprintf("s%d", i)
		w.Nodes = append(w.Nodes, workflow.Node{ID: "id_" + k, Key: k, Name: k, Type: workflow.TypeTool,
			Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": k}}, Position: &workflow.Position{X: float64(i) * dx, Y: float64(i) * dy}})
		if i > 0 {
			w.Edges = append(w.Edges, edge(fmt.Sprintf("id_s%d", i-1), "id_"+k, ""))
		}
	}
	return w
}

// A node a patch inserts between two steps, or appends, never lands on a
// node that is there (placed relative to the step before, an inserted step
// landed exactly on the step after it). Tried for chains laid out left to
// right, top to bottom and diagonally, at every insertion point, in both
// patch forms.
func TestPlacedNodesDoNotOverlap(t *testing.T) {
	layouts := [][2]float64{{300, 0}, {0, 130}, {260, 0}, {300, 60}, {250, 120}}
	for _, l := range layouts {
		for n := 1; n <= 5; n++ {
			for at := range n {
				w := laidChain(n, l[0], l[1])
				forms := map[string]string{
					"flat": fmt.Sprintf(`{"after": "s%d", "add": [{"id": "new", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}}, {"id": "new2", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "y"}}]}`, at),
				}
				if at+1 < n {
					forms["graph"] = fmt.Sprintf(`{"add_nodes": [{"id": "new", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "x"}}],
						"add_edges": [{"from": "s%d", "to": "new"}, {"from": "new", "to": "s%d"}], "remove_edges": [{"from": "s%d", "to": "s%d"}]}`, at, at+1, at, at+1)
				}
				for form, js := range forms {
					p, _, ws, err := buildPatch(js, w, patchOptions{})
					if err != nil || len(p.AddedNodes) == 0 {
						t.Fatalf("%v n=%d at=%d %s: %v %v", l, n, at, form, err, ws)
					}
					all := []workflow.Node{}
					all = append(all, w.Nodes...)
					all = append(all, p.AddedNodes...)
					for i, a := range p.AddedNodes {
						if a.Position == nil {
							t.Fatalf("%v n=%d at=%d %s: %s has no position", l, n, at, form, a.ID)
						}
						for _, o := range all[:len(w.Nodes)+i] {
							if math.Abs(o.Position.X-a.Position.X) < 220 && math.Abs(o.Position.Y-a.Position.Y) < 110 {
								t.Errorf("%v n=%d at=%d %s: %s at %+v overlaps %s at %+v", l, n, at, form, a.ID, *a.Position, o.ID, *o.Position)
							}
						}
					}
				}
			}
		}
	}
}
