package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestReplanPatchKeepsTheLayout(t *testing.T) {
	old := workflow.New("x")
	old.Nodes = []workflow.Node{
		{ID: "a", Key: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "a"}}, Position: &workflow.Position{X: 100, Y: 100}},
		{ID: "b", Key: "b", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "b"}}, Position: &workflow.Position{X: 400, Y: 100}},
	}
	old.Edges = []workflow.Edge{{From: "a", To: "b"}}
	nw := old.Clone()
	// The planner laid everything out again: b changed, c is new after b.
	nw.Nodes[0].Position = &workflow.Position{X: 0, Y: 0}
	nw.Nodes[1].Position = &workflow.Position{X: 0, Y: 200}
	nw.Nodes[1].Params.Arguments = map[string]any{"message": "B"}
	nw.Nodes = append(nw.Nodes, workflow.Node{ID: "c", Key: "c", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "c"}}, Position: &workflow.Position{X: 0, Y: 400}})
	nw.Edges = append(nw.Edges, workflow.Edge{From: "b", To: "c"})
	p := replanPatch(old, nw)
	if len(p.UpdatedNodes) != 1 || *p.UpdatedNodes[0].Position != (workflow.Position{X: 400, Y: 100}) {
		t.Fatalf("updated = %+v", p.UpdatedNodes)
	}
	if len(p.AddedNodes) != 1 || *p.AddedNodes[0].Position != (workflow.Position{X: 400, Y: 300}) {
		t.Fatalf("added at %+v, want beside b as the planner placed it", p.AddedNodes[0].Position)
	}
	if nw.Nodes[2].Position.Y != 400 {
		t.Fatal("the planner's workflow was changed")
	}
}

func TestLayoutShift(t *testing.T) {
	pos := func(x, y float64) *workflow.Position { return &workflow.Position{X: x, Y: y} }
	node := func(id string, p *workflow.Position) workflow.Node {
		return workflow.Node{ID: id, Key: id, Type: workflow.TypeTool, Params: workflow.Params{Tool: "log"}, Position: p}
	}
	cases := []struct {
		name string
		old  []workflow.Node
		nw   []workflow.Node
		e    []workflow.Edge
		want map[string]workflow.Position
	}{
		{name: "no kept neighbour", old: []workflow.Node{node("a", pos(0, 0))}, nw: []workflow.Node{node("x", pos(5, 5))}, want: map[string]workflow.Position{}},
		{name: "chain of new nodes follows the kept one", old: []workflow.Node{node("a", pos(100, 0))},
			nw:   []workflow.Node{node("a", pos(0, 0)), node("x", pos(0, 100)), node("y", pos(0, 200))},
			e:    []workflow.Edge{{From: "a", To: "x"}, {From: "x", To: "y"}},
			want: map[string]workflow.Position{"x": {X: 100}, "y": {X: 100}}},
		{name: "kept node without a position", old: []workflow.Node{node("a", nil)},
			nw: []workflow.Node{node("a", pos(0, 0)), node("x", pos(0, 100))}, e: []workflow.Edge{{From: "a", To: "x"}},
			want: map[string]workflow.Position{}},
		{name: "a cycle ends", old: []workflow.Node{node("a", pos(10, 10))},
			nw:   []workflow.Node{node("a", pos(0, 0)), node("x", nil), node("y", nil)},
			e:    []workflow.Edge{{From: "x", To: "y"}, {From: "y", To: "x"}, {From: "y", To: "a"}},
			want: map[string]workflow.Position{"x": {X: 10, Y: 10}, "y": {X: 10, Y: 10}}},
		{name: "edges to nodes that do not exist", old: []workflow.Node{node("a", pos(1, 1))},
			nw: []workflow.Node{node("a", pos(0, 0))}, e: []workflow.Edge{{From: "a", To: "ghost"}, {From: "", To: ""}},
			want: map[string]workflow.Position{"ghost": {X: 1, Y: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			old := &workflow.Workflow{Nodes: c.old}
			nw := &workflow.Workflow{Nodes: c.nw, Edges: c.e}
			got := layoutShift(old, nw)
			if len(got) != len(c.want) {
				t.Fatalf("layoutShift = %v, want %v", got, c.want)
			}
			for id, p := range c.want {
				if got[id] != p {
					t.Errorf("%s: %v, want %v", id, got[id], p)
				}
			}
		})
	}
}

func TestReplannedPath(t *testing.T) {
	for in, want := range map[string]string{
		"/w/notes.json":              "/w/notes.replanned-v3.json",
		"/w/notes.replanned-v2.json": "/w/notes.replanned-v3.json",
		"/w/notes":                   "/w/notes.replanned-v3.json",
		"/w/notes.JSON":              "/w/notes.replanned-v3.json",
		"/w/notes.replanned.json":    "/w/notes.replanned-v3.json",
		"/w/notes.weft.json":         "/w/notes.weft.replanned-v3.json",
	} {
		if got := ReplannedPath(in, 3); got != want {
			t.Errorf("ReplannedPath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := ReplannedPath("/w/a.json", 0); got != "/w/a.replanned.json" {
		t.Errorf("unnumbered: %q", got)
	}
}

func TestSaveReplanned(t *testing.T) {
	svc := testService(t, nil)
	old, path := runFile(t, "wf-save", [2]string{"one", "false"})
	nw := old.Clone()
	nw.Nodes[0].Params.Arguments["command"] = "true"
	failure.MarkReplanned(nw, failure.ReplanInfo{RunID: "r", FailedNode: "one", Replans: 1})

	got := svc.SaveReplanned(context.Background(), path, old, nw)
	if got.RecordErr != nil || got.WriteErr != nil || got.Version != 2 || got.FromVersion != 1 {
		t.Fatalf("SaveReplanned = %+v", got)
	}
	if want := filepath.Join(filepath.Dir(path), "wf-save.replanned-v2.json"); got.File != want {
		t.Fatalf("file %q, want %q", got.File, want)
	}
	saved, _, err := workflow.Load(got.File)
	if err != nil {
		t.Fatal(err)
	}
	if info, ok := failure.ReplanInfoOf(saved); !ok || info.FromVersion != 1 {
		t.Fatalf("saved mark %+v", info)
	}
	if len(got.Proposal.NeedsApproval) != 1 || got.Proposal.Summary == "" {
		t.Fatalf("proposal %+v", got.Proposal)
	}

	// Failures are reported, not returned: no store, an unwritable place.
	broken := testService(t, func(d *Deps) {
		d.Versions = func() (*versions.Store, error) { return nil, os.ErrPermission }
	})
	bad := broken.SaveReplanned(context.Background(), filepath.Join(path, "under-a-file", "x.json"), old, nw)
	if bad.RecordErr == nil || !errors.Is(bad.RecordErr, os.ErrPermission) || bad.WriteErr == nil || bad.File != "" {
		t.Fatalf("SaveReplanned into nowhere = %+v", bad)
	}
	if none := broken.SaveReplanned(context.Background(), path, nil, nw); none.RecordErr == nil {
		t.Fatal("SaveReplanned without the old workflow did not complain")
	}
}
