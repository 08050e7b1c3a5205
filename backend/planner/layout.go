package planner

import (
	"math"
	"sort"

	"github.com/weft-dev/weft/backend/workflow"
)

// Layout geometry, in canvas units. Layers run left to right, as edges
// leave a node on its right and enter on its left (top to bottom, edges
// looped back behind the nodes).
const (
	LayoutLayerGap   = 300.0 // between layers, left to right
	LayoutSiblingGap = 130.0 // between nodes of a layer, top to bottom
)

// The placement within a layer is computed on a cross axis in these units
// and scaled to LayoutSiblingGap at the end.
const (
	crossGap    = 280.0 // between nodes of a layer
	crossIndent = 90.0  // a loop body's shift from its Loop
)

// Layout places every node, left to right: a node's layer is its longest
// path from the entry, ignoring back-edges (EndLoop → Loop and any other
// edge that closes a cycle), and the step after a loop sits right of its
// EndLoop. Within a layer a node goes beside its predecessors: If branches
// one above the other (IfTrue above), Switch cases spread in case order, a
// loop body shifted below its Loop with the EndLoop back level with the
// Loop. Overlaps are pushed apart symmetrically. The result depends only on
// the nodes and edges, in their order; it takes O(E + N log N).
//
// A plan longer than a desktop canvas is wide is then wrapped into rows
// (wrapRows), so that fitted to the window its nodes stay readable.
func Layout(w *workflow.Workflow) { layout(w, true) }

// layout is Layout; wrap false leaves every layer in one row.
func layout(w *workflow.Workflow, wrap bool) {
	n := len(w.Nodes)
	if n == 0 {
		return
	}
	idx := make(map[string]int, n)
	for i := range w.Nodes {
		idx[w.Nodes[i].ID] = i
	}

	type fedge struct {
		from, to int
		dx       float64 // horizontal offset of the target from the source
		real     bool    // false for ordering-only edges
	}
	var edges []fedge
	endOf := make(map[int]int) // Loop → EndLoop
	loopOf := make([]int, n)   // EndLoop → Loop, -1
	for i := range loopOf {
		loopOf[i] = -1
	}
	for i := range w.Nodes {
		if w.Nodes[i].Type == workflow.TypeEndLoop {
			if l, ok := idx[w.Nodes[i].Params.LoopID]; ok && w.Nodes[l].Type == workflow.TypeLoop {
				loopOf[i] = l
				if _, ok := endOf[l]; !ok {
					endOf[l] = i
				}
			}
		}
	}
	for _, e := range w.Edges {
		a, ok1 := idx[e.From]
		b, ok2 := idx[e.To]
		if !ok1 || !ok2 || a == b {
			continue
		}
		if w.Nodes[a].Type == workflow.TypeEndLoop && w.Nodes[b].Type == workflow.TypeLoop {
			if loopOf[a] < 0 {
				loopOf[a] = b
				if _, ok := endOf[b]; !ok {
					endOf[b] = a
				}
			}
			continue // the back-edge of a loop
		}
		edges = append(edges, fedge{from: a, to: b, dx: branchOffset(&w.Nodes[a], e.Output), real: true})
	}
	// What follows a loop goes below its EndLoop.
	for _, e := range w.Edges {
		if e.Output == nil || e.Output.Type != workflow.OutLoopDone {
			continue
		}
		l, ok1 := idx[e.From]
		t, ok2 := idx[e.To]
		if !ok1 || !ok2 {
			continue
		}
		if end, ok := endOf[l]; ok && end != t {
			edges = append(edges, fedge{from: end, to: t})
		}
	}

	out := make([][]int, n)
	indeg := make([]int, n)
	for k, e := range edges {
		out[e.from] = append(out[e.from], k)
		indeg[e.to]++
	}

	// Drop the edges that close cycles: iterative DFS from the entries,
	// then from whatever is left, in node order.
	back := make([]bool, len(edges))
	color := make([]uint8, n) // 0 new, 1 on the stack, 2 done
	type frame struct{ node, next int }
	var stack []frame
	dfs := func(root int) {
		color[root] = 1
		stack = append(stack[:0], frame{node: root})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next >= len(out[top.node]) {
				color[top.node] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			k := out[top.node][top.next]
			top.next++
			switch color[edges[k].to] {
			case 1:
				back[k] = true
			case 0:
				color[edges[k].to] = 1
				stack = append(stack, frame{node: edges[k].to})
			}
		}
	}
	for i := 0; i < n; i++ {
		if indeg[i] == 0 && color[i] == 0 {
			dfs(i)
		}
	}
	for i := 0; i < n; i++ {
		if color[i] == 0 {
			dfs(i)
		}
	}

	// Longest-path layers over what is left (a DAG), in Kahn order.
	in := make([]int, n)
	for k, e := range edges {
		if !back[k] {
			in[e.to]++
		}
	}
	layer := make([]int, n)
	queue := make([]int, 0, n)
	for i := 0; i < n; i++ {
		if in[i] == 0 {
			queue = append(queue, i)
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, k := range out[u] {
			if back[k] {
				continue
			}
			v := edges[k].to
			if layer[u]+1 > layer[v] {
				layer[v] = layer[u] + 1
			}
			if in[v]--; in[v] == 0 {
				queue = append(queue, v)
			}
		}
	}

	// Horizontal places, layer by layer.
	preds := make([][]int, n) // real forward edges into each node
	for k, e := range edges {
		if e.real && !back[k] {
			preds[e.to] = append(preds[e.to], k)
		}
	}
	maxLayer := 0
	for i := 0; i < n; i++ {
		if layer[i] > maxLayer {
			maxLayer = layer[i]
		}
	}
	byLayer := make([][]int, maxLayer+1)
	for i := 0; i < n; i++ {
		byLayer[layer[i]] = append(byLayer[layer[i]], i)
	}
	x := make([]float64, n)
	placed := make([]bool, n)
	want := make([]float64, n)
	roots := 0.0
	for _, nodes := range byLayer {
		for _, v := range nodes {
			switch {
			case loopOf[v] >= 0 && placed[loopOf[v]]:
				want[v] = x[loopOf[v]] // an EndLoop closes under its Loop
			case len(preds[v]) > 0:
				sum := 0.0
				for _, k := range preds[v] {
					sum += x[edges[k].from] + edges[k].dx
				}
				want[v] = sum / float64(len(preds[v]))
			default:
				want[v] = roots * crossGap
				roots++
			}
		}
		sort.SliceStable(nodes, func(a, b int) bool {
			if want[nodes[a]] != want[nodes[b]] {
				return want[nodes[a]] < want[nodes[b]]
			}
			return nodes[a] < nodes[b]
		})
		shift := 0.0
		for j, v := range nodes {
			x[v] = want[v]
			if j > 0 && x[v] < x[nodes[j-1]]+crossGap {
				x[v] = x[nodes[j-1]] + crossGap
			}
			shift += x[v] - want[v]
		}
		shift /= float64(len(nodes))
		for _, v := range nodes {
			x[v] -= shift
			placed[v] = true
		}
	}
	y := make([]float64, n)
	for i := range y {
		y[i] = math.Round(x[i] * LayoutSiblingGap / crossGap)
	}
	if wrap {
		var spans [][2]int // forward edges and loops, as the layers they run between
		for k, e := range edges {
			if !back[k] && layer[e.from] < layer[e.to] {
				spans = append(spans, [2]int{layer[e.from], layer[e.to]})
			}
		}
		var loops [][2]int
		for l, end := range endOf {
			if layer[l] < layer[end] {
				loops = append(loops, [2]int{layer[l], layer[end]})
			}
		}
		layer, y = wrapRows(layer, y, spans, loops)
	}
	for i := range w.Nodes {
		w.Nodes[i].Position = &workflow.Position{X: float64(layer[i]) * LayoutLayerGap, Y: y[i]}
	}
}

// branchOffset is where an edge's target goes relative to its source.
func branchOffset(from *workflow.Node, o *workflow.EdgeOutput) float64 {
	if o == nil {
		return 0
	}
	switch o.Type {
	case workflow.OutIfTrue:
		return -crossGap / 2
	case workflow.OutIfFalse:
		return crossGap / 2
	case workflow.OutLoopBody:
		return crossIndent
	case workflow.OutSwitchCase, workflow.OutSwitchDefault:
		m := len(from.Params.Cases) + 1
		k := m - 1 // the default, last
		if o.Type == workflow.OutSwitchCase {
			for i, c := range from.Params.Cases {
				if c.Name == o.Name {
					k = i
					break
				}
			}
		}
		return (float64(k) - float64(m-1)/2) * crossGap
	}
	return 0
}
