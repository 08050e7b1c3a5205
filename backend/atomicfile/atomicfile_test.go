package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWriteFileReplacesAndSetsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "f.json")
	if err := WriteFile(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	st, _ := os.Stat(p)
	if string(b) != "two" || st.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %o", b, st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Fatalf("temp files left: %v", entries)
	}
}

func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A directory in the way of the rename: the write must fail cleanly.
	target := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	if err := WriteFile(target, []byte("new"), 0o644); err == nil {
		t.Fatal("rename over a non-empty directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Fatalf("temp file left: %s", e.Name())
		}
	}
	b, _ := os.ReadFile(p)
	if string(b) != "old" {
		t.Fatal("old file changed")
	}
}

func TestMoveAside(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	os.WriteFile(p, []byte("{bad"), 0o600)
	dst, err := MoveAside(p, time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dst), "settings.json.corrupt-20261121T100000") {
		t.Fatalf("name %s", dst)
	}
	if b, _ := os.ReadFile(dst); string(b) != "{bad" {
		t.Fatal("content lost")
	}
	if _, err := MoveAside(p, time.Now()); err == nil {
		t.Fatal("moving a missing file succeeded")
	}
}

func TestReadBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, []byte("12345"), 0o600)
	if b, err := ReadBounded(p, 5); err != nil || string(b) != "12345" {
		t.Fatalf("at the limit: %q %v", b, err)
	}
	if _, err := ReadBounded(p, 4); err == nil || !strings.Contains(err.Error(), "over the 4 byte limit") {
		t.Fatalf("over the limit: %v", err)
	}
	if _, err := ReadBounded(filepath.Join(t.TempDir(), "missing"), 4); !os.IsNotExist(err) {
		t.Fatalf("missing: %v", err)
	}
}

func TestWriteFileKeepsModeOfExistingFile(t *testing.T) {
	cases := []struct {
		name     string
		existing os.FileMode // 0: no file before
		perm     os.FileMode
		want     os.FileMode
	}{
		{"new file gets perm", 0, 0o640, 0o640},
		{"private workflow stays private", 0o600, 0o644, 0o600},
		{"shared workflow stays shared", 0o664, 0o644, 0o664},
		{"a private perm tightens a loosened file", 0o644, 0o600, 0o600},
		{"executable bit kept", 0o755, 0o644, 0o755},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "wf.json")
			if tc.existing != 0 {
				os.WriteFile(p, []byte("old"), 0o600)
				if err := os.Chmod(p, tc.existing); err != nil {
					t.Fatal(err)
				}
			}
			if err := WriteFile(p, []byte("new"), tc.perm); err != nil {
				t.Fatal(err)
			}
			st, _ := os.Stat(p)
			if st.Mode().Perm() != tc.want {
				t.Fatalf("mode %o, want %o", st.Mode().Perm(), tc.want)
			}
		})
	}
}

func TestWriteFileThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	realDir := filepath.Join(dir, "dotfiles")
	os.Mkdir(realDir, 0o755)
	target := filepath.Join(realDir, "wf.json")
	os.WriteFile(target, []byte("old"), 0o600)
	link := filepath.Join(dir, "wf.json")
	if err := os.Symlink("dotfiles/wf.json", link); err != nil {
		t.Skip("symlinks unsupported:", err)
	}
	// A chain: link2 -> link -> target.
	link2 := filepath.Join(dir, "again.json")
	os.Symlink(link, link2)
	for i, p := range []string{link, link2} {
		want := []string{"one", "two"}[i]
		if err := WriteFile(p, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Lstat(p); st.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s was replaced by a regular file", p)
		}
		if b, _ := os.ReadFile(target); string(b) != want {
			t.Fatalf("target holds %q, want %q", b, want)
		}
		if st, _ := os.Stat(target); st.Mode().Perm() != 0o600 {
			t.Fatalf("target mode %o", st.Mode().Perm())
		}
	}
	for _, d := range []string{dir, realDir} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.Contains(e.Name(), ".tmp-") {
				t.Fatalf("temp file left: %s", e.Name())
			}
		}
	}

	// A dangling link: the first save creates the file it names.
	dangling := filepath.Join(dir, "new.json")
	os.Symlink("dotfiles/created.json", dangling)
	if err := WriteFile(dangling, []byte("hi"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(realDir, "created.json")); string(b) != "hi" {
		t.Fatalf("dangling link target holds %q", b)
	}
	if st, _ := os.Lstat(dangling); st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("dangling link replaced")
	}

	// A link cycle is an error, not a hang, and writes nothing.
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	if err := WriteFile(a, []byte("x"), 0o644); err == nil {
		t.Fatal("writing through a link cycle succeeded")
	}
}
