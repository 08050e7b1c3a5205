package workflow

import (
	"fmt"
	"regexp"
	"strings"
)

// ReferenceRoots are the roots a template reads besides node keys:
// {{secrets.NAME}} names a secret of the credentials store, and
// {{inputs.NAME}} a value the run was given (Workflow.Inputs declares them). No node may have one as its key: a file
// that does (written before they were reserved) is migrated when it is
// read (migrateReferenceRoots).
var ReferenceRoots = []string{"secrets", "inputs"}

// ReferenceRoot reports whether k is one of ReferenceRoots.
func ReferenceRoot(k string) bool {
	for _, r := range ReferenceRoots {
		if k == r {
			return true
		}
	}
	return false
}

var placeholderRe = regexp.MustCompile(`(?s)\{\{.*?\}\}`)

// migrateReferenceRoots renames the nodes keyed by a reference root
// (secrets → secrets_step) and what reads them: the placeholders of every
// string argument, prompt and input, and the conditions. A file that
// keyed a node "secrets" was written before secret references existed,
// so every {{secrets.…}} in it reads that node.
func (w *Workflow) migrateReferenceRoots() []string {
	var warnings []string
	taken := map[string]bool{}
	for _, n := range w.Nodes {
		taken[n.Key] = true
	}
	for i := range w.Nodes {
		old := w.Nodes[i].Key
		if !ReferenceRoot(old) {
			continue
		}
		key := UniqueKey(old+"_step", taken)
		taken[key] = true
		w.Nodes[i].Key = key
		if old == "inputs" && len(w.Inputs) > 0 {
			// The file declares inputs, so it was written after the key
			// was reserved: {{inputs.…}} in it means the inputs.
			warnings = append(warnings, fmt.Sprintf("node '%s': the key %q is reserved for the workflow's inputs; renamed to %q ({{inputs.…}} still reads the inputs)", w.Nodes[i].Label(), old, key))
			continue
		}
		w.renameRoot(old, key)
		warnings = append(warnings, fmt.Sprintf("node '%s': the key %q is reserved ({{%s.…}} is no step's output); renamed to %q, and what read it now reads %s", w.Nodes[i].Label(), old, old, key, key))
	}
	return warnings
}

// renameRoot makes every template and condition that reads node key old
// read key instead.
func (w *Workflow) renameRoot(old, key string) {
	// old read as a node: followed by a field (. or [), not inside a
	// longer name or after a quote.
	ident := regexp.MustCompile(`(^|[^A-Za-z0-9_.$"'])` + regexp.QuoteMeta(old) + `([.\[])`)
	expr := func(s string) string {
		if !strings.Contains(s, old) {
			return s
		}
		return ident.ReplaceAllString(s, "${1}"+key+"${2}")
	}
	tmpl := func(s string) string {
		if !strings.Contains(s, "{{") || !strings.Contains(s, old) {
			return s
		}
		return placeholderRe.ReplaceAllStringFunc(s, func(p string) string { return "{{" + expr(p[2:len(p)-2]) + "}}" })
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch t := v.(type) {
		case string:
			return tmpl(t)
		case map[string]any:
			for k, x := range t {
				t[k] = walk(x)
			}
		case []any:
			for i, x := range t {
				t[i] = walk(x)
			}
		}
		return v
	}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		for k, a := range n.Params.Arguments {
			n.Params.Arguments[k] = walk(a)
		}
		for k, a := range n.Params.Inputs {
			n.Params.Inputs[k] = walk(a)
		}
		n.Params.Prompt, n.Params.Input = tmpl(n.Params.Prompt), tmpl(n.Params.Input)
		n.Params.Condition, n.Params.ExitCondition, n.Verify = expr(n.Params.Condition), expr(n.Params.ExitCondition), expr(n.Verify)
		for j := range n.Params.Cases {
			n.Params.Cases[j].Condition = expr(n.Params.Cases[j].Condition)
		}
		if n.DoneWhen != nil {
			n.DoneWhen.Condition, n.DoneWhen.Criteria = expr(n.DoneWhen.Condition), tmpl(n.DoneWhen.Criteria)
		}
	}
	if w.DoneWhen != nil {
		w.DoneWhen.Condition, w.DoneWhen.Criteria = expr(w.DoneWhen.Condition), tmpl(w.DoneWhen.Criteria)
	}
}
