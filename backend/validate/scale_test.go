package validate

import (
	"fmt"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// TestPathologicalScale runs broken workflows of 50,000 nodes that would
// take minutes if any check were quadratic. The time bound is loose on
// purpose (shared CI machines); the benchmarks track real figures.
func TestPathologicalScale(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	const n = 50_000
	id := func(i int) string { return fmt.Sprintf("n%d", i) }
	chainNodes := func() []workflow.Node {
		nodes := make([]workflow.Node, n)
		for i := range nodes {
			nodes[i] = cmd(id(i), "echo")
		}
		return nodes
	}
	cases := []struct {
		name string
		make func() *workflow.Workflow
		want string
	}{
		{"one big cycle", func() *workflow.Workflow {
			w := wf(chainNodes())
			for i := 0; i < n; i++ {
				w.Edges = append(w.Edges, e(id(i), id((i+1)%n)))
			}
			return w
		}, CodeCycle},
		{"no edges", func() *workflow.Workflow { return wf(chainNodes()) }, CodeMultipleEntries},
		{"every other edge dangles", func() *workflow.Workflow {
			w := wf(chainNodes())
			for i := 0; i+1 < n; i++ {
				to := id(i + 1)
				if i%2 == 1 {
					to = "missing"
				}
				w.Edges = append(w.Edges, e(id(i), to))
			}
			return w
		}, CodeDanglingEdge},
		{"one edge repeated", func() *workflow.Workflow {
			w := wf(chainNodes()[:2])
			for i := 0; i < n; i++ {
				w.Edges = append(w.Edges, e(id(0), id(1)))
			}
			return w
		}, CodeDuplicateEdge},
		{"one node fans out", func() *workflow.Workflow {
			w := wf(chainNodes())
			for i := 1; i < n; i++ {
				w.Edges = append(w.Edges, e(id(0), id(i)))
			}
			return w
		}, CodeMultipleOutgoing},
		{"deeply nested loops", func() *workflow.Workflow {
			const depth = n / 2
			var nodes []workflow.Node
			var edges []workflow.Edge
			for d := 0; d < depth; d++ {
				nodes = append(nodes, loopMax(fmt.Sprintf("l%d", d), "", 2), endl(fmt.Sprintf("l%d_end", d), fmt.Sprintf("l%d", d)))
				edges = append(edges, e(fmt.Sprintf("l%d_end", d), fmt.Sprintf("l%d", d)))
				if d+1 < depth {
					edges = append(edges, eo(fmt.Sprintf("l%d", d), fmt.Sprintf("l%d", d+1), lb), eo(fmt.Sprintf("l%d", d+1), fmt.Sprintf("l%d_end", d), ld))
				} else {
					edges = append(edges, eo(fmt.Sprintf("l%d", d), fmt.Sprintf("l%d_end", d), lb))
				}
			}
			// one jump out of the innermost body, to report something
			nodes = append(nodes, cmd("out", "echo"))
			edges = append(edges, eo(fmt.Sprintf("l%d", 0), "out", ld))
			w := wf(nodes, edges...)
			w.Nodes[len(w.Nodes)-3].Type = workflow.TypeIf // innermost loop → If: unpaired EndLoop
			return w
		}, CodeEndloopBadTarget},
		{"far references into a side branch", func() *workflow.Workflow {
			// A chain of If diamonds; every merge reads the first diamond's
			// IfFalse branch, which the depth-first tree does not cover.
			var nodes []workflow.Node
			var edges []workflow.Edge
			prev := "start"
			nodes = append(nodes, cmd("start", "echo"))
			for b := 0; len(nodes) < n; b++ {
				c, y, no, m := fmt.Sprintf("c%d", b), fmt.Sprintf("y%d", b), fmt.Sprintf("no%d", b), fmt.Sprintf("m%d", b)
				nodes = append(nodes, ifn(c, prev+".exit_code == 0"), cmd(y, "echo"), cmd(no, "echo"), cmd(m, "echo {{no0.stdout}} {{nobody.x}}"))
				edges = append(edges, e(prev, c), eo(c, y, ifT), eo(c, no, ifF), e(y, m), e(no, m))
				prev = m
			}
			return wf(nodes, edges...)
		}, CodeUnknownVariable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := c.make()
			start := time.Now()
			r := Validate(w, catalog)
			took := time.Since(start)
			if !hasCode(r, c.want) {
				t.Errorf("%s not reported; got %v", c.want, codes(r)[:min(5, len(r.Problems))])
			}
			t.Logf("%d nodes, %d edges, %d problems in %v", len(w.Nodes), len(w.Edges), len(r.Problems), took)
			if took > 20*time.Second {
				t.Errorf("took %v", took)
			}
		})
	}
}
