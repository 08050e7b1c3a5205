package validate

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/workflow"
)

// Template safety (see package render): a run inserts values into a
// run_command command as quoted shell words and into an http_request URL
// percent-encoded, and refuses a placeholder where that cannot be done
// safely; {{raw …}} inserts text unchanged, as code. Two warnings report
// these before a run:
//
//   - raw_external_value: a {{raw …}} placeholder reads the output of a
//     step (Tool, AiStep, AiTransform), which comes from outside the
//     workflow (a web page, a file, a command, an MCP server, a model)
//     and could then run as code. Only a Loop's iteration counter is
//     inside; the rule does not follow data through steps, since almost
//     every value a step outputs was shaped by something outside.
//   - unsafe_placeholder: a placeholder in a command or URL that the run
//     will refuse (in a shell comment, in backticks, after a
//     here-document, in a URL's scheme or host…). Text after a raw
//     insertion is not checked: its context depends on the value.

// templateKeys resolves the roots of placeholders to node keys, as a run
// does: a placeholder whose root is no node's key is left as text.
type templateKeys struct{ v *validator }

func (k templateKeys) Known(name string) bool {
	if name == inputs.Root { // the run's inputs (checkInputs)
		return true
	}
	_, ok := k.v.keys.first.lookup(name)
	return ok
}

// Eval stands in for a value: what the run would insert is not known, and
// the checks only need where it goes.
func (k templateKeys) Eval(string) (any, error) { return "x", nil }

// checkTemplates reports bad_template, raw_external_value and
// unsafe_placeholder. Only nodes whose templates name a key (v.tmpl) are
// looked at, and an AiTransform's prompt (which the run renders too).
func (v *validator) checkTemplates() {
	env := templateKeys{v}
	for i, roots := range v.tmpl {
		nd := &v.nodes[i]
		ii := int32(i)
		if nd.Type == workflow.TypeAiTransform && strings.Contains(nd.Params.Prompt, "{{") {
			v.checkBounds(ii, textPrompt, nd.Params.Prompt, env)
		}
		if len(roots) == 0 {
			continue
		}
		switch nd.Type {
		case workflow.TypeTool:
			v.checkBounds(ii, textArgs, nd.Params.Arguments, env)
		case workflow.TypeWorkflow:
			v.checkBounds(ii, textArgs, nd.Params.Inputs, env)
		case workflow.TypeAiStep:
			v.checkBounds(ii, textPrompt, nd.Params.Prompt, env)
		case workflow.TypeAiTransform:
			v.checkBounds(ii, textInput, nd.Params.Input, env)
		}
		switch nd.Type {
		case workflow.TypeTool:
			for _, a := range nd.Params.Arguments {
				v.checkRaw(ii, a, env)
			}
			if s, ok := nd.Params.Arguments["command"].(string); ok && nd.Params.Tool == "run_command" {
				v.checkCommand(ii, s, env)
			}
			if s, ok := nd.Params.Arguments["url"].(string); ok && nd.Params.Tool == "http_request" {
				v.checkURL(ii, s, env)
			}
		case workflow.TypeAiStep:
			v.checkRaw(ii, nd.Params.Prompt, env)
		case workflow.TypeAiTransform:
			v.checkRaw(ii, nd.Params.Input, env)
		}
	}
}

// checkBounds reports the first placeholder in the strings of x whose
// expression the run would refuse to compile: over the length or nesting
// every expression is held to (expression.CheckBounds, the run's own
// check), such as half a million nested parentheses.
func (v *validator) checkBounds(node int32, where place, x any, env templateKeys) {
	var bad error
	var walk func(x any)
	walk = func(x any) {
		switch t := x.(type) {
		case string:
			if bad != nil || !strings.Contains(t, "{{") {
				return
			}
			render.Parts(t, env, func(p render.Part) error {
				if p.Expr == "" {
					return nil
				}
				if err := expression.CheckBounds(p.Expr); err != nil {
					bad = fmt.Errorf("the placeholder %s in %s cannot run: %w", p.Quoted(), v.placeName(where, node, 0), err)
					return errStop
				}
				return nil
			})
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(t)) { // the same one reported every time
				walk(t[k])
			}
		case []any:
			for _, e := range t {
				walk(e)
			}
		}
	}
	walk(x)
	if bad != nil {
		v.add(CodeBadTemplate, SeverityError, capitalize(bad.Error()), []int32{node})
	}
}

// checkRaw reports the raw placeholders in every string of x that read a
// step's output.
func (v *validator) checkRaw(node int32, x any, env templateKeys) {
	switch t := x.(type) {
	case string:
		if !strings.Contains(t, "raw") {
			return
		}
		render.Parts(t, env, func(p render.Part) error {
			if !p.Raw || p.Secret != "" { // a raw secret reference is bad_secret_ref
				return nil
			}
			if render.Root(p.Expr) == inputs.Root {
				v.add(CodeRawExternalValue, SeverityWarning, fmt.Sprintf(
					"%s in %s inserts an input unchanged, as code: whoever starts the run chooses that text, and it could then run as part of it. Remove raw (the value is then quoted as data) unless every run's input is trusted",
					p.Src, v.placeName(textPlace(v.nodes[node].Type), node, 0)), []int32{node})
				return nil
			}
			src, _ := v.keys.first.lookup(render.Root(p.Expr))
			switch v.nodes[src].Type {
			case workflow.TypeLoop, workflow.TypeIf, workflow.TypeSwitch, workflow.TypeEndLoop:
				return nil
			}
			v.add(CodeRawExternalValue, SeverityWarning, fmt.Sprintf(
				"%s in %s inserts the output of %s unchanged, as code: text from outside the workflow could then run as part of it. Remove raw (the value is then quoted as data) unless that output is trusted",
				p.Src, v.placeName(textPlace(v.nodes[node].Type), node, 0), v.label(src)), []int32{node, src})
			return nil
		})
	case map[string]any:
		for _, e := range t {
			v.checkRaw(node, e, env)
		}
	case []any:
		for _, e := range t {
			v.checkRaw(node, e, env)
		}
	}
}

func textPlace(t workflow.NodeType) place {
	switch t {
	case workflow.TypeAiStep:
		return textPrompt
	case workflow.TypeAiTransform:
		return textInput
	}
	return textArgs
}

// checkCommand reports placeholders a run would refuse in a run_command
// command on this machine's shell.
func (v *validator) checkCommand(node int32, s string, env templateKeys) {
	sh := quote.HostShell()
	if !sh.MayRefuse(s) {
		return
	}
	c := quote.NewCommand(sh)
	render.Parts(s, env, func(p render.Part) error {
		switch {
		case p.Expr == "":
			c.Literal(p.Lit)
		case p.Raw:
			return errStop // what follows depends on the raw text
		default:
			if err := c.Value("x"); err != nil {
				v.add(CodeUnsafePlaceholder, SeverityWarning, fmt.Sprintf("In the command of %s, %s: %v", v.label(node), p.Src, err), []int32{node})
				return errStop
			}
		}
		return nil
	})
}

// checkURL reports placeholders a run would refuse in an http_request
// URL. A URL that is one placeholder is checked at run time, when its
// value is known.
func (v *validator) checkURL(node int32, s string, env templateKeys) {
	t := strings.TrimSpace(s)
	if !quote.URLMayRefuse(t) {
		return
	}
	var u quote.URL
	render.Parts(t, env, func(p render.Part) error {
		switch {
		case p.Expr == "":
			u.Literal(p.Lit)
		case p.Raw || p.Src == t:
			return errStop
		default:
			if err := u.Value("x"); err != nil {
				v.add(CodeUnsafePlaceholder, SeverityWarning, fmt.Sprintf("In the URL of %s, %s: %v", v.label(node), p.Src, err), []int32{node})
				return errStop
			}
		}
		return nil
	})
}

// errStop ends a walk over a template's parts early.
var errStop = errors.New("stop")
