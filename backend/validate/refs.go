package validate

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// place says which text of a node an expression or template comes from.
type place uint8

const (
	condIf place = iota
	condCase
	condExit
	condVerify
	condDone
	textArgs
	textPrompt
	textInput
)

// condJob is one condition to compile.
type condJob struct {
	node     int32
	kind     place
	caseIdx  int32
	required bool
	text     string
	res      compiled
	err      error
}

// refSet is the keys one expression or text field reads, and where from.
type refSet struct {
	node    int32 // node the text belongs to
	query   int32 // node whose ancestors may be read
	self    int32 // a node that may also be read (-1 for none)
	self2   int32 // another (-1 for none)
	kind    place
	caseIdx int32
	keys    []string
}

func (v *validator) addJob(j condJob) { v.jobs = append(v.jobs, j) }

func (v *validator) addRefs(node int32, kind place, keys []string) {
	if len(keys) > 0 {
		v.refs = append(v.refs, refSet{node: node, query: node, self: -1, self2: -1, kind: kind, keys: keys})
	}
}

// placeName renders where a text is, for messages: "the condition of If 'X'".
func (v *validator) placeName(kind place, node, caseIdx int32) string {
	switch kind {
	case condIf:
		return "the condition of If " + v.label(node)
	case condCase:
		return fmt.Sprintf("the condition of case %s of Switch %s", q(v.nodes[node].Params.Cases[caseIdx].Name), v.label(node))
	case condExit:
		return "the exit condition of Loop " + v.label(node)
	case condVerify:
		return "the verify condition of " + v.typed(node)
	case condDone:
		if node < 0 {
			return "the workflow's done_when condition"
		}
		return "the done_when condition of " + v.typed(node)
	case textArgs:
		return "the arguments of " + v.label(node)
	case textPrompt:
		return "the prompt of " + v.label(node)
	}
	return "the input of " + v.label(node)
}

// startBackground starts the work that does not need the graph: indexing
// node keys, scanning templates and compiling conditions (the bulk of the
// time on large workflows). It runs on worker goroutines pulling tasks from
// a shared list while the caller runs the graph checks; wait blocks until
// all of it is done. Workers write only *v.keys, the elements of v.tmpl and their own jobs' res and err, which the caller does not touch
// before wait returns. Each compile task has its own expr config, which is
// not safe for concurrent use.
func (v *validator) startBackground() (wait func()) {
	v.tmpl = make([][]string, v.n)
	v.keys = &keyIndex{}
	tasks := []func(){v.indexKeys}
	const nodesPerTask, jobsPerTask = 4096, 256
	for lo := 0; lo < v.n; lo += nodesPerTask {
		tasks = append(tasks, func() { v.scanTemplates(lo, min(lo+nodesPerTask, v.n)) })
	}
	for lo := 0; lo < len(v.jobs); lo += jobsPerTask {
		js := v.jobs[lo:min(lo+jobsPerTask, len(v.jobs))]
		tasks = append(tasks, func() { compileJobs(js) })
	}
	workers := min(runtime.GOMAXPROCS(0), len(tasks)-1)
	if v.n < 2000 && len(v.jobs) < jobsPerTask || workers < 1 {
		return func() {
			for _, t := range tasks {
				t()
			}
		}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(tasks) {
					return
				}
				tasks[k]()
			}
		})
	}
	return wg.Wait
}

// compileJobs compiles a batch of conditions. Conditions that differ only
// in the node keys they read (`fetch.status == 200`, `ping.status == 200`)
// have the same shape (see shapeKey) and compile the same way, so each
// shape is compiled once per batch and its result reused with the names
// swapped; a shape that fails is compiled again for each condition, so
// every error message quotes its own text.
func compileJobs(js []condJob) {
	cfg := newExprConfig()
	var sh shaper
	type entry struct {
		res   compiled
		names []string // the root names of the condition that was compiled
	}
	seen := map[string]entry{}
	for i := range js {
		j := &js[i]
		if j.required && strings.TrimSpace(j.text) == "" {
			continue // reported by checkConditions
		}
		// The bounds first: conditions of one shape differ in length.
		if err := expression.CheckBounds(j.text); err != nil {
			j.err = &ConditionError{Message: err.Error()}
			continue
		}
		key, names, ok := sh.shapeKey(j.text)
		if ok {
			if e, hit := seen[key]; hit {
				j.res = compiled{idents: make([]string, len(e.res.idents))}
				for k, id := range e.res.idents {
					j.res.idents[k] = id
					if p := slices.Index(e.names, id); p >= 0 {
						j.res.idents[k] = names[p]
					}
				}
				continue
			}
		}
		j.res, j.err = compileCondition(cfg, j.text)
		if ok && j.err == nil {
			seen[key] = entry{res: j.res, names: names}
		}
	}
}

// keyIndex maps node keys to nodes.
type keyIndex struct {
	first *idTable           // key → first node with it
	all   map[string][]int32 // keys used by more than one node → all of them
	dups  []string           // keys of all, in order of first use
}

// indexKeys maps keys to nodes and finds keys used more than once.
func (v *validator) indexKeys() {
	ki := v.keys
	ki.first = newIDTable(v.n)
	for i := range v.nodes {
		k := v.nodes[i].Key
		if k == "" {
			continue
		}
		first := ki.first.add(int32(i), k)
		if first < 0 {
			continue
		}
		if ki.all == nil {
			ki.all = map[string][]int32{}
		}
		if ki.all[k] == nil {
			ki.dups = append(ki.dups, k)
			ki.all[k] = []int32{first}
		}
		ki.all[k] = append(ki.all[k], int32(i))
	}
}

// scanTemplates collects the keys read by {{…}} templates of nodes lo..hi.
func (v *validator) scanTemplates(lo, hi int) {
	for i := lo; i < hi; i++ {
		nd := &v.nodes[i]
		switch nd.Type {
		case workflow.TypeTool:
			var roots []string
			for _, a := range nd.Params.Arguments {
				roots = collectTemplates(a, roots)
			}
			v.tmpl[i] = roots
		case workflow.TypeWorkflow:
			var roots []string
			for _, a := range nd.Params.Inputs {
				roots = collectTemplates(a, roots)
			}
			v.tmpl[i] = roots
		case workflow.TypeAiStep:
			v.tmpl[i] = templateRoots(nd.Params.Prompt, nil)
		case workflow.TypeAiTransform:
			v.tmpl[i] = templateRoots(nd.Params.Input, nil)
		}
	}
}

func (v *validator) checkKeys() {
	for _, k := range v.keys.dups {
		g := v.keys.all[k]
		v.add(CodeDuplicateKey, SeverityError, fmt.Sprintf("%d nodes share the key %s: %s; conditions and templates could not tell them apart", len(g), q(k), v.names(g)), g)
	}
}

// checkConditions reports the compiled conditions and gathers the keys
// conditions and templates read (see startBackground).
func (v *validator) checkConditions() {
	for i, roots := range v.tmpl {
		if len(roots) == 0 {
			continue
		}
		kind := textArgs
		switch v.nodes[i].Type {
		case workflow.TypeAiStep:
			kind = textPrompt
		case workflow.TypeAiTransform:
			kind = textInput
		}
		v.addRefs(int32(i), kind, roots)
	}
	for k := range v.jobs {
		j := &v.jobs[k]
		if j.required && strings.TrimSpace(j.text) == "" {
			var msg string
			if j.kind == condCase {
				msg = fmt.Sprintf("Case %s of Switch %s has no condition", q(v.nodes[j.node].Params.Cases[j.caseIdx].Name), v.label(j.node))
			} else {
				msg = fmt.Sprintf("If %s has no condition", v.label(j.node))
			}
			v.add(CodeBadCondition, SeverityError, msg, []int32{j.node})
			continue
		}
		if j.err != nil {
			var at []int32
			if j.node >= 0 {
				at = []int32{j.node}
			}
			v.add(CodeBadCondition, SeverityError, fmt.Sprintf("%s does not compile: %v", capitalize(v.placeName(j.kind, j.node, j.caseIdx)), j.err), at)
			continue
		}
		if len(j.res.idents) == 0 {
			continue
		}
		if j.node < 0 {
			v.workflowDoneRefs(j.res.idents)
			continue
		}
		rs := v.refSetAt(j.node, j.kind, j.caseIdx)
		rs.keys = j.res.idents
		v.refs = append(v.refs, rs)
	}
}

// refSetAt is where a text of a node reads from: which node's ancestors,
// and which nodes it may read besides them.
func (v *validator) refSetAt(node int32, kind place, caseIdx int32) refSet {
	rs := refSet{node: node, query: node, self: -1, self2: -1, kind: kind, caseIdx: caseIdx}
	switch kind {
	case condVerify, condDone:
		rs.self = node
	case condExit:
		// The loop is do-while: the exit condition is evaluated at the
		// EndLoop, after the body, so the body is upstream of it.
		rs.self = node
		if ends := v.endsOf[node]; len(ends) == 1 {
			rs.query, rs.self2 = ends[0], ends[0]
		}
	}
	return rs
}

// canRead reports whether the text rs may read node c: c is a node it may
// read besides its ancestors, the order cannot be reasoned about (a
// malformed loop), or c runs before it. checkRefs and References both ask
// here, so what the editor offers and what validation accepts agree.
func (v *validator) canRead(a *ancestry, c int32, rs *refSet) bool {
	return c == rs.self || c == rs.self2 || v.taint != nil && (v.taint[c] || v.taint[rs.query]) ||
		c != rs.query && a.upstream(c, rs.query)
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// checkRefs reports keys read by conditions and templates that no upstream
// node has (unknown_variable, a warning).
func (v *validator) checkRefs(ancestryGraph func() flowGraph) {
	if len(v.refs) == 0 {
		return
	}
	ag := ancestryGraph()
	a := ancestry{g: &ag, seen: make([]int32, v.n), budget: 8*(v.n+len(v.edges)) + 100_000}
	for k := range v.refs {
		rs := &v.refs[k]
		if v.dup[rs.node] || v.dup[rs.query] {
			continue // not placed in the graph; the duplicate id is reported
		}
	next:
		for _, key := range rs.keys {
			if key == inputs.Root {
				continue // the run's inputs: checkInputs
			}
			// Most references read a direct predecessor: check those
			// first, which spares a map lookup and an ancestry query.
			if key == v.nodes[rs.query].Key && (rs.query == rs.self || rs.query == rs.self2) {
				continue
			}
			for _, p := range ag.preds(rs.query) {
				if v.nodes[p].Key == key && !v.dup[p] {
					continue next
				}
			}
			cands := v.keys.all[key]
			if cands == nil {
				if i, ok := v.keys.first.lookup(key); ok {
					cands = []int32{i}
				}
			}
			if len(cands) == 0 {
				// A condition naming no node fails every time it is
				// evaluated: an error. A {{…}} naming no node is left as
				// text at run time (it may be a Helm or Jinja template),
				// so there it is a warning.
				sev := SeverityWarning
				if rs.kind <= condDone {
					sev = SeverityError
				}
				v.add(CodeUnknownVariable, sev, fmt.Sprintf("Unknown key %s in %s: no node has that key", q(key), v.placeName(rs.kind, rs.node, rs.caseIdx)), []int32{rs.node})
				continue
			}
			ok, placed := false, false
			for _, c := range cands {
				if v.dup[c] {
					continue
				}
				placed = true
				if v.canRead(&a, c, rs) {
					ok = true
					break
				}
			}
			if !ok && placed {
				v.add(CodeUnknownVariable, SeverityWarning, fmt.Sprintf("Key %s in %s is not available there: %s does not run before it", q(key), v.placeName(rs.kind, rs.node, rs.caseIdx), v.typed(cands[0])), []int32{rs.node})
			}
		}
	}
}

// ancestryGraph is the DAG plus, for each paired Loop, a virtual edge from
// its EndLoop to each LoopDone target: the body runs at least once (the
// loop is do-while), so its nodes are upstream of what follows the loop.
// Back edges stay out, so a body step cannot read a later step of the same
// body, which has not run on the first iteration.
func (v *validator) ancestryGraph() flowGraph {
	g := &v.g
	m := len(g.succ)
	from := make([]int32, 0, m)
	to := make([]int32, 0, m)
	for u := int32(0); u < int32(v.n); u++ {
		for _, w := range g.succs(u) {
			from = append(from, u)
			to = append(to, w)
		}
		if v.kind[u] != isLoop || v.dup[u] || len(v.endsOf[u]) != 1 {
			continue
		}
		end := v.endsOf[u][0]
		for _, r := range v.out(u) {
			if er := &v.edges[r]; er.out == workflow.OutLoopDone && v.real(r) && er.to != end {
				from = append(from, end)
				to = append(to, er.to)
			}
		}
	}
	ref := make([]int32, len(from))
	ag := makeGraph(v.n, from, to, ref)
	ag.spanningForest(g.entries)
	return ag
}

// ancestry answers "can node a run before node b?" (is a an ancestor of b in
// the DAG edges). Exact reachability for arbitrary pairs is not linear in
// general, so this combines O(1) tests with a pruned search:
//
//   - a component number below b's means a cannot reach b;
//   - the same component (a cycle, already an error) means it can;
//   - a tree ancestor in the depth-first forest reaches b;
//   - otherwise search backwards from b, skipping nodes a cannot reach
//     (higher component number), stopping at any node a is a tree
//     ancestor of.
//
// On workflow-shaped graphs (chains, branches that merge, nested loops) the
// search ends within a few steps of b. Its total work is capped at a budget
// linear in the graph; a query that runs out of budget answers yes, so the
// worst case is a missed warning, never a false one or a slow validation.
type ancestry struct {
	g      *flowGraph
	seen   []int32 // stamp of the last query that visited the node
	stamp  int32
	stack  []int32
	budget int
}

func (a *ancestry) upstream(x, b int32) bool {
	g := a.g
	cx := g.comp[x]
	switch {
	case cx < g.comp[b]:
		return false
	case cx == g.comp[b]:
		return g.compSize[cx] > 1
	case g.isTreeAncestor(x, b):
		return true
	}
	a.stamp++
	a.seen[b] = a.stamp
	a.stack = append(a.stack[:0], b)
	for len(a.stack) > 0 {
		u := a.stack[len(a.stack)-1]
		a.stack = a.stack[:len(a.stack)-1]
		for _, p := range g.preds(u) {
			if a.budget--; a.budget < 0 {
				return true
			}
			if a.seen[p] == a.stamp || g.comp[p] > cx {
				continue
			}
			if p == x || g.isTreeAncestor(x, p) || g.comp[p] == cx && g.compSize[cx] > 1 {
				return true
			}
			a.seen[p] = a.stamp
			a.stack = append(a.stack, p)
		}
	}
	return false
}
