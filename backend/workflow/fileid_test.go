package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
)

const noID = `{"format":"weft/v1","name":"n","nodes":[],"edges":[]}`

// A file without an id has one id, whichever way it is read: Load, or
// ParseFile of its bytes under any spelling of its path; Parse of bytes
// that are no file's keeps giving fresh ones.
func TestFileWithoutIDHasOneID(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a.json")
	if err := os.WriteFile(path, []byte(noID), 0o600); err != nil {
		t.Fatal(err)
	}
	want := FileID(path)
	if u, err := uuid.Parse(want); err != nil || u.Version() != 5 {
		t.Fatalf("FileID = %q: want a name-based UUID (version 5), err %v", want, err)
	}
	spellings := []string{path, filepath.Join(dir, ".", "x", "..", "a.json")}
	if err := os.Symlink(path, filepath.Join(dir, "link.json")); err == nil {
		spellings = append(spellings, filepath.Join(dir, "link.json"))
	}
	for _, p := range spellings {
		for i := 0; i < 3; i++ {
			w, _, err := Load(p)
			if err != nil {
				t.Fatal(err)
			}
			if w.ID != want {
				t.Errorf("Load(%s) #%d: id %q, want %q", p, i, w.ID, want)
			}
			w, _, err = ParseFile(p, []byte(noID))
			if err != nil || w.ID != want {
				t.Errorf("ParseFile(%s): id %q (%v), want %q", p, w.ID, err, want)
			}
		}
	}
	// Another file, even with the same bytes, is another workflow.
	other := filepath.Join(dir, "b.json")
	if FileID(other) == want {
		t.Errorf("two files share the derived id %s", want)
	}
	seen := map[string]bool{}
	for i := 0; i < 5; i++ {
		w, _, err := Parse([]byte(noID))
		if err != nil {
			t.Fatal(err)
		}
		if w.ID == "" || w.ID == want || seen[w.ID] {
			t.Fatalf("Parse without a path: id %q (derived %s, seen before %v)", w.ID, want, seen[w.ID])
		}
		seen[w.ID] = true
	}
	if a, b := FileID(""), FileID(""); a == b {
		t.Error("FileID without a path should be fresh each time")
	}
}

// An id in the file wins over the path; the derived one is written by the
// next save, after which the file keeps it wherever it goes.
func TestFileIDIsWrittenBySave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.json")
	w, _, err := ParseFile(path, []byte(strings.Replace(noID, `"name"`, `"id":"mine","name"`, 1)))
	if err != nil || w.ID != "mine" {
		t.Fatalf("an id in the file: got %q (%v)", w.ID, err)
	}
	if err := os.WriteFile(path, []byte(noID), 0o600); err != nil {
		t.Fatal(err)
	}
	w, _, err = Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(path, w); err != nil {
		t.Fatal(err)
	}
	moved := filepath.Join(dir, "moved.json")
	if err := os.Rename(path, moved); err != nil {
		t.Fatal(err)
	}
	got, _, err := Load(moved)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != FileID(path) {
		t.Errorf("after a save and a move: id %q, want the one derived before, %q", got.ID, FileID(path))
	}
}
