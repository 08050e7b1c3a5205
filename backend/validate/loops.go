package validate

import (
	"fmt"
	"sort"

	"github.com/weft-dev/weft/backend/workflow"
)

type loopInfo struct {
	node, start, end int32 // Loop, its LoopBody target, its EndLoop
	parent           int32 // enclosing loop (index into loops), or -1
	pre, post        int32 // numbering of the loop tree
}

// checkLoops works out which nodes belong to which loop body and reports
// edges that cross a body's boundary other than through the Loop
// (LoopBody in, LoopDone out) and its EndLoop (back to the Loop).
//
// The body of a Loop is the set of nodes on a path from its LoopBody
// target S to its EndLoop E, not passing through the Loop: nodes that
// reach E going backwards (B), intersected with nodes reached from S going
// forwards inside B (F). Loops are handled innermost first (Tarjan's
// component numbers give a reverse topological order, and an inner loop is
// reachable from its outer one), and nodes already claimed by an inner loop
// are skipped, so a nested body is walked once, not once per enclosing
// loop: the whole pass is linear in nodes + edges on a valid workflow.
func (v *validator) checkLoops() {
	g := &v.g
	n := v.n
	owner := make([]int32, n) // innermost loop whose body holds the node, or -1
	for i := range owner {
		owner[i] = -1
	}
	var loops []loopInfo
	var broken []int32 // starts of bodies that cannot be analysed
	for i := 0; i < n; i++ {
		if v.kind[i] != isLoop || v.dup[i] {
			continue
		}
		ii := int32(i)
		var starts []int32
		for _, r := range v.out(ii) {
			if v.edges[r].out == workflow.OutLoopBody && v.real(r) {
				starts = append(starts, v.edges[r].to)
			}
		}
		if len(starts) != 1 || len(v.endsOf[i]) != 1 {
			broken = append(broken, starts...)
			continue
		}
		loops = append(loops, loopInfo{node: ii, start: starts[0], end: v.endsOf[i][0], parent: -1})
	}
	sort.SliceStable(loops, func(a, b int) bool { return g.comp[loops[a].node] < g.comp[loops[b].node] })

	inB := make([]int32, n) // stamps: loop index + 1
	inF := make([]int32, n)
	var stack []int32
	good := loops[:0]
	for _, L := range loops {
		stamp := int32(len(good) + 1)
		cL := g.comp[L.node]
		inB[L.end] = stamp
		stack = append(stack[:0], L.end)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range g.preds(x) {
				// Stop at the Loop, at inner bodies, and at nodes the Loop
				// cannot reach (a higher or equal component number).
				if p == L.node || inB[p] == stamp || owner[p] >= 0 || g.comp[p] >= cL {
					continue
				}
				inB[p] = stamp
				stack = append(stack, p)
			}
		}
		if inB[L.start] != stamp || owner[L.start] >= 0 {
			if owner[L.start] < 0 {
				v.add(CodeLoopUnpaired, SeverityError, fmt.Sprintf("Loop %s and its EndLoop %s are not paired: the EndLoop cannot be reached from the body of the loop, which starts at %s", v.label(L.node), v.label(L.end), v.label(L.start)), []int32{L.node, L.end})
			}
			broken = append(broken, L.start)
			continue
		}
		li := int32(len(good))
		inF[L.start] = stamp
		stack = append(stack[:0], L.start)
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			owner[x] = li
			for _, y := range g.succs(x) {
				if y == L.node || inF[y] == stamp || inB[y] != stamp || owner[y] >= 0 {
					continue
				}
				inF[y] = stamp
				stack = append(stack, y)
			}
		}
		good = append(good, L)
	}
	loops = good
	if len(loops) == 0 && len(broken) == 0 {
		return
	}

	// The loop tree, numbered so that nesting is an interval test.
	children := make([][]int32, len(loops))
	var roots []int32
	for li := range loops {
		p := owner[loops[li].node]
		loops[li].parent = p
		if p >= 0 {
			children[p] = append(children[p], int32(li))
		} else {
			roots = append(roots, int32(li))
		}
	}
	var num int32
	type frame struct{ l, k int32 }
	var frames []frame
	for _, r := range roots {
		loops[r].pre = num
		num++
		frames = append(frames[:0], frame{r, 0})
		for len(frames) > 0 {
			f := &frames[len(frames)-1]
			if int(f.k) < len(children[f.l]) {
				c := children[f.l][f.k]
				f.k++
				loops[c].pre = num
				num++
				frames = append(frames, frame{c, 0})
				continue
			}
			loops[f.l].post = num
			num++
			frames = frames[:len(frames)-1]
		}
	}
	// encloses reports whether loop a strictly contains loop b; -1 is the
	// top level, which contains every loop.
	encloses := func(a, b int32) bool {
		if a == b {
			return false
		}
		if a < 0 {
			return true
		}
		if b < 0 {
			return false
		}
		return loops[a].pre < loops[b].pre && loops[b].post < loops[a].post
	}

	// Malformed loops are already reported; everything downstream of their
	// bodies is left out of the boundary checks.
	taint := make([]bool, n)
	v.taint = taint
	queue := append([]int32(nil), broken...)
	for _, s := range broken {
		taint[s] = true
	}
	for h := 0; h < len(queue); h++ {
		for _, w := range g.succs(queue[h]) {
			if !taint[w] {
				taint[w] = true
				queue = append(queue, w)
			}
		}
	}

	for u := int32(0); u < int32(n); u++ {
		ou := owner[u]
		for k := g.succStart[u]; k < g.succStart[u+1]; k++ {
			w := g.succ[k]
			ow := owner[w]
			if ou == ow || taint[u] || taint[w] || g.comp[u] == g.comp[w] {
				continue // same body, already reported, or part of a cycle
			}
			r := g.succRef[k]
			if ow >= 0 && loops[ow].node == u && loops[ow].start == w && v.edges[r].out == workflow.OutLoopBody {
				continue // a Loop entering its own body
			}
			if ou >= 0 && (encloses(ow, ou) || !encloses(ou, ow)) {
				L := loops[ou]
				msg := fmt.Sprintf("The %s leaves the body of Loop %s: %s does not lead to its EndLoop %s. Steps inside a loop must end at its EndLoop; continue after the loop from its LoopDone edge", v.refDesc(r), v.label(L.node), v.label(w), v.label(L.end))
				v.addEdges(CodeEdgeLeavesLoop, msg, []int32{u, w}, []int32{r})
				continue
			}
			L := loops[ow]
			msg := fmt.Sprintf("The %s jumps into the body of Loop %s; a loop body can only be entered through its Loop's LoopBody edge", v.refDesc(r), v.label(L.node))
			v.addEdges(CodeEdgeEntersLoop, msg, []int32{u, w}, []int32{r})
		}
	}
}
