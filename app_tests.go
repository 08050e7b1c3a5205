package main

// Bindings for the Tests panel: play a workflow's cases (nothing acts),
// record a case from its last run, read the case file and save a case's
// mocks. Each is one call of backend/service (package testcase decides
// what a case is and how it plays), for the CLI's weft test too.

import (
	"errors"

	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// TestRun is what playing the cases gave: the report, or why they could
// not be played (Error; Problems when the workflow is invalid).
type TestRun struct {
	Report   *testcase.Report   `json:"report"`
	Error    string             `json:"error"`
	Problems []validate.Problem `json:"problems"`
}

// RunTests plays the cases beside the file at path against w (the
// editor's copy, saved or not) with nothing acting; only, when not "",
// plays only the case of that name.
func (a *App) RunTests(w workflow.Workflow, path, only string) (TestRun, error) {
	rep, err := a.service().Test(a.context(), service.TestRequest{Path: path, Workflow: &w, Case: only})
	var ue *service.TestUnusableError
	switch {
	case errors.As(err, &ue):
		return TestRun{Error: ue.Error(), Problems: nonNil(ue.Problems)}, nil
	case err != nil:
		return TestRun{}, err
	}
	for i := range rep.Cases {
		rep.Cases[i].Path, rep.Cases[i].Failures = nonNil(rep.Cases[i].Path), nonNil(rep.Cases[i].Failures)
	}
	return TestRun{Report: rep, Problems: []validate.Problem{}}, nil
}

// RecordedCase is a case recorded from the last run: where it went, and
// the steps whose data was cut or hidden, for the person to fill in.
type RecordedCase struct {
	File   string   `json:"file"`
	RunID  string   `json:"run_id"`
	Name   string   `json:"name"`
	FillIn []string `json:"fill_in"`
}

// RecordTestCase adds a case named name ("" names it after the run) made
// from the last local run of the file saved at path to its case file.
func (a *App) RecordTestCase(path, name string) (RecordedCase, error) {
	r, err := a.service().RecordCase(a.context(), path, name)
	if err != nil {
		return RecordedCase{}, err
	}
	return RecordedCase{File: r.File, RunID: r.RunID, Name: r.Case.Name, FillIn: nonNil(r.FillIn)}, nil
}

// ReadTestCases reads the case file beside the file at path: each case's
// mocks as written, or why it cannot be used.
func (a *App) ReadTestCases(path string) (service.CaseFile, error) {
	return a.service().ReadCaseFile(path)
}

// SaveTestCaseMocks replaces the mocks of the case named name with mocks
// (JSON text) when they, and the file with them, are valid and hold no
// secret; base is the SHA-256 of the file as read (ReadTestCases), and
// a file changed since is not written.
func (a *App) SaveTestCaseMocks(path, name, mocks, base string) (service.CaseFile, error) {
	return a.service().SaveCaseMocks(path, name, mocks, base)
}
