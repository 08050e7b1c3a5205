package validate

import (
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// MaxIterationsLimit is the largest max_iterations a Loop may declare.
const MaxIterationsLimit = 1_000_000

// Validate checks a workflow and returns every problem it finds, not just
// the first. cat may be nil, which skips the unknown_tool check for named
// tools. The result is deterministic: problems are sorted by severity
// (errors first), then by the position of their first node in w.Nodes, then
// by code and message. Validate does not modify w and is safe to call
// from several goroutines at once. Its cost is linear in nodes + edges;
// the conditions are compiled on background goroutines while the graph is
// checked.
//
// Choices the contract leaves open, so that the UI and the planner can rely
// on them:
//
//   - An If needs a non-empty condition and each Switch case one
//     (bad_condition). A Loop's exit_condition may be empty: the loop then
//     runs max_iterations times. verify is optional on every node.
//   - A Switch's SwitchDefault edge is optional; at most one is allowed.
//   - Loop membership: the body of a Loop is every node on a path from its
//     LoopBody target to its EndLoop. A branch inside the body that cannot
//     reach the EndLoop (a jump past the loop, or a dead end) is reported as
//     edge_leaves_loop; an edge from outside into a body other than the
//     LoopBody edge is edge_enters_loop. An EndLoop that cannot be reached
//     from its Loop's body leaves the Loop unpaired (loop_unpaired).
//   - Edges leaving an EndLoop never count as incoming edges of a Loop for
//     no_entry/multiple_entries, and are left out of cycle detection: an
//     EndLoop always jumps back to its Loop, and a wrongly drawn EndLoop
//     edge is reported as endloop_edge_mismatch rather than also as a cycle.
//   - Cascades are suppressed where the cause is already reported: a node
//     whose only incoming edges dangle is neither an entry nor unreachable;
//     with no single entry nothing is reported unreachable except nodes
//     that no entry reaches at all; loops that are malformed are not
//     checked for edges leaving or entering them, and nodes in or after
//     their bodies are not reported as not running before a reader; a
//     condition that does not compile is not checked for unknown variables.
//   - unknown_tool is a warning for a tool missing from the catalog (an MCP
//     server may be offline), whether a Tool calls it or an AiStep lists it
//     in allowed_tools, but an error for a Tool with no tool at all.
//   - Node keys must satisfy workflow.ValidKey and must not be a word that
//     expr reads as an operator or literal (not, in, true, nil…): such a key
//     could never be referenced (bad_key).
func Validate(w *workflow.Workflow, cat *tools.Catalog) Result {
	return ValidateWith(w, cat, Options{})
}

// Options are what Validate may also be told.
type Options struct {
	// Secrets are the names the credentials store holds: a reference to
	// another is a warning (unknown_secret). nil skips that check.
	Secrets []string
	// Dir is the workflow's folder: a Workflow node's file is read from
	// there and checked (unknown_workflow, bad_workflow_inputs). "" (an
	// unsaved workflow) leaves that to the run.
	Dir string
}

// ValidateWith is Validate with options.
func ValidateWith(w *workflow.Workflow, cat *tools.Catalog, opts Options) Result {
	v := &validator{cat: cat, opts: opts}
	if w != nil {
		v.w = w
		v.nodes = w.Nodes
	}
	v.run()
	sortProblems(v.probs, v.idx)
	res := Result{Valid: true, Problems: v.probs}
	if res.Problems == nil {
		res.Problems = []Problem{}
	}
	for _, p := range res.Problems {
		if p.Severity == SeverityError {
			res.Valid = false
			break
		}
	}
	return res
}

// edgeRef is a deduplicated edge whose source node exists.
type edgeRef struct {
	e    *workflow.Edge
	from int32
	to   int32 // -1 when the target node does not exist
	out  workflow.OutputType
	name string // case name, for SwitchCase only
}

type validator struct {
	w     *workflow.Workflow
	cat   *tools.Catalog
	opts  Options
	nodes []workflow.Node
	n     int
	probs []Problem

	idx  *idTable // node id → its first node
	dup  []bool   // node reuses an id taken earlier: left out of the graph
	kind []uint8  // isLoop, isIf…: a compact copy of the types hot loops read

	// Filled in the background (see startBackground); behind a pointer so
	// that fork's copy of v does not read what the workers write.
	keys *keyIndex
	tmpl [][]string // per node, the keys its templates read

	edges    []edgeRef
	outStart []int32 // per node, range into outList of its edges (label checks)
	outList  []int32
	softIn   []bool // node has an incoming edge from a missing node

	endTarget []int32   // EndLoop node → its Loop node, or -1
	endsOf    [][]int32 // Loop node → EndLoop nodes naming it (nil for others)

	g flowGraph
	// taint marks nodes in or after the body of a malformed loop, whose
	// order cannot be reasoned about (nil when there are none).
	taint []bool

	jobs []condJob
	refs []refSet
}

func (v *validator) run() {
	v.n = len(v.nodes)
	if v.n == 0 {
		msg := "The workflow has no steps; add at least one node"
		v.add(CodeNoNodes, SeverityError, msg, nil)
		return
	}
	// On a large workflow the checks that do not depend on each other run
	// on two goroutines (see fork); small ones run in order.
	par := v.n >= 2000
	v.jobs = make([]condJob, 0, v.n/2+8)
	v.refs = make([]refSet, 0, v.n+8)
	if par {
		c := v.fork()
		done := make(chan struct{})
		go func() { c.checkNodes(); close(done) }()
		v.indexNodes()
		<-done
		v.jobs = c.jobs // checkNodes adds jobs; nothing else it writes is read later
		v.join(c)
	} else {
		v.indexNodes()
		v.checkNodes()
	}
	v.checkLoopPairs()
	waitBackground := v.startBackground()
	v.indexEdges()
	outputs := v
	var outputsDone chan struct{}
	if par {
		outputs = v.fork()
		outputsDone = make(chan struct{})
	}
	checkOutputs := func() {
		for i := range outputs.nodes {
			if !outputs.dup[i] {
				outputs.checkOutputs(int32(i))
			}
		}
	}
	if par {
		go func() { checkOutputs(); close(outputsDone) }()
	} else {
		checkOutputs()
	}
	v.buildGraph()
	v.checkEntries()
	// The ancestry graph only reads what is built by now; on a large
	// workflow, build it alongside the remaining checks.
	ancestry := v.ancestryGraph
	if v.n >= 2000 {
		ch := make(chan flowGraph, 1)
		go func() { ch <- v.ancestryGraph() }()
		ancestry = func() flowGraph { return <-ch }
	}
	v.checkCycles()
	v.checkLoops()
	waitBackground()
	v.checkKeys()
	var fieldsDone chan struct{}
	fv := v
	if par {
		// Field references only read the nodes and the key index.
		fv, fieldsDone = v.fork(), make(chan struct{})
		go func() { fv.checkFields(); close(fieldsDone) }()
	}
	v.checkConditions()
	v.checkTemplates()
	v.checkRefs(ancestry)
	if par {
		<-fieldsDone
		v.join(fv)
	} else {
		v.checkFields()
	}
	if par {
		<-outputsDone
		v.join(outputs)
	}
	v.checkPinned()
	v.checkSecrets()
	v.checkLiterals()
	v.checkInputs()
	v.checkTriggers()
	v.checkAnnotations()
}

// fork returns a copy of v for a check that runs on another goroutine
// while v goes on: the copy shares what both only read and collects its
// own problems, which join adds to v's. The caller makes sure the two do
// not write the same fields.
func (v *validator) fork() *validator {
	c := *v
	c.probs = nil
	return &c
}

func (v *validator) join(c *validator) { v.probs = append(v.probs, c.probs...) }

// ---- problems ----

func q(s string) string { return "'" + s + "'" }

func (v *validator) label(i int32) string { return q(v.nodes[i].Label()) }

// typed renders a node for messages: "If 'Check'", or just "'Fetch'" for
// the plain step types.
func (v *validator) typed(i int32) string {
	switch t := v.nodes[i].Type; t {
	case workflow.TypeIf, workflow.TypeSwitch, workflow.TypeLoop, workflow.TypeEndLoop:
		return string(t) + " " + v.label(i)
	}
	return v.label(i)
}

// names lists up to five node labels: "'A', 'B' and 'C'".
func (v *validator) names(ids []int32) string {
	const max = 5
	var parts []string
	for k, i := range ids {
		if k == max {
			parts = append(parts, fmt.Sprintf("%d more", len(ids)-max))
			break
		}
		parts = append(parts, v.label(i))
	}
	return joinAnd(parts)
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func (v *validator) add(code string, sev Severity, msg string, nodes []int32, edges ...*workflow.Edge) {
	p := Problem{Code: code, Severity: sev, Message: msg, NodeIDs: make([]string, 0, len(nodes)), Edges: make([]workflow.Edge, 0, len(edges))}
	var seen map[string]bool
	if len(nodes) > 8 {
		seen = make(map[string]bool, len(nodes))
	}
	for _, i := range nodes {
		id := v.nodes[i].ID
		if seen != nil {
			if seen[id] {
				continue
			}
			seen[id] = true
		} else if slices.Contains(p.NodeIDs, id) {
			continue
		}
		p.NodeIDs = append(p.NodeIDs, id)
	}
	for _, e := range edges {
		p.Edges = append(p.Edges, *e)
	}
	v.probs = append(v.probs, p)
}

func (v *validator) addEdges(code string, msg string, nodes []int32, refs []int32) {
	es := make([]*workflow.Edge, len(refs))
	for k, r := range refs {
		es[k] = v.edges[r].e
	}
	v.add(code, SeverityError, msg, nodes, es...)
}

func sortProblems(ps []Problem, idx *idTable) {
	type sortKey struct {
		err   bool
		first int32
		nodes string
	}
	keys := make([]sortKey, len(ps))
	for k := range ps {
		p := &ps[k]
		keys[k] = sortKey{err: p.Severity == SeverityError, first: -1, nodes: strings.Join(p.NodeIDs, "\x00")}
		if len(p.NodeIDs) > 0 && idx != nil {
			if i, ok := idx.lookup(p.NodeIDs[0]); ok {
				keys[k].first = i
			}
		}
	}
	order := make([]int, len(ps))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := &keys[order[a]], &keys[order[b]]
		pa, pb := &ps[order[a]], &ps[order[b]]
		if ka.err != kb.err {
			return ka.err
		}
		if ka.first != kb.first {
			return ka.first < kb.first
		}
		if pa.Code != pb.Code {
			return pa.Code < pb.Code
		}
		if pa.Message != pb.Message {
			return pa.Message < pb.Message
		}
		return ka.nodes < kb.nodes
	})
	sorted := make([]Problem, len(ps))
	for k, o := range order {
		sorted[k] = ps[o]
	}
	copy(ps, sorted)
}

// ---- nodes ----

// Node kinds in v.kind; 0 is a plain step (Tool, AiStep, AiTransform or an
// unknown type).
const (
	isLoop uint8 = 1 + iota
	isEndLoop
	isIf
	isSwitch
)

func (v *validator) indexNodes() {
	v.idx = newIDTable(v.n)
	v.dup = make([]bool, v.n)
	v.kind = make([]uint8, v.n)
	var dupIDs []string
	groups := map[string][]int32{}
	for i := range v.nodes {
		switch v.nodes[i].Type {
		case workflow.TypeLoop:
			v.kind[i] = isLoop
		case workflow.TypeEndLoop:
			v.kind[i] = isEndLoop
		case workflow.TypeIf:
			v.kind[i] = isIf
		case workflow.TypeSwitch:
			v.kind[i] = isSwitch
		}
		id := v.nodes[i].ID
		if first := v.idx.add(int32(i), id); first >= 0 {
			v.dup[i] = true
			if groups[id] == nil {
				dupIDs = append(dupIDs, id)
				groups[id] = []int32{first}
			}
			groups[id] = append(groups[id], int32(i))
		}
	}
	for _, id := range dupIDs {
		g := groups[id]
		msg := fmt.Sprintf("%d nodes share the id %s: %s; each node needs its own id", len(g), q(id), v.names(g))
		v.add(CodeDuplicateNodeID, SeverityError, msg, g)
	}
}

func (v *validator) checkNodes() {
	for i := range v.nodes {
		nd := &v.nodes[i]
		ii := int32(i)

		if !nd.Type.Valid() {
			msg := fmt.Sprintf("%s has no type; choose one of %s", v.label(ii), typeList())
			if nd.Type != "" {
				msg = fmt.Sprintf("%s has the unknown type %s; choose one of %s", v.label(ii), q(string(nd.Type)), typeList())
			}
			v.add(CodeUnknownNodeType, SeverityError, msg, []int32{ii})
		}
		v.checkDurations(ii)

		switch {
		case nd.Key == "":
			v.add(CodeBadKey, SeverityError, fmt.Sprintf("%s has no key; give it one such as %s", v.label(ii), q(workflow.KeyFromName(nd.Label()))), []int32{ii})
		case !validKey(nd.Key):
			v.add(CodeBadKey, SeverityError, fmt.Sprintf("%s has the key %s, which is not an identifier: use lowercase letters, digits and underscores, starting with a letter or underscore, at most 64 characters", v.label(ii), q(nd.Key)), []int32{ii})
		case reservedWord(nd.Key):
			v.add(CodeBadKey, SeverityError, fmt.Sprintf("%s has the key %s, which is a reserved word in conditions; rename it", v.label(ii), q(nd.Key)), []int32{ii})
		case workflow.ReferenceRoot(nd.Key):
			v.add(CodeBadKey, SeverityError, fmt.Sprintf("%s has the key %s, which templates read as {{%s.NAME}}, not as a step; rename it", v.label(ii), q(nd.Key), nd.Key), []int32{ii})
		}

		switch nd.Type {
		case workflow.TypeTool:
			switch {
			case strings.TrimSpace(nd.Params.Tool) == "":
				v.add(CodeUnknownTool, SeverityError, fmt.Sprintf("%s has no tool selected", v.label(ii)), []int32{ii})
			case v.cat != nil && !v.cat.Has(nd.Params.Tool):
				v.add(CodeUnknownTool, SeverityWarning, fmt.Sprintf("%s uses the tool %s, which is not in the tool catalog", v.label(ii), q(nd.Params.Tool)), []int32{ii})
			}
		case workflow.TypeWorkflow:
			v.checkSubflow(ii)
		case workflow.TypeAiStep:
			if v.cat != nil {
				for _, name := range nd.Params.AllowedTools {
					if !v.cat.Has(name) {
						v.add(CodeUnknownTool, SeverityWarning, fmt.Sprintf("%s allows the tool %s, which is not in the tool catalog", v.label(ii), q(name)), []int32{ii})
					}
				}
			}
		case workflow.TypeIf:
			v.addJob(condJob{node: ii, kind: condIf, text: nd.Params.Condition, required: true})
		case workflow.TypeSwitch:
			seen := make(map[string]bool, len(nd.Params.Cases))
			reported := map[string]bool{}
			for c, sc := range nd.Params.Cases {
				if seen[sc.Name] {
					if !reported[sc.Name] {
						reported[sc.Name] = true
						v.add(CodeSwitchDuplicateCase, SeverityError, fmt.Sprintf("Switch %s declares the case %s more than once; case names must be unique", v.label(ii), q(sc.Name)), []int32{ii})
					}
				}
				seen[sc.Name] = true
				v.addJob(condJob{node: ii, kind: condCase, caseIdx: int32(c), text: sc.Condition, required: true})
			}
		case workflow.TypeLoop:
			if m := nd.Params.MaxIterations; m != nil && (*m < 1 || *m > MaxIterationsLimit) {
				v.add(CodeBadMaxIterations, SeverityError, fmt.Sprintf("Loop %s has max_iterations %d; it must be between 1 and %s", v.label(ii), *m, "1,000,000"), []int32{ii})
			}
			if strings.TrimSpace(nd.Params.ExitCondition) != "" {
				v.addJob(condJob{node: ii, kind: condExit, text: nd.Params.ExitCondition})
			}
		}
		if strings.TrimSpace(nd.Verify) != "" {
			v.addJob(condJob{node: ii, kind: condVerify, text: nd.Verify})
		}
		v.checkStepExtras(ii)
	}
	v.checkWorkflowDone()
	v.checkArguments()
}

// checkLoopPairs resolves EndLoop targets and pairs loops; it needs the id
// index, unlike checkNodes.
func (v *validator) checkLoopPairs() {
	v.endTarget = make([]int32, v.n)
	v.endsOf = make([][]int32, v.n)
	for i := range v.endTarget {
		v.endTarget[i] = -1
	}
	for i := range v.nodes {
		if v.kind[i] != isEndLoop {
			continue
		}
		nd := &v.nodes[i]
		ii := int32(i)
		t, ok := v.idx.lookup(nd.Params.LoopID)
		switch {
		case nd.Params.LoopID == "":
			v.add(CodeEndloopBadTarget, SeverityError, fmt.Sprintf("EndLoop %s does not name its Loop (params.loop_id is empty)", v.label(ii)), []int32{ii})
		case !ok:
			v.add(CodeEndloopBadTarget, SeverityError, fmt.Sprintf("EndLoop %s names the Loop %s, but there is no node with that id", v.label(ii), q(nd.Params.LoopID)), []int32{ii})
		case v.nodes[t].Type != workflow.TypeLoop:
			v.add(CodeEndloopBadTarget, SeverityError, fmt.Sprintf("EndLoop %s names %s, which is not a Loop", v.label(ii), v.typed(t)), []int32{ii, t})
		default:
			v.endTarget[i] = t
			if !v.dup[i] {
				v.endsOf[t] = append(v.endsOf[t], ii)
			}
		}
	}
	for i := range v.nodes {
		ii := int32(i)
		if v.kind[i] != isLoop || v.dup[i] {
			continue
		}
		switch ends := v.endsOf[i]; {
		case len(ends) == 0:
			v.add(CodeLoopUnpaired, SeverityError, fmt.Sprintf("Loop %s has no EndLoop; add an EndLoop whose loop_id is %s at the end of its body", v.label(ii), q(v.nodes[i].ID)), []int32{ii})
		case len(ends) > 1:
			v.add(CodeLoopMultipleEndloops, SeverityError, fmt.Sprintf("Loop %s has %d EndLoops (%s); a loop needs exactly one", v.label(ii), len(ends), v.names(ends)), append([]int32{ii}, ends...))
		}
	}
}

// validKey is workflow.ValidKey with a fast path for the common case (the
// regexp costs ~30 ms on 100,000 nodes); TestValidKeyFastPath keeps the two
// in step.
func validKey(k string) bool {
	if len(k) == 0 || len(k) > 64 {
		return workflow.ValidKey(k)
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return workflow.ValidKey(k)
		}
	}
	return true
}

func typeList() string {
	parts := make([]string, len(workflow.NodeTypes))
	for k, t := range workflow.NodeTypes {
		parts[k] = string(t)
	}
	return strings.Join(parts, ", ")
}

// collectTemplates gathers template roots from every string in a JSON-like
// value. Map order does not matter: problems are sorted in the end.
func collectTemplates(x any, out []string) []string {
	switch t := x.(type) {
	case string:
		return templateRoots(t, out)
	case map[string]any:
		for _, e := range t {
			out = collectTemplates(e, out)
		}
	case []any:
		for _, e := range t {
			out = collectTemplates(e, out)
		}
	}
	return out
}

// ---- edges ----

type edgeKey struct {
	from, to string
	out      workflow.OutputType
	name     string
}

// label returns an edge's output type and, for SwitchCase, its case name.
// An output with an empty type is the same as no output.
func edgeLabel(e *workflow.Edge) (workflow.OutputType, string) {
	if e.Output == nil {
		return "", ""
	}
	if e.Output.Type == workflow.OutSwitchCase {
		return e.Output.Type, e.Output.Name
	}
	return e.Output.Type, ""
}

// indexEdges resolves edge ends to node indices, reports duplicate,
// dangling and self-loop edges, and keeps the rest (those whose source
// exists) in v.edges with per-node out lists. Duplicates are found by
// comparing the few edges that leave the same node, which avoids hashing
// every edge's ids a second time; a map is used only for edges whose source
// is missing and for nodes with unusually many outgoing edges.
func (v *validator) indexEdges() {
	if v.w == nil {
		v.outStart = make([]int32, v.n+1)
		v.softIn = make([]bool, v.n)
		return
	}
	es := v.w.Edges
	m := len(es)
	// all holds every edge, resolved and labelled in one pass (the output
	// label is behind a pointer: read it once); the kept ones are then
	// compacted in place into v.edges.
	all := make([]edgeRef, m)
	counts := make([]int32, v.n+1)
	// Edges are usually listed along the flow and nodes in about the same
	// order, so an edge tends to start where the previous one started or
	// ended, and to end a few nodes after its start. Trying those guesses
	// first (a string compare with a node in cache) saves most map
	// lookups, which on large workflows miss the cache. A guess must be the
	// first node with the id, hence the dup check.
	ids := v.idx
	resolve := func(id string, g1, g2 int32) int32 {
		h := ids.hash(id)
		tag := uint32(h >> 32)
		for _, g := range [7]int32{g1, g2, g1 + 1, g2 + 1, g1 + 2, g1 + 3, g1 + 4} {
			if g >= 0 && int(g) < v.n && ids.tags[g] == tag && !v.dup[g] && ids.ids[g] == id {
				return g
			}
		}
		return ids.find(id, h)
	}
	resolveRange := func(lo, hi int) {
		lastF, lastT := int32(-1), int32(-1)
		for k := lo; k < hi; k++ {
			e := &es[k]
			f := resolve(e.From, lastF, lastT)
			t := resolve(e.To, f, lastT)
			out, name := edgeLabel(e)
			all[k] = edgeRef{e: e, from: f, to: t, out: out, name: name}
			lastF, lastT = f, t
		}
	}
	// On a large workflow, resolve the two halves at once (the id map is
	// only read here, which is safe from several goroutines).
	if m >= 20000 && runtime.GOMAXPROCS(0) > 1 {
		var wg sync.WaitGroup
		wg.Go(func() { resolveRange(0, m/2) })
		resolveRange(m/2, m)
		wg.Wait()
	} else {
		resolveRange(0, m)
	}
	for k := range all {
		if f := all[k].from; f >= 0 {
			counts[f+1]++
		}
	}
	for i := 1; i <= v.n; i++ {
		counts[i] += counts[i-1]
	}
	bySrc := make([]int32, counts[v.n])
	fill := make([]int32, v.n)
	for k := range all {
		if f := all[k].from; f >= 0 {
			bySrc[counts[f]+fill[f]] = int32(k)
			fill[f]++
		}
	}
	dupEdge := make([]bool, m)
	same := func(a, b *edgeRef) bool {
		return a.to == b.to && (a.to >= 0 || a.e.To == b.e.To) && a.out == b.out && a.name == b.name
	}
	for i := 0; i < v.n; i++ {
		list := bySrc[counts[i]:counts[i+1]]
		if len(list) < 2 {
			continue
		}
		if len(list) > 32 {
			seen := make(map[edgeKey]struct{}, len(list))
			for _, k := range list {
				a := &all[k]
				key := edgeKey{"", a.e.To, a.out, a.name}
				if _, ok := seen[key]; ok {
					dupEdge[k] = true
				}
				seen[key] = struct{}{}
			}
			continue
		}
		for a := 1; a < len(list); a++ {
			for b := 0; b < a; b++ {
				if same(&all[list[a]], &all[list[b]]) {
					dupEdge[list[a]] = true
					break
				}
			}
		}
	}
	var orphan map[edgeKey]struct{}
	for k := range all {
		if a := &all[k]; a.from < 0 {
			if orphan == nil {
				orphan = map[edgeKey]struct{}{}
			}
			key := edgeKey{a.e.From, a.e.To, a.out, a.name}
			if _, ok := orphan[key]; ok {
				dupEdge[k] = true
			}
			orphan[key] = struct{}{}
		}
	}

	v.edges = all[:0]
	v.softIn = make([]bool, v.n)
	outCount := make([]int32, v.n+1)
	for k := range all {
		a := all[k]
		e := a.e
		if dupEdge[k] {
			v.add(CodeDuplicateEdge, SeverityError, "The "+v.edgeDesc(e, a.out)+" appears more than once; remove the copy", v.endpoints(e), e)
			continue
		}
		f, t := a.from, a.to
		if f < 0 || t < 0 {
			var msg string
			switch {
			case f < 0 && t < 0:
				msg = fmt.Sprintf("An edge connects %s to %s, but neither node exists", q(e.From), q(e.To))
			case f < 0:
				msg = fmt.Sprintf("An edge into %s comes from %s, which does not exist", v.label(t), q(e.From))
				v.softIn[t] = true
			default:
				msg = fmt.Sprintf("An edge from %s goes to %s, which does not exist", v.label(f), q(e.To))
			}
			v.add(CodeDanglingEdge, SeverityError, msg, v.endpoints(e), e)
			if f < 0 {
				continue
			}
		}
		if t == f {
			v.add(CodeSelfLoop, SeverityError, fmt.Sprintf("%s has an edge to itself; use a Loop with an EndLoop to repeat steps", v.typed(f)), []int32{f}, e)
		}
		v.edges = append(v.edges, a) // in place: never overtakes k
		outCount[f+1]++
	}
	// Out-edge lists per node, in edge order.
	v.outStart = outCount
	for i := 1; i <= v.n; i++ {
		v.outStart[i] += v.outStart[i-1]
	}
	v.outList = make([]int32, len(v.edges))
	clear(fill)
	for r := range v.edges {
		f := v.edges[r].from
		v.outList[v.outStart[f]+fill[f]] = int32(r)
		fill[f]++
	}
}

func (v *validator) endpoints(e *workflow.Edge) []int32 {
	var out []int32
	if i, ok := v.idx.lookup(e.From); ok {
		out = append(out, i)
	}
	if i, ok := v.idx.lookup(e.To); ok {
		out = append(out, i)
	}
	return out
}

func (v *validator) nodeRef(id string) string {
	if i, ok := v.idx.lookup(id); ok {
		return v.label(i)
	}
	return q(id)
}

// edgeDesc renders "IfTrue edge from 'A' to 'B'" (or "edge from …").
func (v *validator) edgeDesc(e *workflow.Edge, out workflow.OutputType) string {
	kind := "edge"
	if out != "" {
		kind = e.Output.String() + " edge"
	}
	return fmt.Sprintf("%s from %s to %s", kind, v.nodeRef(e.From), v.nodeRef(e.To))
}

func (v *validator) refDesc(r int32) string {
	er := &v.edges[r]
	return v.edgeDesc(er.e, er.out)
}

func (v *validator) out(i int32) []int32 { return v.outList[v.outStart[i]:v.outStart[i+1]] }

// checkOutputs checks the labels and number of a node's outgoing edges.
func (v *validator) checkOutputs(i int32) {
	outs := v.out(i)
	if v.kind[i] == 0 && v.nodes[i].OnError != workflow.OnErrorBranch && (len(outs) == 0 || len(outs) == 1 && v.edges[outs[0]].out == "") {
		return // the common case: a step with at most one plain edge
	}
	nd := &v.nodes[i]
	badLabel := func(r int32, allowed string) {
		er := &v.edges[r]
		var msg string
		if !er.out.Valid() {
			msg = fmt.Sprintf("The %s has the unknown output label %s; %s", v.refDesc(r), q(string(er.out)), allowed)
		} else {
			msg = fmt.Sprintf("The %s has a label that %s cannot have; %s", v.refDesc(r), v.typed(i), allowed)
		}
		v.add(CodeBadOutputLabel, SeverityError, msg, []int32{i}, er.e)
	}
	switch nd.Type {
	case workflow.TypeIf:
		var trues, falses, extra []int32
		for _, r := range outs {
			switch v.edges[r].out {
			case workflow.OutIfTrue:
				trues = append(trues, r)
			case workflow.OutIfFalse:
				falses = append(falses, r)
			case "":
				extra = append(extra, r)
			default:
				badLabel(r, "an If's edges are IfTrue and IfFalse")
			}
		}
		switch {
		case len(trues) == 0 && len(falses) == 0:
			v.add(CodeIfMissingBranch, SeverityError, fmt.Sprintf("If %s has neither an IfTrue nor an IfFalse edge; it needs one of each", v.label(i)), []int32{i})
		case len(trues) == 0:
			v.add(CodeIfMissingBranch, SeverityError, fmt.Sprintf("If %s has no IfTrue edge; it needs one IfTrue and one IfFalse edge", v.label(i)), []int32{i})
		case len(falses) == 0:
			v.add(CodeIfMissingBranch, SeverityError, fmt.Sprintf("If %s has no IfFalse edge; it needs one IfTrue and one IfFalse edge", v.label(i)), []int32{i})
		}
		if len(trues) > 1 {
			extra = append(extra, trues[1:]...)
		}
		if len(falses) > 1 {
			extra = append(extra, falses[1:]...)
		}
		if len(extra) > 0 {
			v.addEdges(CodeIfExtraEdges, fmt.Sprintf("If %s has %d outgoing edges; it takes exactly one IfTrue and one IfFalse edge", v.label(i), len(outs)), []int32{i}, extra)
		}
	case workflow.TypeSwitch:
		declared := make(map[string]int, len(nd.Params.Cases))
		var order []string
		for _, c := range nd.Params.Cases {
			if _, ok := declared[c.Name]; !ok {
				declared[c.Name] = 0
				order = append(order, c.Name)
			}
		}
		byCase := map[string][]int32{}
		var defaults []int32
		for _, r := range outs {
			er := &v.edges[r]
			switch er.out {
			case workflow.OutSwitchCase:
				if _, ok := declared[er.name]; !ok {
					v.add(CodeSwitchUnknownOutput, SeverityError, fmt.Sprintf("The %s names a case that Switch %s does not declare", v.refDesc(r), v.label(i)), []int32{i}, er.e)
					continue
				}
				byCase[er.name] = append(byCase[er.name], r)
			case workflow.OutSwitchDefault:
				defaults = append(defaults, r)
			case "":
				v.add(CodeSwitchUnknownOutput, SeverityError, fmt.Sprintf("The %s has no label; each edge of a Switch is a SwitchCase for a declared case or the SwitchDefault", v.refDesc(r)), []int32{i}, er.e)
			default:
				badLabel(r, "a Switch's edges are SwitchCase and SwitchDefault")
			}
		}
		for _, name := range order {
			switch rs := byCase[name]; {
			case len(rs) == 0:
				v.add(CodeSwitchMissingCase, SeverityError, fmt.Sprintf("Switch %s has no edge for the case %s", v.label(i), q(name)), []int32{i})
			case len(rs) > 1:
				v.addEdges(CodeSwitchDuplicateEdge, fmt.Sprintf("Switch %s has %d edges for the case %s; each case takes exactly one", v.label(i), len(rs), q(name)), []int32{i}, rs)
			}
		}
		if len(defaults) > 1 {
			v.addEdges(CodeSwitchDuplicateEdge, fmt.Sprintf("Switch %s has %d SwitchDefault edges; it takes at most one", v.label(i), len(defaults)), []int32{i}, defaults)
		}
	case workflow.TypeLoop:
		var bodies, dones, extra []int32
		for _, r := range outs {
			switch v.edges[r].out {
			case workflow.OutLoopBody:
				bodies = append(bodies, r)
			case workflow.OutLoopDone:
				dones = append(dones, r)
			case "":
				extra = append(extra, r)
			default:
				badLabel(r, "a Loop's edges are LoopBody and LoopDone")
			}
		}
		if len(bodies) == 0 {
			v.add(CodeLoopMissingBody, SeverityError, fmt.Sprintf("Loop %s has no LoopBody edge to the first step of its body", v.label(i)), []int32{i})
		}
		if len(bodies) > 1 {
			extra = append(extra, bodies[1:]...)
		}
		if len(dones) > 1 {
			extra = append(extra, dones[1:]...)
		}
		if len(extra) > 0 {
			v.addEdges(CodeLoopExtraEdges, fmt.Sprintf("Loop %s has %d outgoing edges; it takes one LoopBody edge and at most one LoopDone edge", v.label(i), len(outs)), []int32{i}, extra)
		}
	case workflow.TypeEndLoop:
		for _, r := range outs {
			if v.edges[r].out != "" {
				badLabel(r, "the edge of an EndLoop has no label")
			}
		}
		t := v.endTarget[i]
		if t < 0 {
			if len(outs) > 1 {
				v.addEdges(CodeEndloopEdgeMismatch, fmt.Sprintf("EndLoop %s has %d outgoing edges; it needs exactly one, back to its Loop", v.label(i), len(outs)), []int32{i}, outs)
			}
			return
		}
		switch {
		case len(outs) == 0:
			v.add(CodeEndloopEdgeMismatch, SeverityError, fmt.Sprintf("EndLoop %s has no edge; it needs one edge back to Loop %s", v.label(i), v.label(t)), []int32{i, t})
		case len(outs) > 1:
			v.addEdges(CodeEndloopEdgeMismatch, fmt.Sprintf("EndLoop %s has %d outgoing edges; it needs exactly one, back to Loop %s", v.label(i), len(outs), v.label(t)), []int32{i, t}, outs)
		case v.edges[outs[0]].to != t:
			v.addEdges(CodeEndloopEdgeMismatch, fmt.Sprintf("The edge of EndLoop %s goes to %s; it must go back to its Loop %s", v.label(i), v.nodeRef(v.edges[outs[0]].e.To), v.label(t)), []int32{i, t}, outs)
		}
	default: // the plain step types, and unknown types
		var plain, errs []int32
		for _, r := range outs {
			switch out := v.edges[r].out; {
			case out == "":
				plain = append(plain, r)
			case out == workflow.OutError && nd.OnError == workflow.OnErrorBranch && isStep(nd.Type):
				errs = append(errs, r)
			case out == workflow.OutError && isStep(nd.Type):
				v.add(CodeBadOutputLabel, SeverityError, fmt.Sprintf("The %s is an error branch, but %s does not branch on errors; set its on_error to \"branch\" or remove the edge", v.refDesc(r), v.label(i)), []int32{i}, v.edges[r].e)
			default:
				badLabel(r, "a step's edges are one plain edge and, with on_error \"branch\", one Error edge")
			}
		}
		if len(plain) > 1 {
			v.addEdges(CodeMultipleOutgoing, fmt.Sprintf("%s has %d outgoing edges; a step continues to one next step (use an If or a Switch to branch)", v.label(i), len(plain)), []int32{i}, plain)
		}
		if nd.OnError == workflow.OnErrorBranch && isStep(nd.Type) {
			switch {
			case len(errs) == 0:
				v.add(CodeErrorBranchMissing, SeverityError, fmt.Sprintf("%s branches on errors (on_error \"branch\") but has no Error edge; connect its Error output to the step that handles the failure, or set on_error to \"continue\" or \"stop\"", v.label(i)), []int32{i})
			case len(errs) > 1:
				v.addEdges(CodeMultipleOutgoing, fmt.Sprintf("%s has %d Error edges; it takes at most one", v.label(i), len(errs)), []int32{i}, errs)
			}
		}
	}
}

func isStep(t workflow.NodeType) bool { return t.IsStep() }

// checkStepExtras checks on_error and a node's done_when.
func (v *validator) checkStepExtras(i int32) {
	nd := &v.nodes[i]
	if nd.OnError != "" {
		switch {
		case !slices.Contains(workflow.OnErrorModes, nd.OnError):
			v.add(CodeBadOnError, SeverityError, fmt.Sprintf("%s has on_error %s; it must be \"stop\", \"continue\" or \"branch\"", v.label(i), q(string(nd.OnError))), []int32{i})
		case !isStep(nd.Type) && nd.Type.Valid():
			v.add(CodeBadOnError, SeverityError, fmt.Sprintf("%s has an on_error, but only Tool, AiStep and AiTransform steps can fail; remove it", v.typed(i)), []int32{i})
		}
	}
	if nd.DoneWhen == nil {
		return
	}
	switch {
	case !isStep(nd.Type) && nd.Type.Valid():
		v.add(CodeBadDoneWhen, SeverityError, fmt.Sprintf("%s has a done_when, but only steps (and the workflow) have one; use the condition of the %s instead", v.typed(i), nd.Type), []int32{i})
	case nd.DoneWhen.IsZero():
		v.add(CodeBadDoneWhen, SeverityError, fmt.Sprintf("The done_when of %s states nothing; give it a condition, criteria, or remove it", v.label(i)), []int32{i})
	case strings.TrimSpace(nd.DoneWhen.Condition) != "":
		v.addJob(condJob{node: i, kind: condDone, text: nd.DoneWhen.Condition})
	}
	if len(nd.DoneWhen.Criteria) > MaxCriteriaLength {
		v.add(CodeBadDoneWhen, SeverityError, fmt.Sprintf("The done_when criteria of %s are %d characters; at most %d", v.label(i), len(nd.DoneWhen.Criteria), MaxCriteriaLength), []int32{i})
	}
}

// MaxCriteriaLength bounds a done_when's criteria: they go to the model
// with the run's results.
const MaxCriteriaLength = 4000

// checkWorkflowDone checks the workflow's own done_when. Its condition
// may read any node (it runs after the last step); node -1 marks it.
func (v *validator) checkWorkflowDone() {
	if v.w == nil || v.w.DoneWhen == nil {
		return
	}
	d := v.w.DoneWhen
	if d.IsZero() {
		v.add(CodeBadDoneWhen, SeverityError, "The workflow's done_when states nothing; give it a condition, criteria, or remove it", nil)
		return
	}
	if len(d.Criteria) > MaxCriteriaLength {
		v.add(CodeBadDoneWhen, SeverityError, fmt.Sprintf("The workflow's done_when criteria are %d characters; at most %d", len(d.Criteria), MaxCriteriaLength), nil)
	}
	if strings.TrimSpace(d.Condition) != "" {
		v.addJob(condJob{node: -1, kind: condDone, text: d.Condition})
	}
}

// workflowDoneRefs reports keys the workflow's done_when reads that no
// node has.
func (v *validator) workflowDoneRefs(keys []string) {
	for _, k := range keys {
		if k == inputs.Root {
			continue // the run's inputs: checkInputs
		}
		if _, ok := v.keys.first.lookup(k); !ok {
			v.add(CodeUnknownVariable, SeverityError, fmt.Sprintf("Unknown key %s in the workflow's done_when condition: no node has that key", q(k)), nil)
		}
	}
}
