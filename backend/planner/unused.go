package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
	"github.com/weft-dev/weft/backend/workflow"
)

// What a reading of a reply left out. Whatever stage read the reply (the
// decoder or the alignment), the reply is read again here into value trees
// (align_tree.go) and every object that looks like a step (stepLike) must
// stand for a node of the result; what does not is dropped material, which
// the re-ask loop never takes as a usable reply (never a silent fragment).
// The measure compares content, not paths, so it holds for any reading.

// Unused is what the reply held that the result does not use.
type Unused struct {
	// Steps are the reply's step-like objects no node stands for: where
	// each was and what it named. A result with Steps is not usable
	// unseen: the planner re-asks, `weft plan` exits 1 unless
	// --allow-dropped, the desktop asks before applying.
	Steps []string `json:"steps,omitempty"`
	// Edges are edges of the reply between two of its steps that the
	// result does not connect (not even through one node between, as
	// the inference's EndLoop rerouting does).
	Edges []string `json:"edges,omitempty"`
	// Drafts are step-like objects of an earlier complete plan in the
	// same reply that the chosen plan replaced (models correct
	// themselves); said, not counted as dropped.
	Drafts []string `json:"drafts,omitempty"`
	// Text counts the characters of the reply outside its JSON (prose;
	// code fences and reasoning blocks do not count).
	Text int `json:"text,omitempty"`
	// Partial: the reply was too large or deep to measure whole.
	Partial bool `json:"partial,omitempty"`
}

// Dropped reports whether step-like material was left out.
func (u Unused) Dropped() bool { return len(u.Steps) > 0 }

// Summary is one line for messages: "2 steps of the reply are not in the
// plan: …".
func (u Unused) Summary() string {
	if !u.Dropped() {
		return ""
	}
	verb := "are"
	if len(u.Steps) == 1 {
		verb = "is"
	}
	return fmt.Sprintf("%s of the reply %s not in the plan: %s", plural(len(u.Steps), "step", "steps"), verb,
		strings.Join(u.Steps, "; "))
}

// Warnings are the measure as warnings of stage "unused", for a result's
// warning list.
func (u Unused) Warnings() []Warning {
	var ws []Warning
	if s := u.Summary(); s != "" {
		ws = append(ws, Warning{Stage: StageUnused, Message: s})
	}
	if len(u.Edges) > 0 {
		ws = append(ws, Warning{Stage: StageUnused, Message: fmt.Sprintf("edges of the reply not in the plan: %s",
			strings.Join(u.Edges, "; "))})
	}
	if len(u.Drafts) > 0 {
		ws = append(ws, Warning{Stage: StageUnused, Message: fmt.Sprintf("an earlier draft in the reply was replaced by the plan; left out of it: %s",
			strings.Join(u.Drafts, "; "))})
	}
	return ws
}

// ReadReply is ParseOutputContext, measured: it says what the reading
// left out of the reply. When steps were left out, the alignment's reading
// of the whole reply (align.go: every top-level value, any key, any depth)
// is tried too, and taken when it leaves nothing out: the plan is
// completed from the reply before the model is asked again. A reading
// that only leaves out less is not taken: it would trade one fragment for
// another.
func ReadReply(ctx context.Context, text string, opts ParseOptions) (*workflow.Workflow, []Warning, Unused, error) {
	w, ws, err := ParseOutputContext(ctx, text, opts)
	if err != nil {
		return nil, ws, Unused{}, err
	}
	// A reply read without a warning and written exactly in the format
	// asked for (exact.go) has nothing a reading could leave out: every
	// stage that drops, moves, skips or guesses says so in a warning.
	var u Unused
	if len(ws) > 0 || !exactReply(text) {
		u = MeasureUnused(text, w.Nodes, w.Edges, opts.Features)
	}
	if u.Dropped() {
		if best, aws, aerr := alignReply(ctx, text, opts.Catalog); aerr == nil && best != nil && best.canon != "" {
			if w2, ws2, err2 := ParseOutputContext(ctx, best.canon, opts); err2 == nil {
				if u2 := MeasureUnused(text, w2.Nodes, w2.Edges, opts.Features); !u2.Dropped() {
					note := Warning{Stage: StageUnused, Message: fmt.Sprintf(
						"the reply's first reading left %s out; read the reply whole instead", plural(len(u.Steps), "step", "steps"))}
					w, u, ws = w2, u2, append(append([]Warning{note}, aws...), ws2...)
				}
			}
		}
	}
	// What a cut-off reply lost (readPlan's truncation warnings): a step
	// the reply began, or promised, whose end is unknown.
	for _, x := range ws {
		switch {
		case x.Stage != StageTruncation:
		case x.lost == lostEdges:
			u.Edges = append(u.Edges, x.Message) // the wiring is unknown there, not a step
		default:
			u.Steps = append(u.Steps, x.Message)
		}
	}
	return w, append(ws, u.Warnings()...), u, nil
}

// Usable says whether a plan may be used as it is: valid, and leaving no
// step of its reply out unless the person accepted that (allowDropped:
// `weft plan --allow-dropped`, the desktop's confirmation).
func (r Result) Usable(allowDropped bool) bool {
	return r.Valid && r.Workflow != nil && (allowDropped || !r.Unused.Dropped())
}

// StageUnused tags the warnings of the measure.
const StageUnused = "unused"

// stepObj is one step-like object of the reply.
type stepObj struct {
	where string
	label string            // what it names: tool, id or name
	tool  string            // the tool it names, if any
	typ   workflow.NodeType // "" when it names no step type
	ids   []string          // its id, key and name (and the key it is under)
	sig   []string          // its own strings (ids, names, argument values)
	node  int               // matched node, -1

	v     *vnode // the object, and its fields that are parts of it
	parts []int
}

// signature fills s.sig, once: the strings that identify the step.
func (m *measurer) signature(s *stepObj) []string {
	if s.sig == nil {
		sig := m.leafStrings(s.v, []string{})
		for _, i := range s.parts {
			sig = m.leafStrings(s.v.kids[i], sig)
		}
		s.sig = append(sig, s.ids...)
	}
	return s.sig
}

// edgeObj is one edge-like item of the reply.
type edgeObj struct{ from, to string }

// block is one top-level value of the reply.
type block struct {
	steps []*stepObj
	edges []edgeObj
	plan  bool // holds a list of steps (a whole plan, not a lone step)
}

// MeasureUnused compares a reply with what was read from it: nodes and
// edges are the result's (a plan's workflow, or what a patch adds and
// updates). Steps of a type f disables are refused, not left out: the
// features stage says so, and asking for them again would not help.
func MeasureUnused(reply string, nodes []workflow.Node, edges []workflow.Edge, f Features) Unused {
	return measureUnused(reply, nodes, edges, f, true)
}

// measureUnused is MeasureUnused; fast false skips the fast path (tests
// compare the two).
func measureUnused(reply string, nodes []workflow.Node, edges []workflow.Edge, f Features, fast bool) Unused {
	b := newAlignBudget(context.Background())
	m := newMeasurer(b)
	var u Unused
	visible, _, _ := stripThink(strings.TrimPrefix(reply, "\uFEFF"))
	cands := scanCandidates(visible)
	u.Text = proseChars(visible, cands)
	if ok, pairs := m.cannotLeaveOut(visible, cands, nodes); ok && fast {
		u.Edges = droppedEdges(&block{edges: pairs}, nodes, edges)
		return u
	}
	vals := readValues(reply, b)
	var blocks []*block
	for i, v := range vals {
		where := ""
		if len(vals) > 1 {
			where = fmt.Sprintf(" in JSON value %d of %d", i+1, len(vals))
		}
		bl := &block{}
		m.collect(v, "", where, bl, false, 0)
		blocks = append(blocks, bl)
	}
	u.Partial = b.out
	if len(blocks) == 0 {
		return u
	}

	if len(blocks) == 1 {
		// One value, the one read: when its steps pair with nodes of
		// their types, nothing is left out, and content need not say
		// which is which (the common, valid reply stops here).
		if pairByType(blocks[0].steps, nodes) {
			u.Edges = droppedEdges(blocks[0], nodes, edges)
			return u
		}
		for _, s := range blocks[0].steps {
			s.node = -1
		}
	}
	idx := nodeIndex(nodes)
	// Each block is matched on its own, by content: a block that repeats
	// steps of the plan (a draft, a step shown twice) matches them too.
	used, usedN := -1, -1
	for k, bl := range blocks {
		n := m.matchBlock(bl.steps, idx)
		if n > 0 && n >= usedN {
			used, usedN = k, n
		}
	}
	if used < 0 {
		// Nothing matched by content: the block with the most steps.
		for k, bl := range blocks {
			if len(bl.steps) > 0 && (used < 0 || len(bl.steps) >= len(blocks[used].steps)) {
				used = k
			}
		}
		if used < 0 {
			return u
		}
	}
	// In the block that was read, what content cannot tell apart (a
	// step renamed on the way, an id the mapping changed) pairs by type,
	// in order, with the nodes still free.
	pairByType(blocks[used].steps, nodes)
	for k, bl := range blocks {
		for _, s := range bl.steps {
			if s.node >= 0 || s.typ == workflow.TypeAiStep && !f.AllowAgentSteps || s.typ == workflow.TypeAiTransform && !f.AllowAITransforms {
				continue
			}
			switch {
			case k != used && len(m.signature(s)) == 0 && s.tool != "" && hasTool(nodes, s.tool):
				// {tool_name: run_command} in prose: a mention of a step
				// the plan has, with nothing of its own to lose.
			case k < used && bl.plan && blocks[used].plan && matchedAny(bl.steps):
				u.Drafts = append(u.Drafts, s.describe())
			default:
				u.Steps = append(u.Steps, s.describe())
			}
		}
	}
	u.Edges = droppedEdges(blocks[used], nodes, edges)
	return u
}

func (s *stepObj) describe() string {
	if s.label == "" {
		return s.where
	}
	return s.where + " (" + s.label + ")"
}

func hasTool(nodes []workflow.Node, tool string) bool {
	for i := range nodes {
		if nodes[i].Params.Tool == tool {
			return true
		}
	}
	return false
}

func matchedAny(ss []*stepObj) bool {
	for _, s := range ss {
		if s.node >= 0 {
			return true
		}
	}
	return false
}

// measurer walks a reply's value trees. The alignment's rules say what
// looks like a step (stepLike) and which field a key names (fieldName);
// the measurer asks each question once per object and once per key, so a
// reply of many steps with the same keys costs little more than reading it.
type measurer struct {
	b      *alignBudget
	a      aligner
	fields map[string]string // key → step field, "" for none
	exact  map[string]string // key → step field spelled exactly, "" for none
	edges  map[string]string // key → edge field, "" for none
	like   map[*vnode]bool
	types  map[string]workflow.NodeType // a type's name, as stepLike reads it → type ("-": near one)
}

// edgeField is the edge field a key names ("from", "to", …), "" when none.
func (m *measurer) edgeField(key string) string {
	f, ok := m.edges[key]
	if !ok {
		f, _, _ = fieldName(key, edgeSchema)
		m.edges[key] = f
	}
	return f
}

// typeName reads a value as stepLike does a step_type's: a step type's
// name, or one edit from one.
func (m *measurer) typeName(s string) (workflow.NodeType, bool) {
	t, ok := m.types[s]
	if !ok {
		if n, named := NormalizeStepType(s); named {
			t = n
		} else if nearStepType(s) != "" {
			t = "-"
		}
		m.types[s] = t
	}
	return t, t != ""
}

func newMeasurer(b *alignBudget) *measurer {
	return &measurer{b: b, fields: map[string]string{}, exact: map[string]string{}, edges: map[string]string{}, like: map[*vnode]bool{}, types: map[string]workflow.NodeType{}}
}

// exactField is the step field a key names as spelled (a field's name or
// a synonym, as stepLike reads keys inside a step), "" when none.
func (m *measurer) exactField(key string) string {
	f, ok := m.exact[key]
	if !ok {
		f = stepFields.exact[norm(key)].canon
		m.exact[key] = f
	}
	return f
}

// stepField is the step field a key names, "" when none.
func (m *measurer) stepField(key string) string {
	f, ok := m.fields[key]
	if !ok {
		f, _, _ = fieldName(key, stepSchemas)
		m.fields[key] = f
	}
	return f
}

// signals are the step fields one of which an object must have to be
// step-like (align.go's stepLike looks at no other).
var signals = setOf("step_type", "kind", "tool_name", "exit_condition", "loop_id", "prompt", "cases")

// stepLike is the alignment's stepLike, asked once per object and only
// of objects with a key that can make one a step. Inside a step (its
// arguments, its parts) only keys spelled as a field or synonym count:
// argument names are many and never fields, and matching each by edit
// distance would cost more than reading the reply.
func (m *measurer) stepLike(v *vnode, inStep bool) bool {
	if v == nil || v.kind != vObj {
		return false
	}
	like, ok := m.like[v]
	if !ok {
		for _, k := range v.keys {
			f := ""
			if inStep {
				f = stepFields.exact[norm(k)].canon
			} else {
				f = m.stepField(k)
			}
			if signals[f] {
				like = m.a.stepLike(v)
				break
			}
		}
		m.like[v] = like
	}
	return like
}

// collect walks v for step-like objects and edge lists. path is where v
// is; in says in which value of the reply ("in JSON value 2 of 3").
func (m *measurer) collect(v *vnode, path, in string, bl *block, inStep bool, depth int) {
	if v == nil || depth > maxAlignDepth || !m.b.spend() {
		return
	}
	switch v.kind {
	case vStr:
		if d := v.deref(m.b, depth, false); d != v {
			m.collect(d, path+" (a JSON string)", in, bl, inStep, depth+1)
		}
	case vArr:
		steps := m.anyStepLike(v, inStep)
		if !steps && m.a.edgeList(v) {
			for _, it := range v.kids {
				if from, to, ok := edgeEnds(&m.a, it); ok {
					bl.edges = append(bl.edges, edgeObj{from, to})
				}
			}
			return
		}
		bl.plan = bl.plan || steps
		for i, k := range v.kids {
			if worthWalking(k) {
				m.collect(k, fmt.Sprintf("%s[%d]", path, i), in, bl, inStep, depth+1)
			}
		}
	case vObj:
		var parts []int // fields that are parts of this step, not steps
		step := m.stepLike(v, inStep) && !holdsPlan(v)
		if step {
			s := &stepObj{where: strings.TrimPrefix(path, ".") + in, node: -1}
			if s.where == in {
				s.where = "the reply" + in
			}
			s.typ, s.tool = m.stepTypeOf(v), m.toolOf(v)
			parts = m.stepParts(v, s)
			s.label, s.ids = m.stepLabel(v, s.tool)
			if key := lastKey(path); key != "" {
				s.ids = append(s.ids, key) // {"check": {…}}: the key is its id
			}
			s.v, s.parts = v, parts
			bl.steps = append(bl.steps, s)
		} else if len(v.kids) > 1 && m.objectOfSteps(v, inStep) {
			bl.plan = true
		}
		for i, k := range v.keys {
			if worthWalking(v.kids[i]) && !slices.Contains(parts, i) {
				m.collect(v.kids[i], path+"."+k, in, bl, inStep || step, depth+1)
			}
		}
	}
}

// cannotLeaveOut is the measure's fast path, for the common valid reply:
// one JSON value, valid as it is, no string in it that holds JSON, no
// more objects that may be steps (a key that is a step field's: an
// over-count of stepLike, never an under-count) than the result has
// nodes, per kind (an EndLoop the inference added stands for no step).
// It returns the reply's edges (objects with a from and a to, [from, to]
// lists) for droppedEdges.
// Then no step can have been left out, and the value tree need not be
// built.
func (m *measurer) cannotLeaveOut(visible string, cands []candidate, nodes []workflow.Node) (bool, []edgeObj) {
	var js string
	for _, c := range cands {
		if c.nested {
			continue
		}
		if js != "" || !c.closed {
			return false, nil
		}
		js = visible[c.start:c.end]
	}
	if js == "" || !validJSON(js) {
		return false, nil
	}
	steps, ends, pairs, ok := m.countSteps(js)
	if !ok {
		return false, nil
	}
	endNodes := 0
	for i := range nodes {
		if nodes[i].Type == workflow.TypeEndLoop {
			endNodes++
		}
	}
	return steps <= len(nodes) && steps-ends <= len(nodes)-endNodes, pairs
}

// countSteps scans valid JSON once, token by token (no value is built):
// how many objects may be steps (a key that names a step field, fuzzy
// matched: an over-count of stepLike) and how many of them EndLoops, and
// the edges (objects with a from and a to, [from, to] lists). ok is false
// when a string may hold JSON (and so steps): the full measure reads it.
// A template ("{{read.content}}") holds none.
func (m *measurer) countSteps(js string) (steps, ends int, pairs []edgeObj, ok bool) {
	type frame struct {
		obj       bool
		field     string // the current key's step field
		edge      string // the current key's edge field
		step, end bool
		// sure: a key and value seen so far make this object a step
		// as stepLike reads it in any context (a field spelled exactly,
		// with a value that counts); inStep: an object it is inside is.
		// Inside a step, stepLike matches keys exactly only (collect's
		// inStep), so the scan does too, and spends no edit distance on
		// the argument names of every step.
		sure, inStep bool
		key          string // the current key, as written
		from, to     string
		n            int // an array's items
		pair         [2]string
	}
	stack := make([]frame, 0, 16)
	expectKey := false
	value := func() { // a value ended in the container on top
		if len(stack) > 0 && !stack[len(stack)-1].obj {
			stack[len(stack)-1].n++
		}
	}
	for i := 0; i < len(js); i++ {
		switch c := js[i]; c {
		case '{', '[':
			in := false
			if len(stack) > 0 {
				top := &stack[len(stack)-1]
				in = top.inStep || top.sure
				if top.sure && c == '[' && (top.key == "steps" || top.key == "nodes") {
					// holdsPlan: the object is a plan, not a step, and
					// what it holds is read out of step context.
					return 0, 0, nil, false
				}
			}
			stack = append(stack, frame{obj: c == '{', inStep: in})
			expectKey = c == '{'
		case '}', ']':
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			switch {
			case f.obj && f.step:
				steps++
				if f.end {
					ends++
				}
			case f.obj && f.from != "" && f.to != "":
				pairs = append(pairs, edgeObj{f.from, f.to})
			case !f.obj && (f.n == 2 || f.n == 3) && f.pair[0] != "" && f.pair[1] != "":
				pairs = append(pairs, edgeObj{f.pair[0], f.pair[1]}) // ["a", "b"] or ["a", "b", "IfTrue"]
			}
			value()
		case ',':
			expectKey = len(stack) > 0 && stack[len(stack)-1].obj
		case '"':
			j := i + 1
			esc := false
			for ; js[j] != '"'; j++ {
				if js[j] == '\\' {
					esc = true
					j++
				}
			}
			str := js[i+1 : j]
			if esc {
				str = gjson.Parse(js[i : j+1]).Str
			}
			i = j
			top := &stack[len(stack)-1]
			if top.obj && expectKey {
				top.key = str
				if top.inStep {
					top.field = m.exactField(str)
				} else {
					top.field = m.stepField(str)
				}
				top.edge = m.edgeField(str)
				if signals[top.field] && top.field != "step_type" && top.field != "kind" {
					top.step = true
					top.end = top.end || top.field == "loop_id"
				}
				expectKey = false
				continue
			}
			if t := strings.TrimLeft(str, " \t\r\n"); t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '`') && !strings.HasPrefix(t, "{{") {
				return 0, 0, nil, false
			}
			if top.obj {
				switch top.field {
				case "step_type", "kind":
					// a type's name, as stepLike asks ({"type": "IfTrue"}
					// is an edge's output, no step)
					t, named := m.typeName(str)
					if named || top.field == "kind" && transformKinds[strings.ToLower(str)] {
						top.step = true
						top.sure = top.sure || t != "-" && m.exactField(top.key) == top.field
					}
					top.end = top.end || t == workflow.TypeEndLoop
				case "tool_name":
					top.sure = top.sure || str != "" && m.exactField(top.key) == "tool_name"
				}
				switch top.edge {
				case "from":
					top.from = str
				case "to":
					top.to = str
				}
			} else if top.n < 2 {
				top.pair[top.n] = str
			}
			value()
		case ' ', '\t', '\r', '\n', ':':
		default: // a number, true, false or null
			for i+1 < len(js) && !strings.ContainsRune(",}] \t\r\n", rune(js[i+1])) {
				i++
			}
			value()
		}
	}
	return steps, ends, pairs, true
}

// objectOfSteps: every value is a step-like object ({"check": {…}}).
func (m *measurer) objectOfSteps(v *vnode, inStep bool) bool {
	for _, k := range v.kids {
		if !m.stepLike(k, inStep) {
			return false
		}
	}
	return len(v.kids) > 0
}

// worthWalking: a container, or a string that may hold JSON.
func worthWalking(v *vnode) bool {
	switch v.kind {
	case vObj, vArr:
		return true
	case vStr:
		t := strings.TrimLeft(v.s, " \t\r\n")
		return t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '`')
	}
	return false
}

// holdsPlan reports whether an object holds a plan's list of steps or
// nodes: a plan (or its wrapper), not a step, whatever else it has.
func holdsPlan(v *vnode) bool {
	for _, k := range []string{"steps", "nodes"} {
		if l := v.get(k); l != nil && l.kind == vArr {
			return true
		}
	}
	return false
}

func (m *measurer) anyStepLike(v *vnode, inStep bool) bool {
	for _, k := range v.kids {
		if m.stepLike(k, inStep) {
			return true
		}
	}
	return false
}

// lastKey is the last object key of a path (".steps.check" → "check"),
// "" when the path ends in an index.
func lastKey(path string) string {
	i := strings.LastIndexByte(path, '.')
	if i < 0 || strings.HasSuffix(path, "]") || strings.HasSuffix(path, ")") {
		return ""
	}
	return path[i+1:]
}

// edgeEnds reads an edge item's two ends as text.
func edgeEnds(a *aligner, it *vnode) (string, string, bool) {
	fk, tk, ok := a.endpoints(it)
	if !ok {
		return "", "", false
	}
	switch it.kind {
	case vObj:
		return scalarText(it.get(fk)), scalarText(it.get(tk)), true
	case vStr:
		return arrowEdge(it.s)
	case vArr:
		return scalarText(it.kids[0]), scalarText(it.kids[1]), true
	}
	return "", "", false
}

// stepParts are the fields of step object v that complete it rather
// than being steps of their own: an object value that looks like a step
// but adds only what v lacks (Weft's node shape, {"type": "Tool",
// "params": {"tool": …}}: the type outside, the tool inside). A value
// naming a type or a tool v names too is a step of its own ("next": {…}).
// The parts' type and tool become s's.
func (m *measurer) stepParts(v *vnode, s *stepObj) []int {
	var out []int
	for i, k := range v.kids {
		k = k.deref(m.b, 0, false)
		if !m.stepLike(k, true) {
			continue
		}
		named, tool := m.namedType(k), m.toolOf(k)
		if (named != "" && m.namedType(v) != "") || (tool != "" && s.tool != "") {
			continue
		}
		out = append(out, i)
		if named != "" || s.typ == "" {
			s.typ = m.stepTypeOf(k)
		}
		if tool != "" {
			s.tool = tool
			if s.typ == "" {
				s.typ = workflow.TypeTool
			}
		}
	}
	return out
}

// toolOf is the tool an object names, "" when none.
func (m *measurer) toolOf(v *vnode) string {
	for i, k := range v.keys {
		if m.stepField(k) == "tool_name" {
			return v.kids[i].text()
		}
	}
	return ""
}

// impliedType is the step type a field implies when a step names none,
// as the decoder reads it.
var impliedType = map[string]workflow.NodeType{
	"tool_name": workflow.TypeTool, "exit_condition": workflow.TypeLoop, "loop_id": workflow.TypeEndLoop,
	"cases": workflow.TypeSwitch, "prompt": workflow.TypeAiStep,
}

// namedType is the step type an object names, "" when none.
func (m *measurer) namedType(v *vnode) workflow.NodeType {
	for i, k := range v.keys {
		if m.stepField(k) == "step_type" {
			if t, ok := NormalizeStepType(v.kids[i].text()); ok {
				return t
			}
		}
	}
	return ""
}

// stepTypeOf is the step type an object names, or the one its fields
// imply; "" when neither.
func (m *measurer) stepTypeOf(v *vnode) workflow.NodeType {
	var implied workflow.NodeType
	for i, k := range v.keys {
		switch f := m.stepField(k); f {
		case "step_type":
			if t, ok := NormalizeStepType(v.kids[i].text()); ok {
				return t
			}
		default:
			if t, ok := impliedType[f]; ok && implied == "" {
				implied = t
			}
		}
	}
	return implied
}

// stepLabel names a step object in messages (its tool, id or name), and
// returns its ids (id, key, name) for edges to refer to it by.
func (m *measurer) stepLabel(v *vnode, tool string) (string, []string) {
	var parts, ids []string
	if tool != "" {
		parts = append(parts, "tool_name "+clipText(tool, 40))
	}
	for i, k := range v.keys {
		switch f := m.stepField(k); f {
		case "id", "name", "key":
			if t := v.kids[i].text(); t != "" {
				ids = append(ids, t)
				if f != "key" {
					parts = append(parts, f+" "+clipText(t, 40))
				}
			}
		}
	}
	return strings.Join(parts, ", "), ids
}

func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return fmt.Sprintf("%q", s)
	}
	r := []rune(s)
	return fmt.Sprintf("%q…", string(r[:n]))
}

// minSig is the length a string needs to identify a step.
const minSig = 3

// leafStrings appends the strings of step v that identify it: every
// string value of minSig bytes or more, but those of step-like objects
// inside it (they are steps of their own) and the values of its tool and
// step type (many steps share those).
func (m *measurer) leafStrings(v *vnode, out []string) []string {
	var walk func(n *vnode, top bool, depth int)
	walk = func(n *vnode, top bool, depth int) {
		if n == nil || depth > maxAlignDepth || !m.b.spend() {
			return
		}
		switch n.kind {
		case vStr:
			if d := n.deref(m.b, depth, false); d != n {
				walk(d, false, depth+1)
			} else if t := strings.TrimSpace(n.s); len(t) >= minSig {
				out = append(out, t)
			}
		case vArr:
			for _, k := range n.kids {
				walk(k, false, depth+1)
			}
		case vObj:
			if !top && m.stepLike(n, true) {
				return
			}
			for i, k := range n.keys {
				if top {
					if f := m.stepField(k); f == "tool_name" || f == "step_type" {
						continue
					}
				}
				walk(n.kids[i], false, depth+1)
			}
		}
	}
	walk(v, true, 0)
	return out
}

// nodeIndex maps each identifying string of a node to the nodes that
// have it: its key, name and id, and the strings of its parameters but
// the tool's name.
func nodeIndex(nodes []workflow.Node) map[string][]int {
	idx := map[string][]int{}
	add := func(s string, i int) {
		s = strings.TrimSpace(s)
		if l := idx[s]; len(s) >= minSig && (len(l) == 0 || l[len(l)-1] != i) {
			idx[s] = append(l, i)
		}
	}
	var walk func(r gjson.Result, i int)
	walk = func(r gjson.Result, i int) {
		switch {
		case r.IsObject() || r.IsArray():
			r.ForEach(func(_, v gjson.Result) bool { walk(v, i); return true })
		case r.Type == gjson.String:
			if t := strings.TrimSpace(r.Str); t != "" && (t[0] == '{' || t[0] == '[') && gjson.Valid(t) {
				walk(gjson.Parse(t), i) // a JSON string, as leafStrings reads it
			} else {
				add(r.Str, i)
			}
		}
	}
	for i := range nodes {
		n := &nodes[i]
		add(n.Key, i)
		add(n.Name, i)
		add(n.ID, i)
		p := n.Params
		p.Tool = ""
		if raw, err := json.Marshal(p); err == nil {
			walk(gjson.ParseBytes(raw), i)
		}
	}
	return idx
}

// matchBlock pairs steps with nodes one to one by shared strings, most
// shared first (document order among equals); it returns how many
// paired. A step's pairing from an earlier block is reset.
func (m *measurer) matchBlock(steps []*stepObj, idx map[string][]int) int {
	type pair struct{ s, n, score int }
	var pairs []pair
	for i, s := range steps {
		s.node = -1
		score := map[int]int{}
		seen := map[string]bool{}
		for _, x := range m.signature(s) {
			if !seen[x] {
				seen[x] = true
				for _, j := range idx[x] {
					score[j]++
				}
			}
		}
		for j, n := range score {
			pairs = append(pairs, pair{i, j, n})
		}
	}
	sort.Slice(pairs, func(a, b int) bool {
		pa, pb := pairs[a], pairs[b]
		if pa.score != pb.score {
			return pa.score > pb.score
		}
		if pa.s != pb.s {
			return pa.s < pb.s
		}
		return pa.n < pb.n
	})
	taken := map[int]bool{}
	n := 0
	for _, p := range pairs {
		if steps[p.s].node < 0 && !taken[p.n] {
			steps[p.s].node, taken[p.n] = p.n, true
			n++
		}
	}
	return n
}

// pairByType pairs the block's unpaired steps with the unpaired nodes of
// their type (any type when the step names none), in order; it reports
// whether every step has a node.
func pairByType(steps []*stepObj, nodes []workflow.Node) bool {
	taken := make([]bool, len(nodes))
	for _, s := range steps {
		if s.node >= 0 {
			taken[s.node] = true
		}
	}
	// next[t] is where the search for a free node of type t resumes
	// ("" for any type): linear in steps and nodes.
	next := map[workflow.NodeType]int{}
	all := true
	for _, s := range steps {
		if s.node >= 0 {
			continue
		}
		j := next[s.typ]
		for j < len(nodes) && (taken[j] || s.typ != "" && s.typ != nodes[j].Type) {
			j++
		}
		next[s.typ] = j
		if j == len(nodes) {
			all = false
			continue
		}
		s.node, taken[j] = j, true
	}
	return all
}

// droppedEdges lists the block's edges between two of its steps that the
// result does not connect within two hops.
func droppedEdges(bl *block, nodes []workflow.Node, edges []workflow.Edge) []string {
	if len(bl.edges) == 0 {
		return nil
	}
	ref := make(map[string]int, 3*len(nodes))
	for j := range nodes {
		for _, s := range []string{nodes[j].ID, nodes[j].Key, nodes[j].Name} {
			if s != "" {
				ref[s] = j
			}
		}
	}
	for _, s := range bl.steps {
		if s.node >= 0 {
			for _, x := range s.ids {
				if _, ok := ref[x]; !ok {
					ref[x] = s.node
				}
			}
		}
	}
	next := make(map[string][]string, len(nodes))
	for _, e := range edges {
		next[e.From] = append(next[e.From], e.To)
	}
	reaches := func(a, b string) bool {
		for _, x := range next[a] {
			if x == b {
				return true
			}
			for _, y := range next[x] {
				if y == b {
					return true
				}
			}
		}
		return false
	}
	var out []string
	for _, e := range bl.edges {
		f, okf := ref[e.from]
		t, okt := ref[e.to]
		if okf && okt && f != t && !reaches(nodes[f].ID, nodes[t].ID) {
			out = append(out, e.from+" → "+e.to)
		}
	}
	return out
}

// proseChars counts the characters of the visible reply outside its JSON
// blocks (cands) and code fences.
func proseChars(visible string, cands []candidate) int {
	n, at := 0, 0
	count := func(s string) {
		for _, line := range strings.Split(s, "\n") {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "```") {
				continue
			}
			n += utf8.RuneCountInString(line)
		}
	}
	for _, c := range cands {
		if c.nested || c.start < at {
			continue
		}
		count(visible[at:c.start])
		at = c.end
	}
	count(visible[at:])
	return n
}
