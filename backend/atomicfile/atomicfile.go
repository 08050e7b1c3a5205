// Package atomicfile writes files so that a crash or a full disk never
// leaves a half-written file behind and never loses the previous version.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// WriteFile writes data to a temp file in path's directory, fsyncs it,
// renames it over path and fsyncs the directory. On any error the old file
// is untouched and the temp file is removed.
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temp file in %s: %w", dir, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", tmp, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", tmp, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp, err)
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: some filesystems refuse directory fsync
		d.Close()
	}
	return nil
}

// MoveAside renames a file that could not be read to
// <path>.corrupt-<timestamp> so the user can inspect or recover it, and
// returns the new name.
func MoveAside(path string, now time.Time) (string, error) {
	dst := fmt.Sprintf("%s.corrupt-%s", path, now.UTC().Format("20060102T150405.000000000Z"))
	if err := os.Rename(path, dst); err != nil {
		return "", fmt.Errorf("move corrupt %s aside: %w", path, err)
	}
	return dst, nil
}

// ReadBounded reads a whole file unless it is larger than limit bytes, so a
// wrong or hostile file cannot exhaust memory.
func ReadBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the %d byte limit", path, st.Size(), limit)
	}
	// Read at most limit+1 bytes: the file may grow after the Stat.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the %d byte limit", path, limit)
	}
	return data, nil
}
