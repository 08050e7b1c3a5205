package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadStartReopensTheLastFileOpenedOrSaved(t *testing.T) {
	a, _ := testApp(t)
	r, err := a.LoadStart()
	if err != nil || r.Open.Name != SampleName || r.Notice != "" {
		t.Fatalf("first start = %+v, %v; want the sample, silently", r, err)
	}

	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("testdata", "workflows", "sample.json"))
	if err != nil {
		t.Fatal(err)
	}
	opened := filepath.Join(dir, "opened it.json")
	if err := os.WriteFile(opened, src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenWorkflow(opened); err != nil {
		t.Fatal(err)
	}
	if r, err = a.LoadStart(); err != nil || r.Open.Path != opened || r.Notice != "" {
		t.Fatalf("after Open: %+v, %v; want %s", r.Open.Path, err, opened)
	}

	saved := filepath.Join(dir, "saved.json")
	if err := a.SaveWorkflow(saved, *r.Open.Workflow, opened); err != nil {
		t.Fatal(err)
	}
	// Opening the sample or an example records nothing: they have no file.
	if _, err := a.LoadSample(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.OpenExample("watch_page.json"); err != nil {
		t.Fatal(err)
	}
	if r, err = a.LoadStart(); err != nil || r.Open.Path != saved {
		t.Fatalf("after Save: %q, %v; want %s", r.Open.Path, err, saved)
	}

	if err := os.Remove(saved); err != nil {
		t.Fatal(err)
	}
	r, err = a.LoadStart()
	if err != nil || r.Open.Name != SampleName || r.Open.Path != "" {
		t.Fatalf("after delete: %+v, %v; want the sample", r.Open, err)
	}
	if !strings.Contains(r.Notice, saved) {
		t.Errorf("notice %q does not name %s", r.Notice, saved)
	}
}

func TestOpenExampleIsANewUnsavedWorkflow(t *testing.T) {
	a, _ := testApp(t)
	list, err := a.Examples()
	if err != nil || len(list) == 0 {
		t.Fatalf("Examples = %v, %v", list, err)
	}
	for _, ex := range list {
		r, err := a.OpenExample(ex.File)
		if err != nil {
			t.Fatal(err)
		}
		if r.Path != "" || r.Name != ex.File || r.Workflow == nil || r.Workflow.Name != ex.Name {
			t.Errorf("OpenExample(%s) = path %q name %q", ex.File, r.Path, r.Name)
		}
	}
	if _, err := a.OpenExample("../app.go"); err == nil {
		t.Error("OpenExample opened a file that is no example")
	}
}
