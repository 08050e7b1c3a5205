package approval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The trust index: bytes recorded at a path are trusted there and nowhere
// else; other bytes are not, with the copy of what was trusted; a corrupt
// index is moved aside and trusts nothing; a FIFO there does not hang.
func TestTrustIndex(t *testing.T) {
	data := t.TempDir()
	tr := OpenTrust(filepath.Join(data, TrustFile))
	dir := t.TempDir()
	at, other := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	v1, v2 := []byte(`{"v":1}`), []byte(`{"v":2}`)
	if st, _ := tr.State(at, v1); st.Trusted || st.Previous != nil {
		t.Fatalf("unknown file: %+v", st)
	}
	if err := tr.Record(at, v1, "test"); err != nil {
		t.Fatal(err)
	}
	if st, _ := tr.State(at, v1); !st.Trusted {
		t.Fatalf("recorded bytes: %+v", st)
	}
	if st, _ := tr.State(other, v1); st.Trusted {
		t.Fatal("trust travelled to another path")
	}
	st, _ := tr.State(at, v2)
	if st.Trusted || string(st.Previous) != string(v1) || !strings.Contains(st.Why, "changed") {
		t.Fatalf("changed bytes: %+v", st)
	}
	if fi, err := os.Stat(filepath.Join(data, TrustCopies, Sum(v1)+".json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("copy %v %v", fi, err)
	}
	// A newer content replaces the copy nobody refers to any more.
	tr.Record(at, v2, "test")
	if _, err := os.Stat(filepath.Join(data, TrustCopies, Sum(v1)+".json")); err == nil {
		t.Fatal("an unused copy was kept")
	}
	os.WriteFile(filepath.Join(data, TrustFile), []byte("{not json"), 0o600)
	st, err := tr.State(at, v2)
	if st.Trusted || err == nil || !strings.Contains(err.Error(), "moved it to") {
		t.Fatalf("corrupt index: %+v %v", st, err)
	}
}
