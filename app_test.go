package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

type fakeDialogs struct {
	open, save string
	err        error
	saveOpts   runtime.SaveDialogOptions
}

func (f *fakeDialogs) Open(context.Context, runtime.OpenDialogOptions) (string, error) {
	return f.open, f.err
}

func (f *fakeDialogs) Save(_ context.Context, o runtime.SaveDialogOptions) (string, error) {
	f.saveOpts = o
	return f.save, f.err
}

func testApp(t *testing.T) (*App, *fakeDialogs) {
	t.Helper()
	// Approvals and file trust live in the XDG data dir: never the real one.
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	a := NewApp()
	d := &fakeDialogs{}
	a.dialogs = d
	path := filepath.Join(t.TempDir(), "settings.json")
	a.newStore = func() (*settings.Store, error) {
		return &settings.Store{Path: path, Keyring: settings.NoKeyring{}}, nil
	}
	vdir := filepath.Join(t.TempDir(), "versions")
	a.versions = func() (*versions.Store, error) { return &versions.Store{Dir: vdir}, nil }
	return a, d
}

// frontendJSON is how a workflow arrives from the frontend: Wails decodes the
// argument with encoding/json, so unknown fields must survive that path.
const frontendJSON = `{
  "format": "weft/v1", "id": "wf", "name": "Round trip", "ui_hint": {"zoom": 2},
  "nodes": [
    {"id": "a", "key": "list", "name": "List", "type": "Tool",
     "params": {"tool": "fs.list", "arguments": {"path": "."}, "future_param": 1},
     "position": {"x": 10, "y": 20}, "colour": "red"},
    {"id": "b", "key": "check", "name": "Check", "type": "If",
     "params": {"condition": "list.success"}, "position": {"x": 300, "y": 20}}
  ],
  "edges": [
    {"from": "a", "to": "b", "note": "kept"}
  ]
}`

func decodeFrontend(t *testing.T, s string) workflow.Workflow {
	t.Helper()
	var w workflow.Workflow
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestLoadSample(t *testing.T) {
	a, _ := testApp(t)
	r, err := a.LoadSample()
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "" || r.Name != SampleName || r.Workflow == nil || len(r.Workflow.Nodes) == 0 {
		t.Fatalf("LoadSample = %+v", r)
	}
	if r.Warnings == nil {
		t.Error("warnings must be [] not null for the frontend")
	}
	res := a.ValidateWorkflow(*r.Workflow, "")
	for _, p := range res.Problems {
		if p.Severity == "error" {
			t.Errorf("sample has error %s: %s", p.Code, p.Message)
		}
	}
}

func TestOpenAndSaveRoundTrip(t *testing.T) {
	a, _ := testApp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	if err := a.SaveWorkflow(path, decodeFrontend(t, frontendJSON), ""); err != nil {
		t.Fatal(err)
	}
	r, err := a.OpenWorkflow(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != path || r.Name != "flow.json" || len(r.Workflow.Nodes) != 2 {
		t.Fatalf("OpenWorkflow = %+v", r)
	}
	// The result goes to the frontend as JSON; unknown fields must be there.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ui_hint"`, `"future_param"`, `"colour":"red"`, `"note":"kept"`, `"path":"` + path + `"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("open result JSON lacks %s: %s", want, b)
		}
	}
	if a.dialogDir() != dir {
		t.Errorf("dialog dir = %q, want %q", a.dialogDir(), dir)
	}
}

func TestOpenErrors(t *testing.T) {
	a, _ := testApp(t)
	if _, err := a.OpenWorkflow(""); err == nil {
		t.Error("empty path: want error")
	}
	if _, err := a.OpenWorkflow(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file: want error")
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"format":"weft/v1","nodes":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := a.OpenWorkflow(bad)
	if err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("corrupt file: err = %v, want one naming the file", err)
	}
	if err := a.SaveWorkflow(" ", *workflow.New("x"), ""); err == nil {
		t.Error("save without path: want error")
	}
}

func TestOpenWorkflowDialog(t *testing.T) {
	a, d := testApp(t)
	r, err := a.OpenWorkflowDialog()
	if err != nil || r.Workflow != nil || r.Path != "" {
		t.Fatalf("cancelled dialog = %+v, %v; want empty result, no error", r, err)
	}
	path := filepath.Join(t.TempDir(), "chosen.json")
	if err := workflow.Save(path, workflow.New("chosen")); err != nil {
		t.Fatal(err)
	}
	d.open = path
	r, err = a.OpenWorkflowDialog()
	if err != nil || r.Workflow == nil || r.Workflow.Name != "chosen" {
		t.Fatalf("chosen file = %+v, %v", r, err)
	}
	d.err = errors.New("no display")
	if _, err := a.OpenWorkflowDialog(); err == nil {
		t.Error("dialog failure: want error")
	}
}

func TestSaveWorkflowAsDialog(t *testing.T) {
	a, d := testApp(t)
	w := decodeFrontend(t, frontendJSON)
	got, err := a.SaveWorkflowAsDialog(w, "")
	if err != nil || got != "" {
		t.Fatalf("cancelled = %q, %v; want \"\", nil", got, err)
	}
	if d.saveOpts.DefaultFilename != "round_trip.json" {
		t.Errorf("default file name = %q", d.saveOpts.DefaultFilename)
	}
	d.save = filepath.Join(t.TempDir(), "mine")
	got, err = a.SaveWorkflowAsDialog(w, "")
	if err != nil || got != d.save+".json" {
		t.Fatalf("SaveWorkflowAsDialog = %q, %v; want %q", got, err, d.save+".json")
	}
	saved, _, err := workflow.Load(got)
	if err != nil {
		t.Fatal(err)
	}
	var hint bytes.Buffer
	if err := json.Compact(&hint, saved.Extra["ui_hint"]); err != nil || hint.String() != `{"zoom":2}` {
		t.Errorf("unknown field lost on save: %s (%v)", saved.Extra["ui_hint"], err)
	}
}

func TestValidateWorkflow(t *testing.T) {
	a, _ := testApp(t)
	// The If has no branches: the validator must say so.
	res := a.ValidateWorkflow(decodeFrontend(t, frontendJSON), "")
	if res.Valid || len(res.Problems) == 0 {
		t.Fatalf("ValidateWorkflow = %+v; want problems", res)
	}
	for _, p := range res.Problems {
		if p.Code == "" || p.Message == "" || (p.Severity != "error" && p.Severity != "warning") {
			t.Errorf("malformed problem %+v", p)
		}
	}
	empty := a.ValidateWorkflow(*workflow.New("empty"), "")
	if empty.Problems == nil {
		t.Error("problems must be [] not null")
	}
	// A Workflow node's file is looked for beside the document's path.
	sub := workflow.New("parent")
	sub.Nodes = []workflow.Node{{ID: "s", Key: "sub", Name: "Sub", Type: workflow.TypeWorkflow, Params: workflow.Params{Path: "child.weft.json"}}}
	dir := t.TempDir()
	if r := a.ValidateWorkflow(*sub, filepath.Join(dir, "parent.weft.json")); r.Valid || r.Problems[0].Code != validate.CodeUnknownWorkflow {
		t.Errorf("a missing child beside the file: %+v", r.Problems)
	}
	if r := a.ValidateWorkflow(*sub, ""); !r.Valid {
		t.Errorf("unsaved, the child is the run's to find: %+v", r.Problems)
	}
}

func TestCheckCondition(t *testing.T) {
	a, _ := testApp(t)
	if msg := a.CheckCondition("1 + 1 == 2"); msg != "" {
		t.Errorf("valid condition: %q", msg)
	}
	if msg := a.CheckCondition("a &&"); msg == "" {
		t.Error("invalid condition: want a message")
	}
}

func TestToolCatalog(t *testing.T) {
	a, _ := testApp(t)
	ts := a.ToolCatalog()
	if len(ts) == 0 {
		t.Fatal("empty tool catalog")
	}
	for _, tl := range ts {
		if tl.Name == "" {
			t.Errorf("tool without name: %+v", tl)
		}
	}
}

func TestSettingsNeverSendTheKey(t *testing.T) {
	a, _ := testApp(t)
	v, err := a.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	if v.APIKeySet || v.Path == "" || v.Warnings == nil {
		t.Fatalf("fresh settings view = %+v", v)
	}
	const secret = "sk-test-1234567890abcdef"
	s := v.Settings
	s.LLM.Model = "qwen3"
	key := secret
	if _, err := a.SaveSettings(s, &key); err != nil {
		t.Fatal(err)
	}
	v, err = a.GetSettings()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if strings.Contains(string(b), secret) || v.Settings.LLM.APIKey != "" {
		t.Fatalf("settings view leaks the key: %s", b)
	}
	if !v.APIKeySet || v.APIKeyMasked != settings.MaskKey(secret) || v.Settings.LLM.Model != "qwen3" {
		t.Fatalf("settings view = %+v", v)
	}

	// nil keeps the stored key, even though the view's settings carry none.
	s = v.Settings
	s.LLM.Model = "other"
	if _, err := a.SaveSettings(s, nil); err != nil {
		t.Fatal(err)
	}
	v, _ = a.GetSettings()
	if !v.APIKeySet || v.Settings.LLM.Model != "other" {
		t.Fatalf("after save with nil key: %+v", v)
	}

	// A pointer to "" clears it.
	empty := ""
	if _, err := a.SaveSettings(v.Settings, &empty); err != nil {
		t.Fatal(err)
	}
	v, _ = a.GetSettings()
	if v.APIKeySet {
		t.Fatalf("key not cleared: %+v", v)
	}
}

func TestSettingsStoreError(t *testing.T) {
	a, _ := testApp(t)
	a.newStore = func() (*settings.Store, error) { return nil, errors.New("no home") }
	if _, err := a.GetSettings(); err == nil {
		t.Error("GetSettings: want error")
	}
	if _, err := a.SaveSettings(settings.Defaults(), nil); err == nil {
		t.Error("SaveSettings: want error")
	}
}

func TestSaveRecordsVersions(t *testing.T) {
	a, _ := testApp(t)
	res, err := a.LoadSample()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "wf.json")
	w := *res.Workflow
	if err := a.SaveWorkflow(path, w, path); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveWorkflow(path, w, path); err != nil { // unchanged: no new version
		t.Fatal(err)
	}
	w.Name = "Renamed"
	if err := a.SaveWorkflow(path, w, path); err != nil {
		t.Fatal(err)
	}
	st, _ := a.versions()
	vs, err := st.List(w.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 {
		t.Fatalf("want 2 versions, got %d: %+v", len(vs), vs)
	}
	d, err := st.CompareVersions(w.ID, vs[0].N, vs[1].N)
	if err != nil || d.Empty() {
		t.Fatalf("versions do not differ: %v %+v", err, d)
	}
}
