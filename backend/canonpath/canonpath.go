// Package canonpath is the one name of a file: what approvals, file trust
// and a workflow's identity (a file without an id) are recorded under. It
// is a leaf, so workflow and approval can both use it.
package canonpath

import (
	"path/filepath"
	"strings"
)

// Of is the canonical name of the file at path: absolute, cleaned, with
// symbolic links resolved (of the file, or of its folder when the file
// does not exist yet), so two spellings of one file share one name and a
// link elsewhere does not. "" stays "" (an unsaved workflow).
func Of(path string) string {
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
