package assistant

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// patchKeys are the top-level keys of the model's patch format, with the
// other names models use for them. "message" is not among them: a reply
// holding only a message is conversation.
// patchKeys are the other names of each patch key: the planner's synonym
// table, schema "patch".
func patchKeys(k string) []string { return planner.Synonyms("patch", k) }

var patchKeyOrder = []string{"add", "add_nodes", "add_edges", "remove_node_ids", "remove_edges", "update"}

// normKey lower-cases a key and keeps letters and digits: "Add_Nodes" → "addnodes".
func normKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// objectKeys indexes an object's keys by normKey.
func objectKeys(obj gjson.Result) map[string]gjson.Result {
	m := map[string]gjson.Result{}
	obj.ForEach(func(k, v gjson.Result) bool {
		m[normKey(k.String())] = v
		return true
	})
	return m
}

// lookupKey returns the value under canonical or one of its aliases, and
// the alias used ("" for the canonical name or when absent).
func lookupKey(keys map[string]gjson.Result, canonical string, aliases ...string) (gjson.Result, string, bool) {
	for i, k := range append([]string{canonical}, aliases...) {
		if v, ok := keys[normKey(k)]; ok && v.Type != gjson.Null {
			if i == 0 {
				return v, "", true
			}
			return v, k, true
		}
	}
	return gjson.Result{}, "", false
}

// isPatchObject reports whether a JSON object uses the patch format.
func isPatchObject(root gjson.Result) bool {
	if !root.IsObject() {
		return false
	}
	keys := objectKeys(root)
	for _, k := range patchKeyOrder {
		if _, _, ok := patchKey(keys, k); ok {
			return true
		}
	}
	return false
}

// patchKey looks a patch key up by its names, then by edit distance
// ("remove_node_id", "add_edgs"): the alias used is returned for the
// warning.
func patchKey(keys map[string]gjson.Result, k string) (gjson.Result, string, bool) {
	if v, alias, ok := lookupKey(keys, k, patchKeys(k)...); ok {
		return v, alias, true
	}
	names := make([]string, 0, len(keys))
	for nk := range keys {
		names = append(names, nk)
	}
	sort.Strings(names)
	for _, nk := range names {
		if f, exact := planner.AlignKey(nk, "patch"); f == k && !exact && keys[nk].Type != gjson.Null {
			return keys[nk], nk, true
		}
	}
	return gjson.Result{}, "", false
}

// patchOptions are what building a patch needs beside the workflow.
type patchOptions struct {
	Features planner.Features
	Catalog  *tools.Catalog
}

// builder turns the model's patch JSON into a WorkflowPatch against the
// current workflow, resolving every reference to a node id.
type builder struct {
	w       *workflow.Workflow
	opts    patchOptions
	byID    map[string]int
	byKey   map[string]int
	removed map[string]bool
	updated map[string]workflow.Node
	p       WorkflowPatch
	ws      []Warning
}

func (b *builder) warn(stage, nodeID, format string, a ...any) {
	b.ws = append(b.ws, Warning{Stage: stage, NodeID: nodeID, Message: fmt.Sprintf(format, a...)})
}

// buildPatch reads repaired patch JSON. It returns the patch, the message
// for the user and the warnings. It fails (a *planner.StageError the re-ask
// quotes) only when the JSON is not an object or when it asked for changes
// and none of them could be read.
func buildPatch(js string, w *workflow.Workflow, opts patchOptions) (*WorkflowPatch, string, []Warning, error) {
	root := gjson.Parse(js)
	if !root.IsObject() {
		return nil, "", nil, &planner.StageError{Stage: StagePatch, Msg: "a patch must be a JSON object"}
	}
	b := &builder{w: w, opts: opts, byID: map[string]int{}, byKey: map[string]int{},
		removed: map[string]bool{}, updated: map[string]workflow.Node{}}
	for i := range w.Nodes {
		if _, dup := b.byID[w.Nodes[i].ID]; !dup {
			b.byID[w.Nodes[i].ID] = i
		}
		if _, dup := b.byKey[w.Nodes[i].Key]; !dup && w.Nodes[i].Key != "" {
			b.byKey[w.Nodes[i].Key] = i
		}
	}
	keys := objectKeys(root)
	get := func(k string) (gjson.Result, bool) {
		v, alias, ok := patchKey(keys, k)
		if ok && alias != "" {
			b.warn(StagePatch, "", "read %q as %q", alias, k)
		}
		return v, ok
	}
	message := ""
	if v, _, ok := lookupKey(keys, "message", "reply", "answer", "explanation", "response"); ok {
		message = strings.TrimSpace(v.String())
	}
	asked := 0
	count := func(v gjson.Result) {
		if v.IsArray() {
			asked += len(v.Array())
		} else if v.Exists() {
			asked++
		}
	}

	if v, ok := get("remove_node_ids"); ok {
		count(v)
		b.removeNodes(v)
	}
	if v, ok := get("update"); ok {
		count(v)
		b.updates(v)
	}
	flat, hasFlat := get("add")
	nodes, hasNodes := get("add_nodes")
	edges, hasEdges := get("add_edges")
	if hasFlat {
		count(flat)
	}
	if hasNodes {
		count(nodes)
	}
	if hasEdges {
		count(edges)
	}
	switch {
	case hasFlat && (hasNodes || hasEdges) && nonEmpty(flat) && nonEmpty(nodes):
		b.warn(StagePatch, "", `the patch has both flat "add" steps and graph "add_nodes"; used the graph form and ignored "add"`)
		b.graphAdd(nodes, edges)
	case hasNodes || hasEdges:
		b.graphAdd(nodes, edges)
		if hasFlat && nonEmpty(flat) {
			b.warn(StagePatch, "", `the patch has both flat "add" steps and "add_edges"; used the graph form and ignored "add"`)
		}
	case hasFlat:
		after, _, _ := lookupKey(keys, "after", "insert_after", "after_node", "after_node_id", "after_key")
		b.flatAdd(flat, after)
	}
	if v, ok := get("remove_edges"); ok {
		count(v)
		b.removeEdges(v)
	}
	b.rewire()
	b.infer()
	b.place()
	if asked > 0 && b.p.Empty() {
		return nil, message, b.ws, &planner.StageError{Stage: StagePatch,
			Msg: "none of the patch's changes could be applied: " + summarize(b.ws)}
	}
	sortPatch(&b.p)
	return &b.p, message, b.ws, nil
}

func nonEmpty(v gjson.Result) bool {
	return v.Exists() && v.Type != gjson.Null && !(v.IsArray() && len(v.Array()) == 0)
}

func summarize(ws []Warning) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, w.Message)
	}
	if len(parts) == 0 {
		return "the lists are empty or malformed"
	}
	if len(parts) > 6 {
		parts = append(parts[:6], fmt.Sprintf("and %d more", len(parts)-6))
	}
	return strings.Join(parts, "; ")
}

// sortPatch keeps the removed ids in workflow order, for stable output.
func sortPatch(p *WorkflowPatch) {
	sort.Strings(p.RemovedNodeIDs)
}

// list returns v's items; a single object or string is a list of one.
func list(v gjson.Result) []gjson.Result {
	switch {
	case v.IsArray():
		return v.Array()
	case !v.Exists() || v.Type == gjson.Null:
		return nil
	}
	return []gjson.Result{v}
}

// find resolves a reference to a current node: by id, then key, then a
// unique case-insensitive name.
func (b *builder) find(ref string) (int, bool) {
	ref = strings.TrimSpace(ref)
	if i, ok := b.byID[ref]; ok {
		return i, true
	}
	if i, ok := b.byKey[ref]; ok {
		return i, true
	}
	found := -1
	for i := range b.w.Nodes {
		if ref != "" && strings.EqualFold(b.w.Nodes[i].Name, ref) {
			if found >= 0 {
				return -1, false
			}
			found = i
		}
	}
	return found, found >= 0
}

// refOf reads a node reference: a string, a number, or an object with an
// id, node_id or key.
func refOf(v gjson.Result) string {
	if v.IsObject() {
		k := objectKeys(v)
		if r, _, ok := lookupKey(k, "node_id", "id", "key", "node", "name"); ok {
			return strings.TrimSpace(r.String())
		}
		return ""
	}
	return strings.TrimSpace(v.String())
}

func (b *builder) removeNodes(v gjson.Result) {
	for _, item := range list(v) {
		ref := refOf(item)
		i, ok := b.find(ref)
		if !ok {
			b.warn(StagePatch, "", "cannot remove node %q: there is no node with that id or key; skipped", ref)
			continue
		}
		n := &b.w.Nodes[i]
		if b.removed[n.ID] {
			continue
		}
		b.removed[n.ID] = true
		b.p.RemovedNodeIDs = append(b.p.RemovedNodeIDs, n.ID)
	}
}

// current returns a surviving node as the patch leaves it (updated or not).
func (b *builder) current(id string) (workflow.Node, bool) {
	if n, ok := b.updated[id]; ok {
		return n, true
	}
	i, ok := b.byID[id]
	if !ok || b.removed[id] {
		return workflow.Node{}, false
	}
	return b.w.Nodes[i], true
}

// disallowed says why the features forbid a node type ("" when allowed).
func disallowed(t workflow.NodeType, f planner.Features) string {
	switch {
	case t == workflow.TypeAiStep && !f.AllowAgentSteps:
		return "AiStep (agent) steps are disabled in the settings"
	case t == workflow.TypeAiTransform && !f.AllowAITransforms:
		return "AiTransform steps are disabled in the settings"
	}
	return ""
}

// requiredField is the field DecodeStep needs for a type, with the names
// models use for it: an update that leaves it out keeps the node's value.
var requiredField = map[workflow.NodeType]struct {
	names []string
	value func(*workflow.Node) any
}{
	workflow.TypeTool:        {[]string{"tool_name", "tool", "function", "function_name", "tool_call", "name_of_tool"}, func(n *workflow.Node) any { return n.Params.Tool }},
	workflow.TypeAiStep:      {[]string{"prompt", "instructions", "instruction", "task", "goal"}, func(n *workflow.Node) any { return n.Params.Prompt }},
	workflow.TypeAiTransform: {[]string{"kind", "transform", "operation", "mode", "transform_kind"}, func(n *workflow.Node) any { return n.Params.Kind }},
	workflow.TypeIf:          {[]string{"condition", "if", "expression", "expr", "when"}, func(n *workflow.Node) any { return n.Params.Condition }},
	workflow.TypeLoop:        {[]string{"exit_condition", "until", "exit_when", "stop_condition", "break_condition", "condition"}, func(n *workflow.Node) any { return n.Params.ExitCondition }},
	workflow.TypeSwitch:      {[]string{"cases", "branches", "options"}, func(n *workflow.Node) any { return n.Params.Cases }},
}

var typeKeys = []string{"step_type", "type", "node_type", "steptype"}

func (b *builder) updates(v gjson.Result) {
	for i, item := range list(v) {
		path := fmt.Sprintf("update[%d]", i)
		if !item.IsObject() {
			b.warn(StagePatch, "", "%s: an update must be an object with a node_id; skipped", path)
			continue
		}
		ref := refOf(item)
		idx, ok := b.find(ref)
		if !ok {
			b.warn(StagePatch, "", "%s: cannot update node %q: there is no node with that id or key; skipped", path, ref)
			continue
		}
		old := &b.w.Nodes[idx]
		if b.removed[old.ID] {
			b.warn(StagePatch, old.ID, "%s: node '%s' is both removed and updated; the removal wins", path, old.Label())
			continue
		}
		n, ok := b.updateNode(old, item, path)
		if !ok {
			continue
		}
		if _, twice := b.updated[old.ID]; twice {
			b.warn(StagePatch, old.ID, "%s: node '%s' is updated twice; the last update wins", path, old.Label())
			for k := range b.p.UpdatedNodes {
				if b.p.UpdatedNodes[k].ID == old.ID {
					b.p.UpdatedNodes = append(b.p.UpdatedNodes[:k], b.p.UpdatedNodes[k+1:]...)
					break
				}
			}
		}
		b.updated[old.ID] = n
		b.p.UpdatedNodes = append(b.p.UpdatedNodes, n)
	}
}

// updateNode applies the fields of one update to a copy of old. Fields
// left out keep their value; an update without a step_type keeps the
// node's type (and a Tool its tool), so {"node_id": …, "arguments": {…}}
// just changes the arguments.
func (b *builder) updateNode(old *workflow.Node, item gjson.Result, path string) (workflow.Node, bool) {
	// Rebuild the object without the reference fields, adding the fields
	// the type needs when the update leaves them out.
	obj := map[string]json.RawMessage{}
	keys := objectKeys(item)
	newKey := ""
	item.ForEach(func(k, v gjson.Result) bool {
		switch normKey(k.String()) {
		case "nodeid", "id", "node":
			return true
		case "key":
			newKey = strings.TrimSpace(v.String())
			return true
		}
		obj[k.String()] = json.RawMessage(v.Raw)
		return true
	})
	hasType := false
	for _, k := range typeKeys {
		if _, ok := keys[normKey(k)]; ok {
			hasType = true
		}
	}
	if !hasType {
		obj["step_type"], _ = json.Marshal(old.Type)
	}
	if req, ok := requiredField[old.Type]; ok {
		present := false
		for _, k := range req.names {
			if _, ok := keys[normKey(k)]; ok {
				present = true
			}
		}
		if !present {
			obj[req.names[0]], _ = json.Marshal(req.value(old))
		}
	}
	raw, _ := json.Marshal(obj)
	st, sws, err := planner.DecodeStep(gjson.ParseBytes(raw), path)
	b.ws = append(b.ws, sws...)
	if err != nil {
		b.warn(StagePatch, old.ID, "%s: cannot update '%s': %v; skipped", path, old.Label(), err)
		return workflow.Node{}, false
	}
	if len(st.Branches) > 0 {
		b.warn(StagePatch, old.ID, "%s: an update cannot carry nested steps (then/else/body); ignored them, add the steps with \"add\" instead", path)
		st.Branches = nil
	}
	loopRef := st.Params.LoopID
	st.Params.LoopID = ""
	if newKey != "" && newKey != old.Key {
		b.warn(StagePatch, old.ID, "%s: a patch cannot change a node's key (conditions refer to it); kept %q", path, old.Key)
	}
	named := st.Name != ""
	mapped, mws := planner.MapPlan(&planner.Plan{Steps: []planner.Step{st}, Skipped: map[string]string{}}, b.opts.Catalog)
	m := mapped.Nodes[0]
	for _, w := range mws {
		w.NodeID = old.ID
		b.ws = append(b.ws, w)
	}

	n := cloneNode(*old)
	if st.Type != old.Type {
		n.Type = st.Type
		n.Params = m.Params
		n.Params.Extra = nil
		if !named {
			n.Name = m.Name
		}
		if !m.IsEnabled() {
			n.SetEnabled(false)
		}
	} else {
		overlayParams(&n.Params, st.Params, m.Params)
		if st.Params.Tool != "" && st.Params.Tool != old.Params.Tool && !m.IsEnabled() {
			n.SetEnabled(false)
		}
	}
	if named {
		n.Name = st.Name
	}
	if loopRef != "" && n.Type == workflow.TypeEndLoop {
		if li, ok := b.find(loopRef); ok && b.w.Nodes[li].Type == workflow.TypeLoop {
			n.Params.LoopID = b.w.Nodes[li].ID
		} else {
			b.warn(StagePatch, old.ID, "%s: loop_id %q is not a Loop of this workflow; kept %q", path, loopRef, old.Params.LoopID)
		}
	}
	if st.TimeoutMs != 0 {
		n.TimeoutMs = st.TimeoutMs
	}
	if st.Verify != "" {
		n.Verify = st.Verify
	}
	if st.OnError != "" {
		n.OnError = st.OnError
		if n.OnError == workflow.OnErrorStop {
			n.OnError = "" // the default, left out of the file
		}
	}
	if st.DoneWhen != nil {
		dw := *st.DoneWhen
		n.DoneWhen = &dw
	}
	workflow.KeepRedactedNode(old, &n) // the model saw its secrets redacted
	if why := disallowed(n.Type, b.opts.Features); why != "" {
		// Renaming an AI node made while the feature was on is fine;
		// changing what it does is not.
		rest, oldRest := n, *old
		rest.Name, oldRest.Name = "", ""
		if !sameNode(&rest, &oldRest) {
			b.warn(StageFeatures, old.ID, "%s: rejected the update of '%s': %s", path, old.Label(), why)
			return workflow.Node{}, false
		}
	}
	if sameNode(&n, old) {
		b.warn(StagePatch, old.ID, "%s: the update of '%s' changes nothing; skipped", path, old.Label())
		return workflow.Node{}, false
	}
	return n, true
}

// overlayParams copies into dst the fields the update set: decoded says
// which were given, mapped has their final values (tool names resolved).
func overlayParams(dst *workflow.Params, decoded, mapped workflow.Params) {
	if decoded.Tool != "" {
		dst.Tool = mapped.Tool
	}
	if decoded.Arguments != nil {
		dst.Arguments = mapped.Arguments
	}
	if decoded.Prompt != "" {
		dst.Prompt = mapped.Prompt
	}
	if decoded.AllowedTools != nil {
		dst.AllowedTools = mapped.AllowedTools
	}
	if decoded.MaxToolCalls != 0 {
		dst.MaxToolCalls = mapped.MaxToolCalls
	}
	if decoded.Kind != "" {
		dst.Kind = mapped.Kind
	}
	if decoded.Input != "" {
		dst.Input = mapped.Input
	}
	if decoded.Labels != nil {
		dst.Labels = mapped.Labels
	}
	if decoded.Condition != "" {
		dst.Condition = mapped.Condition
	}
	if decoded.Cases != nil {
		dst.Cases = mapped.Cases
	}
	if decoded.ExitCondition != "" {
		dst.ExitCondition = mapped.ExitCondition
	}
	if decoded.MaxIterations != nil {
		dst.MaxIterations = mapped.MaxIterations
	}
	if decoded.LoopID != "" {
		dst.LoopID = mapped.LoopID
	}
}
