//go:build unix

package atomicfile_test

import (
	"errors"
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
		})
	}
}
