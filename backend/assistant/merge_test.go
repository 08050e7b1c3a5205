package assistant

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

// chain builds a workflow of log nodes a→b→c… with ids "id_<key>".
func chain(keys ...string) *workflow.Workflow {
	w := workflow.New("test")
	for i, k := range keys {
		w.Nodes = append(w.Nodes, logNode(k))
		if i > 0 {
			w.Edges = append(w.Edges, edge("id_"+keys[i-1], "id_"+k, ""))
		}
	}
	return w
}

func logNode(key string) workflow.Node {
	return workflow.Node{ID: "id_" + key, Key: key, Name: "Log " + key, Type: workflow.TypeTool,
		Params:   workflow.Params{Tool: "log", Arguments: map[string]any{"message": key}},
		Position: &workflow.Position{X: 1, Y: 2}}
}

func edge(from, to string, out workflow.OutputType) workflow.Edge {
	e := workflow.Edge{From: from, To: to}
	if out != "" {
		e.Output = &workflow.EdgeOutput{Type: out}
	}
	return e
}

// shape renders nodes and edges compactly: "a,b,c | a>b a>c:IfTrue".
func shape(w *workflow.Workflow) string {
	var ns, es []string
	key := map[string]string{}
	for _, n := range w.Nodes {
		ns = append(ns, n.Key)
		key[n.ID] = n.Key
	}
	for _, e := range w.Edges {
		s := key[e.From] + ">" + key[e.To]
		if e.Output != nil {
			s += ":" + string(e.Output.Type)
		}
		es = append(es, s)
	}
	return strings.Join(ns, ",") + " | " + strings.Join(es, " ")
}

func TestMerge(t *testing.T) {
	tests := []struct {
		name         string
		in           *workflow.Workflow
		patch        WorkflowPatch
		want         string
		wantWarnings []string // substrings, in order
	}{
		{
			name:  "empty patch keeps everything",
			in:    chain("a", "b"),
			patch: WorkflowPatch{},
			want:  "a,b | a>b",
		},
		{
			name:  "remove node takes its edges",
			in:    chain("a", "b", "c"),
			patch: WorkflowPatch{RemovedNodeIDs: []string{"id_b"}, AddedEdges: []workflow.Edge{edge("id_a", "id_c", "")}},
			want:  "a,c | a>c",
		},
		{
			name:  "remove by key",
			in:    chain("a", "b"),
			patch: WorkflowPatch{RemovedNodeIDs: []string{"b"}},
			want:  "a | ",
		},
		{
			name:         "remove missing node warns",
			in:           chain("a", "b"),
			patch:        WorkflowPatch{RemovedNodeIDs: []string{"ghost"}},
			want:         "a,b | a>b",
			wantWarnings: []string{`cannot remove node "ghost"`},
		},
		{
			name:         "update missing node warns",
			in:           chain("a"),
			patch:        WorkflowPatch{UpdatedNodes: []workflow.Node{{ID: "ghost", Name: "x", Type: workflow.TypeTool}}},
			want:         "a | ",
			wantWarnings: []string{`cannot update node "ghost"`},
		},
		{
			name:  "update by key keeps id and position",
			in:    chain("a", "b"),
			patch: WorkflowPatch{UpdatedNodes: []workflow.Node{{Key: "b", Name: "Renamed", Type: workflow.TypeTool, Params: workflow.Params{Tool: "wait", Arguments: map[string]any{"ms": 5}}}}},
			want:  "a,b | a>b",
		},
		{
			name:         "update of a removed node: removal wins",
			in:           chain("a", "b"),
			patch:        WorkflowPatch{RemovedNodeIDs: []string{"id_b"}, UpdatedNodes: []workflow.Node{{ID: "id_b", Name: "x"}}},
			want:         "a | ",
			wantWarnings: []string{"both removed and updated"},
		},
		{
			name: "order: removal before add lets a new node reuse the key",
			in:   chain("a", "b"),
			patch: WorkflowPatch{RemovedNodeIDs: []string{"id_b"},
				AddedNodes: []workflow.Node{{ID: "new", Key: "b", Name: "New b", Type: workflow.TypeTool}},
				AddedEdges: []workflow.Edge{edge("a", "b", "")}},
			want: "a,b | a>b",
		},
		{
			name:         "added key collision renamed",
			in:           chain("a"),
			patch:        WorkflowPatch{AddedNodes: []workflow.Node{{ID: "new", Key: "a", Type: workflow.TypeTool}}, AddedEdges: []workflow.Edge{edge("id_a", "new", "")}},
			want:         "a,a_2 | a>a_2",
			wantWarnings: []string{`reused the key "a"; renamed it "a_2"`},
		},
		{
			name:  "added node without id or key gets both",
			in:    chain("a"),
			patch: WorkflowPatch{AddedNodes: []workflow.Node{{Name: "Say hi", Type: workflow.TypeTool}}, AddedEdges: []workflow.Edge{edge("a", "say_hi", "")}},
			want:  "a,say_hi | a>say_hi",
		},
		{
			name: "order: remove edges then add edges (insert between)",
			in:   chain("a", "b"),
			patch: WorkflowPatch{AddedNodes: []workflow.Node{{ID: "w", Key: "w", Type: workflow.TypeTool}},
				RemovedEdges: []workflow.Edge{edge("a", "b", "")},
				AddedEdges:   []workflow.Edge{edge("a", "w", ""), edge("w", "b", "")}},
			want: "a,b,w | a>w w>b",
		},
		{
			name:  "remove edge without output removes every label",
			in:    &workflow.Workflow{Nodes: []workflow.Node{logNode("a"), logNode("b")}, Edges: []workflow.Edge{edge("id_a", "id_b", workflow.OutIfTrue), edge("id_a", "id_b", workflow.OutIfFalse)}},
			patch: WorkflowPatch{RemovedEdges: []workflow.Edge{edge("a", "b", "")}},
			want:  "a,b | ",
		},
		{
			name:  "remove edge with output removes only that label",
			in:    &workflow.Workflow{Nodes: []workflow.Node{logNode("a"), logNode("b")}, Edges: []workflow.Edge{edge("id_a", "id_b", workflow.OutIfTrue), edge("id_a", "id_b", workflow.OutIfFalse)}},
			patch: WorkflowPatch{RemovedEdges: []workflow.Edge{edge("a", "b", workflow.OutIfFalse)}},
			want:  "a,b | a>b:IfTrue",
		},
		{
			name:         "remove missing edge warns",
			in:           chain("a", "b"),
			patch:        WorkflowPatch{RemovedEdges: []workflow.Edge{edge("b", "a", "")}},
			want:         "a,b | a>b",
			wantWarnings: []string{"no such edge"},
		},
		{
			name:  "remove edge of a removed node is silent",
			in:    chain("a", "b"),
			patch: WorkflowPatch{RemovedNodeIDs: []string{"b"}, RemovedEdges: []workflow.Edge{edge("a", "b", "")}},
			want:  "a | ",
		},
		{
			name:         "add edge to missing node warns",
			in:           chain("a"),
			patch:        WorkflowPatch{AddedEdges: []workflow.Edge{edge("a", "nowhere", "")}},
			want:         "a | ",
			wantWarnings: []string{`no node "nowhere"`},
		},
		{
			name:         "duplicate edge not added twice",
			in:           chain("a", "b"),
			patch:        WorkflowPatch{AddedEdges: []workflow.Edge{edge("a", "b", "")}},
			want:         "a,b | a>b",
			wantWarnings: []string{"already in the workflow"},
		},
		{
			name:         "added node reusing an existing id gets a new id",
			in:           chain("a"),
			patch:        WorkflowPatch{AddedNodes: []workflow.Node{{ID: "id_a", Key: "z", Type: workflow.TypeTool}}},
			want:         "a,z | ",
			wantWarnings: []string{`reused the id "id_a"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.in)
			patchBefore, _ := json.Marshal(tt.patch)
			got, warnings := MergePatchIntoWorkflow(tt.in, &tt.patch)
			if s := shape(got); s != tt.want {
				t.Errorf("shape = %q, want %q", s, tt.want)
			}
			if len(warnings) != len(tt.wantWarnings) {
				t.Fatalf("warnings = %v, want %d matching %q", warnings, len(tt.wantWarnings), tt.wantWarnings)
			}
			for i, w := range tt.wantWarnings {
				if !strings.Contains(warnings[i].Message, w) || warnings[i].Stage != StageMerge {
					t.Errorf("warning %d = %v, want containing %q", i, warnings[i], w)
				}
			}
			after, _ := json.Marshal(tt.in)
			patchAfter, _ := json.Marshal(tt.patch)
			if string(before) != string(after) || string(patchBefore) != string(patchAfter) {
				t.Error("merge modified its input")
			}
		})
	}
}

func TestMergeUpdateKeepsIDKeyPosition(t *testing.T) {
	w := chain("a", "b")
	got, _ := MergePatchIntoWorkflow(w, &WorkflowPatch{UpdatedNodes: []workflow.Node{{Key: "b", Name: "Renamed", Type: workflow.TypeTool, Params: workflow.Params{Tool: "wait"}}}})
	n := got.NodeByID("id_b")
	if n == nil || n.Key != "b" || n.Name != "Renamed" || n.Params.Tool != "wait" || n.Position == nil || n.Position.X != 1 {
		t.Fatalf("updated node = %+v", n)
	}
}

func TestMergeDoesNotAliasInput(t *testing.T) {
	w := chain("a", "b")
	got, _ := MergePatchIntoWorkflow(w, &WorkflowPatch{})
	got.Nodes[0].Params.Arguments["message"] = "changed"
	got.Nodes[0].Position.X = 99
	got.Edges[0].To = "x"
	if w.Nodes[0].Params.Arguments["message"] != "a" || w.Nodes[0].Position.X != 1 || w.Edges[0].To != "id_b" {
		t.Fatal("the merged workflow shares memory with the input")
	}
}

func TestDiffForPreview(t *testing.T) {
	w := chain("a", "b", "c")
	p := &WorkflowPatch{
		RemovedNodeIDs: []string{"c"},
		UpdatedNodes:   []workflow.Node{{ID: "id_a", Name: "A!", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "a"}}}},
		AddedNodes:     []workflow.Node{{ID: "id_d", Key: "d", Type: workflow.TypeTool}},
		AddedEdges:     []workflow.Edge{edge("b", "d", "")},
	}
	// A position-only update is not a modification.
	moved := logNode("b")
	moved.Position = &workflow.Position{X: 50}
	p.UpdatedNodes = append(p.UpdatedNodes, moved)
	pv := PreviewPatch(w, p)
	want := Diff{
		AddedNodeIDs: []string{"id_d"}, RemovedNodeIDs: []string{"id_c"}, ModifiedNodeIDs: []string{"id_a"},
		AddedEdges: []workflow.Edge{edge("id_b", "id_d", "")}, RemovedEdges: []workflow.Edge{edge("id_b", "id_c", "")},
	}
	if !reflect.DeepEqual(pv.Diff, want) {
		t.Fatalf("diff = %+v\nwant %+v", pv.Diff, want)
	}
	b, _ := json.Marshal(pv)
	for _, k := range []string{`"added_node_ids"`, `"removed_node_ids"`, `"modified_node_ids"`, `"warnings":[]`} {
		if !strings.Contains(string(b), k) {
			t.Errorf("preview JSON lacks %s: %s", k, b)
		}
	}
}

// A patch keeps what it does not touch: the goal, the done_when and the
// pinned data of the nodes that remain.
func TestMergeKeepsGoalAndPins(t *testing.T) {
	w := chain("a", "b", "c")
	w.Goal = "tidy the notes"
	w.DoneWhen = &workflow.DoneWhen{Condition: "c.success"}
	w.Pinned = map[string]any{"id_a": map[string]any{"message": "pinned a"}, "id_b": map[string]any{"message": "pinned b"}}
	out, warns := MergePatchIntoWorkflow(w, &WorkflowPatch{RemovedNodeIDs: []string{"id_b"}, AddedEdges: []workflow.Edge{edge("id_a", "id_c", "")}})
	if len(warns) != 0 {
		t.Fatal(warns)
	}
	if out.Goal != w.Goal || out.DoneWhen == nil || out.DoneWhen.Condition != "c.success" || out.DoneWhen == w.DoneWhen {
		t.Errorf("goal %q done_when %+v", out.Goal, out.DoneWhen)
	}
	if len(out.Pinned) != 1 || out.Pinned["id_a"].(map[string]any)["message"] != "pinned a" {
		t.Errorf("pinned %v", out.Pinned)
	}
	out.Pinned["id_a"].(map[string]any)["message"] = "changed"
	if w.Pinned["id_a"].(map[string]any)["message"] != "pinned a" {
		t.Error("the merge shares the pin with its input")
	}
}

// A replanned file saved by a Weft before per-step provenance keeps its
// gate when the assistant adds one harmless node: its steps are marked
// when it is parsed, not judged by a rule that counts unmarked steps.
func TestLegacyReplanKeepsItsGateAfterAPatch(t *testing.T) {
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"old","weft_replan":{"replans":1},
 "nodes":[{"id":"a","key":"deploy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./deploy.sh"}}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	add := workflow.Node{ID: "b", Key: "note", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}}
	out, _ := MergePatchIntoWorkflow(w, &WorkflowPatch{AddedNodes: []workflow.Node{add}})
	req := approval.Required(out, approval.Scope{Dir: t.TempDir()})
	if len(req) != 1 || req[0].Key != "deploy" {
		t.Fatalf("after a harmless node was added, waiting: %+v", req)
	}
}

// A chat patch that loosens a "tests passed?" guard in front of a
// hand-written deploy step, or wires around it, is reviewed before the
// deploy can run: the changed control node (or the source of the new
// edge) waits for approval with its wiring.
func TestPatchToControlFlowIsReviewed(t *testing.T) {
	base, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"ci","nodes":[
 {"id":"t","key":"tests","type":"Tool","params":{"tool":"run_command","arguments":{"command":"make test"}},"ok_exit_codes":[0,1]},
 {"id":"i","key":"passed","type":"If","params":{"condition":"tests.exit_code == 0"}},
 {"id":"d","key":"deploy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./deploy.sh"}}}],
 "edges":[{"from":"t","to":"i"},{"from":"i","to":"d","output":"IfTrue"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		patch WorkflowPatch
		want  string
	}{
		{"guard loosened", WorkflowPatch{UpdatedNodes: []workflow.Node{{ID: "i", Key: "passed", Type: workflow.TypeIf, Params: workflow.Params{Condition: "true"}}}}, "passed"},
		{"edge around the guard", WorkflowPatch{AddedEdges: []workflow.Edge{{From: "t", To: "d"}}}, "tests"},
		{"guard removed", WorkflowPatch{RemovedNodeIDs: []string{"i"}, AddedEdges: []workflow.Edge{{From: "t", To: "d"}}}, "tests"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, _ := MergePatchIntoWorkflow(base, &c.patch)
			var keys []string
			for _, s := range approval.Required(out, approval.Scope{Dir: t.TempDir()}) {
				keys = append(keys, s.Key)
			}
			if !strings.Contains(","+strings.Join(keys, ",")+",", ","+c.want+",") {
				t.Fatalf("waiting %v, want %s", keys, c.want)
			}
		})
	}
}
