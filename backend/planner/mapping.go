package planner

import (
	"fmt"
	"github.com/tidwall/gjson"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// genericID matches ids that say nothing about the step ("n1", "step_3", "7").
var genericID = regexp.MustCompile(`^(?i)(n|node|s|step|task|action)?[_-]?[0-9]+$`)

// MapPlan turns the plan's steps (nested branches included) into the nodes
// of a new workflow: fresh node ids, keys from the step ids when they are
// valid identifiers (so conditions the model wrote keep working), else from
// the names; names default from the id or the tool. A tool that is not in
// the catalog keeps its node, disabled, with a warning. Edges come later
// (BuildEdges).
func MapPlan(p *Plan, cat *tools.Catalog) (*workflow.Workflow, []Warning) {
	var ws []Warning
	w := workflow.New(p.Name)
	w.DoneWhen = p.DoneWhen
	steps := p.allSteps()
	w.Nodes = make([]workflow.Node, 0, len(steps)+4)
	p.idMap = make(map[string]int, len(steps))
	p.nodeIDs = make(map[string]string, len(steps))

	// Valid ids become keys first, so a derived key never takes an id a
	// later step relies on.
	keys := newKeySet(len(steps))
	taken := keys.taken
	stepKeys := make([]string, len(steps))
	for i, s := range steps {
		want := s.ID
		if s.Key != "" {
			want = s.Key
		}
		if usableKey(want) && !taken[want] {
			stepKeys[i] = want
			taken[want] = true
		}
	}
	type rename struct{ from, to string }
	var renames []rename
	for i, s := range steps {
		s.node = len(w.Nodes)
		n := workflow.Node{ID: workflow.NewID(), Type: s.Type, Params: s.Params, TimeoutMs: s.TimeoutMs, Verify: s.Verify, OnError: s.OnError, DoneWhen: s.DoneWhen}
		n.Name = s.Name
		if n.Name == "" {
			n.Name = defaultName(s)
		}
		if n.Name == "" {
			n.Name = string(s.Type)
		}
		if s.ID != "" {
			if _, dup := p.idMap[s.ID]; dup {
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
					"%s: id %q is used twice; edges and references to it mean the first step", s.Path, s.ID)})
			} else {
				p.idMap[s.ID] = s.node
			}
		}
		n.Key = stepKeys[i]
		if n.Key == "" {
			base := workflow.KeyFromName(n.Name)
			if reservedKeys[base] {
				base += "_step"
			}
			n.Key = keys.unique(base)
			switch ref := s.ID; {
			case s.Key != "":
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
					"%s: key %q %s; the node's key is %q", s.Path, s.Key, whyNotKey(s.Key, taken), n.Key)})
				if !workflow.ValidKey(s.Key) {
					renames = append(renames, rename{s.Key, n.Key})
				}
			case ref != "":
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
					"%s: id %q %s; the node's key is %q", s.Path, ref, whyNotKey(ref, taken), n.Key)})
				if !workflow.ValidKey(ref) {
					// (A reserved word could never be referenced; an id
					// used twice keeps its references for the first.)
					renames = append(renames, rename{ref, n.Key})
				}
			}
		}
		if n.Type == workflow.TypeLoop && n.Params.MaxIterations == nil {
			m := workflow.DefaultMaxIterations
			n.Params.MaxIterations = &m
		}
		if n.Type == workflow.TypeTool && cat != nil {
			ws = append(ws, resolveTool(&n, s, cat)...)
			ws = append(ws, bareArguments(&n, s, cat)...)
		}
		if n.Type == workflow.TypeAiStep && cat != nil {
			var unknown []string
			for _, t := range n.Params.AllowedTools {
				if !cat.Has(t) {
					unknown = append(unknown, t)
				}
			}
			if len(unknown) > 0 {
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
					"%s: allowed_tools names unknown tool(s) %s", s.Path, quoteList(unknown))})
			}
		}
		for _, c := range conditionsOf(&n) {
			if fixed, what := jsCondition(*c); what != "" {
				*c = fixed
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf("%s: %s in a condition", s.Path, what)})
			}
			if fixed, ok := templateCondition(*c); ok {
				ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
					"%s: a condition is an expression, not a template: read %q as %q", s.Path, *c, fixed)})
				*c = fixed
			}
		}
		p.nodeIDs[s.Path] = n.ID
		w.Nodes = append(w.Nodes, n)
	}

	// EndLoop.loop_id names a step id; point it at the node.
	for _, s := range steps {
		n := &w.Nodes[s.node]
		if n.Type != workflow.TypeEndLoop || n.Params.LoopID == "" {
			continue
		}
		if k, ok := p.idMap[n.Params.LoopID]; ok && w.Nodes[k].Type == workflow.TypeLoop {
			n.Params.LoopID = w.Nodes[k].ID
			continue
		}
		if k := positional(n.Params.LoopID); k > 0 && k <= len(steps) && w.Nodes[steps[k-1].node].Type == workflow.TypeLoop && steps[k-1].node < s.node {
			// "n2" in a plan whose steps have no ids: the second step,
			// as models number them; unambiguous, so no warning.
			n.Params.LoopID = w.Nodes[steps[k-1].node].ID
			continue
		}
		ws = append(ws, Warning{Stage: StageMap, NodeID: n.ID, Message: fmt.Sprintf(
			"%s: loop_id %q is not the id of a Loop step; it will be paired by structure", s.Path, n.Params.LoopID)})
		n.Params.LoopID = ""
	}

	// References written with an id that could not be a key follow it.
	for _, r := range renames {
		count := 0
		for i := range w.Nodes {
			count += renameRefs(&w.Nodes[i], r.from, r.to)
		}
		if w.DoneWhen != nil {
			var c int
			w.DoneWhen.Condition, c = replaceRef(w.DoneWhen.Condition, r.from, r.to)
			count += c
		}
		if count > 0 {
			ws = append(ws, Warning{Stage: StageMap, Message: fmt.Sprintf(
				"rewrote %d reference(s) to %q as %q", count, r.from, r.to)})
		}
	}
	return w, ws
}

// reservedKeys are words conditions read as operators or literals, so a
// node cannot be called that (validate reports them as bad_key).
var reservedKeys = setOf(workflow.ReservedKeys...)

// usableKey reports whether a step id can be kept as the node's key.
func usableKey(id string) bool { return workflow.ValidKey(id) && !reservedKeys[id] }

// keySet hands out unique keys: base, base_2, base_3…, remembering the
// last suffix of each base so that many nodes of one name stay linear.
type keySet struct {
	taken map[string]bool
	next  map[string]int
}

func newKeySet(n int) *keySet {
	return &keySet{taken: make(map[string]bool, n), next: map[string]int{}}
}

func keySetOf(w *workflow.Workflow) *keySet {
	ks := newKeySet(len(w.Nodes))
	for i := range w.Nodes {
		ks.taken[w.Nodes[i].Key] = true
	}
	return ks
}

func (ks *keySet) unique(base string) string {
	k := base
	for i := max(ks.next[base], 2); ks.taken[k]; i++ {
		k = fmt.Sprintf("%s_%d", base, i)
		ks.next[base] = i + 1
	}
	ks.taken[k] = true
	return k
}

// whyNotKey says why an id or key could not become the node's key.
func whyNotKey(k string, taken map[string]bool) string {
	switch {
	case reservedKeys[k]:
		return "is a reserved word in conditions"
	case !workflow.ValidKey(k):
		return "is not an identifier (lower case letters, digits, _)"
	}
	return "is already the key of another step"
}

// defaultName names a step that has no name: from its id when the id says
// something, else from its tool or type.
func defaultName(s *Step) string {
	if s.ID != "" && !genericID.MatchString(s.ID) {
		return humanize(s.ID)
	}
	switch s.Type {
	case workflow.TypeTool:
		if s.Params.Tool != "" {
			t := s.Params.Tool
			if i := strings.LastIndexByte(t, '.'); i >= 0 {
				t = t[i+1:]
			}
			return humanize(t)
		}
	case workflow.TypeAiTransform:
		if s.Params.Kind != "" {
			return humanize(s.Params.Kind)
		}
	}
	return string(s.Type)
}

// humanize turns an identifier into a label: "check_file" → "Check file",
// "checkFile" → "Check file", "HTTPGet" → "HTTP get".
func humanize(id string) string {
	var words []string
	rs := []rune(id)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, string(rs[start:end]))
		}
		start = end
	}
	isUp := func(r rune) bool { return r >= 'A' && r <= 'Z' }
	isLow := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }
	for i, r := range rs {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush(i)
			start = i + 1
		case i > start && isUp(r) && isLow(rs[i-1]):
			flush(i) // checkFile
		case i > start && isUp(r) && isUp(rs[i-1]) && i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z':
			flush(i) // HTTPGet
		}
	}
	flush(len(rs))
	if len(words) == 0 {
		return id
	}
	for i, w := range words {
		acronym := len(w) > 1 && strings.ToUpper(w) == w && strings.ToLower(w) != w
		switch {
		case acronym:
		case i == 0:
			words[i] = strings.ToUpper(w[:1]) + strings.ToLower(w[1:])
		default:
			words[i] = strings.ToLower(w)
		}
	}
	return strings.Join(words, " ")
}

// bareArguments gives arguments written as one value ("arguments": "ls")
// to the tool's one required parameter, by its input schema; a tool with
// none or several has no parameter it can only mean, and the value is
// named in a warning (validation then says what is missing).
func bareArguments(n *workflow.Node, s *Step, cat *tools.Catalog) []Warning {
	if s.BareArguments == "" || len(n.Params.Arguments) > 0 {
		return nil
	}
	warn := func(format string, a ...any) []Warning {
		return []Warning{{Stage: StageMap, NodeID: n.ID, Message: s.Path + ": " + fmt.Sprintf(format, a...)}}
	}
	t, _ := cat.Lookup(n.Params.Tool)
	req := gjson.GetBytes(t.InputSchema, "required").Array()
	if len(req) != 1 {
		return warn("arguments must be an object; the value %s was ignored (tool %q has %d required arguments)", clipText(s.BareArguments, 80), n.Params.Tool, len(req))
	}
	n.Params.Arguments = map[string]any{req[0].String(): s.BareArguments}
	return warn("arguments was the bare value %s; read it as %q, the tool's one required argument", clipText(s.BareArguments, 80), req[0].String())
}

// resolveTool checks a Tool node's tool against the catalog, reading
// near-misses (case, "server/tool", "server__tool", a bare MCP tool name)
// as the catalog's name; an unknown tool disables the node.
func resolveTool(n *workflow.Node, s *Step, cat *tools.Catalog) []Warning {
	warn := func(format string, a ...any) []Warning {
		return []Warning{{Stage: StageMap, NodeID: n.ID, Message: s.Path + ": " + fmt.Sprintf(format, a...)}}
	}
	t := n.Params.Tool
	if t == "" {
		if cat.Has(s.Name) {
			n.Params.Tool = s.Name
			n.Name = humanize(s.Name)
			return warn("no tool_name; read the name %q as the tool", s.Name)
		}
		return warn("Tool step has no tool_name")
	}
	if cat.Has(t) {
		return nil
	}
	if fixed, ok := nearTool(t, cat); ok {
		n.Params.Tool = fixed
		return warn("tool %q read as %q", t, fixed)
	}
	if alias, ok := toolAliases[norm(t)]; ok && cat.Has(alias) {
		n.Params.Tool = alias
		return warn("tool %q read as %q (the built-in that does that)", t, alias)
	}
	// Kept as written, so validation calls it an error (StrictTools) and
	// the model is asked again with the tools there are.
	return warn("unknown tool %q (not in the catalog)", t)
}

func nearTool(t string, cat *tools.Catalog) (string, bool) {
	cands := []string{
		strings.ReplaceAll(t, "__", "."),
		strings.ReplaceAll(t, "/", "."),
		strings.ReplaceAll(t, ":", "."),
		strings.ReplaceAll(t, "-", "_"),
		strings.ReplaceAll(strings.ReplaceAll(t, "functions.", ""), "tools.", ""),
	}
	for _, c := range cands {
		if cat.Has(c) {
			return c, true
		}
	}
	names := cat.Names()
	n := norm(t)
	found := ""
	for _, name := range names {
		if norm(name) == n {
			if found != "" {
				return "", false
			}
			found = name
		}
	}
	if found != "" {
		return found, true
	}
	// A bare MCP tool name: the one "server.tool" it can mean.
	for _, name := range names {
		if i := strings.LastIndexByte(name, '.'); i >= 0 && norm(name[i+1:]) == n {
			if found != "" {
				return "", false
			}
			found = name
		}
	}
	if found != "" {
		return found, true
	}
	// One letter off (listt_files): the one catalog name that close, for
	// names long enough that one letter does not make another word.
	if len(n) >= 6 {
		for _, name := range names {
			if distance(n, norm(name)) == 1 {
				if found != "" {
					return "", false
				}
				found = name
			}
		}
	}
	return found, found != ""
}

// renameRefs rewrites references to a step under a name that could not be
// its key ("checkFile.stdout" → "check_file.stdout"): anywhere in the
// node's conditions, and inside {{ }} in its templates (arguments, input,
// prompt), where a shell command's text is left alone. It returns how many.
func renameRefs(n *workflow.Node, from, to string) int {
	count := 0
	expr := func(s *string) {
		var c int
		*s, c = replaceRef(*s, from, to)
		count += c
	}
	tmpl := func(s *string) {
		var c int
		*s, c = replaceTemplateRef(*s, from, to)
		count += c
	}
	p := &n.Params
	expr(&p.Condition)
	expr(&p.ExitCondition)
	expr(&n.Verify)
	if n.DoneWhen != nil {
		expr(&n.DoneWhen.Condition)
	}
	for i := range p.Cases {
		expr(&p.Cases[i].Condition)
	}
	tmpl(&p.Input)
	tmpl(&p.Prompt)
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			tmpl(&x)
			return x
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	if p.Arguments != nil {
		walk(p.Arguments)
	}
	return count
}

// replaceRef rewrites "from." to "to." where from is not the tail of a
// longer identifier.
func replaceRef(s, from, to string) (string, int) {
	pat := from + "."
	if !strings.Contains(s, pat) {
		return s, 0
	}
	var b strings.Builder
	count := 0
	for i := 0; i < len(s); {
		if strings.HasPrefix(s[i:], pat) && (i == 0 || !isIdentByte(s[i-1])) {
			b.WriteString(to + ".")
			i += len(pat)
			count++
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), count
}

// replaceTemplateRef is replaceRef inside the {{ }} of a template only.
func replaceTemplateRef(s, from, to string) (string, int) {
	if !strings.Contains(s, "{{") || !strings.Contains(s, from+".") {
		return s, 0
	}
	var b strings.Builder
	count := 0
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			break
		}
		end := strings.Index(s[open:], "}}")
		if end < 0 {
			break
		}
		end += open
		inner, c := replaceRef(s[open:end], from, to)
		b.WriteString(s[:open])
		b.WriteString(inner)
		count += c
		s = s[end:]
		b.WriteString(s[:2])
		s = s[2:]
	}
	b.WriteString(s)
	return b.String(), count
}

// conditionsOf returns the node's expression fields.
func conditionsOf(n *workflow.Node) []*string {
	cs := []*string{&n.Params.Condition, &n.Params.ExitCondition, &n.Verify}
	for i := range n.Params.Cases {
		cs = append(cs, &n.Params.Cases[i].Condition)
	}
	if n.DoneWhen != nil {
		cs = append(cs, &n.DoneWhen.Condition)
	}
	return cs
}

// jsCondition rewrites what models carry over from JavaScript into
// expr-lang, outside string literals: === and !== (expr has == and !=),
// null and undefined (nil). It says what it changed ("" when nothing).
func jsCondition(s string) (string, string) {
	if !strings.Contains(s, "==") && !strings.Contains(s, "null") && !strings.Contains(s, "undefined") {
		return s, ""
	}
	var b strings.Builder
	var did []string
	note := func(w string) {
		if !slices.Contains(did, w) {
			did = append(did, w)
		}
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(s) && s[j] != c {
				if s[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, len(s))
			b.WriteString(s[i:j])
			i = j
		case strings.HasPrefix(s[i:], "==="):
			b.WriteString("==")
			note("read JavaScript's === as ==")
			i += 3
		case strings.HasPrefix(s[i:], "!=="):
			b.WriteString("!=")
			note("read JavaScript's !== as !=")
			i += 3
		case condIdentStart(c) && (i == 0 || !condIdentPart(s[i-1]) && s[i-1] != '.'):
			j := i
			for j < len(s) && condIdentPart(s[j]) {
				j++
			}
			switch w := s[i:j]; w {
			case "null", "undefined":
				b.WriteString("nil")
				note("read " + w + " as nil")
			default:
				b.WriteString(w)
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	if len(did) == 0 {
		return s, ""
	}
	return b.String(), strings.Join(did, ", ")
}

// templateCondition reads a condition written with template braces
// ("{{check.exit_code}} == 0", "{{ a.ok }}") as the expression they hold;
// ok is false when there are none, or the result would not compile.
func templateCondition(s string) (string, bool) {
	if !strings.Contains(s, "{{") {
		return s, false
	}
	if _, err := expression.Compile(s); err == nil {
		return s, false // braces inside a string literal
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "}}")
		if j < 0 {
			return s, false
		}
		b.WriteString(rest[:i])
		b.WriteString(strings.TrimSpace(rest[i+2 : i+j]))
		rest = rest[i+j+2:]
	}
	b.WriteString(rest)
	out := strings.TrimSpace(b.String())
	if _, err := expression.Compile(out); err != nil || out == "" {
		return s, false
	}
	return out, true
}

func condIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func condIdentPart(c byte) bool  { return condIdentStart(c) || c >= '0' && c <= '9' }

// positional reads a step reference written as a 1-based position ("n2",
// "step2", "s2", "2"); 0 when it is not one.
func positional(ref string) int {
	for _, p := range []string{"step_", "step", "n", "s"} {
		if rest, ok := strings.CutPrefix(strings.ToLower(ref), p); ok && rest != "" {
			ref = rest
			break
		}
	}
	k, err := strconv.Atoi(ref)
	if err != nil || k <= 0 {
		return 0
	}
	return k
}
