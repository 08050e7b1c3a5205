package validate

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dominikbraun/graph"
)

// TestGraphAgainstLibrary checks the hand-written graph code (too slow to
// replace with github.com/dominikbraun/graph at 100,000 nodes; see
// graph.go) against the library on many small random graphs, where speed
// does not matter: the strongly connected components, and the ancestry
// test behind unknown_variable.
func TestGraphAgainstLibrary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 400; round++ {
		n := 1 + rng.IntN(30)
		m := rng.IntN(2 * n)
		var from, to []int32
		// Library vertices are numbered from 1: its SCC code pops the
		// stack until it meets the vertex, starting from the zero value of
		// the hash type, so a vertex hashed to 0 (or "") ends up in the
		// wrong component.
		lib := graph.New(graph.IntHash, graph.Directed())
		for i := 0; i < n; i++ {
			_ = lib.AddVertex(i + 1)
		}
		for k := 0; k < m; k++ {
			f, d := rng.IntN(n), rng.IntN(n)
			if f == d {
				continue // Validate keeps self loops out of the graph
			}
			from, to = append(from, int32(f)), append(to, int32(d))
			if err := lib.AddEdge(f+1, d+1); err != nil && !errors.Is(err, graph.ErrEdgeAlreadyExists) {
				t.Fatal(err)
			}
		}
		g := makeGraph(n, from, to, make([]int32, len(from)))

		// Components: same partition.
		sccs, err := graph.StronglyConnectedComponents(lib)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int, n)
		for c, members := range sccs {
			for _, v := range members {
				want[v-1] = c
			}
		}
		for a := 0; a < n; a++ {
			for b := 0; b < n; b++ {
				if (want[a] == want[b]) != (g.comp[a] == g.comp[b]) {
					t.Fatalf("round %d: nodes %d and %d: library same component %v, ours %v; n=%d edges %v → %v; lib %v ours %v", round, a, b, want[a] == want[b], g.comp[a] == g.comp[b], n, from, to, sccs, g.comp)
				}
			}
		}
		for c, members := range sccs {
			if int(g.compSize[g.comp[members[0]-1]]) != len(members) {
				t.Fatalf("round %d: component %d size", round, c)
			}
		}

		// Ancestry: exactly the library's reachability.
		var entries []int32
		for i := 0; i < n; i++ {
			if len(g.preds(int32(i))) == 0 {
				entries = append(entries, int32(i))
			}
		}
		g.spanningForest(entries)
		a := ancestry{g: &g, seen: make([]int32, n), budget: 1 << 30}
		for x := 0; x < n; x++ {
			var reach []int
			_ = graph.DFS(lib, x+1, func(v int) bool { reach = append(reach, v-1); return false })
			for b := 0; b < n; b++ {
				if b == x {
					continue
				}
				wantUp := slices.Contains(reach, b)
				if got := a.upstream(int32(x), int32(b)); got != wantUp {
					t.Fatalf("round %d: upstream(%d, %d) = %v, library reach %v (edges %v → %v)", round, x, b, got, wantUp, from, to)
				}
				if wantUp && g.comp[x] < g.comp[b] {
					t.Fatalf("round %d: %d reaches %d but its component number is lower", round, x, b)
				}
			}
		}
	}
}
