package testcase

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/expression"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// Recorded is a case made from a run, and what the person must fill in
// before it tells the truth: each step whose data was cut or hidden.
type Recorded struct {
	Case   Case     `json:"case"`
	FillIn []string `json:"fill_in"`
}

// ErrNoRecord is a run that kept no attempts record.
var ErrNoRecord = errors.New("the run kept no record of its steps' whole outputs (attempts.jsonl): run the workflow again with this version of Weft, then record")

// Record makes a case named name from the run in runDir, a run of w
// (saved at path; relative file paths start in its folder): its
// inputs, a mock for every call that acted with the answers it got, in
// order, and what it did (outcome, path, files written). It reads the
// run's attempts record (runner.AttemptsFile: whole outputs, secrets
// hidden), never the run log, which cuts values and redacts.
func Record(w *workflow.Workflow, path, runDir, name string) (*Recorded, error) {
	data, err := atomicfile.ReadBounded(filepath.Join(runDir, runner.AttemptsFile), runner.MaxAttemptsBytes+(1<<20))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ErrNoRecord
		}
		return nil, fmt.Errorf("record: %w", err)
	}
	var sum struct {
		Outcome flow.Outcome   `json:"outcome"`
		Inputs  map[string]any `json:"inputs"`
	}
	if b, err := atomicfile.ReadBounded(filepath.Join(runDir, "summary.json"), 64<<20); err == nil {
		json.Unmarshal(b, &sum)
	}
	rec := &recorder{w: w, dir: filepath.Dir(path), rc: &Recorded{FillIn: []string{}}}
	rec.rc.Case = Case{Name: name, Inputs: sum.Inputs, Expect: Expect{Outcome: sum.Outcome, Path: []string{}}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		var a runner.AttemptRecord
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			continue // a torn last line of a killed run
		}
		rec.add(a)
	}
	rec.finish()
	rec.secretInputs()
	return rec.rc, nil
}

// secretInputs names the secret inputs (writeOnly, password) the run was
// given: the run recorded them hidden, and a case holds a stand-in.
func (r *recorder) secretInputs() {
	schema, _ := inputs.Parse(r.w.Inputs)
	for _, name := range slices.Sorted(maps.Keys(r.rc.Case.Inputs)) {
		if f, ok := schema.Field(name); ok && f.Secret {
			r.rc.Case.Inputs[name] = ""
			r.rc.FillIn = append(r.rc.FillIn, fmt.Sprintf("input %s: it is secret, so the run did not record it: give a stand-in value (never the real one)", name))
		}
	}
}

// recorder builds a case attempt by attempt.
type recorder struct {
	w   *workflow.Workflow
	dir string // the workflow's folder
	rc  *Recorded
	// commands, http and mcp are the mocks by what they match, in the
	// order of their first call.
	commands map[string]*CommandMock
	http     map[string]*HTTPMock
	mcp      []*MCPMock
	files    map[string]Value
}

func (r *recorder) note(a runner.AttemptRecord, format string, args ...any) {
	r.rc.FillIn = append(r.rc.FillIn, fmt.Sprintf("step %s (attempt %d): ", a.NodeID, a.Attempt)+fmt.Sprintf(format, args...))
}

func (r *recorder) add(a runner.AttemptRecord) {
	if a.Attempt == 1 {
		r.rc.Case.Expect.Path = append(r.rc.Case.Expect.Path, a.NodeID)
	}
	n := r.w.NodeByID(a.NodeID)
	if n == nil {
		r.note(a, "the workflow no longer has this step; its calls are left out")
		return
	}
	switch {
	case a.Cut:
		r.note(a, "its values were left out of the record (over %d MiB in all): give the answer it should get", runner.MaxAttemptsBytes>>20)
	case a.Redacted:
		r.note(a, "a value held a secret and shows as %s: write {{secrets.NAME}} where the step has it, or a stand-in value", redact.Placeholder)
	}
	if why, ok := a.Outputs[expression.TruncatedField].(map[string]any); ok {
		for _, f := range slices.Sorted(maps.Keys(why)) {
			r.note(a, "its output %q was cut (%v): the mock holds only what was received", f, why[f])
		}
	}
	if n.Type == workflow.TypeAiStep || n.Type == workflow.TypeAiTransform {
		r.ai(n, a)
		return
	}
	args := AsWritten(a.Arguments)
	am, _ := args.(map[string]any)
	switch a.Tool {
	case "run_command":
		r.command(a, am)
	case "http_request":
		r.request(a, am)
	case "write_file":
		p, _ := am["path"].(string)
		if p == "" || a.Error != "" {
			return
		}
		if b, _ := am["append"].(bool); b {
			r.note(a, "it appended to %s: expect.files leaves it out (its whole content depends on the file before)", p)
			return
		}
		r.fileMap()[r.rel(p)] = Exact(render.ToText(am["content"]))
	case "read_file", "list_files", "wait", "log":
	default:
		r.mcpCall(a, am)
	}
}

func (r *recorder) fileMap() map[string]Value {
	if r.files == nil {
		r.files = map[string]Value{}
	}
	return r.files
}

// rel is a path argument as a case names the file: relative to the
// workflow's folder when inside it.
func (r *recorder) rel(p string) string {
	if !filepath.IsAbs(p) {
		return filepath.ToSlash(filepath.Clean(p))
	}
	if rel, err := filepath.Rel(r.dir, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}

func (r *recorder) command(a runner.AttemptRecord, args map[string]any) {
	cmd := render.ToText(args["command"])
	if r.commands == nil {
		r.commands = map[string]*CommandMock{}
	}
	m := r.commands[cmd]
	if m == nil {
		m = &CommandMock{Command: cmd}
		r.commands[cmd] = m
		r.rc.Case.Mocks.Commands = append(r.rc.Case.Mocks.Commands, CommandMock{Command: cmd}) // placeholder for order
	}
	ans := CommandAnswer{ExitCode: intOf(a.Outputs["exit_code"]), Stdout: render.ToText(a.Outputs["stdout"]), Stderr: render.ToText(a.Outputs["stderr"])}
	if a.Error != "" && a.Outputs["exit_code"] == nil {
		r.note(a, "the command did not run to an exit status (%s): the mock answers exit code 0", a.Error)
	}
	m.Answers.Answers = append(m.Answers.Answers, ans)
}

func (r *recorder) request(a runner.AttemptRecord, args map[string]any) {
	method, url := strings.ToUpper(render.ToText(args["method"])), render.ToText(args["url"])
	if r.http == nil {
		r.http = map[string]*HTTPMock{}
	}
	k := method + " " + url
	m := r.http[k]
	if m == nil {
		m = &HTTPMock{Method: method, URL: url}
		r.http[k] = m
		r.rc.Case.Mocks.HTTP = append(r.rc.Case.Mocks.HTTP, HTTPMock{Method: method, URL: url})
	}
	ans := HTTPAnswer{Status: intOf(a.Outputs["status"]), Body: render.ToText(a.Outputs["body"])}
	if hs, ok := a.Outputs["headers"].(map[string]any); ok {
		ans.Headers = map[string]string{}
		for k, v := range hs {
			ans.Headers[k] = render.ToText(v)
		}
	}
	if ans.Status == 0 {
		r.note(a, "the request got no response (%s): give the status it should get", a.Error)
		ans.Status = 200
	}
	if _, saved := args["save_to"]; saved && a.Error == "" {
		r.note(a, "its body went to a file (save_to) and is not in the record: give the body")
	}
	m.Answers.Answers = append(m.Answers.Answers, ans)
}

func (r *recorder) mcpCall(a runner.AttemptRecord, args map[string]any) {
	ans := MCPAnswer{Text: render.ToText(a.Outputs["text"]), Data: a.Outputs["data"], IsError: a.Error != ""}
	for _, m := range r.mcp {
		if m.Tool == a.Tool && sameJSON(m.Arguments, args) {
			m.Answers.Answers = append(m.Answers.Answers, ans)
			return
		}
	}
	r.mcp = append(r.mcp, &MCPMock{Tool: a.Tool, Arguments: args, Answers: Answers[MCPAnswer]{Answers: []MCPAnswer{ans}}})
}

func (r *recorder) ai(n *workflow.Node, a runner.AttemptRecord) {
	var ans AIAnswer
	switch {
	case a.Error != "":
		ans.Error = a.Error
	case n.Type == workflow.TypeAiTransform && n.Params.Kind == "extract":
		ans.Data = a.Outputs["data"]
	case n.Type == workflow.TypeAiTransform && n.Params.Kind == "classify":
		l := render.ToText(a.Outputs["label"])
		ans.Label = &l
	default:
		t := render.ToText(a.Outputs["text"])
		ans.Text = &t
	}
	if r.rc.Case.Mocks.AI == nil {
		r.rc.Case.Mocks.AI = map[string]AIMock{}
	}
	m := r.rc.Case.Mocks.AI[n.ID]
	m.Answers.Answers = append(m.Answers.Answers, ans)
	r.rc.Case.Mocks.AI[n.ID] = m
}

// finish puts the mocks in place: one answer as answer, more as answers.
func (r *recorder) finish() {
	c := &r.rc.Case
	for i := range c.Mocks.Commands {
		c.Mocks.Commands[i] = *r.commands[c.Mocks.Commands[i].Command]
		single(&c.Mocks.Commands[i].Answers)
	}
	for i := range c.Mocks.HTTP {
		m := c.Mocks.HTTP[i]
		c.Mocks.HTTP[i] = *r.http[m.Method+" "+m.URL]
		single(&c.Mocks.HTTP[i].Answers)
	}
	for _, m := range r.mcp {
		single(&m.Answers)
		c.Mocks.MCP = append(c.Mocks.MCP, *m)
	}
	for id, m := range c.Mocks.AI {
		single(&m.Answers)
		c.Mocks.AI[id] = m
	}
	c.Expect.Files = r.files
}

func single[A any](a *Answers[A]) {
	if len(a.Answers) == 1 {
		a.Answer, a.Answers = &a.Answers[0], nil
	}
}

func intOf(v any) int {
	f, _ := v.(float64)
	return int(f)
}
