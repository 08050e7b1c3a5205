// Package atomicfile writes files so that a crash or a full disk never
// leaves a half-written file behind and never loses the previous version.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// WriteFile writes data to a temp file beside path, fsyncs it, renames it
// over path and fsyncs the directory. On any error the old file is
// untouched and the temp file is removed.
//
// If path is a symbolic link, the link's target is replaced and the link
// stays a link (editors and dotfile managers rely on that). An existing
// file keeps its permission bits (a 0600 workflow stays 0600) unless perm
// is private to the owner (no group or other bits), which is then always
// applied; a new file gets perm.
//
// Before writing, temp files an earlier WriteFile of the same path left
// behind when its process was killed are removed (see RemoveStale).
func WriteFile(path string, data []byte, perm os.FileMode) (err error) {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	// A rename puts a new file where the old one was: over a device, a
	// FIFO or a socket (a link to /dev/null, say) it would replace that
	// node, not write to it. Only a regular file (or none) is replaced.
	if st, err := os.Stat(target); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("write %s: it is %s, not a regular file: Weft replaces regular files only", target, Describe(st.Mode()))
	}
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	// A private perm is what files holding secrets ask for: it is always
	// applied, so a loosened settings file is tightened again. Otherwise
	// the file keeps the mode its owner gave it.
	if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() && perm&0o077 != 0 {
		perm = st.Mode().Perm()
	}
	// Best effort: litter must never stop a save.
	_, _ = RemoveStale(target, time.Now())

	// The writer's pid in the name lets a later writer tell a crashed
	// writer's litter from a write still under way.
	f, err := os.CreateTemp(dir, tempPrefix(target)+strconv.Itoa(os.Getpid())+"-*")
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
	if err = os.Rename(tmp, target); err != nil {
		return fmt.Errorf("replace %s: %w", target, err)
	}
	if d, derr := os.Open(dir); derr == nil {
		d.Sync() // best effort: some filesystems refuse directory fsync
		d.Close()
	}
	return nil
}

// maxLinkHops bounds the walk along a chain of links, as the kernel does
// (ELOOP), so a link cycle is an error, not a hang.
const maxLinkHops = 40

// resolve follows path's final symbolic links to the file that should be
// replaced. A dangling link resolves to the file it names, so the first
// save through it creates that file rather than replacing the link.
func resolve(path string) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&os.ModeSymlink == 0 {
		return path, nil // missing or not a link: write path itself
	}
	if target, err := filepath.EvalSymlinks(path); err == nil {
		return target, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("resolve link %s: %w", path, err)
	}
	p := path
	for i := 0; i < maxLinkHops; i++ {
		st, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", fmt.Errorf("resolve link %s: %w", path, err)
		}
		if st.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("resolve link %s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("resolve link %s: more than %d links", path, maxLinkHops)
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
