package service

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
)

func TestRemoveStaleTempsAtStart(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := filepath.Join(data, "weft")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// A temp file of a writer that is long gone (pid 1 is not us, and the
	// file is older than the stale age), and someone else's file.
	stale := filepath.Join(dir, "."+approval.StoreFile+".tmp-999999999-123")
	keep := filepath.Join(dir, "notes.tmp-1")
	for _, p := range []string{stale, keep} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	RemoveStaleTemps(time.Now(), nil)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Fatalf("stale temp file kept: %v", err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("another file was removed: %v", err)
	}
}
