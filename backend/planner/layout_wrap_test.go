package planner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// planGen builds plans as wfOf specs: chains, If and Switch blocks, loops,
// nested in one another.
type planGen struct {
	r            *rand.Rand
	nodes, edges []string
	next         int
	smallLoops   bool // loop bodies of 1 to 3 nodes
}

// out is where a block's exit leads on: its key and the edge's label.
type out struct{ key, label string }

func (g *planGen) node(typ string) string {
	g.next++
	k := fmt.Sprintf("n%d", g.next)
	g.nodes = append(g.nodes, k+":"+typ)
	return k
}

func (g *planGen) edge(from out, to string) {
	s := from.key + ">" + to
	if from.label != "" {
		s += ":" + from.label
	}
	g.edges = append(g.edges, s)
}

// block adds a block of about size nodes entered from in and returns its exit.
func (g *planGen) block(in out, size, depth int) out {
	if size < 4 || depth > 3 {
		for range max(size, 1) {
			k := g.node("Tool")
			g.edge(in, k)
			in = out{key: k}
		}
		return in
	}
	switch g.r.IntN(4) {
	case 0: // If, both branches, a join
		c := g.node("If")
		g.edge(in, c)
		j := g.node("Tool")
		inner := (size - 2) / 2
		g.edge(g.block(out{c, "IfTrue"}, inner, depth+1), j)
		g.edge(g.block(out{c, "IfFalse"}, g.r.IntN(inner+1), depth+1), j)
		return out{key: j}
	case 1: // Switch of three cases and a default
		s := g.node("Switch[a,b,c]")
		g.edge(in, s)
		j := g.node("Tool")
		inner := (size - 2) / 4
		for _, l := range []string{"case=a", "case=b", "case=c", "SwitchDefault"} {
			g.edge(g.block(out{s, l}, 1+g.r.IntN(inner+1), depth+1), j)
		}
		return out{key: j}
	case 2: // a loop and its body, then the rest
		l := g.node("Loop")
		g.edge(in, l)
		e := g.node("EndLoop@" + l)
		body := size - 2
		if g.smallLoops {
			body = min(body, 1+g.r.IntN(3))
		}
		g.edge(g.block(out{l, "LoopBody"}, body, depth+1), e)
		g.edge(out{key: e}, l)
		if rest := size - 2 - body; rest > 0 {
			return g.block(out{l, "LoopDone"}, rest, depth+1)
		}
		return out{l, "LoopDone"}
	}
	// a sequence of smaller blocks
	a := g.r.IntN(size-1) + 1
	return g.block(g.block(in, a, depth+1), size-a, depth+1)
}

func genPlan(t testing.TB, seed uint64, size int, chain bool) *workflow.Workflow {
	g := &planGen{r: rand.New(rand.NewPCG(seed, 26)), smallLoops: seed%2 == 0}
	first := out{key: g.node("Tool")}
	if chain {
		g.block(first, size-1, 99)
	} else {
		g.block(first, size-1, 0)
	}
	return wfOf(t, g.nodes, g.edges...)
}

// extent is a laid-out plan's width and height in canvas units (each node
// taking a layer's width and a sibling's height).
func extent(w *workflow.Workflow) (float64, float64) {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, n := range w.Nodes {
		x0, x1 = min(x0, n.Position.X), max(x1, n.Position.X)
		y0, y1 = min(y0, n.Position.Y), max(y1, n.Position.Y)
	}
	return x1 - x0 + LayoutLayerGap, y1 - y0 + LayoutSiblingGap
}

// TestLayoutWrapClass: chains of 1 to 300 steps and generated plans of
// branches, switches, loops and their nesting never overlap, keep every
// edge going right or down into a later row, keep a loop's body in one row
// with its Loop, and, once longer than a row, come out near a canvas's
// shape instead of one long row.
func TestLayoutWrapClass(t *testing.T) {
	var plans []*workflow.Workflow
	for n := 1; n <= 300; n++ {
		plans = append(plans, genPlan(t, uint64(n), n, true))
	}
	for seed := uint64(0); seed < 300; seed++ {
		plans = append(plans, genPlan(t, seed, 5+int(seed), false))
	}
	for _, w := range plans {
		name := fmt.Sprintf("%d nodes %d edges", len(w.Nodes), len(w.Edges))
		layout(w, false)
		ow, oh := extent(w)
		before := map[string]workflow.Position{}
		for _, n := range w.Nodes {
			before[n.ID] = *n.Position
		}
		Layout(w)
		checkLayout(t, name, w)
		checkLoopsWhole(t, name, w, before)
		width, height := extent(w)
		if ow <= wrapMinRow*LayoutLayerGap {
			if width != ow || height != oh {
				t.Errorf("%s: a plan of one short row was wrapped: %vx%v, was %vx%v", name, width, height, ow, oh)
			}
			continue
		}
		// Wide plans: wrapped toward 16:10 (rows come in whole layers, so a
		// few layers off; a plan taller than wide stays as it was).
		if a := width / height; a > 5 || a < 0.75 && height < oh {
			t.Errorf("%s: aspect %.2f (%vx%v; unwrapped %vx%v)", name, a, width, height, ow, oh)
		}
	}
}

// checkLoopsWhole: when no loop spans more layers than a row always may
// hold, each loop (its Loop, body and EndLoop) is in one row: its EndLoop
// as many columns right of its Loop as before wrapping. before holds the
// unwrapped places.
func checkLoopsWhole(t *testing.T, name string, w *workflow.Workflow, before map[string]workflow.Position) {
	t.Helper()
	pos := map[string]workflow.Position{}
	for _, n := range w.Nodes {
		pos[n.ID] = *n.Position
	}
	var loops []*workflow.Node
	for i, n := range w.Nodes {
		if n.Type == workflow.TypeEndLoop {
			if before[n.ID].X-before[n.Params.LoopID].X >= wrapMinRow*LayoutLayerGap {
				return
			}
			loops = append(loops, &w.Nodes[i])
		}
	}
	for _, n := range loops {
		l := n.Params.LoopID
		if pos[n.ID].X-pos[l].X != before[n.ID].X-before[l].X {
			t.Errorf("%s: loop %s is cut across rows (Loop at %v, EndLoop at %v)", name, l, pos[l], pos[n.ID])
		}
	}
}

func BenchmarkLayout(b *testing.B) {
	blocks, _, err := ParseOutput(BenchSyntheticPlan(200), benchOptions)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		w    *workflow.Workflow
	}{
		{"chain=50", genPlan(b, 1, 50, true)},
		{"chain=300", genPlan(b, 1, 300, true)},
		{"blocks=200", blocks},
		{"nested=300", genPlan(b, 7, 300, false)},
	} {
		for _, wrap := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/wrap=%v", c.name, wrap), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					layout(c.w, wrap)
				}
			})
		}
	}
}
