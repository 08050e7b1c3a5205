package planner

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// Tool calls as steps. Models trained for function calling answer a plan
// request with calls instead of steps: {"name": tool, "parameters": …},
// {"type": "function", "function": {…}}, {"action": tool, "action_input":
// …}, {tool: arguments}, or a Python-style read_file(path="x"). The
// schema they follow is the call's; the tool name, checked against the
// catalog, is what aligns it with a Tool step.

// asStep returns n as a step object: itself when it names a step type,
// else the Tool step of the call it is, else itself when it looks like a
// step in another way; nil when it is no step. note says what was read.
func (a *aligner) asStep(n *vnode, depth int) (*vnode, string) {
	if n == nil || n.kind != vObj {
		return nil, ""
	}
	if a.typed(n) {
		return n, ""
	}
	if c, tool := a.toolCall(n, depth); c != nil {
		return c, fmt.Sprintf("read a call of tool %q as a Tool step", tool)
	}
	if a.stepLike(n) {
		return n, ""
	}
	return nil, ""
}

// typed reports whether n names a step type (under any of its names).
func (a *aligner) typed(n *vnode) bool {
	for i, k := range n.keys {
		if f, _, _ := a.field(k, stepSchemas); f == "step_type" {
			t := n.kids[i].text()
			if _, ok := NormalizeStepType(t); ok || nearStepType(t) != "" {
				return true
			}
		}
	}
	return false
}

// knownTool reports whether s names a catalog tool; without a catalog
// nothing does (any word could be a tool name).
func (a *aligner) knownTool(s string) bool {
	return a.cat != nil && strings.TrimSpace(s) != "" && len(s) <= 128 && a.toolKnown(strings.TrimSpace(s))
}

// toolCall reads n as a tool call: the key whose string value names a
// catalog tool, its arguments under any arguments name (or the one other
// key holding an object), or a single key naming a tool with the
// arguments as its value; or such a call under n's "function",
// "tool_call" or "call" (the {"type": "function", "function": {…}}
// envelope).
func (a *aligner) toolCall(n *vnode, depth int) (*vnode, string) {
	if depth > maxAlignDepth || !a.b.spend() {
		return nil, ""
	}
	if len(n.keys) == 1 && a.cat != nil && a.cat.Has(n.keys[0]) {
		// {tool: arguments}, by the catalog's own name: an alias here
		// is an envelope's word ({"output": {…}}).
		if v := n.kids[0].deref(a.b, depth, true); v.kind == vNull || v.kind == vObj && !a.holdsSteps(v, depth) {
			return callStep(n.keys[0], v, nil), n.keys[0]
		}
	}
	toolAt := -1
	for i, k := range n.keys {
		if f, _, _ := a.field(k, stepSchemas); f == "step_type" || f == "id" {
			continue
		}
		if n.kids[i].kind == vStr && a.knownTool(n.kids[i].s) {
			toolAt = i
			break
		}
	}
	if toolAt < 0 {
		// Only a call's own envelope: under a tool name's key
		// ("function", "tool_call") or "call".
		for i, v := range n.kids {
			f, _, _ := a.field(n.keys[i], stepSchemas)
			if v.kind == vObj && (f == "tool_name" || normEq("call", n.keys[i]) || normEq("functioncall", n.keys[i])) {
				if c, tool := a.toolCall(v, depth+1); c != nil {
					if id := n.get("id"); id != nil && c.get("id") == nil {
						c.set("id", id)
					}
					return c, tool
				}
			}
		}
		return nil, ""
	}
	argsAt, objects := -1, []int{}
	for i, k := range n.keys {
		if i == toolAt {
			continue
		}
		v := n.kids[i].deref(a.b, depth, true)
		if f, _, _ := a.field(k, stepSchemas); f == "arguments" || normEq("actioninput", k) || normEq("toolinput", k) {
			argsAt = i
			break
		}
		if v.kind == vObj {
			objects = append(objects, i)
		}
	}
	if argsAt < 0 && len(objects) == 1 {
		argsAt = objects[0]
	}
	var args *vnode
	if argsAt >= 0 {
		args = n.kids[argsAt].deref(a.b, depth, true)
	}
	rest := &vnode{kind: vObj}
	for i, k := range n.keys {
		if i == toolAt || i == argsAt {
			continue
		}
		if f, _, _ := a.field(k, stepSchemas); f == "step_type" {
			continue // "function", "processing": another schema's word
		}
		rest.keys, rest.kids = append(rest.keys, k), append(rest.kids, n.kids[i])
	}
	tool := n.kids[toolAt].s
	return callStep(tool, args, rest), tool
}

// holdsSteps reports whether v, or a value below it, is a list of steps
// (a plan under an envelope is no call's arguments).
func (a *aligner) holdsSteps(v *vnode, depth int) bool {
	if v == nil || depth > maxAlignDepth || !a.b.spend() {
		return false
	}
	v = v.deref(a.b, depth, false)
	switch v.kind {
	case vArr:
		for _, k := range v.kids {
			if k.kind == vObj && a.typed(k) {
				return true
			}
		}
		for _, k := range v.kids {
			if a.holdsSteps(k, depth+1) {
				return true
			}
		}
	case vObj:
		for _, k := range v.kids {
			if a.holdsSteps(k, depth+1) {
				return true
			}
		}
	}
	return false
}

// callStep is the Tool step of a call.
func callStep(tool string, args, rest *vnode) *vnode {
	st := &vnode{kind: vObj, keys: []string{"step_type", "tool_name"}, kids: []*vnode{strNode("Tool"), strNode(strings.TrimSpace(tool))}}
	if args == nil || args.kind != vObj {
		args = &vnode{kind: vObj}
	}
	st.keys, st.kids = append(st.keys, "arguments"), append(st.kids, args)
	if rest != nil {
		for i, k := range rest.keys {
			if st.get(k) == nil {
				st.keys, st.kids = append(st.keys, k), append(st.kids, rest.kids[i])
			}
		}
	}
	return st
}

// Calls written as text. Models trained for function calling write their
// calls in their chat template's notation when no server parses it:
// read_file(path="x") and [f(a=1), g(b=2)] (Python), <function=read_file>
// {…}</function> (Llama 3.1), <tool_call><function=f><parameter=path>x
// </parameter> (Qwen), <invoke name="f"><parameter name="path">
// (Claude's XML), f[ARGS]{…} (Mistral), "Action: f / Action Input: {…}"
// (ReAct). What they share is the catalog: a tool's name in the text,
// followed within a few characters by its arguments (a JSON object,
// parenthesised arguments, or parameter tags). readCalls reads that
// shape rather than each notation; a name in prose ("use read_file to")
// has no arguments after it and is no call.

// maxCallGap bounds the text between a tool's name and its arguments.
const maxCallGap = 64

// readCalls returns the tool calls written as text in the reply, in
// order: each a catalog tool's name (as written, or an alias) outside
// JSON structure, followed by its arguments. nil when there are none, or
// more than the stage reads.
func (a *aligner) readCalls(text string) []*vnode {
	if a.cat == nil {
		return nil
	}
	var out []*vnode
	for i := 0; i < len(text); {
		if !isCallNameStart(text[i]) || i > 0 && isCallNameByte(text[i-1]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isCallNameByte(text[j]) {
			j++
		}
		name := strings.TrimRight(text[i:j], ".-/")
		end := i + len(name)
		tool, ok := a.callTool(name)
		if !ok || jsonData(text, i, end) {
			i = j
			continue
		}
		if !a.b.spend() {
			return nil
		}
		args, next, ok := a.callArgs(text, end, tool)
		if !ok {
			i = j
			continue
		}
		if len(out) >= maxAlignValues {
			a.b.out = true
			return nil // more calls than the stage reads: none, rather than some
		}
		out = append(out, callStep(tool, args, nil))
		i = next
	}
	return out
}

// callTool is the catalog tool a word names: exactly, or by an alias
// (not by edit distance: prose is full of words near a tool's name).
func (a *aligner) callTool(w string) (string, bool) {
	if len(w) > 128 || w == "" {
		return "", false
	}
	for {
		if a.cat.Has(w) {
			return w, true
		}
		if alias, ok := toolAliases[norm(w)]; ok && a.cat.Has(alias) {
			return alias, true
		}
		// functions.run_command: a namespace the chat template adds.
		dot := strings.IndexByte(w, '.')
		if dot < 0 {
			return "", false
		}
		w = w[dot+1:]
	}
}

func isCallNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isCallNameByte(c byte) bool  { return isIdentByte(c) || c == '.' || c == '-' || c == '/' }

// jsonData reports whether text[i:end] is a quoted JSON (or Python)
// string followed by , } ] or : — a value or key of JSON structure,
// which the JSON readings read, not a call.
func jsonData(text string, i, end int) bool {
	if i == 0 || end >= len(text) {
		return false
	}
	q := text[i-1]
	if (q != '"' && q != '\'') || text[end] != q {
		return false
	}
	k := end + 1
	for k < len(text) && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\n') {
		k++
	}
	return k == len(text) || strings.IndexByte(",}]:", text[k]) >= 0
}

// callArgs reads the arguments that follow a tool's name at text[at:]:
// after a gap of tags, punctuation and at most two words ("[ARGS]",
// "\nAction Input:", "\">\n", "</name>"), a JSON object, parenthesised
// arguments (right after the name), or parameter tags. It returns them
// and where the call ends.
func (a *aligner) callArgs(text string, at int, tool string) (*vnode, int, bool) {
	if at < len(text) && text[at] == '(' {
		return a.parenArgs(text, at, tool)
	}
	words := 0
	for k := at; k < len(text) && k-at <= maxCallGap; k++ {
		c := text[k]
		switch {
		case c == '{':
			end, depth := matchBracket(text, k)
			if depth != 0 {
				return nil, 0, false
			}
			v := parseJSONish(text[k:end], a.b, 1)
			if v == nil || v.kind != vObj {
				return nil, 0, false
			}
			return v, end, true
		case c == '<':
			if v, end := a.paramTags(text, k, tool); v != nil {
				return v, end, true
			}
			gt := strings.IndexByte(text[k:], '>')
			if gt < 0 || a.namesTool(text[k:k+gt]) {
				return nil, 0, false // another call's tag: this name had no arguments
			}
			k += gt // a tag between the name and its arguments
		case c == '[':
			rb := strings.IndexByte(text[k:], ']')
			if rb < 0 || rb > 16 {
				return nil, 0, false
			}
			k += rb // a marker: [ARGS]
		case isCallNameStart(c):
			if words++; words > 2 {
				return nil, 0, false
			}
			for k+1 < len(text) && isIdentByte(text[k+1]) {
				k++
			}
		case c == '(' && words == 0 && nextSignificant(text, k+1) == '{':
			return a.parenArgs(text, k, tool) // Action: f ({…})
		case c == '(' || c == ')' || c == '.' && (k+1 == len(text) || strings.IndexByte(" \t\r\n", text[k+1]) >= 0):
			return nil, 0, false // prose
		}
	}
	return nil, 0, false
}

// namesTool reports whether a tag's text names a catalog tool.
func (a *aligner) namesTool(tag string) bool {
	for i := 0; i < len(tag); i++ {
		if !isCallNameStart(tag[i]) || i > 0 && isCallNameByte(tag[i-1]) {
			continue
		}
		j := i
		for j < len(tag) && isCallNameByte(tag[j]) {
			j++
		}
		if _, ok := a.callTool(strings.TrimRight(tag[i:j], ".-/")); ok {
			return true
		}
		i = j
	}
	return false
}

// parenArgs reads name(...) arguments: keyword arguments (k=v or k: v),
// a single JSON object, or positional values given to the tool's
// parameters in the order its schema lists them.
func (a *aligner) parenArgs(text string, at int, tool string) (*vnode, int, bool) {
	end := closeParen(text, at)
	if end < 0 {
		return nil, 0, false
	}
	inner := strings.TrimSpace(text[at+1 : end])
	args := &vnode{kind: vObj}
	if strings.HasPrefix(inner, "{") {
		if v := parseJSONish(inner, a.b, 1); v != nil && v.kind == vObj {
			return v, end + 1, true
		}
	}
	params := a.paramNames(tool)
	for n, part := range splitArgs(inner) {
		k, v, ok := keywordArg(part)
		if !ok {
			if n >= len(params) {
				return nil, 0, false
			}
			k, v = params[n], part // positional
		}
		args.keys, args.kids = append(args.keys, k), append(args.kids, scalarNode(pyLiteral(v), a.b, 1))
	}
	return args, end + 1, true
}

// keywordArg splits k=v (or k: v) with an identifier k.
func keywordArg(part string) (string, string, bool) {
	eq := strings.IndexAny(part, "=:")
	if eq <= 0 {
		return "", "", false
	}
	k := strings.TrimSpace(part[:eq])
	if k == "" {
		return "", "", false
	}
	for j := 0; j < len(k); j++ {
		if !isIdentByte(k[j]) {
			return "", "", false
		}
	}
	return k, part[eq+1:], true
}

// closeParen is the offset of the ) closing the ( at text[at], outside
// quotes and brackets; -1 when there is none.
func closeParen(text string, at int) int {
	end := -1
	nested(text, at, func(i, depth int) bool {
		if depth > 0 {
			return true
		}
		if text[i] == ')' {
			end = i
		}
		return false
	})
	return end
}

// nested calls f for each byte of s from at that is outside a quoted
// string, with the bracket depth after it, until f returns false.
func nested(s string, at int, f func(i, depth int) bool) {
	depth := 0
	var quote byte
	for i := at; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
			continue
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
		if !f(i, depth) {
			return
		}
	}
}

// paramTag is one parameter element: <parameter=K>V</parameter>,
// <parameter name="K">V</parameter> (any tag name), or <K>V</K> for a
// parameter K of the tool.
var paramTag = regexp.MustCompile(`^\s*<([A-Za-z_][\w-]*)(?:=([^>\s]+)|\s+name\s*=\s*["']([^"']+)["'])?\s*>`)

// paramTagEq is a parameter element whose '>' after the name is an '='
// (<parameter=command=git log</parameter>), as Qwen3-Coder writes it.
var paramTagEq = regexp.MustCompile(`^\s*<([A-Za-z_][\w-]*)=([A-Za-z_][\w-]*)()=`)

// paramTags reads the parameter elements starting at text[at]; nil when
// the first is none.
func (a *aligner) paramTags(text string, at int, tool string) (*vnode, int) {
	params := a.paramNames(tool)
	args := &vnode{kind: vObj}
	k := at
	first := ""
	for len(args.keys) < maxAlignValues && a.b.spend() {
		m := paramTag.FindStringSubmatchIndex(text[k:])
		if m == nil {
			m = paramTagEq.FindStringSubmatchIndex(text[k:])
		}
		if m == nil {
			break
		}
		tag := text[k+m[2] : k+m[3]]
		if named := m[4] >= 0 || m[6] >= 0; named && first == "" {
			first = tag
		} else if named && tag != first {
			// Parameters named by an attribute share one tag; another
			// is the next call's (<invoke name="log">).
			return finishTags(args, k)
		}
		key := ""
		switch {
		case m[4] >= 0:
			key = strings.Trim(text[k+m[4]:k+m[5]], `"'`)
		case m[6] >= 0:
			key = text[k+m[6] : k+m[7]]
		case slices.Contains(params, tag):
			key = tag
		default:
			return finishTags(args, k)
		}
		bodyAt := k + m[1]
		close := strings.Index(text[bodyAt:], "</"+tag)
		if next := strings.Index(text[bodyAt:], "<"+tag); close < 0 || next >= 0 && next < close {
			// No closing tag (the markup lost them): the value runs to
			// the line's end.
			end := strings.IndexByte(text[bodyAt:], '\n')
			if end < 0 {
				end = len(text) - bodyAt
			}
			body := strings.TrimSpace(text[bodyAt : bodyAt+end])
			args.keys, args.kids = append(args.keys, key), append(args.kids, scalarNode(body, a.b, 1))
			k = bodyAt + end
			continue
		}
		body := strings.Trim(text[bodyAt:bodyAt+close], "\r\n")
		args.keys, args.kids = append(args.keys, key), append(args.kids, scalarNode(body, a.b, 1))
		k = bodyAt + close + 2 + len(tag)
		if gt := strings.IndexByte(text[k:], '>'); gt >= 0 {
			k += gt + 1
		}
	}
	return finishTags(args, k)
}

func finishTags(args *vnode, end int) (*vnode, int) {
	if len(args.keys) == 0 {
		return nil, 0
	}
	return args, end
}

// paramNames are a tool's parameters in the order its input schema lists
// them (required ones first).
func (a *aligner) paramNames(tool string) []string {
	t, ok := a.cat.Lookup(tool)
	if !ok {
		return nil
	}
	s := gjson.ParseBytes(t.InputSchema)
	var out []string
	for _, r := range s.Get("required").Array() {
		out = append(out, r.String())
	}
	s.Get("properties").ForEach(func(k, _ gjson.Result) bool {
		if !slices.Contains(out, k.String()) {
			out = append(out, k.String())
		}
		return true
	})
	return out
}

// splitArgs splits call arguments at the commas outside quotes and brackets.
func splitArgs(s string) []string {
	var out []string
	start := 0
	nested(s, 0, func(i, depth int) bool {
		if s[i] == ',' && depth == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
		return true
	})
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, s[start:])
	}
	return out
}

// pyLiteral turns Python's True/False/None into their JSON words.
func pyLiteral(s string) string {
	switch t := strings.TrimSpace(s); t {
	case "True":
		return "true"
	case "False":
		return "false"
	case "None":
		return "null"
	default:
		return t
	}
}
