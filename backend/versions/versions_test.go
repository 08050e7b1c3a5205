package versions

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

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

const v1 = `{"format":"weft/v1","id":"wf-1","name":"Notes","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f notes.txt"}},"position":{"x":0,"y":0}},
 {"id":"b","key":"exists","name":"Exists?","type":"If","params":{"condition":"check.exit_code == 0"}},
 {"id":"c","key":"read","name":"Read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"notes.txt"}}},
 {"id":"d","key":"create","name":"Create","type":"Tool","params":{"tool":"write_file","arguments":{"path":"notes.txt","content":"# Notes"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c","output":{"type":"IfTrue"}},{"from":"b","to":"d","output":{"type":"IfFalse"}}]}`

// v2 moves check, changes read's path and create's retry, removes nothing,
// adds a log step after read.
const v2 = `{"format":"weft/v1","id":"wf-1","name":"Notes","nodes":[
 {"id":"a","key":"check","name":"Check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f notes.txt"}},"position":{"x":100,"y":50}},
 {"id":"b","key":"exists","name":"Exists?","type":"If","params":{"condition":"check.exit_code == 0"}},
 {"id":"c","key":"read","name":"Read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"docs/notes.txt"}}},
 {"id":"d","key":"create","name":"Create","type":"Tool","params":{"tool":"write_file","arguments":{"path":"notes.txt","content":"# Notes"}},"retry":{"max_attempts":3}},
 {"id":"e","key":"show","name":"Show","type":"Tool","params":{"tool":"log","arguments":{"message":"{{read.content}}"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c","output":{"type":"IfTrue"}},{"from":"b","to":"d","output":{"type":"IfFalse"}},{"from":"c","to":"e"}]}`

func TestCompare(t *testing.T) {
	d := Compare(parse(t, v1), parse(t, v2))
	if len(d.AddedNodes) != 1 || d.AddedNodes[0].Key != "show" || d.AddedNodes[0].Tool != "log" {
		t.Errorf("added %+v", d.AddedNodes)
	}
	if len(d.RemovedNodes) != 0 {
		t.Errorf("removed %+v", d.RemovedNodes)
	}
	var mods []string
	for _, m := range d.ModifiedNodes {
		mods = append(mods, m.Key+":"+strings.Join(m.Fields, ","))
	}
	if !reflect.DeepEqual(mods, []string{"read:arguments.path", "create:retry"}) {
		t.Errorf("modified %v (a move alone is not a change)", mods)
	}
	if len(d.AddedEdges) != 1 || d.AddedEdges[0].FromKey != "read" || d.AddedEdges[0].ToKey != "show" || len(d.RemovedEdges) != 0 {
		t.Errorf("edges +%+v -%+v", d.AddedEdges, d.RemovedEdges)
	}
	if got := d.Summary(); got != "1 step added (show); 2 steps modified (read: arguments.path; create: retry); edges: 1 added" {
		t.Errorf("summary %q", got)
	}
	if got := strings.Join(d.Lines(), "\n"); !strings.Contains(got, "+ step show (log)") || !strings.Contains(got, "~ step read (read_file): arguments.path") || !strings.Contains(got, "+ edge read → show") {
		t.Errorf("lines:\n%s", got)
	}

	// The reverse direction removes what was added.
	r := Compare(parse(t, v2), parse(t, v1))
	if len(r.RemovedNodes) != 1 || r.RemovedNodes[0].Key != "show" || len(r.RemovedEdges) != 1 || len(r.AddedNodes) != 0 {
		t.Errorf("reverse %+v", r)
	}
	if !Compare(parse(t, v1), parse(t, v1)).Empty() || Compare(parse(t, v1), parse(t, v1)).Summary() != "no changes" {
		t.Error("a version compared with itself must be empty")
	}
}

// A version made by the planner has fresh node ids: nodes match by key,
// and edges between matched nodes are not reported as changed.
func TestCompareMatchesByKey(t *testing.T) {
	a := parse(t, v1)
	b := parse(t, v1)
	for i := range b.Nodes {
		b.Nodes[i].ID = "new-" + b.Nodes[i].ID
	}
	for i := range b.Edges {
		b.Edges[i].From, b.Edges[i].To = "new-"+b.Edges[i].From, "new-"+b.Edges[i].To
	}
	b.Nodes[0].Params.Arguments["command"] = "test -e notes.txt"
	b.Nodes[0].Params.Arguments["timeout_ms"] = 500.0
	d := Compare(a, b)
	if len(d.AddedNodes)+len(d.RemovedNodes)+len(d.AddedEdges)+len(d.RemovedEdges) != 0 || len(d.ModifiedNodes) != 1 {
		t.Fatalf("diff %+v", d)
	}
	m := d.ModifiedNodes[0]
	if m.Key != "check" || m.ID != "new-a" || m.OldID != "a" || !reflect.DeepEqual(m.Fields, []string{"arguments.command", "arguments.timeout_ms"}) {
		t.Fatalf("modified %+v", m)
	}
	// A changed output label is a removed and an added edge.
	b.Edges[1].Output = &workflow.EdgeOutput{Type: workflow.OutIfFalse}
	b.Edges[2].Output = &workflow.EdgeOutput{Type: workflow.OutIfTrue}
	d = Compare(a, b)
	if len(d.AddedEdges) != 2 || len(d.RemovedEdges) != 2 || d.AddedEdges[0].Output.Type != workflow.OutIfFalse {
		t.Fatalf("edges +%+v -%+v", d.AddedEdges, d.RemovedEdges)
	}
}

func TestCompareFields(t *testing.T) {
	base := `{"format":"weft/v1","id":"w","name":"L","nodes":[
 {"id":"l","key":"loop","type":"Loop","params":{"exit_condition":"loop.iteration > 2","max_iterations":5}},
 {"id":"s","key":"step","type":"AiStep","params":{"prompt":"p","allowed_tools":["read_file"]}},
 {"id":"e","key":"end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"l","to":"s","output":{"type":"LoopBody"}},{"from":"s","to":"e"},{"from":"e","to":"l"}]}`
	a := parse(t, base)
	b := parse(t, base)
	b.Name = "L2"
	b.Nodes[0].Params.ExitCondition = "loop.iteration > 3"
	b.Nodes[1].Params.AllowedTools = []string{"read_file", "write_file"}
	b.Nodes[1].SetEnabled(false)
	b.Nodes[1].TimeoutMs = 100
	b.Nodes[1].Verify = "step.success"
	d := Compare(a, b)
	got := map[string][]string{}
	for _, m := range d.ModifiedNodes {
		got[m.Key] = m.Fields
	}
	want := map[string][]string{"loop": {"exit_condition"}, "step": {"allowed_tools", "enabled", "timeout_ms", "verify"}}
	if !reflect.DeepEqual(got, want) || d.Name == nil || d.Name.To != "L2" {
		t.Fatalf("got %v name %+v", got, d.Name)
	}
	// Re-pointing an EndLoop at an equivalent Loop with a new id is no change.
	c := parse(t, strings.ReplaceAll(base, `"l"`, `"l2"`))
	if d := Compare(a, c); !d.Empty() {
		t.Fatalf("diff %+v", d)
	}
}

func newStore(t *testing.T) *Store {
	t.Helper()
	clock := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	return &Store{Dir: filepath.Join(t.TempDir(), "versions"), Now: func() time.Time { clock = clock.Add(time.Second); return clock }}
}

func TestSaveListLoad(t *testing.T) {
	s := newStore(t)
	if list, err := s.List("wf-1"); err != nil || len(list) != 0 || list == nil {
		t.Fatalf("empty store: %v %v", list, err)
	}
	a, b := parse(t, v1), parse(t, v2)
	va, err := s.Save(a, ReasonManual)
	if err != nil || va.N != 1 || va.Reason != ReasonManual || va.Summary != "first version: 4 steps" || va.Nodes != 4 || va.Name != "Notes" {
		t.Fatalf("v1 %+v %v", va, err)
	}
	// Saving the same content again makes no new version.
	if again, err := s.Save(parse(t, v1), ReasonManual); err != nil || again.N != 1 {
		t.Fatalf("again %+v %v", again, err)
	}
	vb, err := s.Save(b, ReasonReplan)
	if err != nil || vb.N != 2 || vb.Reason != ReasonReplan || !strings.HasPrefix(vb.Summary, "1 step added (show)") {
		t.Fatalf("v2 %+v %v", vb, err)
	}
	vc, err := s.SaveWithSummary(a, ReasonAssistant, "undo the replan")
	if err != nil || vc.N != 3 || vc.Summary != "undo the replan" {
		t.Fatalf("v3 %+v %v", vc, err)
	}
	list, err := s.List("wf-1")
	if err != nil || len(list) != 3 {
		t.Fatalf("list %+v %v", list, err)
	}
	if list[0].N != 1 || list[1].N != 2 || list[2].N != 3 || list[2].Reason != ReasonAssistant || !list[1].Time.After(list[0].Time) {
		t.Fatalf("list %+v", list)
	}
	got, err := s.Load("wf-1", 2)
	if err != nil || len(got.Nodes) != 5 || got.NodeByKey("show") == nil {
		t.Fatalf("load %v", err)
	}
	// The file is a plain workflow file.
	if _, _, err := workflow.Load(filepath.Join(s.Dir, "wf-1", "v2.json")); err != nil {
		t.Fatal(err)
	}
	d, err := s.CompareVersions("wf-1", 1, 3)
	if err != nil || !d.Empty() {
		t.Fatalf("v1 vs v3: %+v %v", d, err)
	}
	if _, err := s.Load("wf-1", 9); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing: %v", err)
	}
	if latest, ok, err := s.Latest("wf-1"); err != nil || !ok || latest.N != 3 {
		t.Fatalf("latest %+v %v %v", latest, ok, err)
	}
	// Another workflow has its own numbers.
	other := parse(t, v1)
	other.ID = "wf-2"
	if v, err := s.Save(other, ReasonManual); err != nil || v.N != 1 {
		t.Fatalf("other %+v %v", v, err)
	}
}

func TestCorruptFilesAreMovedAside(t *testing.T) {
	s := newStore(t)
	for _, js := range []string{v1, v2} {
		if _, err := s.Save(parse(t, js), ReasonManual); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(s.Dir, "wf-1")

	// A corrupt index is moved aside and rebuilt from the version files.
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, err := s.List("wf-1")
	if err != nil || len(list) != 2 || list[0].Reason != ReasonUnknown || list[1].Nodes != 5 {
		t.Fatalf("rebuilt %+v %v", list, err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "index.json.corrupt-*")); len(m) != 1 {
		t.Fatalf("index not moved aside: %v", m)
	}

	// A corrupt version is moved aside; the others still load, and its
	// number is never reused.
	if err := os.WriteFile(filepath.Join(dir, "v2.json"), []byte(`{"format":"weft/v1","nodes":`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("wf-1", 2); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupt: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "v2.json.corrupt-*")); len(m) != 1 {
		t.Fatalf("v2 not moved aside: %v", m)
	}
	if _, err := s.Load("wf-1", 1); err != nil {
		t.Fatal(err)
	}
	list, err = s.List("wf-1")
	if err != nil || len(list) != 1 || list[0].N != 1 {
		t.Fatalf("after corrupt v2: %+v %v", list, err)
	}
	v, err := s.Save(parse(t, v2), ReasonReplan)
	if err != nil || v.N != 3 {
		t.Fatalf("next %+v %v", v, err)
	}
}

func TestUnindexedAndClaimedFiles(t *testing.T) {
	s := newStore(t)
	if _, err := s.Save(parse(t, v1), ReasonManual); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(s.Dir, "wf-1")
	// Another process wrote v2 but not the index, and is claiming v3.
	data, _ := os.ReadFile(filepath.Join(dir, "v1.json"))
	os.WriteFile(filepath.Join(dir, "v2.json"), data, 0o644)
	os.WriteFile(filepath.Join(dir, "v3.json"), nil, 0o644)
	list, err := s.List("wf-1")
	if err != nil || len(list) != 2 || list[1].N != 2 || list[1].Reason != ReasonUnknown {
		t.Fatalf("list %+v %v", list, err)
	}
	v, err := s.Save(parse(t, v2), ReasonReplan)
	if err != nil || v.N != 4 {
		t.Fatalf("save %+v %v", v, err)
	}
}

func TestUnsafeIDs(t *testing.T) {
	s := newStore(t)
	w := parse(t, v1)
	w.ID = "../../etc"
	v, err := s.Save(w, ReasonManual)
	if err != nil || v.N != 1 {
		t.Fatal(v, err)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 || !strings.HasPrefix(entries[0].Name(), "id-") {
		t.Fatalf("entries %v", entries)
	}
	if list, err := s.List("../../etc"); err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	w.ID = ""
	if _, err := s.Save(w, ReasonManual); err == nil {
		t.Fatal("a workflow without an id cannot be versioned")
	}
}

func TestDefaultStoreFollowsXDG(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	if _, err := Save(parse(t, v1), ReasonManual); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "weft", "versions", "wf-1", "v1.json")); err != nil {
		t.Fatal(err)
	}
	if list, err := List("wf-1"); err != nil || len(list) != 1 {
		t.Fatal(list, err)
	}
	if w, err := Load("wf-1", 1); err != nil || w.Name != "Notes" {
		t.Fatal(err)
	}
}
