package planner

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// wfOf builds a workflow for tests. Nodes are "key:Type", with
// "key:EndLoop@loopkey" for a paired EndLoop and "key:Switch[a,b]" for a
// Switch's cases; ids are "id_"+key. Edges are "a>b" or "a>b:Label", the
// label an output type or "case=name".
func wfOf(t testing.TB, nodes []string, edges ...string) *workflow.Workflow {
	t.Helper()
	w := workflow.New("test")
	for _, spec := range nodes {
		key, typ, ok := strings.Cut(spec, ":")
		if !ok {
			t.Fatalf("bad node spec %q", spec)
		}
		n := workflow.Node{ID: "id_" + key, Key: key, Name: key}
		if t, loop, ok := strings.Cut(typ, "@"); ok {
			typ = t
			n.Params.LoopID = "id_" + loop
		}
		if t, cases, ok := strings.Cut(typ, "["); ok {
			typ = t
			for _, c := range strings.Split(strings.TrimSuffix(cases, "]"), ",") {
				n.Params.Cases = append(n.Params.Cases, workflow.SwitchCase{Name: c, Condition: "true"})
			}
		}
		n.Type = workflow.NodeType(typ)
		switch n.Type {
		case workflow.TypeTool:
			n.Params.Tool, n.Params.Arguments = "log", map[string]any{"message": "x"}
		case workflow.TypeIf:
			n.Params.Condition = "true"
		case workflow.TypeLoop:
			m := 3
			n.Params.MaxIterations = &m
		}
		w.Nodes = append(w.Nodes, n)
	}
	for _, spec := range edges {
		ends, label, _ := strings.Cut(spec, ":")
		from, to, ok := strings.Cut(ends, ">")
		if !ok {
			t.Fatalf("bad edge spec %q", spec)
		}
		e := workflow.Edge{From: "id_" + from, To: "id_" + to}
		if label != "" {
			if name, ok := strings.CutPrefix(label, "case="); ok {
				e.Output = &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: name}
			} else {
				e.Output = &workflow.EdgeOutput{Type: workflow.OutputType(label)}
			}
		}
		w.Edges = append(w.Edges, e)
	}
	return w
}

// edgeList renders a workflow's edges as "a>b" or "a>b:Label" by key.
func edgeList(w *workflow.Workflow) []string {
	key := map[string]string{}
	for _, n := range w.Nodes {
		key[n.ID] = n.Key
	}
	var out []string
	for _, e := range w.Edges {
		s := key[e.From] + ">" + key[e.To]
		if e.Output != nil {
			if e.Output.Type == workflow.OutSwitchCase {
				s += ":case=" + e.Output.Name
			} else {
				s += ":" + string(e.Output.Type)
			}
		}
		out = append(out, s)
	}
	return out
}

// sameEdges compares edge lists ignoring order.
func sameEdges(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	seen := map[string]int{}
	for _, g := range got {
		seen[g]++
	}
	for _, w := range want {
		if seen[w] == 0 {
			return false
		}
		seen[w]--
	}
	return true
}

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sameJSON compares two JSON texts after parsing (numbers as numbers).
func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
