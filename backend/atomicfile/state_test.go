package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestReadJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	v := map[string]int{"kept": 1}
	if moved, err := ReadJSON(p, 100, &v, time.Now()); err != nil || moved != "" || v["kept"] != 1 {
		t.Fatalf("missing file: %q, %v, %v", moved, err, v)
	}
	os.WriteFile(p, []byte(`{"a": 2}`), 0o600)
	if _, err := ReadJSON(p, 100, &v, time.Now()); err != nil || v["a"] != 2 {
		t.Fatalf("good file: %v, %v", err, v)
	}
	for _, bad := range []string{`{"a": `, `{"a": 1}` + string(make([]byte, 200))} {
		os.WriteFile(p, []byte(bad), 0o600)
		moved, err := ReadJSON(p, 100, &v, time.Now())
		if err == nil || moved == "" {
			t.Fatalf("bad file %.10q: %q, %v", bad, moved, err)
		}
		if _, err := os.Stat(moved); err != nil {
			t.Fatalf("moved file gone: %v", err)
		}
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("bad file still at its path: %v", err)
		}
	}
}
