package runner

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
)

// Templates are rendered by package render, which inserts data into
// commands, URLs and headers through package quote; the run supplies the
// values (templateEnv).

// templateEnv resolves placeholders against a run's node outputs.
type templateEnv struct{ r *run }

func (e templateEnv) Known(name string) bool {
	_, ok := e.r.vars[name]
	return ok
}

func (e templateEnv) Eval(expr string) (any, error) { return e.r.placeholder(expr) }

// SecretOf says whether expr is exactly {{inputs.NAME}} of a secret input
// given a stored secret (inputs.SecretRef): render treats it as that
// secret's reference wherever it is written (render.SecretVars).
func (e templateEnv) SecretOf(expr string) (string, bool) {
	name, ok := strings.CutPrefix(strings.TrimSpace(expr), inputs.Root+".")
	if !ok || strings.ContainsAny(name, ". ") {
		return "", false
	}
	given, _ := e.r.vars[inputs.Root].(map[string]any)
	ref, ok := given[name].(inputs.SecretRef)
	return ref.Name, ok
}

// renderArgs renders a Tool node's arguments for the tool it calls.
func (r *run) renderArgs(tool string, args map[string]any) (map[string]any, error) {
	return render.Args(tool, args, templateEnv{r}, quote.HostShell())
}

// renderText substitutes placeholders and always returns a string (for
// prompts and inputs).
func (r *run) renderText(s string) (string, error) { return render.Text(s, templateEnv{r}) }

func isIdentByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// placeholder resolves a dotted path directly (the common case) and hands
// anything else to the expression evaluator.
func (r *run) placeholder(inner string) (any, error) {
	s := strings.TrimSpace(inner)
	parts := strings.Split(s, ".")
	simple := true
	for _, p := range parts {
		if p == "" {
			simple = false
			break
		}
		for k := 0; k < len(p); k++ {
			if !isIdentByte(p[k], k == 0) {
				simple = false
				break
			}
		}
	}
	if !simple {
		return r.eval.eval(s, r.vars, "", nil)
	}
	var cur any = r.vars[parts[0]]
	if parts[0] == inputs.Root {
		return inputs.Lookup(cur, parts[1:])
	}
	if len(parts) == 1 {
		// All of a step's outputs at once: not if one was cut at its cap.
		if err := expression.Whole(parts[0], cur); err != nil {
			return nil, err
		}
		return cur, nil
	}
	// A template inserts text: a field the step did not produce (or a
	// step that has not run) would insert "" and the run would go on as
	// if nothing happened, so it is the reading step's error; so is a
	// value cut at its cap (expression.Field, the lookup conditions use).
	outs, _ := cur.(map[string]any)
	if !r.set[parts[0]] && !lenientFields[parts[1]] {
		return nil, fmt.Errorf("%s has not run on this path, so it has no field %q", parts[0], parts[1])
	}
	cur, err := expression.Field(parts[0], parts[1], outs, lenientFields)
	if err != nil {
		return nil, err
	}
	for _, p := range parts[2:] {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, nil
		}
		cur = m[p]
	}
	return cur, nil
}

// toText renders a value the way it reads in a string argument.
func toText(v any) string { return render.ToText(v) }
