package lastfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// opener opens a "workflow" as its content; sample gives "SAMPLE".
func opener(t *testing.T) (open func(string) (string, error), sample func() (string, error)) {
	open = func(p string) (string, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		if string(b) == "broken" {
			return "", errors.New("not a workflow: line 1")
		}
		return string(b), nil
	}
	sample = func() (string, error) { return "SAMPLE", nil }
	return open, sample
}

func newStore(t *testing.T) *Store {
	t.Helper()
	return &Store{Path: filepath.Join(t.TempDir(), "state", FileName), Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestNoRecordOpensTheSampleSilently(t *testing.T) {
	s := newStore(t)
	open, sample := opener(t)
	doc, notice, err := Open(s, open, sample)
	if err != nil || doc != "SAMPLE" || notice != "" {
		t.Fatalf("Open = %q, %q, %v; want the sample and no notice", doc, notice, err)
	}
	// No store at all (an App made in a test) is the same.
	doc, notice, err = Open[string](nil, open, sample)
	if err != nil || doc != "SAMPLE" || notice != "" {
		t.Fatalf("Open(nil) = %q, %q, %v", doc, notice, err)
	}
}

// Paths a person may well have: spaces, quotes, non-ASCII, shell and JSON
// syntax, a line break. Each is recorded and reopened as it is.
func TestRemembersPathsWithOddCharacters(t *testing.T) {
	names := []string{
		"plain.json",
		"with space.json",
		`quote " and 'single'.json`,
		"ünïcødé 日本語 🚀.json",
		`back\slash.json`,
		"$(rm -rf ~); `x` & y|z.json",
		"line\nbreak.json",
		"{\"path\": \"other\"}.json",
		"-starts-with-dash.json",
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			path := filepath.Join(t.TempDir(), "dir with space", name)
			writeFile(t, path, "content of "+name)
			if err := s.Remember(path); err != nil {
				t.Fatal(err)
			}
			if got, notice := s.Last(); got != path || notice != "" {
				t.Fatalf("Last = %q, %q; want %q", got, notice, path)
			}
			open, sample := opener(t)
			doc, notice, err := Open(s, open, sample)
			if err != nil || doc != "content of "+name || notice != "" {
				t.Fatalf("Open = %q, %q, %v", doc, notice, err)
			}
		})
	}
}

func TestRememberMakesThePathAbsoluteAndRefusesNone(t *testing.T) {
	s := newStore(t)
	t.Chdir(t.TempDir())
	if err := s.Remember("rel.json"); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if got, _ := s.Last(); got != filepath.Join(wd, "rel.json") {
		t.Errorf("Last = %q, want it absolute", got)
	}
	for _, p := range []string{"", "  "} {
		if err := s.Remember(p); err == nil {
			t.Errorf("Remember(%q) = nil; an unsaved workflow is no last file", p)
		}
	}
	// The refused ones left the last file as it was.
	if got, _ := s.Last(); got != filepath.Join(wd, "rel.json") {
		t.Errorf("Last = %q after refused Remembers", got)
	}
}

func TestDeletedFileOpensTheSampleAndSaysSoOnce(t *testing.T) {
	s := newStore(t)
	path := filepath.Join(t.TempDir(), "flow.json")
	writeFile(t, path, "x")
	if err := s.Remember(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	open, sample := opener(t)
	doc, notice, err := Open(s, open, sample)
	if err != nil || doc != "SAMPLE" {
		t.Fatalf("Open = %q, %v; want the sample", doc, err)
	}
	if !strings.Contains(notice, path) || !strings.Contains(notice, "no longer there") {
		t.Errorf("notice %q does not say the file %s is gone", notice, path)
	}
	if _, notice, _ = Open(s, open, sample); notice != "" {
		t.Errorf("second start says again: %q", notice)
	}
}

func TestUnopenableFileOpensTheSampleWithTheReason(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(t *testing.T) string{
		"not a workflow": func(t *testing.T) string {
			p := filepath.Join(dir, "broken.json")
			writeFile(t, p, "broken")
			return p
		},
		"a folder": func(t *testing.T) string {
			p := filepath.Join(dir, "folder.json")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		},
	}
	want := map[string]string{"not a workflow": "not a workflow: line 1", "a folder": "is a folder, not a file"}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			path := mk(t)
			if err := s.Remember(path); err != nil {
				t.Fatal(err)
			}
			open, sample := opener(t)
			doc, notice, err := Open(s, open, sample)
			if err != nil || doc != "SAMPLE" {
				t.Fatalf("Open = %q, %v", doc, err)
			}
			if !strings.Contains(notice, path) || !strings.Contains(notice, want[name]) || !strings.HasPrefix(notice, "Opened the sample") {
				t.Errorf("notice = %q; want it to name %s and say %q", notice, path, want[name])
			}
		})
	}
}

func TestDamagedRecordIsMovedAsideAndSaid(t *testing.T) {
	for name, content := range map[string]string{
		"not JSON":       "{\"path\": ",
		"wrong type":     `{"path": 42}`,
		"binary":         "\x00\xff\xfe",
		"relative path":  `{"path": "flow.json"}`,
		"too large file": `{"path": "` + strings.Repeat("a", maxSize) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t)
			writeFile(t, s.Path, content)
			open, sample := opener(t)
			doc, notice, err := Open(s, open, sample)
			if err != nil || doc != "SAMPLE" {
				t.Fatalf("Open = %q, %v", doc, err)
			}
			if !strings.Contains(notice, "record of the last workflow") {
				t.Errorf("notice = %q; want it to say the record is damaged", notice)
			}
			if _, err := os.Stat(s.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the damaged record is still in place (%v)", err)
			}
			// The next start is quiet, and remembering works again.
			if _, notice, _ := Open(s, open, sample); notice != "" {
				t.Errorf("second start: %q", notice)
			}
			p := filepath.Join(t.TempDir(), "ok.json")
			writeFile(t, p, "ok")
			if err := s.Remember(p); err != nil {
				t.Fatal(err)
			}
			if doc, _, _ := Open(s, open, sample); doc != "ok" {
				t.Errorf("after a new Remember: %q", doc)
			}
		})
	}
}

func TestSampleErrorIsReturned(t *testing.T) {
	s := newStore(t)
	open, _ := opener(t)
	_, _, err := Open(s, open, func() (string, error) { return "", errors.New("sample broken") })
	if err == nil || err.Error() != "sample broken" {
		t.Errorf("err = %v", err)
	}
}

func TestDefaultStoreIsInXDGState(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	s, err := DefaultStore()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "weft", FileName); s.Path != want {
		t.Errorf("Path = %q, want %q", s.Path, want)
	}
	p := filepath.Join(t.TempDir(), "a.json")
	if err := s.Remember(p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(s.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record: %v, %v; want a private file", fi, err)
	}
}
