package flow

import (
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// edgeWorkflow is an If whose true branch runs a Loop of three
// iterations (no exit condition) and whose false branch runs one step.
func edgeWorkflow(t *testing.T) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"e","name":"e","nodes":[
 {"id":"c","key":"c","type":"If","params":{"condition":"true"}},
 {"id":"f","key":"f","type":"Tool","params":{"tool":"log","arguments":{"message":"f"}}},
 {"id":"l","key":"l","type":"Loop","params":{"max_iterations":3}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"log","arguments":{"message":"b"}}},
 {"id":"e","key":"e","type":"EndLoop","params":{"loop_id":"l"}},
 {"id":"z","key":"z","type":"Tool","params":{"tool":"log","arguments":{"message":"z"}}}],
 "edges":[{"from":"c","to":"l","output":"IfTrue"},{"from":"c","to":"f","output":"IfFalse"},
  {"from":"l","to":"b","output":"LoopBody"},{"from":"b","to":"e"},{"from":"e","to":"l"},{"from":"l","to":"z","output":"LoopDone"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func edgeName(e EdgeCount) string {
	s := e.From + ">" + e.To
	if e.Output != nil {
		s += ":" + e.Output.String()
	}
	return s
}

func TestEdgeCounts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		choices []byte // the first is drive's auto-replan switch, the second the If's value
		want    map[string]int
	}{
		{"true branch, a loop of three", []byte{0, 1}, map[string]int{
			"c>l:IfTrue": 1, "l>b:LoopBody": 3, "b>e": 3, "e>l": 3, "l>z:LoopDone": 1}},
		{"false branch", []byte{0, 0}, map[string]int{"c>f:IfFalse": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, res := drive(t, edgeWorkflow(t), &byteSource{b: tc.choices}, false)
			if res.Outcome != OutcomeSucceeded {
				t.Fatalf("outcome %s: %s", res.Outcome, res.Error)
			}
			got := map[string]int{}
			for _, e := range res.Summary.Edges {
				got[edgeName(e)] = e.Taken
			}
			if len(got) != len(tc.want) {
				t.Errorf("edges taken %v, want %v (an untaken edge is not listed)", got, tc.want)
			}
			for k, n := range tc.want {
				if got[k] != n {
					t.Errorf("%s taken %d times, want %d (all: %v)", k, got[k], n, got)
				}
			}
			// run_finished carries the same counts: the desktop reads them there.
			if fin := evs[len(evs)-1]; fin.Summary == nil || len(fin.Summary.Edges) != len(res.Summary.Edges) {
				t.Errorf("run_finished summary edges %v, want %v", fin.Summary, res.Summary.Edges)
			}
		})
	}
}

// checkEdgeCounts holds for every walk: each counted edge is an edge of
// the workflow, counted once in the list, and the labelled edges agree
// with the events that say which way the walk went (branch_evaluated,
// loop_iteration).
func checkEdgeCounts(t *testing.T, w *workflow.Workflow, evs []Event, s Summary) {
	t.Helper()
	seen := map[string]bool{}
	got := map[string]int{}
	for _, c := range s.Edges {
		name := edgeName(c)
		if seen[name] || c.Taken < 1 {
			t.Fatalf("edge %s listed twice or with %d", name, c.Taken)
		}
		seen[name] = true
		found := false
		for _, e := range w.Edges {
			found = found || e.SameAs(workflow.Edge{From: c.From, To: c.To, Output: c.Output})
		}
		if !found {
			t.Fatalf("edge %s counted but not in the workflow", name)
		}
		if c.Output != nil {
			got[c.From+"/"+c.Output.Name+"/"+string(c.Output.Type)] += c.Taken
		}
	}
	want := map[string]int{}
	for _, e := range evs {
		n := w.NodeByID(e.NodeID)
		if n == nil || e.Branch == "" || (e.Type != EvBranchEvaluated && e.Type != EvLoopIteration) || (e.Type == EvLoopIteration && e.Message != "") {
			continue
		}
		t := workflow.OutputType(e.Branch)
		name := ""
		if n.Type == workflow.TypeSwitch && t != workflow.OutSwitchDefault {
			t, name = workflow.OutSwitchCase, e.Branch
		}
		if flowEdge(w, n.ID, t, name) {
			want[n.ID+"/"+name+"/"+string(t)]++
		}
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("branch %s: the events say %d, the summary %d", k, n, got[k])
		}
	}
}

func flowEdge(w *workflow.Workflow, from string, t workflow.OutputType, name string) bool {
	for _, e := range w.Edges {
		if e.From == from && e.Output != nil && e.Output.Type == t && (t != workflow.OutSwitchCase || e.Output.Name == name) {
			return true
		}
	}
	return false
}
