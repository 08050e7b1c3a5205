package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/reveal"
)

// printChanges writes a change set for the terminal, every value in full:
//
//	~ node 'Clean temp' (clean) Tool
//	    params.arguments.command: "rm -rf /tmp/cache" → "rm -rf ~/"
//
// A value of several lines goes below its field, each line after "│ " so
// leading spaces show. Strings are quoted and JSON values are not, so 5 and
// "5" differ. The description has already escaped what would not show.
func printChanges(w io.Writer, cs assistant.ChangeSet) {
	node := func(op string, n assistant.NodeChange) {
		fmt.Fprintf(w, "  %s node '%s' (%s) %s\n", op, visible(n.Name), visible(n.Key), visible(string(n.Type)))
		for _, f := range n.Fields {
			printField(w, f)
		}
	}
	for _, n := range cs.AddedNodes {
		node("+", n)
	}
	for _, n := range cs.UpdatedNodes {
		node("~", n)
	}
	for _, n := range cs.RemovedNodes {
		node("-", n)
	}
	edge := func(op string, e assistant.EdgeChange) {
		s := visible(e.FromLabel) + " → " + visible(e.ToLabel)
		if e.Output != nil {
			s += " [" + visible(e.Output.String()) + "]"
		}
		fmt.Fprintf(w, "  %s edge %s\n", op, s)
	}
	for _, e := range cs.AddedEdges {
		edge("+", e)
	}
	for _, e := range cs.RemovedEdges {
		edge("-", e)
	}
}

const fieldIndent = "      "

func printField(w io.Writer, f assistant.FieldChange) {
	multi := multiline(f.Old) || multiline(f.New)
	note := ""
	if escaped(f.Old) || escaped(f.New) {
		note = "  (" + reveal.Note + ")"
	}
	switch {
	case !multi && f.Old != nil && f.New != nil:
		fmt.Fprintf(w, "%s%s: %s → %s%s\n", fieldIndent, f.Field, inline(f.Old), inline(f.New), note)
	case !multi:
		v := f.New
		if v == nil {
			v = f.Old
		}
		fmt.Fprintf(w, "%s%s: %s%s\n", fieldIndent, f.Field, inline(v), note)
	case f.Old != nil && f.New != nil:
		fmt.Fprintf(w, "%s%s:%s\n", fieldIndent, f.Field, note)
		fmt.Fprintf(w, "%s  old:\n", fieldIndent)
		block(w, f.Old)
		fmt.Fprintf(w, "%s  new:\n", fieldIndent)
		block(w, f.New)
	default:
		v := f.New
		if v == nil {
			v = f.Old
		}
		fmt.Fprintf(w, "%s%s:%s\n", fieldIndent, f.Field, note)
		block(w, v)
	}
}

func multiline(v *assistant.Value) bool { return v != nil && strings.Contains(v.Text, "\n") }
func escaped(v *assistant.Value) bool   { return v != nil && v.Escaped }

func inline(v *assistant.Value) string {
	switch {
	case v == nil:
		return "(not set)"
	case v.JSON:
		return v.Text
	}
	return `"` + v.Text + `"`
}

func block(w io.Writer, v *assistant.Value) {
	if v == nil {
		fmt.Fprintf(w, "%s    (not set)\n", fieldIndent)
		return
	}
	for _, line := range strings.Split(v.Text, "\n") {
		fmt.Fprintf(w, "%s    │ %s\n", fieldIndent, line)
	}
}
