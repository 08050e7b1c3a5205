//go:build unix

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A save never replaces what is not a regular file: a FIFO, a folder, a
// device (made here, never a real one), directly or through a link, stay
// as they were. (A rename over /dev/null would replace the device.)
func TestWriteFileReplacesRegularFilesOnly(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)
	paths := []string{fifo, sub}
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o600, 1<<8|3); err == nil { // as root: a char device of our own
		paths = append(paths, dev)
	}
	for _, p := range append([]string(nil), paths...) {
		link := p + ".link"
		os.Symlink(p, link)
		paths = append(paths, link)
	}
	for _, p := range paths {
		before, _ := os.Stat(p)
		if err := WriteFile(p, []byte("x"), 0o600); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v", p, err)
		}
		after, err := os.Stat(p)
		if err != nil || after.Mode() != before.Mode() {
			t.Fatalf("%s changed: %v → %v (%v)", p, before.Mode(), after, err)
		}
	}
}
