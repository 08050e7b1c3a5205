//go:build unix

package versions

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFilesArePrivate: versions hold workflows, which can hold
// credentials. A store left with open modes by an earlier Weft is
// tightened by the next save: folders 0700, the new version and the index
// 0600.
func TestFilesArePrivate(t *testing.T) {
	root := filepath.Join(t.TempDir(), "versions")
	s := &Store{Dir: root}
	dir, err := s.folder("wf-1")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(root, 0o755)
	os.Chmod(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, indexFile), []byte(`{"workflow_id":"wf-1","versions":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := s.Save(parse(t, v1), ReasonManual)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{
		root: 0o700, dir: 0o700, filepath.Join(dir, fileName(v.N)): 0o600, filepath.Join(dir, indexFile): 0o600,
	} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("%s: mode %o, want %o", path, got, want)
		}
	}
}
