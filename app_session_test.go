package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/session"
)

type closeRecorder struct {
	emitted []string
	asked   int
	answer  bool
	quits   int
	logs    []string
}

func sessionApp(t *testing.T) (*App, *closeRecorder, string) {
	t.Helper()
	a, _ := testApp(t)
	dir := filepath.Join(t.TempDir(), "weft")
	rec := &closeRecorder{}
	a.session.newStore = func() (*session.Store, error) { return &session.Store{Dir: dir}, nil }
	a.session.emit = func(_ context.Context, ev string) { rec.emitted = append(rec.emitted, ev) }
	a.session.ask = func(context.Context) bool { rec.asked++; return rec.answer }
	a.session.quit = func(context.Context) { rec.quits++ }
	a.session.logFn = func(_ context.Context, m string) { rec.logs = append(rec.logs, m) }
	return a, rec, dir
}

func TestAutosaveBindings(t *testing.T) {
	a, _, dir := sessionApp(t)
	v, err := a.LoadAutosave()
	if err != nil || v.Found || v.Warnings == nil {
		t.Fatalf("no autosave: %+v %v", v, err)
	}
	w := decodeFrontend(t, frontendJSON)
	if err := a.Autosave(w, "/home/u/flow.json", "flow.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, session.AutosaveFile)); err != nil {
		t.Fatal(err)
	}
	v, err = a.LoadAutosave()
	if err != nil || !v.Found || v.Path != "/home/u/flow.json" || v.Name != "flow.json" || v.Workflow == nil {
		t.Fatalf("LoadAutosave = %+v, %v", v, err)
	}
	if _, err := time.Parse(time.RFC3339, v.SavedAt); err != nil {
		t.Fatalf("saved_at %q: %v", v.SavedAt, err)
	}
	if v.Workflow.Extra["ui_hint"] == nil || v.Workflow.Nodes[0].Extra["colour"] == nil {
		t.Fatalf("unknown fields lost: %+v", v.Workflow)
	}
	if err := a.ClearAutosave(); err != nil {
		t.Fatal(err)
	}
	if v, _ := a.LoadAutosave(); v.Found {
		t.Fatal("autosave survived ClearAutosave")
	}
}

func TestSessionStoreErrorIsReturnedNotFatal(t *testing.T) {
	a, rec, _ := sessionApp(t)
	a.session.newStore = func() (*session.Store, error) { return nil, errors.New("no home") }
	if err := a.Autosave(decodeFrontend(t, frontendJSON), "", "x"); err == nil {
		t.Fatal("want an error")
	}
	if _, err := a.LoadAutosave(); err == nil {
		t.Fatal("want an error")
	}
	if got := a.RecentFiles(); got == nil || len(got) != 0 {
		t.Fatalf("RecentFiles = %v", got)
	}
	if got := a.AddRecentFile("/x.json"); got == nil || len(got) != 0 {
		t.Fatalf("AddRecentFile = %v", got)
	}
	if len(rec.logs) == 0 {
		t.Fatal("store error not logged")
	}
}

func TestRecentFileBindings(t *testing.T) {
	a, _, _ := sessionApp(t)
	if got := a.RecentFiles(); got == nil || len(got) != 0 {
		t.Fatalf("RecentFiles = %v", got)
	}
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "one.json"), filepath.Join(dir, "two.json")
	for _, p := range []string{p1, p2} {
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a.AddRecentFile(p1)
	got := a.AddRecentFile(p2)
	if len(got) != 2 || got[0].Path != p2 || got[0].Name != "two.json" || got[1].Path != p1 {
		t.Fatalf("AddRecentFile = %+v", got)
	}
	if got := a.RemoveRecentFile(p2); len(got) != 1 || got[0].Path != p1 {
		t.Fatalf("RemoveRecentFile = %+v", got)
	}
	os.Remove(p1)
	if got := a.RecentFiles(); len(got) != 0 {
		t.Fatalf("missing file not pruned: %+v", got)
	}
}

func TestBeforeCloseAsksOnlyWithUnsavedChanges(t *testing.T) {
	a, rec, _ := sessionApp(t)
	ctx := context.Background()
	if a.beforeClose(ctx) {
		t.Fatal("a clean document kept the window open")
	}
	a.SetDirty(true)
	if !a.beforeClose(ctx) {
		t.Fatal("unsaved changes did not keep the window open")
	}
	if len(rec.emitted) != 1 || rec.emitted[0] != EventCloseRequested {
		t.Fatalf("emitted %v", rec.emitted)
	}
	a.CancelClose()
	if !a.beforeClose(ctx) || len(rec.emitted) != 2 {
		t.Fatal("asked again after cancel")
	}
	// The user chose "Don't save": the window closes.
	a.ConfirmClose()
	if rec.quits != 1 {
		t.Fatal("ConfirmClose did not quit")
	}
	if a.beforeClose(ctx) {
		t.Fatal("window kept open after ConfirmClose")
	}
}

func TestBeforeCloseFallsBackToNativeDialog(t *testing.T) {
	a, rec, dir := sessionApp(t)
	now := time.Now()
	a.session.guard.Now = func() time.Time { return now }
	if err := a.Autosave(decodeFrontend(t, frontendJSON), "", "x.json"); err != nil {
		t.Fatal(err)
	}
	a.SetDirty(true)
	ctx := context.Background()
	a.beforeClose(ctx) // frontend asked, never answers
	now = now.Add(session.DefaultPatience + time.Second)
	rec.answer = false
	if !a.beforeClose(ctx) || rec.asked != 1 {
		t.Fatal("native No must keep the window open")
	}
	a.beforeClose(ctx)
	now = now.Add(session.DefaultPatience + time.Second)
	rec.answer = true
	if a.beforeClose(ctx) || rec.asked != 2 {
		t.Fatal("native Yes must close the window")
	}
	if _, err := os.Stat(filepath.Join(dir, session.AutosaveFile)); !os.IsNotExist(err) {
		t.Fatal("discarding on close must clear the autosave")
	}
}
