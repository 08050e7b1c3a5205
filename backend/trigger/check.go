// Package trigger holds what a workflow's triggers mean, apart from
// serving them (backend/serve): what a declaration must say (Check), how
// a delivery proves who sent it (Verify), which deliveries were handled
// already (Seen), how many a trigger takes (Limit), and how what arrives
// fills the workflow's declared inputs (Fill): as data, never code.
package trigger

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/workflow"
)

// Problem codes, reported by weft validate (package validate) and by
// weft serve when it starts.
const (
	CodeBadTrigger     = "bad_trigger"
	CodeMissingSecret  = "trigger_missing_secret"
	CodeUnfilledInput  = "trigger_unfilled_input"
	maxPathLen         = 256
	weftFolder         = ".weft"
	defaultFileInput   = "path"
	bodyRoot, fileRoot = "body", "file"
)

// Problem is one thing wrong with a trigger; Trigger is its index.
type Problem struct {
	Code    string
	Trigger int
	Message string
}

var (
	hookPathRe = regexp.MustCompile(`^/hooks/[A-Za-z0-9._~-]+(/[A-Za-z0-9._~-]+)*$`)
	secretRe   = regexp.MustCompile(`^\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}$`)
	// sourceRe is a mapping's value: one whole placeholder naming where
	// the value is ({{body.a.b}}, {{file.path}}); nothing is evaluated.
	sourceRe = regexp.MustCompile(`^\{\{\s*(body|file)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}$`)
)

// SecretName is the name a trigger's secret reference names, or "".
func SecretName(t *workflow.Trigger) string {
	if m := secretRe.FindStringSubmatch(t.Secret); m != nil {
		return m[1]
	}
	return ""
}

// Source is where a mapped input's value comes from: Root "body" with a
// path into the JSON body, or "file" with ["path"].
type Source struct {
	Root string
	Path []string
}

// ParseSource reads a mapping's value.
func ParseSource(s string) (Source, bool) {
	m := sourceRe.FindStringSubmatch(s)
	if m == nil {
		return Source{}, false
	}
	src := Source{Root: m[1]}
	if m[2] != "" {
		src.Path = strings.Split(m[2][1:], ".")
	}
	return src, true
}

// Check reports what is wrong with w's triggers: an unknown type, a
// webhook without a path under /hooks/, without a scheme Weft verifies or
// without a secret reference, a file trigger whose glob leaves the
// workflow's folder or reaches into .weft/, a mapping that names no
// declared input or reads from nowhere, two webhooks at one path, and a
// required input without a default that a trigger cannot fill. An
// inputs schema that is unusable is validate's to report; the input
// checks then wait for it.
func Check(w *workflow.Workflow) []Problem {
	var out []Problem
	if w == nil {
		return nil
	}
	schema, probs := inputs.Parse(w.Inputs)
	usable := len(probs) == 0
	paths := map[string]int{}
	for i := range w.Triggers {
		t := &w.Triggers[i]
		add := func(code, format string, a ...any) {
			out = append(out, Problem{Code: code, Trigger: i, Message: fmt.Sprintf("Trigger %d (%s): ", i+1, t.Label()) + fmt.Sprintf(format, a...)})
		}
		switch t.Type {
		case workflow.TriggerWebhook:
			checkWebhook(t, add)
			if j, dup := paths[t.Path]; dup && t.Path != "" {
				add(CodeBadTrigger, "trigger %d answers at %s already; give each webhook its own path", j+1, t.Path)
			}
			paths[t.Path] = i
		case workflow.TriggerFile:
			checkFile(t, add)
		default:
			add(CodeBadTrigger, "the type %q is not one Weft knows: use \"webhook\" or \"file\"", t.Type)
			continue
		}
		if usable {
			checkInputs(t, schema, add)
		}
	}
	return out
}

func checkWebhook(t *workflow.Trigger, add func(code, format string, a ...any)) {
	switch {
	case t.Path == "":
		add(CodeBadTrigger, "a webhook needs a path, like \"/hooks/deploy\"")
	case len(t.Path) > maxPathLen || !hookPathRe.MatchString(t.Path) || slices.Contains(strings.Split(t.Path, "/"), "..") || slices.Contains(strings.Split(t.Path, "/"), "."):
		add(CodeBadTrigger, "the path %q is not one weft serve answers: write /hooks/NAME (letters, digits, . _ ~ -), %d characters at most", t.Path, maxPathLen)
	}
	switch t.Scheme {
	case workflow.SchemeGitHub, workflow.SchemeStripe, workflow.SchemeHMAC:
	case "":
		add(CodeBadTrigger, "a webhook needs a scheme: \"github\", \"stripe\" or \"hmac-sha256\"")
	default:
		add(CodeBadTrigger, "the scheme %q is not one Weft verifies: use \"github\", \"stripe\" or \"hmac-sha256\"", t.Scheme)
	}
	switch {
	case strings.TrimSpace(t.Secret) == "":
		add(CodeMissingSecret, "a webhook needs a secret, {{secrets.NAME}}: any web page can post to a loopback address, so only signed deliveries start a run")
	case SecretName(t) == "":
		add(CodeMissingSecret, "the secret must be a reference to the credentials store, {{secrets.NAME}} (store it with `weft secrets set NAME`); a value written in the file is no secret")
	}
	if t.Glob != "" {
		add(CodeBadTrigger, "a webhook has no glob (that is a file trigger's)")
	}
}

func checkFile(t *workflow.Trigger, add func(code, format string, a ...any)) {
	g := t.Glob
	switch {
	case strings.TrimSpace(g) == "":
		add(CodeBadTrigger, "a file trigger needs a glob, like \"inbox/*.csv\"")
		return
	case len(g) > maxPathLen || filepath.IsAbs(g) || path.IsAbs(g) || strings.HasPrefix(g, "~") || strings.Contains(g, `\`):
		add(CodeBadTrigger, "the glob %q must be relative to the workflow's folder, with / between folders", g)
		return
	}
	parts := strings.Split(g, "/")
	// A pattern that could match .weft ("*/in.csv") is fine: weft serve
	// skips every match inside it.
	if slices.Contains(parts, "..") || slices.Contains(parts, weftFolder) {
		add(CodeBadTrigger, "the glob %q reaches out of the workflow's folder or into Weft's own .weft/ folder", g)
	}
	if _, err := path.Match(g, ""); err != nil {
		add(CodeBadTrigger, "the glob %q is not a pattern: %v", g, err)
	}
	if t.Path != "" || t.Secret != "" || t.Scheme != "" {
		add(CodeBadTrigger, "a file trigger has no path, secret or scheme (those are a webhook's)")
	}
}

// checkInputs checks the mapping against the declared inputs and that
// every required input without a default can be filled.
func checkInputs(t *workflow.Trigger, s *inputs.Schema, add func(code, format string, a ...any)) {
	want := bodyRoot
	if t.Type == workflow.TriggerFile {
		want = fileRoot
	}
	for _, name := range sortedNames(t.Inputs) {
		if _, ok := s.Field(name); !ok {
			add(CodeBadTrigger, "it fills the input %s, which the workflow does not declare (its inputs: %s)", name, namesOr(s))
		}
		src, ok := ParseSource(t.Inputs[name])
		switch {
		case !ok || src.Root != want:
			add(CodeBadTrigger, "the input %s is filled from %q: write %s", name, t.Inputs[name], exampleSource(t.Type))
		case src.Root == fileRoot && (len(src.Path) != 1 || src.Path[0] != "path"):
			add(CodeBadTrigger, "the input %s is filled from %q: a file trigger gives only {{file.path}}", name, t.Inputs[name])
		}
	}
	if t.Type == workflow.TriggerFile && len(t.Inputs) == 0 {
		if _, ok := s.Field(defaultFileInput); !ok {
			add(CodeBadTrigger, "the file's path goes to the input %q, which the workflow does not declare: declare it, or map another input with \"inputs\": {\"NAME\": \"{{file.path}}\"}", defaultFileInput)
		}
	}
	for _, name := range Unfilled(t, s) {
		add(CodeUnfilledInput, "the workflow's input %s is required and has no default, and this trigger does not fill it: map it in the trigger's \"inputs\", or give it a default", name)
	}
}

// Unfilled are the required inputs without a default that t cannot fill:
// a webhook without a mapping fills any input from the body; otherwise
// only what the mapping (or a file trigger's "path") names.
func Unfilled(t *workflow.Trigger, s *inputs.Schema) []string {
	if s == nil || (t.Type == workflow.TriggerWebhook && len(t.Inputs) == 0) {
		return nil
	}
	var out []string
	for _, f := range s.Fields {
		if !f.Required || len(f.Default) > 0 {
			continue
		}
		if _, ok := t.Inputs[f.Name]; ok {
			continue
		}
		if t.Type == workflow.TriggerFile && len(t.Inputs) == 0 && f.Name == defaultFileInput {
			continue
		}
		out = append(out, f.Name)
	}
	return out
}

func exampleSource(tt workflow.TriggerType) string {
	if tt == workflow.TriggerFile {
		return "{{file.path}}"
	}
	return "{{body.NAME}} or {{body.a.b}}: one member of the JSON body"
}

func namesOr(s *inputs.Schema) string {
	if n := s.Names(); len(n) > 0 {
		return strings.Join(n, ", ")
	}
	return "none"
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
