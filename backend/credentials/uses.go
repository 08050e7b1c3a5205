package credentials

import (
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// Bounds on the scan for references: a folder with a huge tree (a home
// folder, a checkout with node_modules) must not stall `weft secrets list`.
const (
	maxScanFiles     = 5000
	maxScanFileBytes = 8 << 20
)

// RefRE matches a reference to a secret in a workflow argument,
// {{secrets.NAME}}; group 1 is the name.
var RefRE = regexp.MustCompile(`\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,63})\s*\}\}`)

// skipDirs are folders the scan never enters: Weft's own run folders,
// version control and dependency trees.
var skipDirs = map[string]bool{".git": true, ".weft": true, "node_modules": true, "vendor": true}

// Uses counts, per secret name, the workflow files (*.json) beneath dir
// that refer to it. truncated is set when the scan stopped at its bound
// (maxScanFiles files); larger files and unreadable ones are skipped.
func Uses(dir string) (uses map[string][]string, truncated bool, err error) {
	uses = map[string][]string{}
	seen := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return err
			}
			return nil // an unreadable folder is skipped, not fatal
		}
		if d.IsDir() {
			if p != dir && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".json") {
			return nil
		}
		if seen++; seen > maxScanFiles {
			truncated = true
			return filepath.SkipAll
		}
		b, rerr := atomicfile.ReadBounded(p, maxScanFileBytes)
		if rerr != nil {
			return nil
		}
		named := map[string]bool{}
		for _, m := range RefRE.FindAllSubmatch(b, -1) {
			if n := string(m[1]); !named[n] {
				named[n] = true
				uses[n] = append(uses[n], p)
			}
		}
		return nil
	})
	return uses, truncated, err
}
