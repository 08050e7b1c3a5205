package service

import (
	"log/slog"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/session"
	"github.com/weft-dev/weft/backend/settings"
)

// RemoveStaleTemps removes the temp files a killed Weft left beside the
// files it keeps for the user (settings, approvals, autosave, recent
// files), at start; atomicfile removes those of other files at their next
// save. Only Weft's own temp-file names whose writer is gone are removed.
func RemoveStaleTemps(now time.Time, log *slog.Logger) {
	var paths []string
	if p, err := settings.DefaultPath(); err == nil {
		paths = append(paths, p)
	}
	for _, name := range []string{approval.StoreFile, session.AutosaveFile, session.RecentFile} {
		if p, err := appdirs.DataFile(name); err == nil {
			paths = append(paths, p)
		}
	}
	for _, p := range paths {
		n, err := atomicfile.RemoveStale(p, now)
		if log == nil {
			continue
		}
		if err != nil {
			log.Warn("stale temp files", "file", p, "error", err)
		} else if n > 0 {
			log.Info("removed stale temp files", "file", p, "count", n)
		}
	}
}
