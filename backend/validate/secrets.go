package validate

import (
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/literals"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/workflow"
)

// checkSecrets reports secret references ({{secrets.NAME}}) a run would
// refuse, as the run's own renderer judges them (bad_secret_ref): not of
// that form, where no value can go (a URL's host, a shell comment, a
// cmd.exe command), or outside a Tool step's arguments (a prompt, an
// input, a criterion: what goes to a model). With the store's names
// (Options.Secrets), a secret it lacks is unknown_secret.
func (v *validator) checkSecrets() {
	var known map[string]bool
	if v.opts.Secrets != nil {
		known = make(map[string]bool, len(v.opts.Secrets))
		for _, n := range v.opts.Secrets {
			known[n] = true
		}
	}
	for i := range v.nodes {
		nd := &v.nodes[i]
		ii := int32(i)
		if nd.Type == workflow.TypeTool && mentionsSecret(nd.Params.Arguments) {
			// Only references are placeholders here: the run's renderer
			// seals them and says what it would refuse.
			args, err := render.Args(nd.Params.Tool, nd.Params.Arguments, noKeys{}, quote.HostShell())
			if err != nil {
				v.add(CodeBadSecretRef, SeverityError, fmt.Sprintf("In the arguments of %s, %v", v.label(ii), err), []int32{ii})
				continue
			}
			if known == nil {
				continue
			}
			for _, n := range render.SecretNames(args) {
				if !known[n] {
					v.add(CodeUnknownSecret, SeverityWarning, fmt.Sprintf("%s refers to the secret %s, which this computer's credentials store does not hold; add it with `weft secrets set %s` (or in Preferences) before it runs", v.label(ii), n, n), []int32{ii})
				}
			}
			continue
		}
		if nd.Type == workflow.TypeWorkflow && mentionsSecret(nd.Params.Inputs) {
			// Rendered as the run renders a sub-workflow's inputs: a
			// reference is refused there (the sub-workflow reads its own).
			if _, err := render.Value(nd.Params.Inputs, noKeys{}); err != nil {
				v.add(CodeBadSecretRef, SeverityError, fmt.Sprintf("In the inputs of %s, %v", v.label(ii), err), []int32{ii})
			}
			continue
		}
		texts := []string{nd.Params.Prompt, nd.Params.Input}
		if nd.DoneWhen != nil {
			texts = append(texts, nd.DoneWhen.Criteria)
		}
		for _, t := range texts {
			if !strings.Contains(t, "{{") || !strings.Contains(t, render.SecretsRoot) {
				continue
			}
			if _, err := render.Text(t, noKeys{}); err != nil {
				v.add(CodeBadSecretRef, SeverityError, fmt.Sprintf("In %s, %v", v.label(ii), err), []int32{ii})
				break
			}
		}
	}
	if w := v.w; w != nil && w.DoneWhen != nil && strings.Contains(w.DoneWhen.Criteria, "{{") {
		if _, err := render.Text(w.DoneWhen.Criteria, noKeys{}); err != nil {
			v.add(CodeBadSecretRef, SeverityError, fmt.Sprintf("In the workflow's done_when criteria, %v", err), nil)
		}
	}
}

// checkLiterals reports each credential written as a literal in a Tool
// step's arguments (literal_secret), masked, with the argument's path.
func (v *validator) checkLiterals() {
	for i := range v.nodes {
		for _, l := range literals.InNode(&v.nodes[i]) {
			where := l.Path
			if l.Key != "" && !strings.HasSuffix(l.Path, "/"+l.Key) {
				where += " (" + l.Key + ")"
			}
			msg := fmt.Sprintf("%s has what looks like a secret written in its arguments at %s: %s, because %s; move it to the credentials store (Move to secrets, or `weft secrets import`) so the workflow holds only {{secrets.%s}}", v.label(int32(i)), where, l.Masked, l.Why, l.Suggested)
			v.add(CodeLiteralSecret, SeverityWarning, msg, []int32{int32(i)})
			v.probs[len(v.probs)-1].Path = l.Path
			v.probs[len(v.probs)-1].Secret = l.Suggested
			v.probs[len(v.probs)-1].Key = l.Key
		}
	}
}

// mentionsSecret reports whether a string in x could hold a reference.
func mentionsSecret(x any) bool {
	switch t := x.(type) {
	case string:
		return strings.Contains(t, "{{") && strings.Contains(t, render.SecretsRoot)
	case map[string]any:
		for _, e := range t {
			if mentionsSecret(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if mentionsSecret(e) {
				return true
			}
		}
	}
	return false
}

// noKeys knows no node key: only secret references are placeholders.
type noKeys struct{}

func (noKeys) Known(string) bool        { return false }
func (noKeys) Eval(string) (any, error) { return nil, nil }
