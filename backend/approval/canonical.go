package approval

import (
	"path/filepath"
	"strings"
)

// Canonical is the one name of the file at path that approvals and trust
// are recorded under: absolute, cleaned, with symbolic links resolved (of
// the file, or of its folder when the file does not exist yet), so two
// spellings of one file share their approvals and a link elsewhere does
// not. "" stays "" (an unsaved workflow).
func Canonical(path string) string {
	if strings.TrimSpace(path) == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}
