package planner

import (
	"fmt"
	"regexp"
	"strings"
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
	if len(n.keys) == 1 && a.knownTool(n.keys[0]) {
		if v := n.kids[0].deref(a.b, depth, true); v.kind == vObj || v.kind == vNull {
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

// parseCalls reads Python-style calls, one a line or separated by ";":
// read_file(path="notes.txt", limit=10). Only calls of catalog tools with
// keyword arguments count; anything else on a line means no calls.
func (a *aligner) parseCalls(s string) []*vnode {
	if a.cat == nil {
		return nil
	}
	var out []*vnode
	for _, line := range strings.FieldsFunc(stripFence(s), func(r rune) bool { return r == '\n' || r == ';' }) {
		line = strings.Trim(listMarker(strings.TrimSpace(line)), "` ")
		if line == "" || strings.HasPrefix(line, "```") {
			continue
		}
		open := strings.IndexByte(line, '(')
		if open <= 0 || !strings.HasSuffix(line, ")") || !a.knownTool(line[:open]) {
			return nil
		}
		args := &vnode{kind: vObj}
		for _, part := range splitArgs(line[open+1 : len(line)-1]) {
			eq := strings.IndexByte(part, '=')
			if eq <= 0 {
				return nil
			}
			k := strings.TrimSpace(part[:eq])
			for j := 0; j < len(k); j++ {
				if !isIdentByte(k[j]) {
					return nil
				}
			}
			args.keys, args.kids = append(args.keys, k), append(args.kids, scalarNode(pyLiteral(part[eq+1:]), a.b, 1))
		}
		if len(out) >= maxAlignValues {
			a.b.out = true
			return nil // more calls than the stage reads: none, rather than some
		}
		out = append(out, callStep(line[:open], args, nil))
	}
	return out
}

// listMarker drops a Markdown list marker ("- ", "* ", "2. ", "2) ").
func listMarker(line string) string {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return line[2:]
	}
	i := 0
	for i < len(line) && line[i] >= '0' && line[i] <= '9' {
		i++
	}
	if i > 0 && i+1 < len(line) && (line[i] == '.' || line[i] == ')') && line[i+1] == ' ' {
		return line[i+2:]
	}
	return line
}

// splitArgs splits call arguments at the commas outside quotes and brackets.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
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

// taggedCall is Llama 3.1's custom tool-call format:
// <function=read_file>{"path": "x"}</function>.
var taggedCall = regexp.MustCompile(`<function=([A-Za-z_][\w.\-/]*)>\s*(\{[^<]*\})\s*</function>`)

// taggedCalls reads the calls written in that format, of catalog tools;
// nil when there are none (or more than the stage reads).
func (a *aligner) taggedCalls(text string) []*vnode {
	if a.cat == nil || !strings.Contains(text, "<function=") {
		return nil
	}
	var out []*vnode
	for _, m := range taggedCall.FindAllStringSubmatch(text, maxAlignValues+1) {
		if len(out) >= maxAlignValues {
			a.b.out = true
			return nil
		}
		args := parseJSONish(m[2], a.b, 1)
		if !a.knownTool(m[1]) || args == nil || args.kind != vObj {
			continue
		}
		out = append(out, callStep(m[1], args, nil))
	}
	return out
}
