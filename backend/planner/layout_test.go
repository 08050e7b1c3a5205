package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// positions renders each node's place by key.
func positions(w *workflow.Workflow) map[string]workflow.Position {
	m := map[string]workflow.Position{}
	for _, n := range w.Nodes {
		m[n.Key] = *n.Position
	}
	return m
}

func TestLayoutDeterministic(t *testing.T) {
	for _, file := range corpusFiles(t) {
		text, _ := os.ReadFile(file)
		opts := ParseOptions{Features: Features{true, true}, Catalog: testCatalog()}
		a, _, errA := ParseOutput(string(text), opts)
		b, _, errB := ParseOutput(string(text), opts)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("%s: errors differ", file)
		}
		if errA != nil {
			continue
		}
		pa, pb := positions(a), positions(b)
		if fmt.Sprint(pa) != fmt.Sprint(pb) {
			t.Errorf("%s: positions differ between runs:\n%v\n%v", filepath.Base(file), pa, pb)
		}
		// Laying out again changes nothing.
		Layout(a)
		if fmt.Sprint(positions(a)) != fmt.Sprint(pa) {
			t.Errorf("%s: a second Layout moved nodes", filepath.Base(file))
		}
		checkLayout(t, filepath.Base(file), a)
	}
}

// checkLayout: no two nodes overlap, and every edge except a loop's way
// back (EndLoop → Loop) and cycle-closing ones goes right, or down into a
// later row of a wrapped plan.
func checkLayout(t *testing.T, name string, w *workflow.Workflow) {
	t.Helper()
	byID := map[string]*workflow.Node{}
	type cell struct{ x, y float64 }
	seen := map[cell]string{}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		byID[n.ID] = n
		if n.Position == nil {
			t.Errorf("%s: %s has no position", name, n.Key)
			continue
		}
		for c, other := range seen {
			if c.x == n.Position.X && abs(c.y-n.Position.Y) < LayoutSiblingGap-1 {
				t.Errorf("%s: %s and %s overlap at x=%v", name, n.Key, other, c.x)
			}
		}
		seen[cell{n.Position.X, n.Position.Y}] = n.Key
	}
	for _, e := range w.Edges {
		from, to := byID[e.From], byID[e.To]
		if from == nil || to == nil || from.Type == workflow.TypeEndLoop && to.Type == workflow.TypeLoop {
			continue
		}
		// Right in its row, or down into a later row (wrapRows puts a
		// whole row and wrapRowGap between them).
		down := to.Position.Y >= from.Position.Y+LayoutSiblingGap+wrapRowGap
		if to.Position.X <= from.Position.X && !down && !strings.Contains(name, "cycle") {
			t.Errorf("%s: edge %s → %s goes left", name, from.Key, to.Key)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestLayoutShapes(t *testing.T) {
	t.Run("if branches one above the other, join level with the If", func(t *testing.T) {
		w := wfOf(t, []string{"a:Tool", "c:If", "t:Tool", "f:Tool", "j:Tool"}, "a>c", "c>t:IfTrue", "c>f:IfFalse", "t>j", "f>j")
		Layout(w)
		p := positions(w)
		if !(p["t"].X == p["f"].X && p["t"].Y < p["c"].Y && p["f"].Y > p["c"].Y && p["t"].X > p["c"].X) {
			t.Errorf("branches: %v", p)
		}
		if p["j"].Y != p["c"].Y || p["j"].X <= p["t"].X {
			t.Errorf("join: %v", p)
		}
		checkLayout(t, "if", w)
	})
	t.Run("loop body shifted down, EndLoop level with its Loop, after it to the right", func(t *testing.T) {
		w := wfOf(t, []string{"l:Loop", "b1:Tool", "b2:Tool", "e:EndLoop@l", "z:Tool"},
			"l>b1:LoopBody", "b1>b2", "b2>e", "e>l", "l>z:LoopDone")
		Layout(w)
		p := positions(w)
		if p["b1"].Y <= p["l"].Y || p["b2"].Y != p["b1"].Y || p["b1"].X <= p["l"].X {
			t.Errorf("body not shifted: %v", p)
		}
		if p["e"].Y != p["l"].Y || p["e"].X <= p["b2"].X {
			t.Errorf("EndLoop not level with its Loop after the body: %v", p)
		}
		if p["z"].X <= p["e"].X || p["z"].Y != p["l"].Y {
			t.Errorf("the step after the loop is not right of the EndLoop: %v", p)
		}
	})
	t.Run("switch cases in case order", func(t *testing.T) {
		w := wfOf(t, []string{"s:Switch[a,b,c]", "z:Tool", "y:Tool", "x:Tool", "d:Tool"},
			"s>d:SwitchDefault", "s>x:case=c", "s>y:case=b", "s>z:case=a")
		Layout(w)
		p := positions(w)
		if !(p["z"].Y < p["y"].Y && p["y"].Y < p["x"].Y && p["x"].Y < p["d"].Y) {
			t.Errorf("cases out of order: %v", p)
		}
	})
	t.Run("cycle without a loop terminates", func(t *testing.T) {
		w := wfOf(t, []string{"a:Tool", "b:Tool", "c:Tool"}, "a>b", "b>c", "c>a")
		Layout(w)
		checkLayout(t, "cycle", w)
	})
	t.Run("disconnected nodes and dangling edges", func(t *testing.T) {
		w := wfOf(t, []string{"a:Tool", "b:Tool", "c:Tool"}, "a>b", "a>ghost")
		Layout(w)
		checkLayout(t, "disconnected", w)
	})
	t.Run("empty", func(t *testing.T) {
		Layout(workflow.New("x"))
	})
}

// TestLayoutScales: 20,000 nodes in a chain of loops and branches is fast
// (the layout is O(E + N log N)).
func TestLayoutScales(t *testing.T) {
	const n = 20000
	var nodes, edges []string
	for i := 0; i < n; i += 5 {
		nodes = append(nodes, fmt.Sprintf("c%d:If", i), fmt.Sprintf("t%d:Tool", i), fmt.Sprintf("f%d:Tool", i),
			fmt.Sprintf("l%d:Loop", i), fmt.Sprintf("e%d:EndLoop@l%d", i, i))
		edges = append(edges, fmt.Sprintf("c%d>t%d:IfTrue", i, i), fmt.Sprintf("c%d>f%d:IfFalse", i, i),
			fmt.Sprintf("t%d>l%d", i, i), fmt.Sprintf("f%d>l%d", i, i), fmt.Sprintf("l%d>e%d:LoopBody", i, i), fmt.Sprintf("e%d>l%d", i, i))
		if i > 0 {
			edges = append(edges, fmt.Sprintf("l%d>c%d:LoopDone", i-5, i))
		}
	}
	w := wfOf(t, nodes, edges...)
	start := time.Now()
	Layout(w)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("layout of %d nodes took %v", n, d)
	}
}
