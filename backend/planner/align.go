package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// The alignment stage: schema-aligned reading of a reply the decoder
// could not read. It reads the reply leniently into value trees
// (align_tree.go), then searches them for every reading as a plan: a list
// of step-like objects at any depth, under any key, inside JSON strings,
// or spread over several top-level values; keys matched to the schema's
// fields through the synonym table (synonyms.go) and by edit distance;
// values to the field's type (a string holding an object or list is
// parsed; arguments written as key=value text or YAML are read); tool
// names checked against the catalog; edge endpoints resolved by any form
// of step reference; conditions compiled. Each reading becomes canonical
// JSON that the decoder reads as usual, and gets a score. The best one is
// taken only when it leads the next by the margin in docs/llm-format.md
// ("Schema-aligned reading"); otherwise the re-ask names the candidates.

// alignMargin is how far the best reading must lead the runner-up: by
// alignMinLead points, and by alignRelLead of its own score.
const (
	alignMinLead = 2.0
	alignRelLead = 0.2
)

// Scores. A step read is worth stepPoints; the rest refines.
const (
	stepPoints     = 2.0
	toolKnownBonus = 1.0  // its tool is the catalog's (as written or by alias)
	condBonus      = 0.5  // its condition compiles
	skippedItem    = -1.0 // an item of the list that is no step
	lostStep       = -3.0 // a step-like item the decoder could not read: worse than none
	renamePenalty  = -0.25
	edgeResolved   = 0.25
	edgeUnresolved = -0.5
)

// interp is one reading of the reply as a plan.
type interp struct {
	where string // where in the reply, for messages
	plan  *Plan
	ws    []Warning // decode warnings of the canonical JSON
	notes []string  // what the alignment did
	score float64
	steps int
	canon string // the canonical JSON, to merge repeats
}

type aligner struct {
	b     *alignBudget
	cat   *tools.Catalog
	cands []*interp
	seen  map[*vnode]bool // step lists and edge lists already read
	names map[string]fieldMatch
}

// fieldMatch is a remembered fieldName result.
type fieldMatch struct {
	canon, name string
	exact       bool
}

// field is fieldName, remembered: a reply repeats its keys in every item.
func (a *aligner) field(key string, schemas []string) (string, string, bool) {
	k := schemas[0] + "\x00" + key
	if m, ok := a.names[k]; ok {
		return m.canon, m.name, m.exact
	}
	c, n, e := fieldName(key, schemas)
	if len(a.names) < 4096 {
		if a.names == nil {
			a.names = map[string]fieldMatch{}
		}
		a.names[k] = fieldMatch{c, n, e}
	}
	return c, n, e
}

// alignReply reads text by schema alignment. It returns nil, nil, nil
// when no reading finds a plan (the caller keeps the decoder's error);
// a *StageError (Stage "align") when readings tie.
func alignReply(ctx context.Context, text string, cat *tools.Catalog) (*interp, []Warning, error) {
	a := &aligner{b: newAlignBudget(ctx), cat: cat, seen: map[*vnode]bool{}}
	vals := readValues(text, a.b)
	if calls := a.readCalls(text); len(calls) > 0 {
		// Their arguments are among the JSON values; the calls are one
		// reading, competing with the values' readings.
		a.stepList(&vnode{kind: vArr, kids: calls}, nil, fmt.Sprintf("the reply's %s written as text", plural(len(calls), "tool call", "tool calls")), 0)
	}
	var steplike []*vnode
	for i, v := range vals {
		where := "the reply"
		if len(vals) > 1 {
			where = fmt.Sprintf("JSON value %d of %d", i+1, len(vals))
		}
		if v.via == "YAML" {
			where += " (read as YAML)"
		}
		if st, _ := a.asStep(v, 0); st != nil {
			// A step: its nested lists are its branches, not plans.
			steplike = append(steplike, v)
			continue
		}
		a.walk(v, where, "", 0)
	}
	switch {
	case len(steplike) == 1:
		where := "the reply"
		if len(vals) > 1 {
			where = "one of the reply's JSON values"
		}
		a.stepList(&vnode{kind: vArr, kids: steplike}, nil, where+", a single step", 0)
	case len(steplike) > 1 && !a.b.out:
		// Each alone would be a fragment of this reading: only it counts.
		a.stepList(&vnode{kind: vArr, kids: steplike}, nil, fmt.Sprintf("the reply's %d JSON values, each a step", len(steplike)), 0)
	}
	var notes []Warning
	if a.b.out {
		notes = append(notes, Warning{Stage: StageAlign, Message: "the reply is too large or too deep to search whole; read what was searched in time"})
	}
	best, err := a.pick()
	if err != nil || best == nil {
		return nil, notes, err
	}
	notes = append(notes, Warning{Stage: StageAlign, Message: fmt.Sprintf("the reply is not in the plan format; read %s as the plan (%d step(s), score %.1f)", best.where, best.steps, best.score)})
	for _, n := range mergeNotes(best.notes) {
		notes = append(notes, Warning{Stage: StageAlign, Message: n})
	}
	// What the repair changed in the values read (in any of them: the
	// search read them all).
	notes = append(notes, a.b.repairs...)
	return best, notes, nil
}

// maxAlignNotes bounds the notes of a reading after merging.
const maxAlignNotes = 24

// mergeNotes merges the same note made about several items ("item 3:
// read key …") into one naming them, as the decoder merges its warnings,
// and bounds the list.
func mergeNotes(notes []string) []string {
	type group struct {
		text  string
		items []string
	}
	var order []*group
	byText := map[string]*group{}
	for _, n := range notes {
		item, text := "", n
		if strings.HasPrefix(n, "item ") {
			if i := strings.Index(n, ": "); i > 0 {
				item, text = n[:i], n[i+2:]
			}
		}
		g := byText[text]
		if g == nil {
			g = &group{text: text}
			byText[text] = g
			order = append(order, g)
		}
		if item != "" {
			g.items = append(g.items, item)
		}
	}
	var out []string
	for _, g := range order {
		switch len(g.items) {
		case 0:
			out = append(out, g.text)
		case 1:
			out = append(out, g.items[0]+": "+g.text)
		default:
			items := g.items
			if len(items) > 4 {
				items = append(slices.Clip(items[:4]), fmt.Sprintf("and %d more", len(g.items)-4))
			}
			out = append(out, fmt.Sprintf("%s (%s)", g.text, strings.Join(items, ", ")))
		}
	}
	if len(out) > maxAlignNotes {
		out = append(out[:maxAlignNotes], fmt.Sprintf("and %d more notes of the same kinds", len(out)-maxAlignNotes))
	}
	return out
}

// readValues reads the reply into its top-level values: each JSON block
// (repaired), or the whole reply as block YAML when it holds no JSON
// block that is an object or array of objects.
func readValues(text string, b *alignBudget) []*vnode {
	visible, thoughts, _ := stripThink(strings.TrimPrefix(text, "\uFEFF"))
	if t := strings.TrimSpace(stripFence(visible)); strings.HasPrefix(t, `"`) {
		// The whole reply is one JSON string: the plan encoded once
		// more (or more often).
		if v := parseJSONish(t, b, 0); v != nil {
			v.via = "a JSON string"
			return []*vnode{v}
		}
	} else if strings.Contains(t, `\"`) && len(t) <= maxAlignStringJSON {
		// The inside of a JSON string without its quotes: {\"steps\": …}.
		if v := parseJSONish(`"`+t+`"`, b, 0); v != nil {
			v.via = "a JSON string"
			return []*vnode{v}
		}
	}
	var out []*vnode
	for _, src := range []string{visible, strings.Join(thoughts, "\n")} {
		for _, c := range scanCandidates(src) {
			if c.nested {
				continue
			}
			body := src[c.start:c.end]
			if k := strayPrefix(body); k > 0 {
				// {"{"steps": …}: a doubled opening, or a start
				// that broke off, made the value look unclosed.
				b.note(Warning{Stage: StageRepair, Message: fmt.Sprintf("dropped %s before a JSON value that is whole without them", plural(k, "character", "characters"))})
				body = body[k:]
			} else if !c.closed {
				// Only complete values: the last item of a cut-off one
				// may hold half a value, which only the decoder knows
				// to drop.
				continue
			}
			if len(out) >= maxAlignValues {
				b.out = true // said in a warning; no reading is made of all values
				break
			}
			if v := parseJSONish(body, b, 0); v != nil {
				out = append(out, v)
			}
		}
		if y := parseYAMLish(stripFence(yamlPart(src)), b, 0); y != nil {
			out = append(out, y)
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// Bounds of the search for a whole value inside a broken one.
const (
	maxStrayPrefix = 8 << 10 // where the whole value may start
	maxStrayTries  = 32      // starts tried (each a validity scan)
)

// strayPrefix is the length of a prefix of s after which s is valid JSON,
// when s itself is not: a doubled opening ({"{"steps": …), or a reply
// that broke off and began again. 0 when there is none.
func strayPrefix(s string) int {
	if validJSON(s) {
		return 0
	}
	tries := 0
	for k := 1; k < len(s) && k <= maxStrayPrefix && tries < maxStrayTries; k++ {
		if s[k] != '{' && s[k] != '[' {
			continue
		}
		tries++
		if validJSON(s[k:]) {
			return k
		}
	}
	return 0
}

// separateSteps counts the top-level JSON blocks of a reply that look
// like steps, when none looks like a plan (0 then).
func separateSteps(text string) int {
	visible, _, _ := stripThink(text)
	n := 0
	for _, c := range scanCandidates(visible) {
		switch {
		case c.nested:
		case c.class == classPlan:
			return 0
		case c.class == classStep:
			n++
		}
	}
	return n
}

// yamlPart is the fenced block of s when there is one, else s.
func yamlPart(s string) string {
	i := strings.Index(s, "```")
	if i < 0 {
		return s
	}
	rest := s[i+3:]
	nl := strings.IndexByte(rest, '\n')
	if nl < 0 {
		return s
	}
	body := rest[nl+1:]
	if j := strings.Index(body, "```"); j >= 0 {
		body = body[:j]
	}
	return body
}

// walk looks for step lists in n and below; it reports whether it found one.
func (a *aligner) walk(n *vnode, where, path string, depth int) bool {
	if n == nil || depth > maxAlignDepth || !a.b.spend() || len(a.cands) >= maxAlignCandidates {
		return false
	}
	switch n.kind {
	case vStr:
		if d := n.deref(a.b, depth, false); d != n {
			return a.walk(d, where, path+" (a JSON string) →", depth+1)
		}
	case vArr:
		if a.stepList(n, nil, describe(where, path), depth) {
			return true
		}
		found := false
		for i, k := range n.kids {
			found = a.walk(k, where, fmt.Sprintf("%s[%d]", path, i), depth+1) || found
		}
		return found
	case vObj:
		found := false
		var rest []int
		for i, k := range n.keys {
			v := n.kids[i].deref(a.b, depth, false)
			p := joinPath(path, k)
			if (v.kind == vArr || v.kind == vObj && a.objectOfSteps(v)) && a.stepList(v, n, describe(where, p), depth) {
				found = true
				continue
			}
			rest = append(rest, i)
		}
		for _, i := range rest {
			found = a.walk(n.kids[i], where, joinPath(path, n.keys[i]), depth+1) || found
		}
		return found
	}
	return false
}

func joinPath(path, key string) string {
	switch {
	case path == "":
		return strconv.Quote(key)
	case strings.HasSuffix(path, "→"):
		return path + " " + strconv.Quote(key)
	}
	return path + "." + strconv.Quote(key)
}

func describe(where, path string) string {
	path = strings.TrimSuffix(path, " →")
	if path == "" {
		return where
	}
	return path + " in " + where
}

// objectOfSteps reports whether every value of n is a step-like object
// ({"check": {…}, "read": {…}}: keys are ids).
func (a *aligner) objectOfSteps(n *vnode) bool {
	if len(n.kids) == 0 {
		return false
	}
	for _, k := range n.kids {
		if st, _ := a.asStep(k, 0); st == nil {
			return false
		}
	}
	return true
}

// stepLike reports whether an object names a step type or a tool, under
// any of their names.
func (a *aligner) stepLike(n *vnode) bool {
	for i, k := range n.keys {
		switch f, _, _ := a.field(k, stepSchemas); f {
		case "step_type", "kind":
			t := n.kids[i].text()
			if _, ok := NormalizeStepType(t); ok || nearStepType(t) != "" || f == "kind" && transformKinds[strings.ToLower(t)] {
				return true
			}
		case "tool_name":
			if n.kids[i].text() != "" || n.kids[i].kind == vObj {
				return true
			}
		case "exit_condition", "loop_id", "prompt":
			if n.kids[i].kind == vStr && strings.TrimSpace(n.kids[i].s) != "" {
				return true
			}
		case "cases":
			if n.kids[i].kind == vArr || n.kids[i].kind == vObj {
				return true
			}
		}
	}
	return false
}

// stepList reads n (an array, or an object of id → step) as the plan's
// steps, with parent's other fields (edges, name) as the plan's. It
// records a candidate and reports whether n was a step list.
func (a *aligner) stepList(n, parent *vnode, where string, depth int) bool {
	if a.seen[n] || len(a.cands) >= maxAlignCandidates {
		return a.seen[n]
	}
	var items []*vnode
	var notes []string
	switch n.kind {
	case vArr:
		items = n.kids
	case vObj:
		notes = append(notes, "the steps are an object; read its keys as step ids")
		for i, k := range n.kids {
			c := a.copyObj(k)
			if c.get("id") == nil {
				c.keys = append([]string{"id"}, c.keys...)
				c.kids = append([]*vnode{strNode(n.keys[i])}, c.kids...)
			}
			items = append(items, c)
		}
	default:
		return false
	}
	steps := &vnode{kind: vArr}
	penalty, good := 0.0, 0
	for i, it := range items {
		it, note := a.asStep(it.deref(a.b, depth+1, false), depth+1)
		if it == nil {
			penalty += skippedItem
			continue
		}
		if note != "" {
			notes = append(notes, fmt.Sprintf("item %d: %s", i, note))
		}
		st, sn, p := a.alignStep(it, fmt.Sprintf("item %d", i), depth+1)
		notes = append(notes, sn...)
		penalty += p
		steps.kids = append(steps.kids, st)
		good++
	}
	if good == 0 || good*2 < len(items) {
		return false
	}
	a.seen[n] = true
	plan := &vnode{kind: vObj}
	key := "steps"
	var edges *vnode
	if parent != nil {
		for i, k := range parent.keys {
			v := parent.kids[i]
			if v == n || v.inner == n {
				continue
			}
			f, _, _ := a.field(k, planSchema)
			switch {
			case f == "name" && v.kind == vStr, f == "done_when" && (v.kind == vStr || v.kind == vObj):
				plan.set(f, v)
			}
			if e := v.deref(a.b, depth, false); edges == nil && e.kind == vArr && a.edgeList(e) {
				edges = e
				a.seen[e] = true // not to be searched for steps again
				if f != "edges" {
					notes = append(notes, fmt.Sprintf("read %q as the plan's edges", k))
				}
			}
		}
	}
	var edgeScore float64
	if edges != nil {
		var en []string
		edges, edgeScore, en = a.alignEdges(edges, steps)
		notes = append(notes, en...)
		key = "nodes"
	}
	plan.set(key, steps)
	if edges != nil {
		plan.set("edges", edges)
	}
	a.score(plan, where, notes, penalty+edgeScore)
	return true
}

// copyObj copies an object's key and value lists (not the values).
func (a *aligner) copyObj(n *vnode) *vnode {
	return &vnode{kind: vObj, keys: slices.Clone(n.keys), kids: slices.Clone(n.kids)}
}

// fieldKinds are the fields whose values are objects or lists: a string
// there is parsed (JSON; for arguments also YAML or key=value text).
var fieldKinds = map[string]vkind{
	"arguments": vObj, "done_when": vObj, "cases": vArr, "labels": vArr, "allowed_tools": vArr,
	"then": vArr, "else": vArr, "body": vArr, "default": vArr, "error_steps": vArr, "steps": vArr,
}

// branchFields hold nested step lists.
var branchFields = setOf("then", "else", "body", "default", "errorsteps", "steps")

// alignStep copies a step object with its keys matched to the schema:
// a key near a field's name (edit distance) is renamed to it, a string
// where an object or list belongs is parsed, nested steps are aligned
// too. It returns the copy, notes and a score adjustment.
func (a *aligner) alignStep(n *vnode, label string, depth int) (*vnode, []string, float64) {
	out := &vnode{kind: vObj}
	var notes []string
	score := 0.0
	if depth > maxAlignDepth || !a.b.spend() {
		return a.copyObj(n), nil, 0
	}
	for i, k := range n.keys {
		v := n.kids[i]
		canon, f, exact := a.field(k, stepSchemas)
		key := k
		if f != "" && !exact {
			key = f
			notes = append(notes, fmt.Sprintf("%s: read key %q as %q (the nearest field name)", label, k, f))
			score += renamePenalty
		}
		if want, ok := fieldKinds[canon]; ok && v.kind == vStr && !strings.Contains(v.s, "{{") && !templateField[norm(f)] {
			d := v.deref(a.b, depth, canon == "arguments")
			if d.kind == want {
				notes = append(notes, fmt.Sprintf("%s: %s was %s; read what it holds", label, canon, viaText(d)))
				v = d
			}
		}
		switch {
		case canon == "step_type" && v.kind == vStr:
			if _, ok := NormalizeStepType(v.s); !ok {
				if t := nearStepType(v.s); t != "" {
					notes = append(notes, fmt.Sprintf("%s: step type %q read as %q (the nearest type)", label, v.s, t))
					v = strNode(t)
					score += renamePenalty
				}
			}
		case branchFields[norm(canon)] && v.kind == vArr:
			nv := &vnode{kind: vArr}
			for j, it := range v.kids {
				it = it.deref(a.b, depth+1, false)
				if it.kind == vObj {
					st, sn, p := a.alignStep(it, fmt.Sprintf("%s.%s[%d]", label, canon, j), depth+1)
					notes, score, it = append(notes, sn...), score+p, st
				}
				nv.kids = append(nv.kids, it)
			}
			v = nv
		case canon == "cases" && v.kind == vArr:
			nv := &vnode{kind: vArr}
			for _, c := range v.kids {
				c = c.deref(a.b, depth+1, false)
				if c.kind == vObj {
					if st := c.get("steps"); st != nil {
						if s2 := st.deref(a.b, depth+1, false); s2.kind == vArr {
							cc := a.copyObj(c)
							aligned, sn, p := a.alignStep(&vnode{kind: vObj, keys: []string{"steps"}, kids: []*vnode{s2}}, label+".cases", depth+1)
							cc.set("steps", aligned.kids[0])
							notes, score, c = append(notes, sn...), score+p, cc
						}
					}
				}
				nv.kids = append(nv.kids, c)
			}
			v = nv
		}
		out.keys = append(out.keys, key)
		out.kids = append(out.kids, v)
	}
	return out, notes, score
}

func viaText(n *vnode) string {
	if n.via != "" {
		return n.via
	}
	return "a string"
}

// fieldGroup is the names of some schemas' fields, flattened once: each
// canonical name and synonym with its normalized form and its field.
type fieldGroup struct {
	exact map[string]fieldEntry // by normalized name; the first schema's wins
	all   []fieldEntry
}

type fieldEntry struct{ name, norm, canon string }

func newFieldGroup(schemas ...string) *fieldGroup {
	g := &fieldGroup{exact: map[string]fieldEntry{}}
	for _, s := range schemas {
		fields := make([]string, 0, len(synonyms[s]))
		for f := range synonyms[s] {
			fields = append(fields, f)
		}
		slices.Sort(fields)
		for _, f := range fields {
			for _, name := range append([]string{f}, synonyms[s][f]...) {
				e := fieldEntry{name: name, norm: norm(name), canon: f}
				if _, dup := g.exact[e.norm]; !dup {
					g.exact[e.norm] = e
				}
				g.all = append(g.all, e)
			}
		}
	}
	return g
}

// The field groups the stage matches keys against, and their schemas.
var (
	planSchema  = []string{"plan"}
	edgeSchema  = []string{"edge"}
	stepFields  = newFieldGroup(stepSchemas...)
	planFields  = newFieldGroup(planSchema...)
	edgeFields  = newFieldGroup(edgeSchema...)
	patchSchema = []string{"patch"}
	patchFields = newFieldGroup(patchSchema...)
)

// AlignKey returns the field of a schema of the synonym table a key names:
// by its name or a synonym (exact true), else the nearest name by edit
// distance (as the align stage matches keys); "" when none is near.
func AlignKey(key, schema string) (field string, exact bool) {
	f, _, exact := fieldName(key, []string{schema})
	return f, exact
}

// groupOf returns the flattened group of a schema list (built once for
// the lists the stage uses).
func groupOf(schemas []string) *fieldGroup {
	switch {
	case slices.Equal(schemas, stepSchemas):
		return stepFields
	case slices.Equal(schemas, planSchema):
		return planFields
	case slices.Equal(schemas, edgeSchema):
		return edgeFields
	case slices.Equal(schemas, patchSchema):
		return patchFields
	}
	return newFieldGroup(schemas...)
}

// templateField are names under which a string is a template or an
// expression, never an object to parse, whatever field they align to.
var templateField = setOf("input", "inputs", "text", "data", "source", "from")

// fieldName finds the field of a group a key names: the canonical name or
// a synonym (exact, after normalizing), else the nearest name by edit
// distance (at most 1 for names of 4 to 7 letters, 2 from 8 on). It
// returns the field, the name matched (canonical or synonym) and whether
// the key was that name already; "" when nothing is near.
func fieldName(key string, schemas []string) (canon, name string, exact bool) {
	g := groupOf(schemas)
	n := norm(key)
	if e, ok := g.exact[n]; ok {
		return e.canon, e.name, true
	}
	if len(n) < 4 {
		return "", "", false
	}
	var best fieldEntry
	bestD := 3
	for _, e := range g.all {
		if len(e.norm) < 4 || len(e.norm) > len(n)+2 || len(n) > len(e.norm)+2 {
			continue
		}
		limit := 1
		if len(e.norm) >= 8 {
			limit = 2
		}
		if d := distance(n, e.norm); d <= limit && d < bestD {
			best, bestD = e, d
		}
	}
	return best.canon, best.name, false
}

// nearStepType reads a step type one edit from a known one ("Tol",
// "EndLop"); "" when there is none, or more than one.
func nearStepType(s string) string {
	n := norm(s)
	if len(n) < 3 {
		return ""
	}
	found := ""
	for alias, t := range stepTypeAliases {
		if len(alias) >= 4 && distance(n, alias) == 1 {
			if found != "" && found != string(t) {
				return ""
			}
			found = string(t)
		}
	}
	return found
}

// edgeList reports whether most items of n read as edges: objects with a
// from and a to, "a -> b" strings, or [from, to] pairs.
func (a *aligner) edgeList(n *vnode) bool {
	good := 0
	for _, it := range n.kids {
		if _, _, ok := a.endpoints(it); ok {
			good++
		}
	}
	return good > 0 && good*2 >= len(n.kids)
}

// endpoints reads an edge's ends, with the keys they were under.
func (a *aligner) endpoints(it *vnode) (from, to string, ok bool) {
	switch it.kind {
	case vObj:
		for _, k := range it.keys {
			switch f, _, _ := a.field(k, edgeSchema); f {
			case "from", "to":
				if f == "from" {
					from = k
				} else {
					to = k
				}
			}
		}
		return from, to, from != "" && to != ""
	case vStr:
		_, _, ok := arrowEdge(it.s)
		return "", "", ok
	case vArr:
		return "", "", len(it.kids) == 2 || len(it.kids) == 3
	}
	return "", "", false
}

// arrowEdge reads "a -> b", "a → b", "a => b".
func arrowEdge(s string) (string, string, bool) {
	for _, arrow := range []string{"->", "→", "=>"} {
		if i := strings.Index(s, arrow); i > 0 {
			from, to := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+len(arrow):])
			if from != "" && to != "" && !strings.Contains(to, arrow) {
				return from, to, true
			}
		}
	}
	return "", "", false
}

// alignEdges rewrites edges to {"from", "to", …} between the steps' ids,
// resolving each end by any form of reference: the id, the id ignoring
// case and punctuation, the step's name, or its position ("2", "step2",
// "s_2"; 1-based unless some end is 0).
func (a *aligner) alignEdges(n, steps *vnode) (*vnode, float64, []string) {
	ids := make([]string, len(steps.kids))
	for i, st := range steps.kids {
		ids[i] = st.get("id").text()
		if id := st.get("id"); id != nil && id.kind == vNum {
			ids[i] = id.s
		}
	}
	zeroBased := false
	type pair struct {
		from, to string
		rest     *vnode
	}
	var pairs []pair
	for _, it := range n.kids {
		var p pair
		switch it.kind {
		case vObj:
			fk, tk, ok := a.endpoints(it)
			if !ok {
				continue
			}
			p.from, p.to = scalarText(it.get(fk)), scalarText(it.get(tk))
			rest := &vnode{kind: vObj}
			for i, k := range it.keys {
				if k != fk && k != tk {
					rest.keys, rest.kids = append(rest.keys, k), append(rest.kids, it.kids[i])
				}
			}
			p.rest = rest
		case vStr:
			p.from, p.to, _ = arrowEdge(it.s)
		case vArr:
			if len(it.kids) < 2 {
				continue
			}
			p.from, p.to = scalarText(it.kids[0]), scalarText(it.kids[1])
			if len(it.kids) == 3 {
				p.rest = &vnode{kind: vObj, keys: []string{"output"}, kids: []*vnode{it.kids[2]}}
			}
		default:
			continue
		}
		if p.from == "0" || p.to == "0" {
			zeroBased = true
		}
		pairs = append(pairs, p)
	}
	out := &vnode{kind: vArr}
	score := 0.0
	var notes []string
	var unresolved []string
	assigned := map[int]bool{}
	resolve := func(ref string) (string, bool) {
		i := refIndex(ref, steps, ids, zeroBased)
		if i < 0 {
			return ref, false
		}
		if ids[i] == "" {
			// The mapping stage makes a key of it (or of the name).
			ids[i] = scalarText(steps.kids[i].get("name"))
			if ids[i] == "" || slices.Contains(ids, ids[i]) && slices.Index(ids, ids[i]) != i {
				ids[i] = fmt.Sprintf("step_%d", i+1)
			}
			assigned[i] = true
		}
		if ids[i] != ref {
			notes = append(notes, fmt.Sprintf("edge end %q read as step %q", ref, ids[i]))
		}
		return ids[i], true
	}
	for _, p := range pairs {
		f, okf := resolve(p.from)
		t, okt := resolve(p.to)
		if okf && okt {
			score += edgeResolved
		} else {
			score += edgeUnresolved
			unresolved = append(unresolved, p.from+" → "+p.to)
		}
		e := &vnode{kind: vObj, keys: []string{"from", "to"}, kids: []*vnode{strNode(f), strNode(t)}}
		if p.rest != nil {
			e.keys, e.kids = append(e.keys, p.rest.keys...), append(e.kids, p.rest.kids...)
		}
		out.kids = append(out.kids, e)
	}
	for i := range assigned {
		steps.kids[i] = a.copyObj(steps.kids[i])
		steps.kids[i].set("id", strNode(ids[i]))
	}
	if len(notes) > 6 {
		notes = append(notes[:6], fmt.Sprintf("and %d more edge ends read the same way", len(notes)-6))
	}
	if len(unresolved) > 0 {
		notes = append(notes, fmt.Sprintf("edge(s) %s name no step", strings.Join(unresolved, ", ")))
	}
	return out, score, notes
}

func scalarText(n *vnode) string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(n.text())
}

// refIndex finds the step a reference names; -1 when none.
func refIndex(ref string, steps *vnode, ids []string, zeroBased bool) int {
	if ref == "" {
		return -1
	}
	for i, id := range ids {
		if id == ref {
			return i
		}
	}
	nr := norm(ref)
	for i, id := range ids {
		if id != "" && norm(id) == nr {
			return i
		}
	}
	for i, st := range steps.kids {
		for _, k := range []string{"name", "title", "label"} {
			if v := st.get(k); v != nil && v.kind == vStr && norm(v.s) == nr && nr != "" {
				return i
			}
		}
	}
	// A position: "2", "step2", "step_2", "s2", "#2", "node 2".
	j := len(nr)
	for j > 0 && nr[j-1] >= '0' && nr[j-1] <= '9' {
		j--
	}
	if j == len(nr) || !slices.Contains([]string{"", "s", "step", "n", "node", "task", "action"}, nr[:j]) {
		return -1
	}
	k, err := strconv.Atoi(nr[j:])
	if err != nil {
		return -1
	}
	if !zeroBased {
		k--
	}
	if k < 0 || k >= len(ids) {
		return -1
	}
	return k
}

// score decodes a candidate's canonical JSON and scores what it reads.
func (a *aligner) score(plan *vnode, where string, notes []string, adjust float64) {
	js := string(plan.appendJSON(nil))
	p, ws, err := decodePlan(js)
	if err != nil {
		return
	}
	s := adjust
	all := p.allSteps()
	for _, st := range all {
		s += stepPoints
		switch st.Type {
		case workflow.TypeTool:
			if a.toolKnown(st.Params.Tool) {
				s += toolKnownBonus
			}
		case workflow.TypeIf:
			s += condPoints(st.Params.Condition)
		case workflow.TypeLoop:
			s += condPoints(st.Params.ExitCondition)
		}
	}
	for _, w := range ws {
		if strings.HasPrefix(w.Message, "skipped ") {
			s += lostStep
		}
	}
	for _, c := range a.cands {
		if c.canon == js {
			return // the same plan again (a model that repeats itself)
		}
	}
	a.cands = append(a.cands, &interp{where: where, plan: p, ws: ws, notes: notes, score: math.Round(s*100) / 100, steps: len(all), canon: js})
}

func condPoints(c string) float64 {
	if strings.TrimSpace(c) == "" {
		return 0
	}
	if _, err := expression.Compile(c); err == nil {
		return condBonus
	}
	return 0
}

// toolKnown reports whether a tool name is the catalog's, as written or
// through the names the mapping stage reads (aliases, MCP spellings).
func (a *aligner) toolKnown(t string) bool {
	if a.cat == nil {
		return t != ""
	}
	if a.cat.Has(t) {
		return true
	}
	if alias, ok := toolAliases[norm(t)]; ok && a.cat.Has(alias) {
		return true
	}
	_, ok := nearTool(t, a.cat)
	return ok
}

// pick returns the best candidate when it leads by the margin, nil when
// there is none, and a *StageError naming them when none leads.
func (a *aligner) pick() (*interp, error) {
	if len(a.cands) == 0 {
		return nil, nil
	}
	slices.SortStableFunc(a.cands, func(x, y *interp) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		return 0
	})
	best := a.cands[0]
	// Readings that do the same (the same steps with the same arguments,
	// in the same order) are one reading found twice, not rivals: a
	// call written as text read also as a YAML object.
	rivals := []*interp{best}
	for _, c := range a.cands[1:] {
		if c.plan == nil || best.plan == nil || sameEffect(best.plan, c.plan) {
			continue
		}
		rivals = append(rivals, c)
	}
	if len(rivals) == 1 || best.score-rivals[1].score >= alignLead(best.score) {
		return best, nil
	}
	var names []string
	for i, c := range rivals {
		if i >= 4 || best.score-c.score >= alignLead(best.score) {
			break
		}
		names = append(names, fmt.Sprintf("(%d) %s: %d step(s), score %.1f", i+1, c.where, c.steps, c.score))
	}
	return nil, &StageError{Stage: StageAlign, Msg: fmt.Sprintf(
		"the reply holds several readings as a plan and none is clearly the one: %s; send one JSON object holding only the plan you mean",
		strings.Join(names, "; "))}
}

// alignLead is the lead the best reading needs over the runner-up.
// sameEffect reports whether two plans have the same steps: type, tool,
// arguments, condition and prompt, in order, branches included.
func sameEffect(x, y *Plan) bool {
	var sig func(ss []Step, b *strings.Builder)
	sig = func(ss []Step, b *strings.Builder) {
		for _, st := range ss {
			args, _ := json.Marshal(st.Params.Arguments) // map keys sorted
			fmt.Fprintf(b, "%s|%s|%s|%s|%s;", st.Type, st.Params.Tool, args, st.Params.Condition, st.Params.Prompt)
			for _, br := range st.Branches {
				fmt.Fprintf(b, "%s[", br.Output)
				sig(br.Steps, b)
				b.WriteString("]")
			}
		}
	}
	var a, b strings.Builder
	sig(x.Steps, &a)
	sig(y.Steps, &b)
	return a.String() == b.String() && len(x.Edges) == len(y.Edges)
}

func alignLead(best float64) float64 { return max(alignMinLead, alignRelLead*best) }
