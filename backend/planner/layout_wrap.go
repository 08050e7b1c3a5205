package planner

import "math"

// Wrapping a long plan into rows. One row of 50 layers is 15,000 units
// wide: fitted to a desktop window its nodes are a few pixels. Rows of at
// most k layers each, read left to right and top to bottom, with k chosen
// so that the whole plan's width to height is near a desktop canvas's.
const (
	wrapAspect = 16.0 / 10 // the canvas's width to height the rows aim at
	wrapMinRow = 6         // layers a row always may hold: short plans stay one row
	wrapRowGap = LayoutSiblingGap
)

// wrapRows cuts the layers into rows and returns each node's column (its
// layer within its row) and its place down the canvas. A row ends between
// layers crossed by the fewest edges (spans: forward edges, as the layers
// they join) and never inside a loop (loops: a Loop's and its EndLoop's
// layers) while another cut fits, so a loop body stays in one row and an
// If's branches stay beside each other. Rows are stacked with wrapRowGap
// between their extents, so nodes of different rows never overlap; within
// a row the places are the unwrapped ones. It takes O(L log L + E) for L
// layers and E spans.
func wrapRows(layer []int, y []float64, spans, loops [][2]int) ([]int, []float64) {
	nl := 0
	for _, l := range layer {
		nl = max(nl, l+1)
	}
	if nl <= wrapMinRow {
		return layer, y
	}
	lo := make([]float64, nl)
	hi := make([]float64, nl)
	for l := range lo {
		lo[l], hi[l] = math.Inf(1), math.Inf(-1)
	}
	for i, l := range layer {
		lo[l] = min(lo[l], y[i])
		hi[l] = max(hi[l], y[i])
	}
	// cross[c] counts the edges a row ending before layer c cuts, inLoop[c]
	// the loops it cuts in two.
	cross := make([]int, nl+1)
	inLoop := make([]int, nl+1)
	for _, s := range spans {
		cross[s[0]+1]++
		cross[s[1]+1]--
	}
	for _, s := range loops {
		inLoop[s[0]+1]++
		inLoop[s[1]+1]--
	}
	for c := 1; c <= nl; c++ {
		cross[c] += cross[c-1]
		inLoop[c] += inLoop[c-1]
	}
	better := func(c, best int) bool {
		if (inLoop[c] == 0) != (inLoop[best] == 0) {
			return inLoop[c] == 0
		}
		return cross[c] < cross[best]
	}

	// starts lists the first layer of each row for rows of at most k
	// layers: each row ends at the cheapest cut in the second half of its
	// reach, the latest of equals; or, when all of those cut a loop,
	// at the latest earlier cut that does not, so that a loop of up to k
	// layers is never cut.
	starts := func(k int) []int {
		out := []int{0}
		for s := 0; s+k < nl; {
			best := s + k
			for c := s + k - 1; c >= s+max(1, (k+1)/2); c-- {
				if better(c, best) {
					best = c
				}
			}
			for c := s + (k+1)/2 - 1; c > s && inLoop[best] > 0; c-- {
				if inLoop[c] == 0 {
					best = c
				}
			}
			out = append(out, best)
			s = best
		}
		return out
	}
	// extent is rows' top and bottom: the places of their nodes.
	extent := func(from, to int) (float64, float64) {
		a, b := math.Inf(1), math.Inf(-1)
		for l := from; l < to; l++ {
			a, b = min(a, lo[l]), max(b, hi[l])
		}
		return a, b
	}
	aspect := func(st []int) float64 {
		width, height := 0, -wrapRowGap
		for r, s := range st {
			end := nl
			if r+1 < len(st) {
				end = st[r+1]
			}
			width = max(width, end-s)
			a, b := extent(s, end)
			height += b - a + LayoutSiblingGap + wrapRowGap
		}
		return float64(width) * LayoutLayerGap / height
	}

	// The aspect grows with k: the least k that reaches wrapAspect, or the
	// one below it if that is nearer.
	lowK, highK := wrapMinRow, nl
	if aspect(starts(highK)) <= wrapAspect {
		return layer, y
	}
	for lowK < highK {
		mid := (lowK + highK) / 2
		if aspect(starts(mid)) >= wrapAspect {
			highK = mid
		} else {
			lowK = mid + 1
		}
	}
	st := starts(highK)
	if highK > wrapMinRow {
		if below := starts(highK - 1); math.Abs(math.Log(aspect(below)/wrapAspect)) < math.Abs(math.Log(aspect(st)/wrapAspect)) {
			st = below
		}
	}

	rowOf := make([]int, nl)
	shift := make([]float64, len(st)) // added to a place in each row
	top := 0.0
	for r, s := range st {
		end := nl
		if r+1 < len(st) {
			end = st[r+1]
		}
		for l := s; l < end; l++ {
			rowOf[l] = r
		}
		a, b := extent(s, end)
		if r == 0 {
			top = a // the first row stays where it was
		}
		shift[r] = top - a
		top += b - a + LayoutSiblingGap + wrapRowGap
	}
	col := make([]int, len(layer))
	ny := make([]float64, len(y))
	for i, l := range layer {
		col[i] = l - st[rowOf[l]]
		ny[i] = y[i] + shift[rowOf[l]]
	}
	return col, ny
}
