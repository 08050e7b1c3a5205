package validate

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Unknown outputs (issue 11): `check.exit_cod == 0` compiles and reads
// nothing. Where a node's outputs are known (built-in tools, MCP tools,
// AI nodes, Loops), a reference key.field in a condition, verify,
// done_when or template must name one of them (unknown_output, an error
// with the nearest names). Where they are not known (a tool the catalog
// does not have) nothing is said: the run reports a missing field itself.

// CodeUnknownOutput is a reference to a field its node does not produce.
const CodeUnknownOutput = "unknown_output"

// CodeOutputAlias is a reference to a field by another name that reads
// the field (expression.FieldAlias: an MCP step's content is its text, its
// structuredContent its data): a warning that names the field, so the
// step runs and a model is not asked again for it.
const CodeOutputAlias = "output_alias"

// knownFields returns the output names of a node, or false when they are
// not known.
func (v *validator) knownFields(n *workflow.Node) ([]string, bool) {
	fs, ok := v.outputFields(n)
	if !ok || fs == nil {
		return nil, ok
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.Name
	}
	return names, true
}

// outputFields returns the outputs of a node, or false when they are not
// known.
func (v *validator) outputFields(n *workflow.Node) ([]tools.Field, bool) {
	var fs []tools.Field
	switch n.Type {
	case workflow.TypeTool:
		if v.cat == nil {
			return nil, false
		}
		t, ok := v.cat.Lookup(n.Params.Tool)
		if !ok || t.Outputs == nil {
			return nil, false
		}
		fs = t.Outputs
	case workflow.TypeAiStep:
		fs = tools.NodeOutputs["AiStep"]
	case workflow.TypeAiTransform:
		var ok bool
		if fs, ok = tools.NodeOutputs["AiTransform/"+n.Params.Kind]; !ok {
			return nil, false
		}
	case workflow.TypeLoop:
		fs = tools.NodeOutputs["Loop"]
	case workflow.TypeWorkflow:
		fs = tools.NodeOutputs["Workflow"]
	case workflow.TypeIf, workflow.TypeSwitch, workflow.TypeEndLoop:
		return nil, true // no outputs
	default:
		return nil, false
	}
	if n.Type == workflow.TypeLoop {
		return fs, true
	}
	return append(slices.Clip(fs), tools.CommonOutputs...), true
}

// checkFields reports references to fields their node does not produce.
// It runs on every node of large workflows: no allocation per node unless
// something is reported.
func (v *validator) checkFields() {
	if v.keys == nil || v.keys.first == nil {
		return
	}
	// Per source node: 0 not looked at, 1 outputs known, 2 unknown. The
	// lists are shared by nodes of one kind (tool, AI kind).
	state := make([]uint8, v.n)
	names := make([][]string, v.n)
	type kindKey struct {
		t          workflow.NodeType
		tool, kind string
	}
	byKind := map[kindKey][]string{}
	lookup := func(key string) (int32, bool) {
		i, ok := v.keys.first.lookup(key)
		if !ok || v.keys.all[key] != nil {
			return 0, false // no such key, or a duplicate (reported)
		}
		if state[i] == 0 {
			n := &v.nodes[i]
			kind := kindKey{n.Type, n.Params.Tool, n.Params.Kind}
			fs, hit := byKind[kind]
			known := fs != nil
			if !hit {
				fs, known = v.knownFields(n)
				if known && fs == nil {
					fs = []string{}
				}
				byKind[kind] = fs
			}
			names[i], state[i] = fs, 2
			if known {
				state[i] = 1
			}
		}
		return i, state[i] == 1
	}
	var refs []fieldRef
	for i := range v.nodes {
		nd := &v.nodes[i]
		ii := int32(i)
		var reported map[fieldRef]bool
		check := func(kind place, caseIdx int32) {
			for _, r := range refs {
				src, known := lookup(r.key)
				if known && r.field == "exit_code" && (kind == condIf || kind == condCase || kind == condExit) && !reported[r] && v.failsOnNonZero(src) {
					if reported == nil {
						reported = map[fieldRef]bool{}
					}
					reported[r] = true
					v.add(CodeExitCodeFails, SeverityInfo, exitCodeMsg(capitalize(v.placeName(kind, ii, caseIdx)), r, v.label(src)), []int32{ii, src})
				}
				if !known || slices.Contains(names[src], r.field) || reported[r] {
					continue
				}
				if reported == nil {
					reported = map[fieldRef]bool{}
				}
				reported[r] = true
				where := capitalize(v.placeName(kind, ii, caseIdx))
				if f, ok := expression.FieldAlias(r.field); ok && slices.Contains(names[src], f) {
					v.add(CodeOutputAlias, SeverityWarning, aliasMsg(where, r, f), []int32{ii, src})
					continue
				}
				v.add(CodeUnknownOutput, SeverityError, unknownOutputMsg(where, r, v.typed(src), names[src]), []int32{ii, src})
			}
		}
		switch nd.Type {
		case workflow.TypeIf:
			refs = exprRefs(nd.Params.Condition, refs[:0])
			check(condIf, 0)
		case workflow.TypeSwitch:
			for c := range nd.Params.Cases {
				refs = exprRefs(nd.Params.Cases[c].Condition, refs[:0])
				check(condCase, int32(c))
			}
		case workflow.TypeLoop:
			refs = exprRefs(nd.Params.ExitCondition, refs[:0])
			check(condExit, 0)
		case workflow.TypeTool:
			refs = refs[:0]
			for _, a := range nd.Params.Arguments {
				refs = argRefs(a, refs)
			}
			check(textArgs, 0)
		case workflow.TypeWorkflow:
			refs = refs[:0]
			for _, a := range nd.Params.Inputs {
				refs = argRefs(a, refs)
			}
			check(textArgs, 0)
		case workflow.TypeAiStep:
			refs = templateRefs(nd.Params.Prompt, refs[:0])
			check(textPrompt, 0)
		case workflow.TypeAiTransform:
			refs = templateRefs(nd.Params.Input, refs[:0])
			check(textInput, 0)
		}
		if nd.Verify != "" {
			refs = exprRefs(nd.Verify, refs[:0])
			check(condVerify, 0)
		}
		if nd.DoneWhen != nil && nd.DoneWhen.Condition != "" {
			refs = exprRefs(nd.DoneWhen.Condition, refs[:0])
			check(condDone, 0)
		}
	}
	if v.w != nil && v.w.DoneWhen != nil && v.w.DoneWhen.Condition != "" {
		for _, r := range exprRefs(v.w.DoneWhen.Condition, nil) {
			src, known := lookup(r.key)
			switch f, alias := expression.FieldAlias(r.field); {
			case !known || slices.Contains(names[src], r.field):
			case alias && slices.Contains(names[src], f):
				v.add(CodeOutputAlias, SeverityWarning, aliasMsg("The workflow's done_when condition", r, f), []int32{src})
			default:
				v.add(CodeUnknownOutput, SeverityError, unknownOutputMsg("The workflow's done_when condition", r, v.typed(src), names[src]), []int32{src})
			}
		}
	}
}

// failsOnNonZero reports whether node i is a run_command step whose run
// stops on any exit status but 0: no other status in ok_exit_codes and
// on_error stop. (A list the run would refuse is reported elsewhere.)
func (v *validator) failsOnNonZero(i int32) bool {
	n := &v.nodes[i]
	if n.Type != workflow.TypeTool || n.Params.Tool != "run_command" || n.ErrorMode() != workflow.OnErrorStop {
		return false
	}
	codes, ok := n.Params.Arguments["ok_exit_codes"]
	if !ok || codes == nil {
		return true
	}
	list, ok := codes.([]any)
	if !ok {
		return false
	}
	for _, c := range list {
		if f, isNum := c.(float64); !isNum || f != 0 {
			if i, isInt := c.(int); !isInt || i != 0 {
				return false
			}
		}
	}
	return true
}

func exitCodeMsg(where string, r fieldRef, step string) string {
	return fmt.Sprintf("%s reads %s.%s, but any exit status other than 0 fails %s and stops the run, so it only ever sees 0: "+
		"list the statuses that are answers in its ok_exit_codes (for test, grep and diff: [0, 1]), or set its on_error", where, r.key, r.field, step)
}

func aliasMsg(where string, r fieldRef, field string) string {
	return fmt.Sprintf("%s reads %s.%s, which Weft calls %s.%s: it reads that (write %s.%s)", where, r.key, r.field, r.key, field, r.key, field)
}

func unknownOutputMsg(where string, r fieldRef, src string, names []string) string {
	msg := fmt.Sprintf("%s reads %s.%s, but %s has no output %s", where, r.key, r.field, src, q(r.field))
	switch near := nearest(r.field, names); {
	case len(names) == 0:
		msg += "; it has no outputs"
	case near != "":
		msg += fmt.Sprintf("; did you mean %s.%s? (it has %s)", r.key, near, strings.Join(names, ", "))
	default:
		msg += fmt.Sprintf(" (it has %s)", strings.Join(names, ", "))
	}
	return msg
}

// fieldRef is key.field read by an expression or template.
type fieldRef struct{ key, field string }

// exprRefs scans an expression for ident.field (not preceded by '.', '?'
// or '#', and outside string literals). A scan, not a parse: it runs on
// every condition of large workflows, and a false find only matters when
// the identifier is a node key.
func exprRefs(s string, out []fieldRef) []fieldRef {
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
			i = j + 1
		case isIdentByte(c, true):
			j := i
			for j < len(s) && isIdentByte(s[j], j == i) {
				j++
			}
			prev := byte(0)
			if i > 0 {
				prev = s[i-1]
			}
			if j < len(s) && s[j] == '.' && prev != '.' && prev != '?' && prev != '#' && prev != '$' {
				k := j + 1
				for k < len(s) && isIdentByte(s[k], k == j+1) {
					k++
				}
				if k > j+1 {
					out = append(out, fieldRef{s[i:j], s[j+1 : k]})
				}
				j = k
			}
			i = j
		default:
			i++
		}
	}
	return out
}

// templateRefs scans the {{…}} placeholders of a text.
func templateRefs(s string, out []fieldRef) []fieldRef {
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return out
		}
		s = s[i+2:]
		j := strings.Index(s, "}}")
		if j < 0 {
			return out
		}
		inner := strings.TrimSpace(s[:j])
		inner = inner[skipRaw(inner, 0):]
		out = exprRefs(inner, out)
		s = s[j+2:]
	}
}

func argRefs(x any, out []fieldRef) []fieldRef {
	switch t := x.(type) {
	case string:
		return templateRefs(t, out)
	case map[string]any:
		for _, e := range t {
			out = argRefs(e, out)
		}
	case []any:
		for _, e := range t {
			out = argRefs(e, out)
		}
	}
	return out
}

// nearest is the name closest to s (edit distance at most 2, or a shared
// prefix of 3), or "".
func nearest(s string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		d := editDistance(s, n, bestD)
		if d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		for _, n := range names {
			if len(s) >= 3 && (strings.HasPrefix(n, s[:3]) || strings.HasPrefix(s, n)) {
				return n
			}
		}
	}
	return best
}

// editDistance is the Levenshtein distance, or limit when it is at least
// limit (names are short).
func editDistance(a, b string, limit int) int {
	if len(a) > 64 || len(b) > 64 {
		return limit
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], limit)
}
