package runner

import (
	"os"
	"regexp"
	"strings"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/proc"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// Secrets leave a run only through its redactor. A run starts from
// Options.Redactor (or an empty one) plus the secrets of Options.Settings,
// on a copy of its own, and learns more as it goes: the values of
// credential headers and URL credentials of http_request calls, and the
// node outputs that feed such headers. Every event (before events.jsonl
// and OnEvent), every retry.log line, summary.json, the Result, failure
// records (and so escalations, replan requests and learned patterns) pass
// through it. The workflow copy (workflow.json) is left whole: it is what
// ran, and keeps the mode of the file it came from.

// NewRedactor returns the redactor for the secrets of these settings (the
// API key, the secrets of the MCP servers' env): what an adapter passes as
// Options.Redactor and uses for its own output (errors, logs), so both
// hide the same secrets.
func NewRedactor(s settings.Settings) *redact.Redactor {
	return redact.New(s.Secrets()...)
}

// WorkflowRedactor hides what a run of w hides: the settings' secrets and
// the credentials written in w (for showing another engine's events).
func WorkflowRedactor(s settings.Settings, w *workflow.Workflow) *redact.Redactor {
	red, _ := runRedactor(&Options{Settings: s}, w, nil)
	return red
}

// runRedactor is the run's own redactor: the caller's secrets, the
// settings' and the credentials written literally in the workflow's
// http_request nodes, so that they are hidden from the first event on.
func runRedactor(o *Options, w *workflow.Workflow, given map[string]any) (*redact.Redactor, map[string][][]string) {
	red := o.Redactor.Clone()
	red.Add(o.Settings.Secrets()...)
	red.Add(inputs.Secrets(w.Inputs, given)...) // writeOnly or password inputs
	sources := map[string][][]string{}
	for i := range w.Nodes {
		n := &w.Nodes[i]
		if n.Type != workflow.TypeTool || n.Params.Tool != "http_request" {
			continue
		}
		if u, ok := n.Params.Arguments["url"].(string); ok && !strings.Contains(u, "{{") {
			red.AddURL(u)
		}
		headers, _ := n.Params.Arguments["headers"].(map[string]any)
		for name, v := range headers {
			s, ok := v.(string)
			if !ok || !redact.SensitiveName(name) {
				continue
			}
			if !strings.Contains(s, "{{") {
				red.AddHeader(name, s)
				continue
			}
			for _, m := range placeholderRe.FindAllStringSubmatch(s, -1) {
				path := strings.Split(m[1], ".")
				sources[path[0]] = append(sources[path[0]], path[1:])
			}
		}
	}
	return red, sources
}

// placeholderRe matches the placeholders a header value can take a
// credential from directly: {{key.field}} or {{key.field.sub}}. Anything
// more (a function call) is only seen rendered, when the request is made.
var placeholderRe = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*\}\}`)

// noteSourceSecrets registers the outputs of n that a credential header of
// a later http_request reads, before the event that shows them is written.
func (r *run) noteSourceSecrets(n *workflow.Node, outputs map[string]any) {
	for _, path := range r.secretSources[n.Key] {
		var v any = outputs
		for _, f := range path {
			m, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = m[f]
		}
		if s, ok := v.(string); ok {
			r.red.Add(s)
		}
	}
}

// noteRequestSecrets registers the credentials of an http_request about
// to be sent (its rendered headers and URL), whether a Tool node or a
// model makes it.
func (r *run) noteRequestSecrets(args map[string]any) {
	if h, ok := args["headers"].(map[string]any); ok {
		for k, v := range h {
			r.red.AddHeader(k, toText(v))
		}
	}
	if u, ok := args["url"].(string); ok {
		r.red.AddURL(u)
	}
}

// childEnv is the environment of the commands a run starts: Weft's own
// and the configured secrets are not passed on.
func childEnv(red *redact.Redactor) []string {
	return proc.Env(os.Environ(), red.Secrets(), nil)
}

// redactEvent is the choke point for events: everything an event carries
// that can quote a secret, for events.jsonl and OnEvent alike.
func redactEvent(red *redact.Redactor, e Event) Event {
	if red.Empty() {
		return e
	}
	e.NodeName = red.String(e.NodeName)
	e.Condition = red.String(e.Condition)
	e.Message = red.String(e.Message)
	if e.Outputs != nil {
		if m, ok := red.Value(e.Outputs).(map[string]any); ok {
			e.Outputs = m
		}
	}
	if e.Arguments != nil {
		if m, ok := red.Value(e.Arguments).(map[string]any); ok {
			e.Arguments = m
		}
	}
	e.Failure = redactFailure(red, e.Failure)
	if e.Escalation != nil {
		esc := redactEscalation(red, *e.Escalation)
		e.Escalation = &esc
	}
	if e.Response != nil {
		resp := *e.Response
		resp.Instruction = red.String(resp.Instruction)
		if resp.Arguments != nil {
			if m, ok := red.Value(resp.Arguments).(map[string]any); ok {
				resp.Arguments = m
			}
		}
		e.Response = &resp
	}
	return e
}

// redactFailure returns f, or a redacted copy if it quotes a secret.
func redactFailure(red *redact.Redactor, f *failure.Record) *failure.Record {
	if f == nil || red.Empty() {
		return f
	}
	errText, summary, fix := red.String(f.Error), red.String(f.OutputSummary), red.String(f.SuggestedFix)
	if errText == f.Error && summary == f.OutputSummary && fix == f.SuggestedFix {
		return f
	}
	c := *f
	c.Error, c.OutputSummary, c.SuggestedFix = errText, summary, fix
	return &c
}

func redactEscalation(red *redact.Redactor, e Escalation) Escalation {
	if red.Empty() {
		return e
	}
	e.LastError = red.String(e.LastError)
	e.Notice = red.String(e.Notice)
	e.SuggestedFix = red.String(e.SuggestedFix)
	if len(e.Failures) > 0 {
		fs := make([]failure.Record, len(e.Failures))
		for i := range e.Failures {
			fs[i] = *redactFailure(red, &e.Failures[i])
		}
		e.Failures = fs
	}
	if len(e.KnownFixes) > 0 { // patterns learned before secrets were redacted
		ps := make([]failure.Pattern, len(e.KnownFixes))
		for i, p := range e.KnownFixes {
			p.Error, p.Fix = red.String(p.Error), red.String(p.Fix)
			ps[i] = p
		}
		e.KnownFixes = ps
	}
	return e
}

// redactResult hides secrets in what Run returns (and summary.json holds).
// givenInputs are the run's inputs among what an engine hands a step.
func givenInputs(vars map[string]any) map[string]any {
	m, _ := vars[inputs.Root].(map[string]any)
	return m
}

func redactResult(red *redact.Redactor, res *Result) {
	if red.Empty() {
		return
	}
	res.Error = red.String(res.Error)
	if len(res.Warnings) > 0 {
		ws := make([]string, len(res.Warnings))
		for i, w := range res.Warnings {
			ws[i] = red.String(w)
		}
		res.Warnings = ws
	}
	if m, ok := red.Value(res.Outputs).(map[string]any); ok {
		res.Outputs = m
	}
	if m, ok := red.Value(res.Inputs).(map[string]any); ok && res.Inputs != nil {
		res.Inputs = m
	}
}
