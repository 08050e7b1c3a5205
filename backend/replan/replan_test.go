package replan

import (
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

func parse(t *testing.T, js string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

const oldWF = `{"format":"weft/v1","id":"wf","name":"Report","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"log","arguments":{"message":"start"}},"position":{"x":0,"y":0}},
 {"id":"b","key":"fetch","name":"Fetch","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"https://a.test"}},"position":{"x":0,"y":100}},
 {"id":"c","key":"ok","name":"Ok?","type":"If","params":{"condition":"fetch.status == 200"},"position":{"x":0,"y":200}},
 {"id":"d","key":"save","name":"Save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{fetch.body}}"}},"position":{"x":0,"y":300}},
 {"id":"e","key":"warn","name":"Warn","type":"Tool","params":{"tool":"log","arguments":{"message":"failed"}},"position":{"x":200,"y":300}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"},{"from":"c","to":"d","output":{"type":"IfTrue"}},{"from":"c","to":"e","output":{"type":"IfFalse"}}]}`

// newWF, as the planner returns it (ids of kept steps adopted): fetch now
// POSTs to a mirror, warn is gone, a retry step is added on IfFalse.
const newWF = `{"format":"weft/v1","id":"wf","name":"Report","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"log","arguments":{"message":"start"}},"position":{"x":0,"y":0}},
 {"id":"b","key":"fetch","name":"Fetch","type":"Tool","params":{"tool":"http_request","arguments":{"method":"POST","url":"https://mirror.test"}},"position":{"x":0,"y":100}},
 {"id":"c","key":"ok","name":"Ok?","type":"If","params":{"condition":"fetch.status == 200"},"position":{"x":0,"y":200}},
 {"id":"d","key":"save","name":"Save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{fetch.body}}"}},"position":{"x":0,"y":300}},
 {"id":"n1","key":"notify","name":"Notify","type":"Tool","params":{"tool":"run_command","arguments":{"command":"notify-send failed"}},"position":{"x":200,"y":300}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"},{"from":"c","to":"d","output":{"type":"IfTrue"}},{"from":"c","to":"n1","output":{"type":"IfFalse"}}]}`

// sameGraph compares two workflows by node id, content and edges.
func sameGraph(t *testing.T, got, want *workflow.Workflow) {
	t.Helper()
	ids := func(w *workflow.Workflow) []string {
		var s []string
		for _, n := range w.Nodes {
			s = append(s, n.ID)
		}
		sort.Strings(s)
		return s
	}
	if !reflect.DeepEqual(ids(got), ids(want)) {
		t.Fatalf("node ids %v, want %v", ids(got), ids(want))
	}
	if d := versions.Compare(want, got); !d.Empty() {
		t.Fatalf("merged differs: %s", d.Summary())
	}
	for _, n := range want.Nodes {
		if !reflect.DeepEqual(got.NodeByID(n.ID).Position, n.Position) {
			t.Errorf("position of %s", n.Key)
		}
	}
}

func TestPatchMergesIntoTheNewVersion(t *testing.T) {
	old, nw := parse(t, oldWF), parse(t, newWF)
	p := Patch(old, nw)
	if !reflect.DeepEqual(p.RemovedNodeIDs, []string{"e"}) || len(p.AddedNodes) != 1 || p.AddedNodes[0].ID != "n1" ||
		len(p.UpdatedNodes) != 1 || p.UpdatedNodes[0].ID != "b" || len(p.AddedEdges) != 1 || len(p.RemovedEdges) != 0 {
		t.Fatalf("patch %+v", p)
	}
	merged, warnings := assistant.MergePatchIntoWorkflow(old, p)
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	sameGraph(t, merged, nw)
	if Patch(old, old).Empty() != true {
		t.Fatal("no change, empty patch")
	}
}

// A version whose nodes have fresh ids (not made by the planner's
// Replanner) still patches step by step, by key.
func TestPatchMatchesByKey(t *testing.T) {
	old := parse(t, oldWF)
	js := newWF
	for _, id := range []string{"a", "b", "c", "d"} {
		js = strings.ReplaceAll(js, `"`+id+`"`, `"x`+id+`"`)
	}
	nw := parse(t, js)
	p := Patch(old, nw)
	if len(p.UpdatedNodes) != 1 || p.UpdatedNodes[0].ID != "b" || len(p.AddedNodes) != 1 || len(p.RemovedNodeIDs) != 1 {
		t.Fatalf("patch %+v", p)
	}
	merged, warnings := assistant.MergePatchIntoWorkflow(old, p)
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	if d := versions.Compare(nw, merged); !d.Empty() {
		t.Fatalf("merged differs: %s", d.Summary())
	}
	if merged.NodeByKey("check").ID != "a" {
		t.Fatal("kept steps keep the old ids")
	}
}

func TestPatchLoopsAndLabels(t *testing.T) {
	old := parse(t, `{"format":"weft/v1","id":"w","name":"L","nodes":[
 {"id":"l","key":"loop","type":"Loop","params":{"exit_condition":"loop.iteration > 2","max_iterations":5}},
 {"id":"s","key":"step","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}},
 {"id":"e","key":"end","type":"EndLoop","params":{"loop_id":"l"}},
 {"id":"d","key":"done","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
 "edges":[{"from":"l","to":"s","output":{"type":"LoopBody"}},{"from":"s","to":"e"},{"from":"e","to":"l"},{"from":"l","to":"d","output":{"type":"LoopDone"}}]}`)
	// The planner replaced the loop (same key, fresh id) and its EndLoop.
	nw := parse(t, `{"format":"weft/v1","id":"w","name":"L","nodes":[
 {"id":"L2","key":"loop","type":"Loop","params":{"exit_condition":"loop.iteration > 3","max_iterations":5}},
 {"id":"s","key":"step","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}},
 {"id":"E2","key":"end2","type":"EndLoop","params":{"loop_id":"L2"}},
 {"id":"d","key":"done","type":"Tool","params":{"tool":"log","arguments":{"message":"done"}}}],
 "edges":[{"from":"L2","to":"s","output":{"type":"LoopBody"}},{"from":"s","to":"E2"},{"from":"E2","to":"L2"},{"from":"L2","to":"d","output":{"type":"LoopDone"}}]}`)
	p := Patch(old, nw)
	merged, warnings := assistant.MergePatchIntoWorkflow(old, p)
	if len(warnings) != 0 {
		t.Fatalf("warnings %v", warnings)
	}
	if d := versions.Compare(nw, merged); !d.Empty() {
		t.Fatalf("merged differs: %s", d.Summary())
	}
	if merged.NodeByKey("end2").Params.LoopID != "l" {
		t.Fatalf("loop_id %q", merged.NodeByKey("end2").Params.LoopID)
	}
}

func TestPropose(t *testing.T) {
	old, nw := parse(t, oldWF), parse(t, newWF)
	failure.MarkReplanned(nw, failure.ReplanInfo{RunID: "r1", FailedNode: "fetch", Replans: 1})
	prop := Propose(old, nw, nil)
	if !reflect.DeepEqual(prop.Preview.Diff.ModifiedNodeIDs, []string{"b"}) || !reflect.DeepEqual(prop.Preview.Diff.RemovedNodeIDs, []string{"e"}) ||
		!reflect.DeepEqual(prop.Preview.Diff.AddedNodeIDs, []string{"n1"}) {
		t.Fatalf("preview diff %+v", prop.Preview.Diff)
	}
	if prop.Summary != "1 step added (notify); 1 step removed (warn); 1 step modified (fetch: arguments.method, arguments.url); edges: 1 added, 1 removed" {
		t.Fatalf("summary %q", prop.Summary)
	}
	var keys []string
	for _, s := range prop.NeedsApproval {
		keys = append(keys, s.Key)
	}
	// The steps the replan changed or added are the model's, and so is
	// where "ok" leads on IfFalse (warn → notify); "save", kept as the
	// person had it, needs no approval.
	if !reflect.DeepEqual(keys, []string{"fetch", "ok", "notify"}) {
		t.Fatalf("approval %v", keys)
	}
	if prop.Replan == nil || prop.Replan.FailedNode != "fetch" {
		t.Fatalf("replan %+v", prop.Replan)
	}
}

func TestRecord(t *testing.T) {
	store := &versions.Store{Dir: filepath.Join(t.TempDir(), "versions")}
	old, nw := parse(t, oldWF), parse(t, newWF)
	failure.MarkReplanned(nw, failure.ReplanInfo{Replans: 1})
	rec, err := Record(store, old, nw)
	if err != nil || rec.From.N != 1 || rec.To.N != 2 || rec.To.Reason != versions.ReasonReplan || !strings.Contains(rec.To.Summary, "notify") {
		t.Fatalf("record %+v %v", rec, err)
	}
	if info, _ := failure.ReplanInfoOf(nw); info.FromVersion != 1 {
		t.Fatalf("mark %+v", info)
	}
	// The replanned version fails and is replanned again: it is found as
	// the latest version, not saved twice.
	again := parse(t, newWF)
	again.Nodes[1].Params.Arguments["url"] = "https://third.test"
	failure.MarkReplanned(again, failure.ReplanInfo{Replans: 2})
	rec2, err := Record(store, nw, again)
	if err != nil || rec2.From.N != 2 || rec2.To.N != 3 {
		t.Fatalf("record %+v %v", rec2, err)
	}
	d, err := store.CompareVersions("wf", 1, 3)
	if err != nil || len(d.ModifiedNodes) != 1 || d.ModifiedNodes[0].Key != "fetch" {
		t.Fatalf("1→3 %+v %v", d, err)
	}
}
