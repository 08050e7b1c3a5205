package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// StaleAge is how long a temp file must have gone unmodified before it is
// taken for litter even when its writer cannot be shown to be gone. A
// writer still under way touches its file far more often than this; a
// large write over a slow disk fsyncs once, after the last byte, so its
// modification time still moves while it writes.
const StaleAge = 10 * time.Minute

// maxStaleScan bounds the directory entries RemoveStale looks at, so a
// folder with very many files cannot slow every save (in such a folder,
// litter beyond the entries read may stay).
const maxStaleScan = 10_000

// tempPrefix is the start of every temp file name WriteFile uses for path.
func tempPrefix(path string) string { return "." + filepath.Base(path) + ".tmp-" }

// RemoveStale removes the temp files a killed WriteFile of path left in
// path's folder, and returns how many it removed. It only ever touches
// names WriteFile makes for this path — ".<name>.tmp-<pid>-<digits>", or
// ".<name>.tmp-<digits>" from earlier versions — and among those only files
// whose writer process is gone (the pid is not running on this machine) or
// that have not been modified for StaleAge. A concurrent writer's fresh
// temp file is left alone.
//
// WriteFile calls it before every write; programs may also call it at
// start for the files they own, so litter from a crash does not wait for
// the next save.
func RemoveStale(path string, now time.Time) (int, error) {
	target, err := resolve(path)
	if err != nil {
		return 0, err
	}
	dir := filepath.Dir(target)
	d, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("clean temp files in %s: %w", dir, err)
	}
	defer d.Close()
	names, err := d.Readdirnames(maxStaleScan)
	if err != nil && len(names) == 0 {
		return 0, nil // empty folder (io.EOF) or unreadable: nothing to do
	}
	prefix := tempPrefix(target)
	removed := 0
	var errs []error
	for _, name := range names {
		pid, ok := parseTempName(name, prefix)
		if !ok {
			continue
		}
		p := filepath.Join(dir, name)
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue // gone meanwhile, or not something WriteFile made
		}
		old := now.Sub(st.ModTime()) >= StaleAge
		gone := pid > 0 && pid != os.Getpid() && processGone(pid)
		if !old && !gone {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove stale temp file %s: %w", p, err))
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// parseTempName reports whether name is one of WriteFile's temp names for
// prefix, and the writer's pid when the name carries one (0 otherwise).
func parseTempName(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	pidPart, random, hasPid := strings.Cut(rest, "-")
	if !hasPid {
		return 0, allDigits(rest) // the form before pids were recorded
	}
	if !allDigits(pidPart) || !allDigits(random) {
		return 0, false
	}
	pid, err := strconv.Atoi(pidPart)
	if err != nil {
		return 0, false
	}
	return pid, true
}

func allDigits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
