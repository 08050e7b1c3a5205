//go:build unix

package atomicfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/atomicfile/atomicfiletest"
)

// TestReadBoundedRefusesWhatIsNotAFile: a FIFO, a socket, a folder or a
// device where a state file is expected is refused at once, with the path
// and what it is, instead of hanging or reading without end.
func TestReadBoundedRefusesWhatIsNotAFile(t *testing.T) {
	want := map[string]string{
		"FIFO": "a FIFO", "FIFO through a symbolic link": "a FIFO", "/dev/zero through a symbolic link": "a device",
		"socket": "a socket", "folder": "a folder",
	}
	for _, sp := range atomicfiletest.Specials() {
		t.Run(sp.Name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "state.json")
			sp.Make(t, p)
			err := atomicfiletest.Prompt(t, "ReadBounded", func() error {
				_, err := atomicfile.ReadBounded(p, 1<<20)
				return err
			})
			var nr *atomicfile.NotRegularError
			if !errors.As(err, &nr) || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), want[sp.Name]) {
				t.Fatalf("err %v, want %q naming %s", err, want[sp.Name], p)
			}
			// Appending to a log: opening a FIFO for writing would wait
			// for a reader.
			err = atomicfiletest.Prompt(t, "OpenFile for appending", func() error {
				f, _, err := atomicfile.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
				if err == nil {
					f.Close()
				}
				return err
			})
			if !errors.As(err, &nr) {
				t.Fatalf("append: err %v", err)
			}
		})
	}
}

func TestOpenFileCreates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log.jsonl")
	if _, _, err := atomicfile.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0o600); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing without O_CREATE: %v", err)
	}
	f, st, err := atomicfile.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil || !st.Mode().IsRegular() {
		t.Fatalf("%v %v", st, err)
	}
	f.WriteString("one\n")
	f.Close()
	if b, err := atomicfile.ReadBounded(p, 10); err != nil || string(b) != "one\n" {
		t.Fatalf("%q %v", b, err)
	}
}
