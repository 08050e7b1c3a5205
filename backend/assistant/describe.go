package assistant

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/reveal"
	"github.com/weft-dev/weft/backend/workflow"
)

// ChangeSet describes a patch against the workflow it applies to, value by
// value, so a review shows what will run and not only which nodes move: a
// node whose command became `rm -rf ~/` shows the old and the new command.
// It is computed from the merge's result (Describe), so it describes what
// applying does, never what the model said it would do. Values are never
// shortened.
type ChangeSet struct {
	AddedNodes   []NodeChange `json:"added_nodes"`
	RemovedNodes []NodeChange `json:"removed_nodes"`
	UpdatedNodes []NodeChange `json:"updated_nodes"`
	AddedEdges   []EdgeChange `json:"added_edges"`
	RemovedEdges []EdgeChange `json:"removed_edges"`
}

// NodeChange is one node the patch adds, removes or updates. Fields holds,
// for an added node, every field it will have (New only); for a removed
// node, every field it had (Old only); for an updated node, each field that
// changes (Old and New, or one of them when the field appears or goes).
// The node's id and canvas position are not fields; its key, name and type
// are fields only when an update changes them.
type NodeChange struct {
	ID     string            `json:"id"`
	Key    string            `json:"key"`
	Name   string            `json:"name"`
	Type   workflow.NodeType `json:"type"`
	Fields []FieldChange     `json:"fields"`
}

// FieldChange is one field of a node, named by its path in the workflow
// file: "name", "params.tool", "params.arguments.command",
// `params.arguments["a.b"]`. Old is nil when the field was not set, New
// when it will not be.
type FieldChange struct {
	Field string `json:"field"`
	Old   *Value `json:"old"`
	New   *Value `json:"new"`
}

// Value is a field's value in full, for display.
type Value struct {
	// Text is a string value as it is (several lines stay several lines),
	// or any other value as indented JSON.
	Text string `json:"text"`
	// JSON is true when Text is JSON (a number, boolean, list, object or
	// null), false when it is a string: 5 and "5" look different.
	JSON bool `json:"json,omitempty"`
	// Escaped is true when the value holds characters that would not show
	// on screen (control characters other than newline and tab, bidi
	// overrides, zero-width and other non-printing characters). Text then
	// writes them as escapes (package reveal) and, for a string, a
	// backslash as \\, so that what is shown is what will run.
	Escaped bool `json:"escaped,omitempty"`
}

// EdgeChange is one edge the patch adds or removes, with the labels of its
// ends ("'Download' (download)").
type EdgeChange struct {
	From      string               `json:"from"`
	To        string               `json:"to"`
	FromLabel string               `json:"from_label"`
	ToLabel   string               `json:"to_label"`
	Output    *workflow.EdgeOutput `json:"output,omitempty"`
}

// Describe merges p into w with the one merge and describes the result
// against w. The merge's own warnings are PreviewPatch's business.
func Describe(w *workflow.Workflow, p *WorkflowPatch) ChangeSet {
	merged, _ := MergePatchIntoWorkflow(w, p)
	return DescribeChanges(w, merged)
}

// DescribeChanges compares a workflow with its merged version (after must
// come from MergePatchIntoWorkflow(before, …), so that what is described is
// what is applied). Like DiffForPreview, a node that only moved is not
// updated.
func DescribeChanges(before, after *workflow.Workflow) ChangeSet {
	cs := ChangeSet{AddedNodes: []NodeChange{}, RemovedNodes: []NodeChange{}, UpdatedNodes: []NodeChange{},
		AddedEdges: []EdgeChange{}, RemovedEdges: []EdgeChange{}}
	old := make(map[string]*workflow.Node, len(before.Nodes))
	for i := range before.Nodes {
		if _, dup := old[before.Nodes[i].ID]; !dup {
			old[before.Nodes[i].ID] = &before.Nodes[i]
		}
	}
	seen := make(map[string]bool, len(after.Nodes))
	for i := range after.Nodes {
		n := &after.Nodes[i]
		seen[n.ID] = true
		o, ok := old[n.ID]
		switch {
		case !ok:
			cs.AddedNodes = append(cs.AddedNodes, wholeNode(n, false))
		case !sameNode(o, n):
			cs.UpdatedNodes = append(cs.UpdatedNodes, updatedNode(o, n))
		}
	}
	for i := range before.Nodes {
		if !seen[before.Nodes[i].ID] {
			cs.RemovedNodes = append(cs.RemovedNodes, wholeNode(&before.Nodes[i], true))
		}
	}
	d := DiffForPreview(before, after)
	for _, e := range d.AddedEdges {
		cs.AddedEdges = append(cs.AddedEdges, edgeChange(e, after, before))
	}
	for _, e := range d.RemovedEdges {
		cs.RemovedEdges = append(cs.RemovedEdges, edgeChange(e, before, after))
	}
	return cs
}

func header(n *workflow.Node) NodeChange {
	return NodeChange{ID: n.ID, Key: n.Key, Name: n.Name, Type: n.Type, Fields: []FieldChange{}}
}

// wholeNode lists every field of an added (removed=false) or removed node.
func wholeNode(n *workflow.Node, removed bool) NodeChange {
	c := header(n)
	for _, f := range nodeFields(n) {
		switch f.path {
		case "key", "name", "type":
			continue // in the header
		}
		v := valueOf(f.raw)
		fc := FieldChange{Field: f.path}
		if removed {
			fc.Old = &v
		} else {
			fc.New = &v
		}
		c.Fields = append(c.Fields, fc)
	}
	return c
}

// updatedNode lists the fields that differ, in the new node's order and
// then the fields the update drops.
func updatedNode(o, n *workflow.Node) NodeChange {
	c := header(n)
	was := nodeFields(o)
	is := nodeFields(n)
	oldBy := make(map[string]json.RawMessage, len(was))
	for _, f := range was {
		oldBy[f.path] = f.raw
	}
	newBy := make(map[string]bool, len(is))
	for _, f := range is {
		newBy[f.path] = true
		prev, had := oldBy[f.path]
		if had && bytes.Equal(prev, f.raw) {
			continue
		}
		v := valueOf(f.raw)
		fc := FieldChange{Field: f.path, New: &v}
		if had {
			pv := valueOf(prev)
			fc.Old = &pv
		}
		c.Fields = append(c.Fields, fc)
	}
	for _, f := range was {
		if !newBy[f.path] {
			v := valueOf(f.raw)
			c.Fields = append(c.Fields, FieldChange{Field: f.path, Old: &v})
		}
	}
	return c
}

func edgeChange(e workflow.Edge, w, other *workflow.Workflow) EdgeChange {
	label := func(id string) string {
		n := w.NodeByID(id)
		if n == nil {
			n = other.NodeByID(id)
		}
		if n == nil {
			return id
		}
		return fmt.Sprintf("'%s' (%s)", n.Label(), n.Key)
	}
	ec := EdgeChange{From: e.From, To: e.To, FromLabel: label(e.From), ToLabel: label(e.To)}
	if e.Output != nil {
		o := *e.Output
		ec.Output = &o
	}
	return ec
}

// field is one leaf of a node's JSON, with its path.
type field struct {
	path string
	raw  json.RawMessage
}

// nodeFields flattens a node as it is saved (unknown fields included, in
// the file's order): top-level fields, params one level down and each tool
// argument on its own, so an argument change is one line of the review.
// The id, the position and the provenance mark (who wrote the step, not
// what it does; the merge sets it on what it changes) are left out.
func nodeFields(n *workflow.Node) []field {
	raw, err := json.Marshal(n)
	if err != nil {
		// A node that cannot be encoded cannot be saved either; say so
		// rather than describe it as empty.
		return []field{{path: "(node)", raw: mustString("cannot encode the node: " + err.Error())}}
	}
	var out []field
	for _, top := range orderedObject(raw) {
		switch top.path {
		case "id", "position", approval.ProvenanceKey:
			continue
		case "params":
			for _, p := range orderedObject(top.raw) {
				path := "params" + pathPart(p.path)
				if p.path == "arguments" && isObject(p.raw) {
					for _, a := range orderedObject(p.raw) {
						out = append(out, field{path: path + pathPart(a.path), raw: a.raw})
					}
					continue
				}
				out = append(out, field{path: path, raw: p.raw})
			}
			continue
		}
		out = append(out, field{path: strings.TrimPrefix(pathPart(top.path), "."), raw: top.raw})
	}
	return out
}

func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

// orderedObject returns an object's members in the order they are written.
// Not an object (or broken JSON, which json.Marshal does not produce):
// nothing.
func orderedObject(raw json.RawMessage) []field {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, field{path: k, raw: v})
	}
	return out
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// pathPart is ".name", or `["a.b"]` for a key a dot would make ambiguous.
func pathPart(k string) string {
	if identRe.MatchString(k) {
		return "." + k
	}
	b, _ := json.Marshal(k)
	s, _ := reveal.JSON(string(b))
	return "[" + s + "]"
}

// valueOf renders a JSON value for review: a string as itself, anything
// else as indented JSON without HTML escaping (so && stays &&).
func valueOf(raw json.RawMessage) Value {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		t, esc := reveal.Text(s)
		return Value{Text: t, Escaped: esc}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // 1e400 or 12345678901234567890 stay as written
	var v any
	text := string(raw)
	if err := dec.Decode(&v); err == nil {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if enc.Encode(v) == nil {
			text = strings.TrimSuffix(b.String(), "\n")
		}
	}
	// JSON escapes control characters in strings but writes bidi overrides
	// and the like as they are; \uXXXX is the same value in JSON.
	t, esc := reveal.JSON(text)
	return Value{Text: t, JSON: true, Escaped: esc}
}
