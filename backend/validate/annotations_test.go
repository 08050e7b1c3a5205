package validate

import (
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// annotated is a valid one-step workflow with a note and a group around
// its step.
func annotated() *workflow.Workflow {
	w := wf(ns(cmd("check", "true")))
	w.Notes = []workflow.Note{{ID: "note1", Text: "Why: <b>{{check.stdout}}</b> && rm -rf /", Size: workflow.Size{Width: 200, Height: 100}, Color: "yellow"}}
	w.Groups = []workflow.Group{{ID: "g1", Title: "Checks", Size: workflow.Size{Width: 300, Height: 200}, Nodes: []string{w.Nodes[0].ID}}}
	return w
}

// Each neighbour of a valid annotated workflow breaks one bound by one
// step and is reported with its code, severity and path; the same value
// at the bound is valid.
func TestAnnotationBounds(t *testing.T) {
	type edit struct {
		name    string
		f       func(w *workflow.Workflow)
		code    string
		sev     Severity
		path    string
		msg     string
		atBound func(w *workflow.Workflow) // nil: no valid neighbour
	}
	note := func(f func(n *workflow.Note)) func(w *workflow.Workflow) {
		return func(w *workflow.Workflow) { f(&w.Notes[0]) }
	}
	group := func(f func(g *workflow.Group)) func(w *workflow.Workflow) {
		return func(w *workflow.Workflow) { f(&w.Groups[0]) }
	}
	notes := func(k int) func(w *workflow.Workflow) {
		return func(w *workflow.Workflow) {
			for i := 1; i < k; i++ {
				n := w.Notes[0]
				n.ID = "x" + strings.Repeat("y", i)
				w.Notes = append(w.Notes, n)
			}
		}
	}
	cases := []edit{
		{"note text too long", note(func(n *workflow.Note) { n.Text = strings.Repeat("é", workflow.MaxNoteText/2) + "x" }), CodeBadNote, SeverityError, "/notes/0", "text is 20001 bytes",
			note(func(n *workflow.Note) { n.Text = strings.Repeat("é", workflow.MaxNoteText/2) })},
		{"note text not UTF-8", note(func(n *workflow.Note) { n.Text = "a\xffb" }), CodeBadNote, SeverityError, "/notes/0", "not valid UTF-8", nil},
		{"group title too long", group(func(g *workflow.Group) { g.Title = strings.Repeat("t", workflow.MaxGroupTitle+1) }), CodeBadGroup, SeverityError, "/groups/0", "title is 201 bytes",
			group(func(g *workflow.Group) { g.Title = strings.Repeat("t", workflow.MaxGroupTitle) })},
		{"too many notes", notes(workflow.MaxNotes + 1), CodeBadNote, SeverityError, "/notes", "501 notes", notes(workflow.MaxNotes)},
		{"note without id", note(func(n *workflow.Note) { n.ID = "" }), CodeBadNote, SeverityError, "/notes/0", "has no id", nil},
		{"note id of a group", note(func(n *workflow.Note) { n.ID = "g1" }), CodeBadGroup, SeverityError, "/groups/0", "also another", nil},
		{"note id of a step", note(func(n *workflow.Note) { n.ID = "check" }), CodeBadNote, SeverityError, "/notes/0", "also another", nil},
		{"note too small", note(func(n *workflow.Note) { n.Size.Width = workflow.MinAnnotationSize - 1 }), CodeBadNote, SeverityError, "/notes/0", "size",
			note(func(n *workflow.Note) { n.Size.Width = workflow.MinAnnotationSize })},
		{"group too large", group(func(g *workflow.Group) { g.Size.Height = workflow.MaxAnnotationSize + 1 }), CodeBadGroup, SeverityError, "/groups/0", "size",
			group(func(g *workflow.Group) { g.Size.Height = workflow.MaxAnnotationSize })},
		{"no size", group(func(g *workflow.Group) { g.Size = workflow.Size{} }), CodeBadGroup, SeverityError, "/groups/0", "size", nil},
		{"NaN size", note(func(n *workflow.Note) { n.Size.Height = math.NaN() }), CodeBadNote, SeverityError, "/notes/0", "size", nil},
		{"far away", note(func(n *workflow.Note) { n.Position.Y = -maxCoordinate - 1 }), CodeBadNote, SeverityError, "/notes/0", "position",
			note(func(n *workflow.Note) { n.Position.Y = -maxCoordinate })},
		{"colour", note(func(n *workflow.Note) { n.Color = "red;background:url(x)" }), CodeBadNote, SeverityError, "/notes/0", "is not one of",
			note(func(n *workflow.Note) { n.Color = "red" })},
		{"unknown member", group(func(g *workflow.Group) { g.Nodes = append(g.Nodes, "gone") }), CodeUnknownGroupMember, SeverityWarning, "/groups/0/nodes/1", "'gone'", nil},
		{"long id cut", group(func(g *workflow.Group) { g.Nodes = []string{strings.Repeat("é", 100)} }), CodeUnknownGroupMember, SeverityWarning, "/groups/0/nodes/0", strings.Repeat("é", maxIDShown/2) + "…'", nil},
	}
	if r := Validate(annotated(), catalog); len(r.Problems) != 0 {
		t.Fatalf("base: %+v", r.Problems)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := annotated()
			c.f(w)
			r := Validate(w, catalog)
			checkResult(t, r)
			var got *Problem
			for i := range r.Problems {
				if r.Problems[i].Code == c.code && r.Problems[i].Path == c.path {
					got = &r.Problems[i]
				}
			}
			if got == nil || got.Severity != c.sev || !strings.Contains(got.Message, c.msg) {
				t.Fatalf("want %s %s at %s with %q; got %+v", c.sev, c.code, c.path, c.msg, r.Problems)
			}
			if c.atBound != nil {
				w := annotated()
				c.atBound(w)
				if r := Validate(w, catalog); len(r.Problems) != 0 {
					t.Fatalf("at the bound: %+v", r.Problems)
				}
			}
		})
	}
}

// Notes and groups are no steps: adding them to any test workflow
// changes nothing else validate says (their text, templates and
// commands included, are never read as a step's).
func TestAnnotationsChangeNothingElse(t *testing.T) {
	for name, w := range loadTestWorkflows(t) {
		before := Validate(w, catalog)
		a := annotated()
		w.Notes, w.Groups = a.Notes, a.Groups
		w.Groups[0].Nodes = nil
		for _, n := range w.Nodes {
			w.Groups[0].Nodes = append(w.Groups[0].Nodes, n.ID)
		}
		if after := Validate(w, catalog); !reflect.DeepEqual(before, after) {
			t.Fatalf("%s: notes and groups changed the problems:\n%+v\n%+v", name, before.Problems, after.Problems)
		}
	}
}

// loadTestWorkflows loads every test workflow (valid and invalid ones),
// by file name.
func loadTestWorkflows(t *testing.T) map[string]*workflow.Workflow {
	t.Helper()
	out := map[string]*workflow.Workflow{}
	for _, pattern := range []string{"*.json", "valid/*.json", "invalid/*.json"} {
		paths, _ := filepath.Glob(filepath.Join(workflowsDir, pattern))
		for _, p := range paths {
			if w, _, err := workflow.Load(p); err == nil && len(w.Nodes) > 0 {
				out[p] = w
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("only %d test workflows", len(out))
	}
	return out
}
