package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/trigger"
)

// Defaults is the Config of weft serve for dir on this machine: what each
// trigger handled in $XDG_STATE_HOME/weft/triggers, secrets from the
// credentials store, the default limits.
func Defaults(dir string, getenv func(string) string) (Config, error) {
	store, err := credentials.Default(getenv)
	if err != nil {
		return Config{}, fmt.Errorf("the credentials store: %w", err)
	}
	state, err := appdirs.StateFile("triggers", "x")
	if err != nil {
		return Config{}, err
	}
	return Config{Dir: dir, StateDir: filepath.Dir(state), Secrets: store, Limits: trigger.DefaultLimits}, nil
}

// Unit is the systemd user service that keeps `weft serve` running for
// cfg.Dir with flags (as typed after DIR), as sd would install it (the
// text to show, and the command it runs: self, the program). The folder
// is checked first, as weft serve checks it when it starts: a unit is
// only made for a folder that serves.
func Unit(ctx context.Context, cfg Config, svc Service, sd schedule.Systemd, self string, flags []string) (entry string, command []string, err error) {
	srv, err := Load(ctx, cfg, svc)
	if err != nil {
		return "", nil, err
	}
	srv.Close()
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return "", nil, err
	}
	command = append([]string{self, "serve", dir}, flags...)
	entry, err = sd.ServeEntry(dir, command)
	return entry, command, err
}

// Self is this program, which the unit runs (the weft CLI, or the desktop
// binary, which is the CLI when started with a command).
func Self() (string, error) {
	p, err := os.Executable()
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}
