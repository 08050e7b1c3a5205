// Package lastfile remembers the workflow file the person last opened or
// saved, and decides what the editor opens at start: that file, or the
// sample with a notice that says why not (it is gone, it cannot be read,
// the record of it was damaged). The record is one small JSON file in the
// XDG state directory, written atomically; an unsaved document (no path)
// is never recorded.
package lastfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
)

// FileName is the record's name in $XDG_STATE_HOME/weft.
const FileName = "last-file.json"

// maxSize bounds what Start reads: the record holds one path.
const maxSize = 64 << 10

// record is the file's content.
type record struct {
	Path string `json:"path"`
}

// Store reads and writes the record at Path.
type Store struct {
	Path string
	// Now names a damaged record moved aside (time.Now by default).
	Now func() time.Time
}

// DefaultStore is the record in $XDG_STATE_HOME/weft, located afresh so
// that XDG_* changes made after start apply.
func DefaultStore() (*Store, error) {
	p, err := appdirs.StateFile(FileName)
	if err != nil {
		return nil, fmt.Errorf("last file: %w", err)
	}
	return &Store{Path: p}, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Remember records path (made absolute) as the last file.
func (s *Store) Remember(path string) error {
	if strings.TrimSpace(path) == "" {
		return errors.New("last file: an unsaved workflow has no file to remember")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("last file: %w", err)
	}
	if err := atomicfile.WriteJSON(s.Path, record{Path: abs}, 0o600); err != nil {
		return fmt.Errorf("last file: record %s: %w", abs, err)
	}
	return nil
}

// Forget removes the record: the next start opens the sample.
func (s *Store) Forget() error {
	if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("last file: %w", err)
	}
	return nil
}

// Last returns the recorded path, "" when there is none. A damaged record
// is moved aside (kept for the person to look at) and said in notice.
func (s *Store) Last() (path, notice string) {
	var r record
	moved, err := atomicfile.ReadJSON(s.Path, maxSize, &r, s.now())
	if err != nil {
		where := ""
		if moved != "" {
			where = " (moved to " + moved + ")"
		}
		return "", sampleNotice(fmt.Errorf("the record of the last workflow could not be read%s: %w", where, err))
	}
	if r.Path == "" {
		return "", ""
	}
	if !filepath.IsAbs(r.Path) {
		_ = s.Forget()
		return "", sampleNotice(fmt.Errorf("the record of the last workflow holds %q, which is not an absolute path", r.Path))
	}
	return r.Path, ""
}

// Open opens what the editor shows at start: the last file (open), or the
// sample (sample) when there is none, or the last file is gone or cannot
// be opened. notice says why the sample opened instead of the last file
// ("" when there was no last file, or it opened). A file that failed is
// forgotten, so the notice is said once; the person can open it again.
// The error is the sample's own: nothing opened.
func Open[T any](s *Store, open func(path string) (T, error), sample func() (T, error)) (doc T, notice string, err error) {
	if s != nil {
		path, why := s.Last()
		notice = why
		if path != "" {
			doc, err := openLast(path, open)
			if err == nil {
				return doc, "", nil
			}
			notice = sampleNotice(err)
			_ = s.Forget()
		}
	}
	doc, err = sample()
	return doc, notice, err
}

// sampleNotice is what the person reads when the sample opens instead of the
// last file: why.
func sampleNotice(why error) string {
	return "Opened the sample instead of the last workflow: " + why.Error()
}

// openLast opens path, saying why not in words a person reads at start.
func openLast[T any](path string, open func(string) (T, error)) (T, error) {
	var zero T
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return zero, fmt.Errorf("the last workflow, %s, is no longer there", path)
	case err != nil:
		return zero, fmt.Errorf("the last workflow, %s, cannot be read: %w", path, err)
	case !fi.Mode().IsRegular():
		return zero, fmt.Errorf("the last workflow, %s, is %s, not a file", path, atomicfile.Describe(fi.Mode()))
	}
	doc, err := open(path)
	if err != nil {
		return zero, fmt.Errorf("the last workflow, %s, could not be opened: %w", path, err)
	}
	return doc, nil
}
