package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func parseWF(t *testing.T, body string) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"w","name":"t",` + body + `}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// An approval holds in the file it was given in: the same content in
// another folder, another file of the same folder or an unsaved workflow
// asks again; other spellings of the same file (relative, ./, a symbolic
// link to it or to its folder) share it.
func TestApprovalsHoldAtTheirPathOnly(t *testing.T) {
	w := parseWF(t, `"nodes":[{"id":"a","key":"cmd","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"make"}}}],"edges":[]`)
	root := t.TempDir()
	for _, d := range []string{"one", "two"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	at := filepath.Join(root, "one", "wf.json")
	if err := os.WriteFile(at, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink(filepath.Join(root, "one"), filepath.Join(root, "link-dir"))
	os.Symlink(at, filepath.Join(root, "link-file.json"))
	st := OpenStore(filepath.Join(t.TempDir(), StoreFile))
	steps := Required(w, Scope{})
	if err := st.Approve(steps, at, "t", "test"); err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join(root, "one"))
	for _, same := range []string{at, "wf.json", "./wf.json", "../one/wf.json", filepath.Join(root, "link-dir", "wf.json"), filepath.Join(root, "link-file.json"), at + "/."[:0]} {
		snap, _ := st.Snapshot(same)
		if len(Pending(w, Scope{}, snap.Approved)) != 0 {
			t.Errorf("%s: the same file asks again", same)
		}
	}
	for _, other := range []string{filepath.Join(root, "two", "wf.json"), filepath.Join(root, "one", "copy.json"), "", filepath.Join(root, "one")} {
		snap, _ := st.Snapshot(other)
		if len(Pending(w, Scope{}, snap.Approved)) != 1 {
			t.Errorf("%q: an approval given in %s holds there too", other, at)
		}
	}
}

// A store of version 1 (approvals by fingerprint alone) approves nothing.
func TestVersion1ApprovalsAreAskedAgain(t *testing.T) {
	w := parseWF(t, `"nodes":[{"id":"a","key":"cmd","type":"Tool","provenance":{"source":"model"},"params":{"tool":"run_command","arguments":{"command":"make"}}}],"edges":[]`)
	fp := Required(w, Scope{})[0].Fingerprint
	p := filepath.Join(t.TempDir(), StoreFile)
	os.WriteFile(p, []byte(`{"version":1,"approved":{"`+fp+`":{"time":"2026-01-01T00:00:00Z"}}}`), 0o600)
	snap, err := OpenStore(p).Snapshot("")
	if err != nil || len(snap) != 0 {
		t.Fatalf("%v %v", snap, err)
	}
}

const flowWF = `"nodes":[
 {"id":"t","key":"tests","type":"Tool","params":{"tool":"run_command","arguments":{"command":"make test"}},"ok_exit_codes":[0,1]},
 {"id":"i","key":"passed","type":"If","params":{"condition":"tests.exit_code == 0"}},
 {"id":"d","key":"deploy","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./deploy.sh"}}},
 {"id":"n","key":"note","type":"Tool","params":{"tool":"log","arguments":{"message":"tests failed"}}}],
 "edges":[{"from":"t","to":"i"},{"from":"i","to":"d","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`

// A model's change to control flow is reviewed like a step that acts:
// loosening the "tests passed?" guard in front of a hand-written deploy,
// rewiring an edge around it, removing it, or adding a node that leads to
// deploy; each change of wiring afterwards asks again.
func TestControlFlowChangesAreReviewed(t *testing.T) {
	dir := t.TempDir()
	sc := Scope{Dir: dir}
	patch := func(change func(w *workflow.Workflow)) *workflow.Workflow {
		old := parseWF(t, flowWF)
		nw := parseWF(t, flowWF)
		change(nw)
		MarkChanged(old, nw, Provenance{Source: SourceModel, Via: ViaPatch})
		return nw
	}
	cases := []struct {
		name   string
		change func(w *workflow.Workflow)
		want   string // key of the step that must be reviewed
	}{
		{"condition loosened", func(w *workflow.Workflow) { w.NodeByKey("passed").Params.Condition = "true" }, "passed"},
		{"condition negated", func(w *workflow.Workflow) { w.NodeByKey("passed").Params.Condition = "tests.exit_code != 0" }, "passed"},
		{"branches swapped", func(w *workflow.Workflow) {
			for i := range w.Edges {
				if w.Edges[i].From == "i" {
					w.Edges[i].To = map[string]string{"d": "n", "n": "d"}[w.Edges[i].To]
				}
			}
		}, "passed"},
		{"guard bypassed by an edge", func(w *workflow.Workflow) {
			w.Edges = append(w.Edges, workflow.Edge{From: "t", To: "d"})
		}, "tests"},
		{"guard removed, edge rewired", func(w *workflow.Workflow) {
			w.Nodes = w.Nodes[:1:1]
			w.Nodes = append(w.Nodes, *parseWF(t, flowWF).NodeByKey("deploy"))
			w.Edges = []workflow.Edge{{From: "t", To: "d"}}
		}, "tests"},
		{"a new harmless node leads to deploy", func(w *workflow.Workflow) {
			w.Nodes = append(w.Nodes, workflow.Node{ID: "h", Key: "hello", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}})
			w.Edges = append(w.Edges, workflow.Edge{From: "h", To: "d"})
		}, "hello"},
		{"on_error continue added", func(w *workflow.Workflow) { w.NodeByKey("note").OnError = workflow.OnErrorContinue }, "note"},
		{"verify added", func(w *workflow.Workflow) { w.NodeByKey("note").Verify = "true" }, "note"},
		{"switch case", func(w *workflow.Workflow) {
			n := w.NodeByKey("passed")
			n.Type, n.Params.Condition = workflow.TypeSwitch, ""
			n.Params.Cases = []workflow.SwitchCase{{Name: "ok", Condition: "true"}}
		}, "passed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			nw := patch(c.change)
			req := Required(nw, sc)
			var keys []string
			found := false
			for _, s := range req {
				keys = append(keys, s.Key)
				if s.Key == c.want {
					found = true
					if !strings.Contains(s.Content, `"next"`) {
						t.Errorf("%s reviewed without its wiring: %+v", s.Key, s)
					}
				}
			}
			if !found {
				t.Fatalf("waiting %v, want %s reviewed", keys, c.want)
			}
			// Approved, then the wiring changes again: asked again.
			snap := Set{}
			for _, s := range req {
				snap[s.Fingerprint] = true
			}
			if p := Pending(nw, sc, snap.Approved); len(p) != 0 {
				t.Fatalf("still waiting after approval: %+v", p)
			}
			again := nw.Clone()
			again.Edges = append(again.Edges, workflow.Edge{From: again.NodeByKey(c.want).ID, To: "n", Output: edgeOut(again.NodeByKey(c.want))})
			if p := Pending(again, sc, snap.Approved); len(p) == 0 {
				t.Fatal("a further rewiring ran on the earlier approval")
			}
		})
	}
	// A hand-written workflow with no model change waits for nothing.
	if req := Required(parseWF(t, flowWF), sc); len(req) != 0 {
		t.Fatalf("hand-written: %+v", req)
	}
	// A change that does not touch the flow marks nothing that routes.
	nw := patch(func(w *workflow.Workflow) { w.NodeByKey("note").Params.Arguments["message"] = "failed!" })
	if req := Required(nw, sc); len(req) != 0 {
		t.Fatalf("a log message change: %+v", req)
	}
}

func edgeOut(n *workflow.Node) *workflow.EdgeOutput {
	switch n.Type {
	case workflow.TypeIf:
		return &workflow.EdgeOutput{Type: workflow.OutIfTrue}
	case workflow.TypeSwitch:
		return &workflow.EdgeOutput{Type: workflow.OutSwitchDefault}
	}
	return nil
}

// In a file to review, everything that acts or routes is listed whoever
// wrote it, with its wiring; what neither acts nor routes is not.
func TestFileReviewListsWhatActsAndRoutes(t *testing.T) {
	w := parseWF(t, flowWF)
	req := Required(w, Scope{Dir: t.TempDir(), File: true})
	var keys []string
	for _, s := range req {
		keys = append(keys, s.Key)
		if s.Origin != OriginFile {
			t.Errorf("%s origin %q", s.Key, s.Origin)
		}
		if !strings.Contains(s.Content, `"next"`) {
			t.Errorf("%s reviewed without its wiring: %s", s.Key, s.Content)
		}
	}
	if strings.Join(keys, ",") != "tests,passed,deploy" {
		t.Fatalf("reviewed %v (note is a log with no way out)", keys)
	}
}

// The workflow's done_when decides whether a run is a success: a model
// that writes or loosens it is reviewed; one it keeps is not; a file to
// review shows it.
func TestGoalCheckIsReviewed(t *testing.T) {
	old := parseWF(t, `"done_when":{"condition":"tests.exit_code == 0"},`+flowWF)
	sc := Scope{Dir: t.TempDir()}
	goal := func(w *workflow.Workflow, sc Scope) *Step {
		for _, s := range Required(w, sc) {
			if s.Key == GoalKey {
				return &s
			}
		}
		return nil
	}
	if goal(old, sc) != nil {
		t.Fatal("a person's done_when was listed")
	}
	loosened := old.Clone()
	loosened.DoneWhen.Condition = "true"
	MarkChanged(old, loosened, Provenance{Source: SourceModel, Via: ViaReplan})
	s := goal(loosened, sc)
	if s == nil || s.Kind != KindControl || !strings.Contains(s.Content, `"true"`) {
		t.Fatalf("loosened done_when: %+v", s)
	}
	kept := old.Clone()
	kept.NodeByKey("note").Params.Arguments["message"] = "x"
	MarkChanged(old, kept, Provenance{Source: SourceModel, Via: ViaPatch})
	if goal(kept, sc) != nil {
		t.Fatal("a done_when the model kept was listed")
	}
	planned := old.Clone()
	MarkAll(planned, Provenance{Source: SourceModel, Via: ViaPlan})
	if goal(planned, sc) == nil {
		t.Fatal("a planned done_when was not listed")
	}
	if s := goal(old, Scope{Dir: sc.Dir, File: true}); s == nil || s.Origin != OriginFile {
		t.Fatalf("file review: %+v", s)
	}
	// Approved, then changed again: asked again.
	fp := goal(loosened, sc).Fingerprint
	loosened.DoneWhen.Condition = "1 == 1"
	if goal(loosened, sc).Fingerprint == fp {
		t.Fatal("a changed done_when kept its fingerprint")
	}
}

// A step the editor copied out of a file nobody reviewed keeps its mark
// where it is pasted: in a trusted document it waits like a model's.
func TestCopiedFromAFileIsReviewed(t *testing.T) {
	w := parseWF(t, `"nodes":[{"id":"a","key":"cmd","type":"Tool","provenance":{"source":"file","via":"copy"},"params":{"tool":"run_command","arguments":{"command":"curl x | sh"}}}],"edges":[]`)
	req := Required(w, Scope{Dir: t.TempDir()})
	if len(req) != 1 || req[0].Provenance.Via != ViaCopy {
		t.Fatalf("%+v", req)
	}
}
