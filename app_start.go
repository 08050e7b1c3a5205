package main

import (
	"github.com/weft-dev/weft/backend/examples"
	"github.com/weft-dev/weft/backend/lastfile"
)

// StartResult is what the editor opens at start: the workflow last opened
// or saved, or the sample; Notice says why the sample opened instead of
// the last file ("" when there is nothing to say).
type StartResult struct {
	Open   OpenResult `json:"open"`
	Notice string     `json:"notice"`
}

// lastFileStore is the record of the last file; nil (an App literal in a
// test) records nothing and opens the sample at start.
func (a *App) lastFileStore() *lastfile.Store {
	if a.lastFile == nil {
		return nil
	}
	st, err := a.lastFile()
	if err != nil {
		a.warn("last file: " + err.Error())
		return nil
	}
	return st
}

// rememberLast records path as the file to reopen at start. The file is
// already open or saved, so a failure here is only logged.
func (a *App) rememberLast(path string) {
	if st := a.lastFileStore(); st != nil {
		if err := st.Remember(path); err != nil {
			a.warn(err.Error())
		}
	}
}

// LoadStart opens what the editor shows at start (lastfile.Open decides).
func (a *App) LoadStart() (StartResult, error) {
	r, notice, err := lastfile.Open(a.lastFileStore(), a.OpenWorkflow, a.LoadSample)
	return StartResult{Open: r, Notice: notice}, err
}

// Examples lists the gallery's workflows (file, name, goal).
func (a *App) Examples() ([]examples.Example, error) { return examples.List() }

// OpenExample opens the example file as a new unsaved workflow: no path,
// a fresh id, the trust of a document no file holds (as the sample's).
func (a *App) OpenExample(file string) (OpenResult, error) {
	w, warnings, err := examples.Open(file)
	if err != nil {
		return OpenResult{}, err
	}
	return OpenResult{Name: file, Workflow: w, Warnings: nonNil(warnings), File: a.service().FileTrustOf("")}, nil
}
