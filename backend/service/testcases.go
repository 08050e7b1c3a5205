package service

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// TestRequest asks for the cases of a workflow to be played (package
// testcase): nothing acts.
type TestRequest struct {
	// Path is the workflow's file; its cases are in the case file beside
	// it (testcase.PathFor).
	Path string
	// Workflow, when set, is played instead of the file's content (the
	// editor's copy).
	Workflow *workflow.Workflow
	// Case plays only the case with this name ("" plays all).
	Case string
}

// TestUnusableError is a test that could not be played: the workflow or
// its case file cannot be used (no cases, a case holding a secret, an
// invalid workflow). Problems are the workflow's, when it is invalid.
type TestUnusableError struct {
	Err      error
	Problems []validate.Problem
}

func (e *TestUnusableError) Error() string { return e.Err.Error() }
func (e *TestUnusableError) Unwrap() error { return e.Err }

// Test plays every case of the workflow at req.Path on the local engine
// with nothing acting, and says which steps would wait for approval
// before a real run. An error is a *TestUnusableError (or ctx's).
func (s *Service) Test(ctx context.Context, req TestRequest) (*testcase.Report, error) {
	unusable := func(err error) (*testcase.Report, error) { return nil, &TestUnusableError{Err: err} }
	if req.Path == "" {
		return unusable(errors.New("test: a workflow's cases live beside its file: save it first"))
	}
	path, w, err := s.testable(req.Path, req.Workflow)
	if err != nil {
		return nil, err
	}
	cases, err := loadCases(path)
	if err != nil {
		return unusable(err)
	}
	rep, err := testcase.Run(ctx, w, path, cases, testcase.Options{Secrets: s.secretValues(), Only: req.Case})
	if err != nil {
		return unusable(err)
	}
	rep.Unapproved = s.unapproved(ctx, w, path)
	return rep, nil
}

// testable is the workflow at path (a case file's workflow, for a case
// file), w when given, checked as a run would check it: an error is a
// *TestUnusableError.
func (s *Service) testable(path string, w *workflow.Workflow) (string, *workflow.Workflow, error) {
	if testcase.IsCaseFile(path) {
		path = testcase.WorkflowFor(path)
	}
	if w == nil {
		var err error
		if w, _, err = workflow.Load(path); err != nil {
			return "", nil, &TestUnusableError{Err: err}
		}
	}
	vr := validate.ValidateWith(w, s.deps.Builtin, validate.Options{Secrets: s.secretNames()})
	if !vr.Valid {
		problems := nonNil(vr.Errors())
		return "", nil, &TestUnusableError{Err: &runner.InvalidError{Problems: problems}, Problems: problems}
	}
	return path, w, nil
}

// loadCases reads the case file of the workflow at path; a missing one
// says how to make one.
func loadCases(path string) (*testcase.File, error) {
	casePath := testcase.PathFor(path)
	cases, err := testcase.Load(casePath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: %w", casePath, testcase.ErrNoCases)
	}
	return cases, err
}

// DryRunRequest asks for a dry run of a workflow (testcase.DryRun):
// nothing acts.
type DryRunRequest struct {
	Path string
	// Case answers the steps with the mocks of the case of this name (in
	// the case file beside Path), and gives its inputs; "" answers them
	// with the workflow's pinned data.
	Case string
	// Inputs and InputTexts are given inputs (as StartRequest's), over a
	// case's own.
	Inputs     map[string]any
	InputTexts map[string]string
}

// DryRun walks the workflow at req.Path with nothing acting: each step
// answered by a case's mocks or the pinned data, shown with its
// arguments filled in, each condition with the branch it takes. An error
// is a *TestUnusableError (or ctx's): the workflow, the case or the
// inputs cannot be used.
func (s *Service) DryRun(ctx context.Context, req DryRunRequest) (*testcase.DryReport, error) {
	unusable := func(err error) (*testcase.DryReport, error) { return nil, &TestUnusableError{Err: err} }
	if strings.TrimSpace(req.Path) == "" {
		return unusable(errors.New("dry run: no workflow file given"))
	}
	path, w, err := s.testable(req.Path, nil)
	if err != nil {
		return nil, err
	}
	var c *testcase.Case
	values := req.Inputs
	if req.Case != "" {
		cases, err := loadCases(path)
		if err != nil {
			return unusable(err)
		}
		for i := range cases.Cases {
			if cases.Cases[i].Name == req.Case {
				c = &cases.Cases[i]
			}
		}
		if c == nil {
			return unusable(&testcase.FileError{Path: testcase.PathFor(path), Msg: fmt.Sprintf("no case is named %q", req.Case)})
		}
		if err := testcase.RefuseSecrets(&testcase.File{Cases: []testcase.Case{*c}}, s.secretValues()); err != nil {
			return unusable(err)
		}
		values = maps.Clone(c.Inputs)
		if values == nil {
			values = map[string]any{}
		}
		maps.Copy(values, req.Inputs)
	}
	given, err := inputs.Resolve(w.Inputs, values, req.InputTexts)
	if err != nil {
		return unusable(err)
	}
	rep, err := testcase.DryRun(ctx, w, path, testcase.DryOptions{Case: c, Inputs: given})
	if err != nil {
		return unusable(err)
	}
	return rep, nil
}

// secretValues are the values of the credentials store, which no case
// may hold.
func (s *Service) secretValues() *redact.Redactor {
	red := redact.New()
	if s.deps.Secrets == nil {
		return red
	}
	for _, name := range s.secretNames() {
		if sec, err := s.deps.Secrets.Get(name); err == nil {
			red.Add(sec.Value)
		}
	}
	return red
}

// unapproved are the steps of w that would wait for approval before a
// real run. The MCP servers are not started to describe their tools (a
// test starts nothing): their steps count as unknown tools, which wait
// unless approved.
func (s *Service) unapproved(ctx context.Context, w *workflow.Workflow, path string) []approval.Step {
	st, _, err := s.settings()
	if err != nil {
		return []approval.Step{}
	}
	st.MCPServers = nil
	g, err := s.openGate(ctx, st, w, path)
	if err != nil {
		return []approval.Step{}
	}
	return g.pending(w)
}

// RecordResult is a case recorded from a run and added to the case file.
type RecordResult struct {
	// File is the case file the case was added to.
	File  string `json:"file"`
	RunID string `json:"run_id"`
	// Case is what was added; FillIn names each step whose data was cut
	// or hidden, left for the person to fill in.
	Case   testcase.Case `json:"case"`
	FillIn []string      `json:"fill_in"`
}

// RecordCase makes a case named name ("" names it after the run) from
// the last local run of the workflow at path (from the whole outputs the
// run kept, testcase.Record) and adds it to the case file beside it,
// creating the file if need be. A case of that name already there, or
// one that would hold a secret, is refused; the case file is not
// changed then.
func (s *Service) RecordCase(ctx context.Context, path, name string) (*RecordResult, error) {
	if testcase.IsCaseFile(path) {
		path = testcase.WorkflowFor(path)
	}
	abs, err := absPath(path)
	if err != nil {
		return nil, err
	}
	w, _, err := workflow.Load(abs)
	if err != nil {
		return nil, err
	}
	h, err := s.RunHistory(abs, w.ID)
	if err != nil {
		return nil, err
	}
	var last *Record
	for i := range h.Runs {
		if r := &h.Runs[i]; r.Complete && r.EngineRunID == "" {
			last = r
			break
		}
	}
	if last == nil {
		return nil, fmt.Errorf("%s has no finished local run to record a case from: run it (weft run %s), then record", path, path)
	}
	if name == "" {
		name = "run " + last.RunID
	}
	rec, err := testcase.Record(w, abs, last.Dir, name)
	if err != nil {
		return nil, err
	}
	// The case goes into the file's bytes (testcase.AddCase): the other
	// cases stay as the person wrote them, numbers and layout.
	casePath, data, err := readCases(abs)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	out, err := testcase.AddCase(data, rec.Case)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", casePath, err)
	}
	f, err := testcase.Decode(out)
	if err != nil {
		return nil, err
	}
	if err := testcase.RefuseSecrets(f, s.secretValues()); err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(casePath, out, 0o644); err != nil {
		return nil, fmt.Errorf("save %s: %w", casePath, err)
	}
	return &RecordResult{File: casePath, RunID: last.RunID, Case: rec.Case, FillIn: rec.FillIn}, nil
}

// CaseFile is a workflow's case file as the desktop's Tests panel shows
// it: each case's mocks as written, to edit.
type CaseFile struct {
	File   string `json:"file"`
	Exists bool   `json:"exists"`
	// SHA256 is of the bytes read: a save names it, and is refused when
	// the file changed since (an edit elsewhere is not overwritten).
	SHA256 string               `json:"sha256"`
	Cases  []testcase.CaseMocks `json:"cases"`
	// Error says why the file cannot be used (then Cases is empty).
	Error string `json:"error,omitempty"`
}

// ReadCaseFile reads the case file of the workflow at path. A file that
// is missing or unusable is not an error: the view says so.
func (s *Service) ReadCaseFile(path string) (CaseFile, error) {
	casePath, data, err := readCases(path)
	cf := CaseFile{File: casePath, Cases: []testcase.CaseMocks{}}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cf, nil
	case err != nil && casePath == "":
		return cf, err
	case err != nil:
		cf.Error = err.Error()
		return cf, nil
	}
	cf.Exists, cf.SHA256 = true, sha256Hex(data)
	list, err := testcase.MocksOf(data)
	if err != nil {
		if fe := (*testcase.FileError)(nil); errors.As(err, &fe) && fe.Path == "" {
			fe.Path = casePath
		}
		cf.Error = err.Error()
		return cf, nil
	}
	cf.Cases = list
	return cf, nil
}

// SaveCaseMocks replaces the mocks of the case named name in the case
// file of the workflow at path with mocks (JSON text), after checking
// them and the whole new file as strictly as a test reads it, and that
// no secret's value is in it; only then is the file replaced, atomically.
// base is the SHA256 of the file as the person read it: when it changed
// since, nothing is written.
func (s *Service) SaveCaseMocks(path, name, mocks, base string) (CaseFile, error) {
	casePath, data, err := readCases(path)
	if err != nil {
		return CaseFile{}, err
	}
	if sha256Hex(data) != base {
		return CaseFile{}, fmt.Errorf("%s changed since it was read (another edit, or a case recorded): reload it, then make your change again", casePath)
	}
	out, err := testcase.SetMocks(data, name, []byte(mocks))
	if err != nil {
		return CaseFile{}, err
	}
	f, err := testcase.Decode(out)
	if err != nil {
		return CaseFile{}, err
	}
	if err := testcase.RefuseSecrets(f, s.secretValues()); err != nil {
		return CaseFile{}, err
	}
	if err := atomicfile.WriteFile(casePath, out, 0o644); err != nil {
		return CaseFile{}, fmt.Errorf("save %s: %w", casePath, err)
	}
	return s.ReadCaseFile(path)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// readCases reads the case file of the workflow (or case file) at path.
func readCases(path string) (string, []byte, error) {
	if strings.TrimSpace(path) == "" {
		return "", nil, errors.New("a workflow's cases live beside its file: save it first")
	}
	casePath := testcase.PathFor(path)
	data, err := atomicfile.ReadBounded(casePath, testcase.MaxFileSize)
	if err != nil {
		return casePath, nil, fmt.Errorf("cannot read %s: %w", casePath, err)
	}
	return casePath, data, nil
}
