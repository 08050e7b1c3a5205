package canonpath

import (
	"os"
	"path/filepath"
	"testing"
)

func TestOf(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real := filepath.Join(dir, "a.json")
	if err := os.WriteFile(real, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "b.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	linkDir := filepath.Join(t.TempDir(), "d")
	if err := os.Symlink(dir, linkDir); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for in, want := range map[string]string{
		"":                                 "",
		"  ":                               "",
		real:                               real,
		"a.json":                           real,
		"./x/../a.json":                    real,
		link:                               real, // a link is the file it points to
		filepath.Join(linkDir, "a.json"):   real,
		filepath.Join(linkDir, "new.json"): filepath.Join(dir, "new.json"), // not there yet: its folder resolved
		"new.json":                         filepath.Join(dir, "new.json"),
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}
