//go:build unix

// Package atomicfiletest puts what is not a regular file where a reader
// expects one (a FIFO, a socket, a folder, a device through a symbolic
// link), and guards against a reader that hangs on it.
package atomicfiletest

import (
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Special is one kind of non-regular file.
type Special struct {
	Name string
	// Make puts it at path (whose folder exists), removing what is there.
	Make func(t testing.TB, path string)
}

// Specials are the kinds a reader of state files must refuse promptly.
func Specials() []Special {
	return []Special{
		{"FIFO", func(t testing.TB, p string) { clear(t, p); mkfifo(t, p) }},
		{"FIFO through a symbolic link", func(t testing.TB, p string) {
			clear(t, p)
			fifo := filepath.Join(t.TempDir(), "fifo")
			mkfifo(t, fifo)
			symlink(t, fifo, p)
		}},
		{"/dev/zero through a symbolic link", func(t testing.TB, p string) { clear(t, p); symlink(t, "/dev/zero", p) }},
		{"socket", func(t testing.TB, p string) {
			clear(t, p)
			// Bound where the path is short enough for a socket's
			// address, then moved into place.
			short, err := os.MkdirTemp("", "sock")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(short) })
			l, err := net.Listen("unix", filepath.Join(short, "s"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			if err := os.Rename(filepath.Join(short, "s"), p); err != nil {
				t.Fatal(err)
			}
		}},
		{"folder", func(t testing.TB, p string) {
			clear(t, p)
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
	}
}

// Hang is how long Prompt waits before it calls the reader hung: far
// longer than any read of a small file takes, so it never fails a slow
// machine, and short enough that a hang fails the test instead of the
// whole test binary's timeout.
const Hang = 30 * time.Second

// Prompt runs read and returns its error; if it has not returned after
// Hang, the test fails: the reader hangs (and its goroutine is left).
func Prompt(t testing.TB, what string, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(Hang):
		t.Fatalf("%s: still reading after %v: it hangs", what, Hang)
		return nil
	}
}

func clear(t testing.TB, p string) {
	if err := os.RemoveAll(p); err != nil {
		t.Fatal(err)
	}
}

func mkfifo(t testing.TB, p string) {
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

func symlink(t testing.TB, target, p string) {
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}
