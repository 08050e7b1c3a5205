package session

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{
		Dir: filepath.Join(t.TempDir(), "weft"),
		Now: func() time.Time { return t0 },
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func sampleWorkflow(t *testing.T) *workflow.Workflow {
	t.Helper()
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"wf","name":"Notes","ui_hint":{"zoom":2},
	  "nodes":[{"id":"a","key":"list","name":"List","type":"Tool","params":{"tool":"list_files","arguments":{"path":"."}},"colour":"red"}],
	  "edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestDefaultDirFollowsXDGDataHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_DATA_HOME", dir)
	got, err := DefaultDir()
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(dir, "weft") {
		t.Fatalf("DefaultDir = %s, want %s", got, filepath.Join(dir, "weft"))
	}
}

func TestAutosaveRoundTripKeepsUnknownFields(t *testing.T) {
	s := newStore(t)
	if a, w, err := s.LoadAutosave(); a != nil || w != nil || err != nil {
		t.Fatalf("no autosave yet: %v %v %v", a, w, err)
	}
	if err := s.Autosave(sampleWorkflow(t), "/home/u/notes.json", "notes.json"); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(s.Dir, AutosaveFile))
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("autosave mode %v, want 0600", st.Mode().Perm())
	}
	a, warnings, err := s.LoadAutosave()
	if err != nil || len(warnings) != 0 {
		t.Fatalf("LoadAutosave: %v %v", err, warnings)
	}
	if !a.SavedAt.Equal(t0) || a.Path != "/home/u/notes.json" || a.Name != "notes.json" {
		t.Fatalf("autosave = %+v", a)
	}
	out, err := workflow.Marshal(a.Workflow)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"ui_hint"`, `"colour"`, `"list_files"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("round trip lost %s: %s", want, out)
		}
	}
	if err := s.ClearAutosave(); err != nil {
		t.Fatal(err)
	}
	if a, _, _ := s.LoadAutosave(); a != nil {
		t.Fatal("autosave still there after ClearAutosave")
	}
	if err := s.ClearAutosave(); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
}

func TestAutosaveIsAtomic(t *testing.T) {
	s := newStore(t)
	if err := s.Autosave(sampleWorkflow(t), "", "sample.json"); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(s.Dir, AutosaveFile))
	// A workflow that cannot be encoded fails before anything is written.
	bad := sampleWorkflow(t)
	bad.Nodes[0].Params.Arguments["x"] = func() {}
	if err := s.Autosave(bad, "", "sample.json"); err == nil {
		t.Fatal("want an error for an unencodable workflow")
	}
	after, _ := os.ReadFile(filepath.Join(s.Dir, AutosaveFile))
	if string(before) != string(after) {
		t.Fatal("a failed autosave changed the previous one")
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file left behind: %s", e.Name())
		}
	}
	// Concurrent autosaves never leave a torn file.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := sampleWorkflow(t)
			w.Name = fmt.Sprintf("v%d", i)
			if err := s.Autosave(w, "", "x.json"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	a, warnings, err := s.LoadAutosave()
	if err != nil || len(warnings) != 0 || a == nil || !strings.HasPrefix(a.Workflow.Name, "v") {
		t.Fatalf("after concurrent autosaves: %+v %v %v", a, warnings, err)
	}
}

func TestCorruptAutosaveMovedAside(t *testing.T) {
	for name, content := range map[string]string{
		"syntax":       `{"version":1,"workflow":`,
		"no workflow":  `{"version":1,"path":"x"}`,
		"bad workflow": `{"version":1,"workflow":{"format":"weft/v9","nodes":[],"edges":[]}}`,
		"wrong type":   `[1,2]`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			p := filepath.Join(s.Dir, AutosaveFile)
			if err := os.MkdirAll(s.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			a, warnings, err := s.LoadAutosave()
			if err != nil || a != nil {
				t.Fatalf("LoadAutosave = %v, %v; want nil and a warning", a, err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "corrupt") {
				t.Fatalf("warnings = %q", warnings)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Fatal("corrupt autosave still in place")
			}
			moved, _ := filepath.Glob(p + ".corrupt-*")
			if len(moved) != 1 {
				t.Fatalf("moved aside: %v", moved)
			}
			if b, _ := os.ReadFile(moved[0]); string(b) != content {
				t.Fatal("moved file lost its content")
			}
			// The next autosave works as usual.
			if err := s.Autosave(sampleWorkflow(t), "", "s.json"); err != nil {
				t.Fatal(err)
			}
			if a, _, _ := s.LoadAutosave(); a == nil {
				t.Fatal("no autosave after a fresh write")
			}
		})
	}
}

func TestUnreadableAutosaveIsAnErrorNotAPanic(t *testing.T) {
	s := newStore(t)
	// A directory where the file should be cannot be read.
	if err := os.MkdirAll(filepath.Join(s.Dir, AutosaveFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.LoadAutosave(); err == nil {
		t.Fatal("want an error")
	}
}

func TestRecentFiles(t *testing.T) {
	s := newStore(t)
	dir := t.TempDir()
	var paths []string
	for i := range MaxRecent + 3 {
		p := filepath.Join(dir, fmt.Sprintf("w%02d.json", i))
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if list, warnings, err := s.Recent(); err != nil || len(list) != 0 || len(warnings) != 0 {
		t.Fatalf("empty at first: %v %v %v", list, warnings, err)
	}
	for _, p := range paths {
		if _, _, err := s.AddRecent(p); err != nil {
			t.Fatal(err)
		}
	}
	list, _, err := s.Recent()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != MaxRecent {
		t.Fatalf("%d recent files, want %d", len(list), MaxRecent)
	}
	if list[0].Path != paths[len(paths)-1] || list[0].Name != filepath.Base(paths[len(paths)-1]) {
		t.Fatalf("newest first: %+v", list[0])
	}
	// Re-adding moves to the top without a duplicate.
	list, _, _ = s.AddRecent(paths[5])
	if list[0].Path != paths[5] || len(list) != MaxRecent {
		t.Fatalf("re-add: %+v", list)
	}
	seen := map[string]bool{}
	for _, r := range list {
		if seen[r.Path] {
			t.Fatalf("duplicate %s", r.Path)
		}
		seen[r.Path] = true
	}
	// Missing files are pruned, and the pruned list is written back.
	if err := os.Remove(paths[5]); err != nil {
		t.Fatal(err)
	}
	list, _, _ = s.Recent()
	if len(list) != MaxRecent-1 || list[0].Path == paths[5] {
		t.Fatalf("after removing a file: %+v", list)
	}
	s.Exists = func(string) bool { return true }
	if again, _, _ := s.Recent(); len(again) != MaxRecent-1 {
		t.Fatalf("pruned list not saved: %d entries", len(again))
	}
	// RemoveRecent drops one entry.
	list, err = s.RemoveRecent(list[0].Path)
	if err != nil || len(list) != MaxRecent-2 {
		t.Fatalf("RemoveRecent: %v %d", err, len(list))
	}
	// Relative paths are stored absolute.
	s.Exists = nil
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, paths[0])
	list, _, _ = s.AddRecent(rel)
	if list[0].Path != paths[0] {
		t.Fatalf("relative path stored as %s", list[0].Path)
	}
	if _, _, err := s.AddRecent(""); err == nil {
		t.Fatal("empty path accepted")
	}
}

func TestCorruptRecentListMovedAside(t *testing.T) {
	s := newStore(t)
	p := filepath.Join(s.Dir, RecentFile)
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"files": [ {"path": 3}`), 0o600); err != nil {
		t.Fatal(err)
	}
	list, warnings, err := s.Recent()
	if err != nil || len(list) != 0 || len(warnings) != 1 || !strings.Contains(warnings[0], "moved it to") {
		t.Fatalf("Recent on a corrupt list: %v %q %v", list, warnings, err)
	}
	moved, _ := filepath.Glob(p + ".corrupt-*")
	if len(moved) != 1 {
		t.Fatalf("moved aside: %v", moved)
	}
	f := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, _, err = s.AddRecent(f)
	if err != nil || len(list) != 1 {
		t.Fatalf("AddRecent after corruption: %v %v", list, err)
	}
	var doc recentDoc
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != 1 || len(doc.Files) != 1 {
		t.Fatalf("file after rewrite: %s", b)
	}
}

func TestCloseGuard(t *testing.T) {
	now := t0
	g := &CloseGuard{Now: func() time.Time { return now }, Patience: 3 * time.Second}
	if d := g.Request(); d != CloseNow {
		t.Fatalf("clean document: %v", d)
	}
	g.SetDirty(true)
	if !g.Dirty() {
		t.Fatal("Dirty() false after SetDirty(true)")
	}
	if d := g.Request(); d != AskFrontend {
		t.Fatalf("dirty: %v, want AskFrontend", d)
	}
	// The user cancels; the next close asks again.
	g.Cancel()
	now = now.Add(10 * time.Second)
	if d := g.Request(); d != AskFrontend {
		t.Fatalf("after cancel: %v", d)
	}
	// A second click soon after still waits for the frontend…
	now = now.Add(time.Second)
	if d := g.Request(); d != AskFrontend {
		t.Fatalf("second request within patience: %v", d)
	}
	// …but one after the patience has run out asks natively.
	now = now.Add(3 * time.Second)
	if d := g.Request(); d != AskNative {
		t.Fatalf("frontend silent: %v, want AskNative", d)
	}
	if d := g.Request(); d != AskFrontend {
		t.Fatalf("after a native ask: %v", d)
	}
	g.Allow()
	if d := g.Request(); d != CloseNow {
		t.Fatalf("after Allow: %v", d)
	}
	g2 := &CloseGuard{}
	g2.SetDirty(true)
	g2.SetDirty(false)
	if d := g2.Request(); d != CloseNow {
		t.Fatalf("saved document: %v", d)
	}
}
