package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// ServeUnitName is the systemd user service that runs weft serve for the
// folder dir (absolute): one per folder, named by its path's hash.
func ServeUnitName(dir string) string {
	h := sha256.Sum256([]byte(dir))
	return "weft-serve-" + hex.EncodeToString(h[:6]) + ".service"
}

// ServeUnit renders the systemd user service that keeps `weft serve`
// running for dir (command is its whole argument list, the program first),
// by the same rules as a schedule's units: restarted when it fails, started
// with the user's session.
func ServeUnit(dir string, command []string) (string, error) {
	if len(command) == 0 {
		return "", errors.New("weft serve: no command to run")
	}
	wd, err := unitPath(dir)
	if err != nil {
		return "", fmt.Errorf("systemd cannot start weft serve in %q: %w", dir, err)
	}
	exec, err := execLine(command)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("[Unit]\nDescription=Weft triggers beneath %s\n\n[Service]\nType=simple\nWorkingDirectory=%s\nExecStart=%s\nRestart=on-failure\nRestartSec=5\n\n[Install]\nWantedBy=default.target\n",
		unitText(dir), wd, exec), nil
}

// ServeEntry is what InstallServe writes, after a comment naming its path:
// shown before anything is installed.
func (d Systemd) ServeEntry(dir string, command []string) (string, error) {
	text, err := ServeUnit(dir, command)
	if err != nil {
		return "", err
	}
	return "# " + filepath.Join(d.Dir, ServeUnitName(dir)) + "\n" + text, nil
}

// InstallServe writes the unit for dir only if it is exactly shown (the
// text ServeEntry gave the person), then enables and starts it.
func (d Systemd) InstallServe(ctx context.Context, dir string, command []string, shown string) error {
	entry, err := d.ServeEntry(dir, command)
	if err != nil {
		return err
	}
	if entry != shown {
		return errors.New("weft serve: the unit is not the one shown; nothing was installed")
	}
	text, _ := ServeUnit(dir, command)
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return err
	}
	name := ServeUnitName(dir)
	if err := atomicfile.WriteFile(filepath.Join(d.Dir, name), []byte(text), 0o644); err != nil {
		return err
	}
	if err := d.systemctl(ctx, "daemon-reload"); err != nil {
		return err
	}
	return d.systemctl(ctx, "enable", "--now", name)
}
