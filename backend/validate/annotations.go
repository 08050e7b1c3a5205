package validate

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/weft-dev/weft/backend/workflow"
)

// Added with issue 28 (sticky notes and groups on the canvas): a note or
// group the editor could not show as written (no or a repeated id, text
// or title past its bound, too many, a size out of bounds, a colour that
// is not one of workflow.Colors) is an error, as any bound a file breaks
// is; a group that names a node the workflow does not have is a warning
// (it frames the others; a node deleted in the editor leaves its groups).
// Problem.Path is the JSON pointer of the note, group or member.
const (
	CodeBadNote            = "bad_note"
	CodeBadGroup           = "bad_group"
	CodeUnknownGroupMember = "unknown_group_member"
)

// maxIDShown bounds an id quoted in a message (ids are not bounded).
const maxIDShown = 64

// annotation is what checkAnnotations reads of a note or a group.
type annotation struct {
	kind, code, field  string // "note", bad_note, "notes"
	id, text, textName string
	maxText            int
	size               workflow.Size
	pos                workflow.Position
	color              string
}

func (v *validator) checkAnnotations() {
	if v.w == nil || len(v.w.Notes)+len(v.w.Groups) == 0 {
		return
	}
	seen := map[string]bool{}
	if n := len(v.w.Notes); n > workflow.MaxNotes {
		v.addAt(CodeBadNote, SeverityError, fmt.Sprintf("The workflow has %d notes; at most %d are allowed", n, workflow.MaxNotes), "/notes")
	}
	if n := len(v.w.Groups); n > workflow.MaxGroups {
		v.addAt(CodeBadGroup, SeverityError, fmt.Sprintf("The workflow has %d groups; at most %d are allowed", n, workflow.MaxGroups), "/groups")
	}
	for i, n := range v.w.Notes {
		v.checkAnnotation(i, annotation{kind: "note", code: CodeBadNote, field: "notes", id: n.ID, text: n.Text, textName: "text",
			maxText: workflow.MaxNoteText, size: n.Size, pos: n.Position, color: n.Color}, seen)
	}
	for i, g := range v.w.Groups {
		v.checkAnnotation(i, annotation{kind: "group", code: CodeBadGroup, field: "groups", id: g.ID, text: g.Title, textName: "title",
			maxText: workflow.MaxGroupTitle, size: g.Size, pos: g.Position, color: g.Color}, seen)
		for j, id := range g.Nodes {
			if _, ok := v.idx.lookup(id); !ok {
				v.addAt(CodeUnknownGroupMember, SeverityWarning,
					fmt.Sprintf("The group %s lists the node %s, which the workflow does not have; it is left out of the frame", shownID(g.ID), shownID(id)),
					fmt.Sprintf("/groups/%d/nodes/%d", i, j))
			}
		}
	}
}

// checkAnnotation checks one note or group (the i-th of its list); seen
// holds the ids of the notes and groups before it.
func (v *validator) checkAnnotation(i int, a annotation, seen map[string]bool) {
	at := fmt.Sprintf("/%s/%d", a.field, i)
	bad := func(format string, args ...any) {
		v.addAt(a.code, SeverityError, fmt.Sprintf("The %s %s: ", a.kind, shownID(a.id))+fmt.Sprintf(format, args...), at)
	}
	switch _, step := v.idx.lookup(a.id); {
	case a.id == "":
		v.addAt(a.code, SeverityError, fmt.Sprintf("The %s at %s has no id", a.kind, a.field+fmt.Sprintf("[%d]", i)), at)
	case seen[a.id] || step:
		bad("its id is also another note's, group's or node's; give it its own")
	}
	seen[a.id] = true
	if len(a.text) > a.maxText {
		bad("its %s is %d bytes long; at most %d are allowed", a.textName, len(a.text), a.maxText)
	} else if !utf8.ValidString(a.text) {
		bad("its %s is not valid UTF-8", a.textName)
	}
	for _, d := range []float64{a.size.Width, a.size.Height} {
		if math.IsNaN(d) || d < workflow.MinAnnotationSize || d > workflow.MaxAnnotationSize {
			bad("its size must be %d to %d pixels each way, not %v × %v", workflow.MinAnnotationSize, workflow.MaxAnnotationSize, a.size.Width, a.size.Height)
			break
		}
	}
	if math.Abs(a.pos.X) > maxCoordinate || math.Abs(a.pos.Y) > maxCoordinate {
		bad("its position is more than %g pixels from the origin", float64(maxCoordinate))
	}
	if !workflow.ValidColor(a.color) {
		bad("its color %s is not one of %s", shownID(a.color), strings.Join(workflow.Colors, ", "))
	}
}

// maxCoordinate bounds where a note or group may sit: far past any canvas.
const maxCoordinate = 1e7

// shownID quotes an id for a message, cut to maxIDShown bytes.
func shownID(id string) string {
	if len(id) > maxIDShown {
		cut := maxIDShown
		for cut > 0 && !utf8.RuneStart(id[cut]) {
			cut--
		}
		id = id[:cut] + "…"
	}
	return q(id)
}

// addAt adds a problem about no node, at the JSON pointer path.
func (v *validator) addAt(code string, sev Severity, msg, path string) {
	v.add(code, sev, msg, nil)
	v.probs[len(v.probs)-1].Path = path
}
