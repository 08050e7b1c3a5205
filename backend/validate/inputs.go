package validate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/inputs"
)

// Added with issue 25 (declared inputs): the workflow's inputs schema is
// unusable (not an object schema, an input without one type or with a
// name a template cannot read, a default that does not fit…), or a step
// reads an input the schema does not declare (a template's
// {{inputs.NAME}}, a condition's inputs.NAME), or a field of an input
// that is no object. Both are errors: the run would be refused, or the
// step would fail when it reads it.
const (
	CodeBadInputs    = "bad_inputs_schema"
	CodeUnknownInput = "unknown_input"
)

// inputRefRe finds inputs.NAME(.FIELD…) read as a variable: not inside a
// longer name or a member access, not after a quote.
var inputRefRe = regexp.MustCompile(`(?:^|[^A-Za-z0-9_.$"'])` + inputs.Root + `((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)

// placeholderInner finds the expressions of {{…}} placeholders.
var placeholderInner = regexp.MustCompile(`(?s)\{\{(.*?)\}\}`)

// checkInputs reports bad_inputs_schema and unknown_input.
func (v *validator) checkInputs() {
	w := v.w
	if w == nil {
		return
	}
	s, probs := inputs.Parse(w.Inputs)
	for _, p := range probs {
		v.add(CodeBadInputs, SeverityError, "The workflow's inputs: "+p.Message, nil)
	}
	if len(probs) > 0 {
		return // what reads them is judged once the schema is usable
	}
	check := func(node int32, where string, paths [][]string) {
		seen := map[string]bool{}
		for _, path := range paths {
			ref := strings.Join(path, ".")
			if seen[ref] {
				continue
			}
			seen[ref] = true
			var at []int32
			if node >= 0 {
				at = []int32{node}
			}
			f, ok := s.Field(path[0])
			switch {
			case s == nil:
				v.add(CodeUnknownInput, SeverityError, fmt.Sprintf("%s reads inputs.%s, but the workflow declares no inputs: declare it in the workflow's \"inputs\" schema", capitalize(where), ref), at)
			case !ok:
				v.add(CodeUnknownInput, SeverityError, fmt.Sprintf("%s reads inputs.%s, but the workflow declares no input %s (its inputs: %s)", capitalize(where), ref, q(path[0]), strings.Join(s.Names(), ", ")), at)
			case len(path) > 1 && f.Type != "object":
				v.add(CodeUnknownInput, SeverityError, fmt.Sprintf("%s reads inputs.%s, but the input %s is %s, which has no field %s", capitalize(where), ref, path[0], typeName(f.Type), q(path[1])), at)
			}
		}
	}
	for i := range v.nodes {
		nd := &v.nodes[i]
		ii := int32(i)
		var paths [][]string
		var tmpl func(x any)
		tmpl = func(x any) {
			switch t := x.(type) {
			case string:
				paths = templateInputRefs(t, paths)
			case map[string]any:
				for _, e := range t {
					tmpl(e)
				}
			case []any:
				for _, e := range t {
					tmpl(e)
				}
			}
		}
		for _, a := range nd.Params.Arguments {
			tmpl(a)
		}
		for _, a := range nd.Params.Inputs { // a Workflow node's, given to its file
			tmpl(a)
		}
		paths = templateInputRefs(nd.Params.Prompt, paths)
		paths = templateInputRefs(nd.Params.Input, paths)
		conds := []string{nd.Params.Condition, nd.Params.ExitCondition, nd.Verify}
		for _, c := range nd.Params.Cases {
			conds = append(conds, c.Condition)
		}
		if nd.DoneWhen != nil {
			conds = append(conds, nd.DoneWhen.Condition)
			paths = templateInputRefs(nd.DoneWhen.Criteria, paths)
		}
		for _, c := range conds {
			paths = exprInputRefs(c, paths)
		}
		slices.SortFunc(paths, func(a, b []string) int { return strings.Compare(strings.Join(a, "."), strings.Join(b, ".")) })
		check(ii, v.label(ii), paths)
	}
	if w.DoneWhen != nil {
		paths := exprInputRefs(w.DoneWhen.Condition, nil)
		paths = templateInputRefs(w.DoneWhen.Criteria, paths)
		check(-1, "the workflow's done_when", paths)
	}
}

// templateInputRefs adds the input paths the placeholders of s read.
func templateInputRefs(s string, out [][]string) [][]string {
	if !strings.Contains(s, "{{") || !strings.Contains(s, inputs.Root) {
		return out
	}
	for _, m := range placeholderInner.FindAllStringSubmatch(s, -1) {
		out = exprInputRefs(m[1], out)
	}
	return out
}

// exprInputRefs adds the input paths expression e reads.
func exprInputRefs(e string, out [][]string) [][]string {
	if !strings.Contains(e, inputs.Root) {
		return out
	}
	for _, m := range inputRefRe.FindAllStringSubmatch(strings.TrimSpace(e), -1) {
		out = append(out, strings.Split(m[1][1:], "."))
	}
	return out
}

func typeName(t string) string {
	switch t {
	case "integer", "array":
		return "an " + t
	}
	return "a " + t
}
