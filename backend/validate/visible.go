package validate

import (
	"fmt"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Reference is one name a text of a node may read (the editor's `{{`
// completion): an output of a step that runs before it, key.field, or a
// declared input, inputs.NAME.
type Reference struct {
	Key string `json:"key"`
	// Field is "" for a step whose outputs are not known (a tool the
	// catalog lacks): any field of it may be read.
	Field string `json:"field"`
	// NodeID is the step's id; "" for an input.
	NodeID string `json:"node_id,omitempty"`
	// Label is the step's label, or the input's title.
	Label       string `json:"label"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// Place says which text of a node a reference is read in: they see
// different steps (a verify condition also reads the node's own outputs,
// a Loop's exit condition its body's).
type Place string

const (
	// PlaceText is a step's arguments, prompt or input, or the condition
	// of an If or a Switch case.
	PlaceText Place = ""
	// PlaceVerify is a node's verify condition.
	PlaceVerify Place = "verify"
	// PlaceDoneWhen is a node's done_when condition.
	PlaceDoneWhen Place = "done_when"
	// PlaceExit is a Loop's exit condition.
	PlaceExit Place = "exit_condition"
)

// References lists what a text of node nodeID, at place, may read (node
// "" with PlaceDoneWhen: the workflow's own done_when, which reads any step): the
// declared inputs, then the outputs of the steps that can run before it, in
// the order of w.Nodes. It asks the rules Validate reports unknown_variable,
// unknown_output and unknown_input by (canRead, outputFields, the inputs
// schema), so a reference it lists validates clean there, and one it does
// not list is reported. Steps whose key two nodes share are left out (that
// key is an error), as are control nodes, which have no outputs.
func References(w *workflow.Workflow, cat *tools.Catalog, nodeID string, at Place) ([]Reference, error) {
	if w == nil {
		return nil, fmt.Errorf("references: no workflow")
	}
	var kind place
	switch at {
	case PlaceText:
		kind = textArgs
	case PlaceVerify:
		kind = condVerify
	case PlaceDoneWhen:
		kind = condDone
	case PlaceExit:
		kind = condExit
	default:
		return nil, fmt.Errorf("references: unknown place %q (want %q, %q, %q or %q)", at, PlaceText, PlaceVerify, PlaceDoneWhen, PlaceExit)
	}
	v := &validator{cat: cat, w: w, nodes: w.Nodes}
	v.run()
	out := []Reference{}
	if s, probs := inputs.Parse(w.Inputs); len(probs) == 0 && s != nil {
		for _, f := range s.Fields {
			out = append(out, Reference{Key: inputs.Root, Field: f.Name, Label: f.Title, Type: f.Type, Description: f.Description})
		}
	}
	var readable func(c int32) bool
	if nodeID == "" && kind == condDone {
		// The workflow's done_when is checked after the last step: it
		// reads any of them (workflowDoneRefs).
		readable = func(int32) bool { return true }
	} else {
		node, err := v.placeOf(nodeID, kind)
		if err != nil || v.dup[node] {
			return out, err // a duplicate id is reported, and not placed in the graph
		}
		rs := v.refSetAt(node, kind, 0)
		ag := v.ancestryGraph()
		a := ancestry{g: &ag, seen: make([]int32, v.n), budget: 8*(v.n+len(v.edges)) + 100_000}
		readable = func(c int32) bool { return v.canRead(&a, c, &rs) }
	}
	for c := range v.nodes {
		n := &v.nodes[c]
		if !referable(n.Key) || v.dup[c] || v.keys.all[n.Key] != nil || !readable(int32(c)) {
			continue
		}
		fs, known := v.outputFields(n)
		if !known {
			out = append(out, Reference{Key: n.Key, NodeID: n.ID, Label: n.Label()})
			continue
		}
		for _, f := range fs {
			out = append(out, Reference{Key: n.Key, Field: f.Name, NodeID: n.ID, Label: n.Label(), Type: f.Type, Description: f.Description})
		}
	}
	return out, nil
}

// placeOf finds node nodeID and checks it has a text at kind.
func (v *validator) placeOf(nodeID string, kind place) (int32, error) {
	node, ok := int32(0), false
	if v.idx != nil {
		node, ok = v.idx.lookup(nodeID)
	}
	if !ok {
		return 0, fmt.Errorf("references: the workflow has no node %q", nodeID)
	}
	t := v.nodes[node].Type
	switch {
	case kind == condExit && t != workflow.TypeLoop:
		return 0, fmt.Errorf("references: %s is not a Loop, it has no exit condition", v.label(node))
	case kind == textArgs && (t == workflow.TypeLoop || t == workflow.TypeEndLoop):
		return 0, fmt.Errorf("references: %s has no arguments, prompt or condition", v.typed(node))
	case kind == condDone && !isStep(t):
		return 0, fmt.Errorf("references: %s is not a step, it has no done_when", v.typed(node))
	}
	return node, nil
}

// referable says whether a text can name a step by key (what bad_key
// checks: a key that is not an identifier, a reserved word or a root
// such as inputs cannot be).
func referable(key string) bool {
	return key != "" && validKey(key) && !reservedWord(key) && !workflow.ReferenceRoot(key)
}
