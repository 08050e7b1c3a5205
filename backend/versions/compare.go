package versions

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

// Diff is what changed from one version of a workflow to another: nodes
// added, removed and modified (with the fields that changed), and edges
// added and removed. A node whose only change is its position on the
// canvas does not count as modified.
type Diff struct {
	// Name is set when the workflow's name changed.
	Name          *NameChange  `json:"name,omitempty"`
	AddedNodes    []NodeChange `json:"added_nodes"`
	RemovedNodes  []NodeChange `json:"removed_nodes"`
	ModifiedNodes []NodeChange `json:"modified_nodes"`
	AddedEdges    []EdgeChange `json:"added_edges"`
	RemovedEdges  []EdgeChange `json:"removed_edges"`
}

// NameChange is a renamed workflow.
type NameChange struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// NodeChange describes one node of the diff. ID, Key and Name are the
// node's in the newer version (b) for added and modified nodes, and in
// the older one (a) for removed nodes.
type NodeChange struct {
	ID   string            `json:"id"`
	Key  string            `json:"key"`
	Name string            `json:"name,omitempty"`
	Type workflow.NodeType `json:"type"`
	Tool string            `json:"tool,omitempty"`
	// OldID is the node's id in a when it differs (nodes are matched by
	// id, then by key).
	OldID string `json:"old_id,omitempty"`
	// Fields are the fields that changed, for modified nodes: name, key,
	// type, tool, arguments.<name>, prompt, allowed_tools, max_tool_calls,
	// kind, input, labels, condition, cases, exit_condition,
	// max_iterations, loop_id, enabled, timeout_ms, retry, verify, extra.
	Fields []string `json:"fields,omitempty"`
}

// EdgeChange is one added or removed edge, by node id (in the version it
// belongs to) and key.
type EdgeChange struct {
	From    string               `json:"from"`
	To      string               `json:"to"`
	FromKey string               `json:"from_key"`
	ToKey   string               `json:"to_key"`
	Output  *workflow.EdgeOutput `json:"output,omitempty"`
}

// Empty reports whether the two versions are the same (positions aside).
func (d Diff) Empty() bool {
	return d.Name == nil && len(d.AddedNodes)+len(d.RemovedNodes)+len(d.ModifiedNodes)+len(d.AddedEdges)+len(d.RemovedEdges) == 0
}

// Compare says what changed from a to b. Nodes are matched by id, then
// (among the rest) by key, so versions made by the planner, whose new
// nodes have fresh ids, still compare step by step.
func Compare(a, b *workflow.Workflow) Diff {
	if a == nil {
		a = &workflow.Workflow{}
	}
	if b == nil {
		b = &workflow.Workflow{}
	}
	d := Diff{AddedNodes: []NodeChange{}, RemovedNodes: []NodeChange{}, ModifiedNodes: []NodeChange{},
		AddedEdges: []EdgeChange{}, RemovedEdges: []EdgeChange{}}
	if a.Name != b.Name {
		d.Name = &NameChange{From: a.Name, To: b.Name}
	}

	// match[i] is the index in a of b.Nodes[i], or -1.
	match := make([]int, len(b.Nodes))
	usedA := make([]bool, len(a.Nodes))
	aByID := map[string]int{}
	aByKey := map[string]int{}
	for i := range a.Nodes {
		if _, dup := aByID[a.Nodes[i].ID]; !dup {
			aByID[a.Nodes[i].ID] = i
		}
		if k := a.Nodes[i].Key; k != "" {
			if _, dup := aByKey[k]; !dup {
				aByKey[k] = i
			}
		}
	}
	for i := range b.Nodes {
		match[i] = -1
		if j, ok := aByID[b.Nodes[i].ID]; ok && !usedA[j] {
			match[i], usedA[j] = j, true
		}
	}
	for i := range b.Nodes {
		if match[i] >= 0 {
			continue
		}
		if j, ok := aByKey[b.Nodes[i].Key]; ok && !usedA[j] && b.Nodes[i].Key != "" {
			match[i], usedA[j] = j, true
		}
	}

	// ident names a node the same way in both versions: a's id for a's
	// nodes and the nodes matched to them, b's id (prefixed) for new ones.
	identA := func(id string) string { return "a:" + id }
	bIdent := map[string]string{}
	for i := range b.Nodes {
		if match[i] >= 0 {
			bIdent[b.Nodes[i].ID] = identA(a.Nodes[match[i]].ID)
		} else if _, dup := bIdent[b.Nodes[i].ID]; !dup {
			bIdent[b.Nodes[i].ID] = "b:" + b.Nodes[i].ID
		}
	}
	identB := func(id string) string {
		if s, ok := bIdent[id]; ok {
			return s
		}
		return "b:" + id
	}

	for i := range b.Nodes {
		n := &b.Nodes[i]
		if match[i] < 0 {
			d.AddedNodes = append(d.AddedNodes, change(n))
			continue
		}
		o := &a.Nodes[match[i]]
		fields := changedFields(o, n, identA(o.Params.LoopID), identB(n.Params.LoopID))
		if len(fields) > 0 {
			c := change(n)
			if o.ID != n.ID {
				c.OldID = o.ID
			}
			c.Fields = fields
			d.ModifiedNodes = append(d.ModifiedNodes, c)
		}
	}
	for j := range a.Nodes {
		if !usedA[j] {
			d.RemovedNodes = append(d.RemovedNodes, change(&a.Nodes[j]))
		}
	}

	type ek struct{ from, to, typ, name string }
	edgeKey := func(from, to string, o *workflow.EdgeOutput) ek {
		k := ek{from: from, to: to}
		if o != nil {
			k.typ, k.name = string(o.Type), o.Name
		}
		return k
	}
	keysA, keysB := keyIndex(a), keyIndex(b)
	inA := map[ek]bool{}
	for _, e := range a.Edges {
		inA[edgeKey(identA(e.From), identA(e.To), e.Output)] = true
	}
	inB := map[ek]bool{}
	for _, e := range b.Edges {
		k := edgeKey(identB(e.From), identB(e.To), e.Output)
		inB[k] = true
		if !inA[k] {
			d.AddedEdges = append(d.AddedEdges, edgeChange(e, keysB))
		}
	}
	for _, e := range a.Edges {
		if !inB[edgeKey(identA(e.From), identA(e.To), e.Output)] {
			d.RemovedEdges = append(d.RemovedEdges, edgeChange(e, keysA))
		}
	}
	return d
}

func keyIndex(w *workflow.Workflow) map[string]string {
	m := make(map[string]string, len(w.Nodes))
	for i := range w.Nodes {
		m[w.Nodes[i].ID] = w.Nodes[i].Key
	}
	return m
}

func change(n *workflow.Node) NodeChange {
	c := NodeChange{ID: n.ID, Key: n.Key, Name: n.Name, Type: n.Type}
	if n.Type == workflow.TypeTool {
		c.Tool = n.Params.Tool
	}
	return c
}

func edgeChange(e workflow.Edge, keys map[string]string) EdgeChange {
	c := EdgeChange{From: e.From, To: e.To, FromKey: keys[e.From], ToKey: keys[e.To]}
	if e.Output != nil {
		o := *e.Output
		c.Output = &o
	}
	return c
}

// changedFields lists what differs between two versions of a node;
// loopA and loopB are the identities of their EndLoop's Loop.
func changedFields(a, b *workflow.Node, loopA, loopB string) []string {
	var f []string
	diff := func(name string, x, y any) {
		if !reflect.DeepEqual(x, y) {
			f = append(f, name)
		}
	}
	diff("name", a.Name, b.Name)
	diff("key", a.Key, b.Key)
	diff("type", a.Type, b.Type)
	pa, pb := a.Params, b.Params
	diff("tool", pa.Tool, pb.Tool)
	f = append(f, changedArgs(pa.Arguments, pb.Arguments)...)
	diff("prompt", pa.Prompt, pb.Prompt)
	diff("allowed_tools", emptyNil(pa.AllowedTools), emptyNil(pb.AllowedTools))
	diff("max_tool_calls", pa.MaxToolCalls, pb.MaxToolCalls)
	diff("kind", pa.Kind, pb.Kind)
	diff("input", pa.Input, pb.Input)
	diff("labels", emptyNil(pa.Labels), emptyNil(pb.Labels))
	diff("condition", pa.Condition, pb.Condition)
	if len(pa.Cases)+len(pb.Cases) > 0 {
		diff("cases", pa.Cases, pb.Cases)
	}
	diff("exit_condition", pa.ExitCondition, pb.ExitCondition)
	diff("max_iterations", pa.MaxIterations, pb.MaxIterations)
	if pa.LoopID != "" || pb.LoopID != "" {
		diff("loop_id", loopA, loopB)
	}
	diff("enabled", a.IsEnabled(), b.IsEnabled())
	diff("timeout_ms", a.TimeoutMs, b.TimeoutMs)
	diff("retry", a.Retry, b.Retry)
	diff("verify", a.Verify, b.Verify)
	// Who wrote a step is not a change of what it does.
	diff("extra", jsonOf(withoutProvenance(a.Extra), pa.Extra), jsonOf(withoutProvenance(b.Extra), pb.Extra))
	return f
}

func withoutProvenance(x workflow.Extra) workflow.Extra {
	if _, ok := x[approval.ProvenanceKey]; !ok {
		return x
	}
	out := make(workflow.Extra, len(x))
	for k, v := range x {
		if k != approval.ProvenanceKey {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func emptyNil(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func jsonOf(v ...any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// changedArgs names the tool arguments that differ, as arguments.<name>.
func changedArgs(a, b map[string]any) []string {
	var out []string
	for k, v := range b {
		if w, ok := a[k]; !ok || !sameJSON(v, w) {
			out = append(out, "arguments."+k)
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			out = append(out, "arguments."+k)
		}
	}
	sort.Strings(out)
	return out
}

// sameJSON compares two decoded JSON values by their encoding, so that
// 1 and 1.0 (int and float64) are equal.
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// Summary sums the diff up in one line: "2 steps added (a, b); 1 removed
// (c); 1 modified (fetch: arguments.method); 3 edges added, 1 removed".
func (d Diff) Summary() string {
	if d.Empty() {
		return "no changes"
	}
	var parts []string
	if d.Name != nil {
		parts = append(parts, fmt.Sprintf("renamed %q → %q", d.Name.From, d.Name.To))
	}
	list := func(cs []NodeChange, fields bool) string {
		var names []string
		for i, c := range cs {
			if i == 5 {
				names = append(names, fmt.Sprintf("+%d more", len(cs)-5))
				break
			}
			s := c.Key
			if fields && len(c.Fields) > 0 {
				s += ": " + strings.Join(c.Fields, ", ")
			}
			names = append(names, s)
		}
		return " (" + strings.Join(names, "; ") + ")"
	}
	if n := len(d.AddedNodes); n > 0 {
		parts = append(parts, count(n, "step", "steps")+" added"+list(d.AddedNodes, false))
	}
	if n := len(d.RemovedNodes); n > 0 {
		parts = append(parts, count(n, "step", "steps")+" removed"+list(d.RemovedNodes, false))
	}
	if n := len(d.ModifiedNodes); n > 0 {
		parts = append(parts, count(n, "step", "steps")+" modified"+list(d.ModifiedNodes, true))
	}
	var edges []string
	if n := len(d.AddedEdges); n > 0 {
		edges = append(edges, fmt.Sprintf("%d added", n))
	}
	if n := len(d.RemovedEdges); n > 0 {
		edges = append(edges, fmt.Sprintf("%d removed", n))
	}
	if len(edges) > 0 {
		parts = append(parts, "edges: "+strings.Join(edges, ", "))
	}
	return strings.Join(parts, "; ")
}

// Lines renders the diff one change a line ("+ step fetch (http_request)",
// "- edge check → done", "~ step fetch: arguments.method"), for the CLI.
func (d Diff) Lines() []string {
	var out []string
	if d.Name != nil {
		out = append(out, fmt.Sprintf("~ name %q → %q", d.Name.From, d.Name.To))
	}
	step := func(c NodeChange) string {
		s := "step " + c.Key
		if c.Tool != "" {
			s += " (" + c.Tool + ")"
		} else {
			s += " (" + string(c.Type) + ")"
		}
		return s
	}
	for _, c := range d.AddedNodes {
		out = append(out, "+ "+step(c))
	}
	for _, c := range d.RemovedNodes {
		out = append(out, "- "+step(c))
	}
	for _, c := range d.ModifiedNodes {
		out = append(out, "~ "+step(c)+": "+strings.Join(c.Fields, ", "))
	}
	edge := func(e EdgeChange) string {
		s := "edge " + e.FromKey + " → " + e.ToKey
		if e.Output != nil {
			s += " [" + e.Output.String() + "]"
		}
		return s
	}
	for _, e := range d.AddedEdges {
		out = append(out, "+ "+edge(e))
	}
	for _, e := range d.RemovedEdges {
		out = append(out, "- "+edge(e))
	}
	return out
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
