package testcase

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// Report is what playing a case file gave.
type Report struct {
	Workflow string       `json:"workflow"`
	File     string       `json:"file"`
	Passed   int          `json:"passed"`
	Failed   int          `json:"failed"`
	Cases    []CaseResult `json:"cases"`
	// Unapproved are the steps that would wait for a person's approval
	// before a real run: a test runs nothing, but says so.
	Unapproved []approval.Step `json:"unapproved"`
}

// OK says whether every case passed.
func (r *Report) OK() bool { return r.Failed == 0 }

// CaseResult is one case played.
type CaseResult struct {
	Name    string       `json:"name"`
	Passed  bool         `json:"passed"`
	Outcome flow.Outcome `json:"outcome,omitempty"`
	// Error is why the run stopped, when it did not succeed.
	Error string `json:"error,omitempty"`
	// Path are the steps that started, in order.
	Path       []string  `json:"path"`
	Failures   []Failure `json:"failures"`
	DurationMs int64     `json:"duration_ms"`
}

// Failure is one way a case did not do what it expects: which step (a
// node id, when one is concerned), what (path, outcome, output, file,
// unmocked, mock, case, run), expected against actual.
type Failure struct {
	Step     string `json:"step,omitempty"`
	What     string `json:"what"`
	Expected any    `json:"expected,omitempty"`
	Actual   any    `json:"actual,omitempty"`
	Message  string `json:"message"`
}

// ErrNoCases is a case file without cases.
var ErrNoCases = errors.New("no test cases: record one from the last run with `weft test FILE --record`, or write one (docs/file-format.md, \"Test cases\")")

// Options tune Run.
type Options struct {
	// Secrets holds the values of the credentials store: a case that
	// holds one is refused.
	Secrets *redact.Redactor
	// Only plays only the case with this name.
	Only string
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Run plays every case of f against w (the workflow at path) with
// nothing acting. It returns an error, and no report, when the file
// cannot be used: no cases, a case that holds a secret.
func Run(ctx context.Context, w *workflow.Workflow, path string, f *File, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if len(f.Cases) == 0 {
		return nil, ErrNoCases
	}
	if err := RefuseSecrets(f, o.Secrets); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rep := &Report{Workflow: abs, File: PathFor(abs), Cases: []CaseResult{}, Unapproved: []approval.Step{}}
	for i := range f.Cases {
		c := &f.Cases[i]
		if o.Only != "" && c.Name != o.Only {
			continue
		}
		cr := playCase(ctx, w, abs, c, o)
		if cr.Passed {
			rep.Passed++
		} else {
			rep.Failed++
		}
		rep.Cases = append(rep.Cases, cr)
	}
	if o.Only != "" && len(rep.Cases) == 0 {
		return nil, &FileError{Path: rep.File, Msg: fmt.Sprintf("no case is named %q", o.Only)}
	}
	return rep, nil
}

// playCase runs one case on the local engine with a stand-in for the
// world, then compares what it did with what the case expects.
func playCase(ctx context.Context, w *workflow.Workflow, path string, c *Case, o Options) (cr CaseResult) {
	cr = CaseResult{Name: c.Name, Path: []string{}, Failures: stale(w, c)}
	start := o.Now()
	defer func() {
		cr.Passed = len(cr.Failures) == 0
		cr.DurationMs = o.Now().Sub(start).Milliseconds()
	}()
	tmp, err := os.MkdirTemp("", "weft-test-*")
	if err != nil {
		cr.Failures = append(cr.Failures, Failure{What: "run", Message: "no folder for the case's run log: " + err.Error()})
		return cr
	}
	defer os.RemoveAll(tmp)
	si := newStandIn(filepath.Dir(path), &c.Mocks, o.Now)
	opts := standInOptions(path, tmp, si, c.Inputs)
	opts.OnEvent = func(e runner.Event) {
		if e.Type == runner.EvNodeStarted {
			cr.Path = append(cr.Path, e.NodeID)
		}
	}
	res, err := runner.New(opts).Run(ctx, w)
	if err != nil {
		cr.Failures = append(cr.Failures, Failure{What: "run", Message: "the run did not start: " + err.Error()})
		return cr
	}
	cr.Outcome, cr.Error = res.Outcome, res.Error
	cr.Failures = append(cr.Failures, si.unmocked...)
	cr.Failures = append(cr.Failures, si.problems...)
	cr.Failures = append(cr.Failures, unused(si)...)
	cr.Failures = append(cr.Failures, compare(w, c, &cr, res, si)...)
	return cr
}

// standInOptions are the runner's options a case (or a dry run) plays with: every
// effect answered by effects, its run log in tmp. The defaults, not this
// computer's settings: a case plays the same everywhere. No model, no
// replanner, no person to ask: a failure the steps do not handle ends
// the run.
func standInOptions(path, tmp string, effects runner.Effects, inputs map[string]any) runner.Options {
	st := settings.Defaults()
	st.Run.AutoReplan.Enabled = false
	st.MCPServers = nil
	return runner.Options{
		Settings: st, Effects: effects, WorkflowPath: path, Dir: filepath.Dir(path), Inputs: inputs,
		RunsDir:  filepath.Join(tmp, "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(tmp, "patterns.jsonl")},
		Sleep:    func(ctx context.Context, _ time.Duration) error { return ctx.Err() }, // retries at once
	}
}

// stale are the places a case names a step the workflow does not have
// (or not of that kind): reported, never ignored.
func stale(w *workflow.Workflow, c *Case) []Failure {
	out := []Failure{}
	for _, id := range sortedKeys(c.Mocks.AI) {
		n := w.NodeByID(id)
		switch {
		case n == nil:
			out = append(out, Failure{Step: id, What: "case", Message: fmt.Sprintf("mocks.ai names the step %q, which the workflow does not have", id)})
		case n.Type != workflow.TypeAiStep && n.Type != workflow.TypeAiTransform:
			out = append(out, Failure{Step: id, What: "case", Message: fmt.Sprintf("mocks.ai names the step %q, which is not an AI step (%s)", id, n.Type)})
		}
	}
	for _, id := range c.Expect.Path {
		if w.NodeByID(id) == nil {
			out = append(out, Failure{Step: id, What: "case", Message: fmt.Sprintf("expect.path names the step %q, which the workflow does not have", id)})
		}
	}
	for _, k := range sortedKeys(c.Expect.Outputs) {
		id, _, _ := strings.Cut(k, ".")
		if w.NodeByID(id) == nil {
			out = append(out, Failure{Step: id, What: "case", Message: fmt.Sprintf("expect.outputs names the step %q, which the workflow does not have", id)})
		}
	}
	return out
}

// unused are the mocks no call used: a mock that matches nothing is a
// case out of date, or a step that did not run.
func unused(si *standIn) []Failure {
	var out []Failure
	note := func(id, what string) {
		if si.used[id] == 0 {
			out = append(out, Failure{What: "mock", Message: fmt.Sprintf("%s (%s) was never called", id, what)})
		}
	}
	for i, m := range si.mocks.Commands {
		note(fmt.Sprintf("mocks.commands[%d]", i), fmt.Sprintf("%q", m.Command))
	}
	for i, m := range si.mocks.HTTP {
		note(fmt.Sprintf("mocks.http[%d]", i), m.Method+" "+m.URL)
	}
	for i, m := range si.mocks.MCP {
		note(fmt.Sprintf("mocks.mcp[%d]", i), m.Tool)
	}
	for _, id := range sortedKeys(si.mocks.AI) {
		note(fmt.Sprintf("mocks.ai[%q]", id), "the AI step")
	}
	return out
}

// compare checks what the run did against the case's expectations.
func compare(w *workflow.Workflow, c *Case, cr *CaseResult, res *runner.Result, si *standIn) []Failure {
	var out []Failure
	e := &c.Expect
	if e.Outcome != "" && e.Outcome != res.Outcome {
		msg := fmt.Sprintf("the run %s, the case expects it %s", res.Outcome, e.Outcome)
		step := ""
		if res.StoppedAt != nil {
			step = res.StoppedAt.ID
			msg += fmt.Sprintf(" (it stopped at %q: %s)", step, res.Error)
		}
		out = append(out, Failure{Step: step, What: "outcome", Expected: e.Outcome, Actual: res.Outcome, Message: msg})
	}
	if e.Path != nil && !slices.Equal(e.Path, cr.Path) {
		i := 0
		for i < len(e.Path) && i < len(cr.Path) && e.Path[i] == cr.Path[i] {
			i++
		}
		msg := fmt.Sprintf("the steps ran in another order: from step %d on, expected %s, ran %s", i+1, listOr(e.Path[i:]), listOr(cr.Path[i:]))
		out = append(out, Failure{What: "path", Expected: e.Path, Actual: cr.Path, Message: msg})
	}
	for _, k := range sortedKeys(e.Outputs) {
		id, field, _ := strings.Cut(k, ".")
		n := w.NodeByID(id)
		if n == nil {
			continue // stale said so
		}
		want := e.Outputs[k]
		vars, _ := res.Outputs[n.Key].(map[string]any)
		if !slices.Contains(res.Completed, id) && !slices.Contains(cr.Path, id) {
			out = append(out, Failure{Step: id, What: "output", Expected: want, Message: fmt.Sprintf("%s: the step %q did not run", k, id)})
			continue
		}
		got, ok := lookup(vars, field)
		if !ok {
			out = append(out, Failure{Step: id, What: "output", Expected: want, Message: fmt.Sprintf("%s: the step %q has no output %q", k, id, field)})
			continue
		}
		if msg, ok := want.holds(got); !ok {
			out = append(out, Failure{Step: id, What: "output", Expected: want, Actual: got, Message: k + ": " + msg})
		}
	}
	if e.Files != nil {
		out = append(out, compareFiles(e.Files, si)...)
	}
	return out
}

// compareFiles checks the overlay against the files a case expects.
func compareFiles(want map[string]Value, si *standIn) []Failure {
	var out []Failure
	expected := map[string]bool{}
	for _, k := range sortedKeys(want) {
		abs := si.resolve(si.root, filepath.FromSlash(k))
		expected[abs] = true
		got, ok := si.files[abs]
		if !ok {
			out = append(out, Failure{What: "file", Expected: want[k], Message: fmt.Sprintf("%s was not written", k)})
			continue
		}
		if msg, ok := want[k].holds(got); !ok {
			out = append(out, Failure{What: "file", Expected: want[k], Actual: got, Message: k + ": " + msg})
		}
	}
	for _, abs := range si.written {
		if !expected[abs] {
			out = append(out, Failure{What: "file", Actual: si.files[abs], Message: fmt.Sprintf("%s was written, and the case does not expect it", si.shownPath(abs))})
		}
	}
	return out
}

// shownPath is abs as a case names it: relative to the workflow's folder
// (with /), else absolute.
func (s *standIn) shownPath(abs string) string {
	if rel, ok := s.beneath(abs); ok {
		return filepath.ToSlash(rel)
	}
	return abs
}

// lookup follows a dotted field path through nested objects.
func lookup(vars map[string]any, field string) (any, bool) {
	var cur any = vars
	for _, part := range strings.Split(field, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// holds says whether got is the expected value, and if not, how it
// differs.
func (v Value) holds(got any) (string, bool) {
	if v.re != nil {
		text, ok := got.(string)
		if !ok {
			b, _ := jsonText(got)
			text = b
		}
		if v.re.MatchString(text) {
			return "", true
		}
		return fmt.Sprintf("%s does not match /%s/", clip(fmt.Sprintf("%q", text)), v.Matches), false
	}
	if sameJSON(v.Equals, got) {
		return "", true
	}
	want, _ := jsonText(v.Equals)
	have, _ := jsonText(got)
	return fmt.Sprintf("expected %s, got %s", clip(want), clip(have)), false
}

func listOr(ids []string) string {
	if len(ids) == 0 {
		return "nothing"
	}
	return strings.Join(ids, " → ")
}

// clip cuts a value shown in a message.
func clip(s string) string {
	const most = 300
	if len(s) <= most {
		return s
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:most], ""), len(s))
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
