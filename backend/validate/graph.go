package validate

import (
	"fmt"
	"strings"
)

// The graph algorithms here are written by hand over int32 indices in CSR
// form instead of using github.com/dominikbraun/graph. The library keeps
// vertices and edges in maps keyed by hash and rebuilds an adjacency map of
// maps on every traversal; measured on this machine with a 100,000-node
// chain, building the graph took ~510 ms, StronglyConnectedComponents
// ~1.2 s and one BFS ~380 ms, against a budget of 250 ms for the whole
// validation (and its TopologicalSort is quadratic). Its
// StronglyConnectedComponents also misplaces a vertex whose hash is the
// zero value (a node with the empty id "" would land in another node's
// component). The versions below do the same work in a few milliseconds;
// TestGraphAgainstLibrary checks them against the library on small random
// graphs.

// flowGraph is the control-flow graph the structural checks run on.
type flowGraph struct {
	// DAG edges: both ends exist, not a self loop, and the source is not an
	// EndLoop (EndLoop edges jump back to their Loop; see Validate).
	succStart, succ, succRef []int32
	predStart, pred          []int32
	// comp is each node's strongly connected component in the DAG edges,
	// numbered in Tarjan completion order: an edge u→v between components
	// has comp[u] > comp[v], and if u reaches v then comp[u] >= comp[v].
	comp     []int32
	compSize []int32
	// pre and post number a depth-first spanning forest of the DAG edges:
	// a is a tree ancestor of b when pre[a] <= pre[b] && post[b] <= post[a].
	pre, post []int32
	entries   []int32
}

// real reports whether edge r joins two distinct existing nodes.
func (v *validator) real(r int32) bool {
	er := &v.edges[r]
	return er.to >= 0 && er.to != er.from
}

func (v *validator) buildGraph() {
	from := make([]int32, 0, len(v.edges))
	to := make([]int32, 0, len(v.edges))
	ref := make([]int32, 0, len(v.edges))
	for r := range v.edges {
		er := &v.edges[r]
		if !v.real(int32(r)) || v.kind[er.from] == isEndLoop {
			continue
		}
		from = append(from, er.from)
		to = append(to, er.to)
		ref = append(ref, int32(r))
	}
	v.g = makeGraph(v.n, from, to, ref)
}

// makeGraph builds the CSR form of the edges from[k]→to[k] (ref[k] is the
// edge's index in validator.edges, -1 for a virtual edge) and numbers its
// strongly connected components.
func makeGraph(n int, from, to, ref []int32) flowGraph {
	var g flowGraph
	g.succStart = make([]int32, n+1)
	g.predStart = make([]int32, n+1)
	for k := range from {
		g.succStart[from[k]+1]++
		g.predStart[to[k]+1]++
	}
	for i := 1; i <= n; i++ {
		g.succStart[i] += g.succStart[i-1]
		g.predStart[i] += g.predStart[i-1]
	}
	m := len(from)
	g.succ = make([]int32, m)
	g.succRef = make([]int32, m)
	g.pred = make([]int32, m)
	sf := make([]int32, n)
	pf := make([]int32, n)
	for k := range from {
		f, t := from[k], to[k]
		i := g.succStart[f] + sf[f]
		g.succ[i] = t
		g.succRef[i] = ref[k]
		sf[f]++
		g.pred[g.predStart[t]+pf[t]] = f
		pf[t]++
	}
	g.comp, g.compSize = tarjan(n, g.succStart, g.succ)
	return g
}

func (g *flowGraph) succs(i int32) []int32 { return g.succ[g.succStart[i]:g.succStart[i+1]] }
func (g *flowGraph) preds(i int32) []int32 { return g.pred[g.predStart[i]:g.predStart[i+1]] }

// tarjan finds strongly connected components iteratively (no recursion, so
// a 100,000-step chain cannot blow the stack).
func tarjan(n int, start, adj []int32) (comp, size []int32) {
	index := make([]int32, n) // 0 = unvisited, else visit order + 1
	low := make([]int32, n)
	comp = make([]int32, n)
	onStack := make([]bool, n)
	// Sized for the worst case (a single chain) so they never regrow.
	stack := make([]int32, 0, n)
	type frame struct{ v, pos int32 }
	frames := make([]frame, 0, n)
	size = make([]int32, 0, n)
	counter := int32(0)
	nc := int32(0)
	visit := func(w int32) {
		counter++
		index[w], low[w] = counter, counter
		stack = append(stack, w)
		onStack[w] = true
		frames = append(frames, frame{w, start[w]})
	}
	for s := int32(0); s < int32(n); s++ {
		if index[s] != 0 {
			continue
		}
		visit(s)
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			u := f.v
			if f.pos < start[u+1] {
				w := adj[f.pos]
				f.pos++
				if index[w] == 0 {
					visit(w)
				} else if onStack[w] && index[w] < low[u] {
					low[u] = index[w]
				}
				continue
			}
			frames = frames[:len(frames)-1]
			if low[u] == index[u] {
				var sz int32
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = nc
					sz++
					if w == u {
						break
					}
				}
				size = append(size, sz)
				nc++
			}
			if len(frames) > 0 {
				if p := frames[len(frames)-1].v; low[u] < low[p] {
					low[p] = low[u]
				}
			}
		}
	}
	return comp, size
}

// checkEntries finds the workflow's first step and what cannot be reached.
func (v *validator) checkEntries() {
	n := v.n
	indeg := make([]int32, n)
	for r := range v.edges {
		er := &v.edges[r]
		if !v.real(int32(r)) {
			continue
		}
		if v.kind[er.from] == isEndLoop && v.kind[er.to] == isLoop {
			continue // a back edge does not make a Loop a middle step
		}
		indeg[er.to]++
	}
	var entries, soft []int32
	for i := 0; i < n; i++ {
		if v.dup[i] || indeg[i] > 0 {
			continue
		}
		if v.softIn[i] {
			soft = append(soft, int32(i))
		} else {
			entries = append(entries, int32(i))
		}
	}
	v.g.entries = entries
	switch {
	case len(entries) == 0 && len(soft) == 0:
		v.add(CodeNoEntry, SeverityError, "Every node has an incoming edge, so the workflow has no first step; remove the edge into the step that should run first", nil)
		return
	case len(entries) > 1:
		v.add(CodeMultipleEntries, SeverityError, fmt.Sprintf("The workflow has %d first steps (%s); connect them so that only one node has no incoming edge", len(entries), v.names(entries)), entries)
	}
	// Reachability over every edge between existing nodes, EndLoop edges
	// included. Nodes fed only by a dangling edge are roots too, so that a
	// deleted node is reported once, as dangling edges.
	seen := make([]bool, n)
	queue := make([]int32, 0, n)
	for _, r := range [][]int32{entries, soft} {
		for _, i := range r {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		if v.kind[u] == isEndLoop {
			for _, r := range v.out(u) {
				if w := v.edges[r].to; v.real(r) && !seen[w] {
					seen[w] = true
					queue = append(queue, w)
				}
			}
			continue
		}
		for _, w := range v.g.succs(u) {
			if !seen[w] {
				seen[w] = true
				queue = append(queue, w)
			}
		}
	}
	var unreached []int32
	for i := 0; i < n; i++ {
		if !seen[i] && !v.dup[i] {
			unreached = append(unreached, int32(i))
		}
	}
	if len(unreached) > 0 {
		msg := fmt.Sprintf("%s cannot be reached from the start of the workflow", v.names(unreached))
		if len(unreached) > 1 {
			msg = fmt.Sprintf("%d nodes cannot be reached from the start of the workflow: %s", len(unreached), v.names(unreached))
		}
		v.add(CodeUnreachable, SeverityError, msg, unreached)
	}
}

// checkCycles reports every cycle that is not a loop: each strongly
// connected component of the DAG edges with more than one node.
func (v *validator) checkCycles() {
	g := &v.g
	var cyclic []int32 // components, in order of their first node
	members := map[int32][]int32{}
	for i := 0; i < v.n; i++ {
		c := g.comp[i]
		if g.compSize[c] < 2 {
			continue
		}
		if members[c] == nil {
			cyclic = append(cyclic, c)
		}
		members[c] = append(members[c], int32(i))
	}
	for _, c := range cyclic {
		nodes := members[c]
		var refs []int32
		for _, u := range nodes {
			for k := g.succStart[u]; k < g.succStart[u+1]; k++ {
				if g.comp[g.succ[k]] == c {
					refs = append(refs, g.succRef[k])
				}
			}
		}
		path := v.cyclePath(nodes[0])
		v.addEdges(CodeCycle, fmt.Sprintf("These steps form a cycle: %s; to repeat steps, use a Loop with an EndLoop", path), nodes, refs)
	}
}

// cyclePath returns one cycle through s, as "'A' → 'B' → 'A'", found by a
// breadth-first search inside s's component.
func (v *validator) cyclePath(s int32) string {
	g := &v.g
	c := g.comp[s]
	parent := map[int32]int32{s: -1}
	queue := []int32{s}
	last := int32(-1)
	for h := 0; h < len(queue) && last < 0; h++ {
		u := queue[h]
		for _, w := range g.succs(u) {
			if w == s {
				last = u
				break
			}
			if _, ok := parent[w]; ok || g.comp[w] != c {
				continue
			}
			parent[w] = u
			queue = append(queue, w)
		}
	}
	var rev []int32
	for u := last; u >= 0; u = parent[u] {
		rev = append(rev, u)
	}
	const max = 8
	parts := make([]string, 0, max+1)
	for k := len(rev) - 1; k >= 0; k-- {
		if len(rev) > max && len(parts) == max-2 {
			parts = append(parts, "…")
			k = 0 // jump to the last node before s
		}
		parts = append(parts, v.label(rev[k]))
	}
	parts = append(parts, v.label(s))
	return strings.Join(parts, " → ")
}

// spanningForest numbers a depth-first forest of the graph, from the
// entries first, for the ancestor test in isTreeAncestor.
func (g *flowGraph) spanningForest(entries []int32) {
	n := len(g.comp)
	g.pre = make([]int32, n)
	g.post = make([]int32, n)
	visited := make([]bool, n)
	type frame struct{ v, pos int32 }
	frames := make([]frame, 0, n)
	var preN, postN int32
	walk := func(s int32) {
		if visited[s] {
			return
		}
		visited[s] = true
		g.pre[s] = preN
		preN++
		frames = append(frames, frame{s, g.succStart[s]})
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if f.pos < g.succStart[f.v+1] {
				w := g.succ[f.pos]
				f.pos++
				if !visited[w] {
					visited[w] = true
					g.pre[w] = preN
					preN++
					frames = append(frames, frame{w, g.succStart[w]})
				}
				continue
			}
			g.post[f.v] = postN
			postN++
			frames = frames[:len(frames)-1]
		}
	}
	for _, e := range entries {
		walk(e)
	}
	for i := int32(0); i < int32(n); i++ {
		walk(i)
	}
}

func (g *flowGraph) isTreeAncestor(a, b int32) bool {
	return g.pre[a] <= g.pre[b] && g.post[b] <= g.post[a]
}
