// Package testcase tests workflows without side effects: a case file
// beside the workflow (NAME.tests.json for NAME.json) holds cases, each
// the inputs of a run, a mock for every step that acts and what the run
// should do (its path, outcome, outputs and the files it writes). Run
// plays every case on the local engine with a stand-in for the world
// (runner.Options.Effects): nothing acts, reads see the real folder,
// writes go to an overlay thrown away with the case. The CLI (weft test)
// and the desktop only show what Run reports.
package testcase

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/flow"
)

// MaxFileSize bounds a case file: larger is refused, not read.
const MaxFileSize = 16 << 20

// File is a case file: the cases of one workflow.
type File struct {
	Cases []Case `json:"cases"`
}

// Case is one run to play: its inputs, the answers of everything that
// would act, and what the run should do.
type Case struct {
	Name string `json:"name"`
	// Inputs are the run's inputs (the workflow's declared inputs).
	Inputs map[string]any `json:"inputs,omitempty"`
	Mocks  Mocks          `json:"mocks"`
	Expect Expect         `json:"expect"`
}

// Mocks answer the calls a run makes. A call is answered by the first
// mock, in the file's order, that matches it; a call none matches fails
// its case ("would run …: no mock"), and a mock no call used fails it too.
type Mocks struct {
	Commands []CommandMock `json:"commands,omitempty"`
	HTTP     []HTTPMock    `json:"http,omitempty"`
	MCP      []MCPMock     `json:"mcp,omitempty"`
	// AI answers AI steps, by node id.
	AI map[string]AIMock `json:"ai,omitempty"`
}

// Answers are a mock's answers: Answer answers every call; Answers answer
// the first, second, … call in turn, and a call past the last fails the
// case (a retry or a loop that runs more often than the case says is a
// change worth seeing). Exactly one of the two is set.
type Answers[A any] struct {
	Answer  *A  `json:"answer,omitempty"`
	Answers []A `json:"answers,omitempty"`
}

// nth is the answer to the call-th call (0-based).
func (a Answers[A]) nth(call int) (A, bool) {
	if a.Answer != nil {
		return *a.Answer, true
	}
	if call < len(a.Answers) {
		return a.Answers[call], true
	}
	var zero A
	return zero, false
}

func (a Answers[A]) check() error {
	switch {
	case a.Answer != nil && a.Answers != nil:
		return errors.New("has both answer and answers: give one answer for every call, or answers in call order")
	case a.Answer == nil && len(a.Answers) == 0:
		return errors.New("has no answer: give answer (every call) or answers (in call order)")
	}
	return nil
}

// CommandMock answers run_command calls whose command, as rendered, is
// Command. A secret shows as its reference ({{secrets.NAME}}).
type CommandMock struct {
	Command string `json:"command"`
	Answers[CommandAnswer]
}

// CommandAnswer is how a mocked command exits, and the files it writes
// (path relative to the workflow's folder → content): they go to the
// case's overlay, as a write_file's do, for later steps to read and list.
type CommandAnswer struct {
	ExitCode int               `json:"exit_code"`
	Stdout   string            `json:"stdout,omitempty"`
	Stderr   string            `json:"stderr,omitempty"`
	Writes   map[string]string `json:"writes,omitempty"`
}

// HTTPMock answers http_request calls with Method and URL, as rendered.
type HTTPMock struct {
	Method string `json:"method"`
	URL    string `json:"url"`
	Answers[HTTPAnswer]
}

// HTTPAnswer is a mocked response.
type HTTPAnswer struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// MCPMock answers calls of an MCP tool (server.tool). Arguments, when
// given, must equal the call's (as rendered); absent, any call matches.
type MCPMock struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Answers[MCPAnswer]
}

// MCPAnswer is a mocked tool result; IsError makes it the tool's error.
type MCPAnswer struct {
	Text    string `json:"text,omitempty"`
	Data    any    `json:"data,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
}

// AIMock answers the attempts of one AI step.
type AIMock struct {
	Answers[AIAnswer]
}

// AIAnswer is an AI step's answer: Text (AiStep, summarize), Data
// (extract) or Label (classify), or Error, which fails the attempt as an
// answer the step cannot use would.
type AIAnswer struct {
	Text  *string `json:"text,omitempty"`
	Data  any     `json:"data,omitempty"` // a JSON object
	Label *string `json:"label,omitempty"`
	Error string  `json:"error,omitempty"`
}

// Expect is what a case's run should do; what is left out is not
// checked.
type Expect struct {
	// Path are the ids of the steps (Tool and AI nodes) in the order they
	// started, once per execution.
	Path []string `json:"path,omitempty"`
	// Outcome is the run's outcome (succeeded, failed, …).
	Outcome flow.Outcome `json:"outcome,omitempty"`
	// Outputs are values by "node_id.field" (deeper fields with more
	// dots: "fetch.headers.Content-Type").
	Outputs map[string]Value `json:"outputs,omitempty"`
	// Files are the files the run writes, by path (relative to the
	// workflow's folder), and their content. When given, a file written
	// and not listed fails the case.
	Files map[string]Value `json:"files,omitempty"`
}

// Value is an expected value: Equals (exact; any JSON) or Matches (a Go
// regular expression the value, as text, must match).
type Value struct {
	Equals  any    `json:"equals,omitempty"`
	Matches string `json:"matches,omitempty"`
	hasEq   bool
	re      *regexp.Regexp
}

// UnmarshalJSON reads {"equals": …} or {"matches": "…"}; equals may be
// null.
func (v *Value) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return errors.New(`an expected value is {"equals": …} or {"matches": "regexp"}`)
	}
	eq, hasEq := m["equals"]
	re, hasRe := m["matches"]
	if hasEq == hasRe || len(m) != 1 {
		return errors.New(`an expected value has exactly one of "equals" and "matches"`)
	}
	if hasEq {
		v.hasEq = true
		return decodeJSON(eq, &v.Equals)
	}
	if err := json.Unmarshal(re, &v.Matches); err != nil {
		return errors.New(`"matches" is a regular expression, as a string`)
	}
	r, err := regexp.Compile(v.Matches)
	if err != nil {
		return fmt.Errorf("matches %q: %v", v.Matches, err)
	}
	v.re = r
	return nil
}

// MarshalJSON writes what UnmarshalJSON reads.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.re != nil || v.Matches != "" {
		return json.Marshal(map[string]string{"matches": v.Matches})
	}
	return json.Marshal(map[string]any{"equals": v.Equals})
}

// Exact is a Value that equals x.
func Exact(x any) Value { return Value{Equals: x, hasEq: true} }

func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// PathFor is the case file of the workflow at path: NAME.tests.json
// beside NAME.json (NAME.weft.tests.json beside NAME.weft.json). A path
// that is already a case file is itself.
func PathFor(workflowPath string) string {
	if IsCaseFile(workflowPath) {
		return workflowPath
	}
	return strings.TrimSuffix(workflowPath, filepath.Ext(workflowPath)) + ".tests.json"
}

// WorkflowFor is the workflow a case file belongs to.
func WorkflowFor(casePath string) string {
	return strings.TrimSuffix(casePath, ".tests.json") + ".json"
}

// IsCaseFile says whether path names a case file.
func IsCaseFile(path string) bool { return strings.HasSuffix(path, ".tests.json") }

// FileError is a case file that cannot be used: where and what.
type FileError struct {
	Path string
	// Where is the place in the file ("cases[1] \"empty notes\": mocks.commands[0]").
	Where string
	Msg   string
	// Err is the cause, when there is one (a file that cannot be read).
	Err error
}

func (e *FileError) Unwrap() error { return e.Err }

func (e *FileError) Error() string {
	at := e.Path
	if e.Where != "" {
		if at != "" {
			at += ": "
		}
		at += e.Where
	}
	if at == "" {
		return e.Msg
	}
	return at + ": " + e.Msg
}

// Load reads and decodes the case file at path.
func Load(path string) (*File, error) {
	data, err := atomicfile.ReadBounded(path, MaxFileSize)
	if err != nil {
		return nil, &FileError{Path: path, Msg: "cannot read the case file: " + err.Error(), Err: err}
	}
	f, err := Decode(data)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			fe.Path = path
		}
		return nil, err
	}
	return f, nil
}

// Decode reads a case file strictly: unknown fields, a wrong type, a mock
// without an answer or a case without a name are errors saying where.
// It does not look at the workflow (Check does).
func Decode(data []byte) (*File, error) {
	if len(data) > MaxFileSize {
		return nil, &FileError{Msg: fmt.Sprintf("the case file is over %d MiB", MaxFileSize>>20)}
	}
	var raw any
	if err := decodeJSON(data, &raw); err != nil {
		return nil, &FileError{Where: lineCol(data, err), Msg: "not JSON: " + err.Error()}
	}
	if err := strict(raw, fileFields, "", "the case file"); err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var f File
	if err := d.Decode(&f); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, &FileError{Where: te.Field, Msg: fmt.Sprintf("%s where %s is wanted", te.Value, te.Type)}
		}
		return nil, &FileError{Msg: err.Error()}
	}
	if d.More() {
		return nil, &FileError{Msg: "text after the case file's JSON object"}
	}
	names := map[string]bool{}
	for i := range f.Cases {
		c := &f.Cases[i]
		where := fmt.Sprintf("cases[%d]", i)
		if strings.TrimSpace(c.Name) == "" {
			return nil, &FileError{Where: where, Msg: "a case needs a name"}
		}
		where += fmt.Sprintf(" %q", c.Name)
		if names[c.Name] {
			return nil, &FileError{Where: where, Msg: "two cases have this name"}
		}
		names[c.Name] = true
		if err := c.check(); err != nil {
			return nil, &FileError{Where: where + ": " + err.Where, Msg: err.Msg}
		}
	}
	return &f, nil
}

// check is a case's own rules (those that need no workflow).
func (c *Case) check() *FileError {
	m := &c.Mocks
	seen := map[string]bool{}
	for i, x := range m.Commands {
		w := fmt.Sprintf("mocks.commands[%d]", i)
		if strings.TrimSpace(x.Command) == "" {
			return &FileError{Where: w, Msg: "a command mock needs the command"}
		}
		if err := x.check(); err != nil {
			return &FileError{Where: w, Msg: err.Error()}
		}
		if seen["c"+x.Command] {
			return &FileError{Where: w, Msg: fmt.Sprintf("the command %q is mocked twice: give the second call's answer in answers", x.Command)}
		}
		seen["c"+x.Command] = true
	}
	for i, x := range m.HTTP {
		w := fmt.Sprintf("mocks.http[%d]", i)
		if x.Method == "" || x.URL == "" {
			return &FileError{Where: w, Msg: "an http mock needs the method and the url"}
		}
		if err := x.check(); err != nil {
			return &FileError{Where: w, Msg: err.Error()}
		}
		for _, a := range append(x.Answers.Answers, deref(x.Answer)...) {
			if a.Status < 100 || a.Status > 599 {
				return &FileError{Where: w, Msg: fmt.Sprintf("status %d is not an HTTP status (100-599)", a.Status)}
			}
		}
		k := "h" + strings.ToUpper(x.Method) + " " + x.URL
		if seen[k] {
			return &FileError{Where: w, Msg: fmt.Sprintf("%s %s is mocked twice: give the second call's answer in answers", x.Method, x.URL)}
		}
		seen[k] = true
	}
	for i, x := range m.MCP {
		w := fmt.Sprintf("mocks.mcp[%d]", i)
		if !strings.Contains(x.Tool, ".") {
			return &FileError{Where: w, Msg: fmt.Sprintf("tool %q: an MCP tool is named server.tool", x.Tool)}
		}
		if err := x.check(); err != nil {
			return &FileError{Where: w, Msg: err.Error()}
		}
	}
	for id, x := range m.AI {
		w := fmt.Sprintf("mocks.ai[%q]", id)
		if err := x.check(); err != nil {
			return &FileError{Where: w, Msg: err.Error()}
		}
		for _, a := range append(x.Answers.Answers, deref(x.Answer)...) {
			n := 0
			for _, set := range []bool{a.Text != nil, a.Data != nil, a.Label != nil, a.Error != ""} {
				if set {
					n++
				}
			}
			if n != 1 {
				return &FileError{Where: w, Msg: "an AI answer has exactly one of text, data, label and error"}
			}
			if _, ok := a.Data.(map[string]any); a.Data != nil && !ok {
				return &FileError{Where: w, Msg: "an AI answer's data is a JSON object"}
			}
		}
	}
	if o := c.Expect.Outcome; o != "" && !knownOutcome(o) {
		return &FileError{Where: "expect.outcome", Msg: fmt.Sprintf("%q is not an outcome (succeeded, partial, failed, aborted, canceled, replanned)", o)}
	}
	for k := range c.Expect.Outputs {
		if id, field, ok := strings.Cut(k, "."); !ok || id == "" || field == "" {
			return &FileError{Where: fmt.Sprintf("expect.outputs[%q]", k), Msg: "an output is named node_id.field"}
		}
	}
	for k := range c.Expect.Files {
		if strings.TrimSpace(k) == "" {
			return &FileError{Where: "expect.files", Msg: "a file needs a path"}
		}
	}
	return nil
}

func deref[A any](a *A) []A {
	if a == nil {
		return nil
	}
	return []A{*a}
}

func knownOutcome(o flow.Outcome) bool {
	switch o {
	case flow.OutcomeSucceeded, flow.OutcomePartial, flow.OutcomeFailed, flow.OutcomeAborted, flow.OutcomeCanceled, flow.OutcomeReplanned:
		return true
	}
	return false
}

// lineCol says where in data a JSON syntax error is.
func lineCol(data []byte, err error) string {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return ""
	}
	off := min(max(int(se.Offset)-1, 0), len(data)) // Offset is past the bad byte
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// Save writes the case file at path (indented JSON, replaced whole and
// atomically: a crash leaves the old file or the new).
func Save(path string, f *File) error {
	b, err := encodeIndented(f, "")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}
