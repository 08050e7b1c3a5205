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
