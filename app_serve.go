package main

// Triggers: the desktop offers to keep `weft serve` running for the open
// workflow's folder as a systemd user service, showing the unit first and
// installing only what was shown. The decisions (the folder's checks, the
// unit's text, installing) are backend/serve's and backend/schedule's,
// the same as `weft serve DIR --unit / --install`.

import (
	"os"
	"path/filepath"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/serve"
)

// ServeUnitView is the unit that would keep weft serve running for a
// folder, or why there is none.
type ServeUnitView struct {
	// Entry is the unit file as it will be written, after a comment naming
	// its path; "" when Refused says why not.
	Entry   string `json:"entry"`
	Refused string `json:"refused,omitempty"`
	// Name is the unit's name (systemctl --user status NAME).
	Name string `json:"name"`
}

// ServeUnit shows the systemd user service that would serve the triggers
// of the workflows in the folder of the workflow file at path: refused,
// with every reason, when one of them cannot be served (not reviewed, a
// trigger that cannot fill an input, a missing secret…) or this machine
// has no systemd user instance.
func (a *App) ServeUnit(path string) (ServeUnitView, error) {
	dir := filepath.Dir(path)
	entry, _, err := a.serveUnit(dir)
	if err != nil {
		return ServeUnitView{Refused: err.Error(), Name: schedule.ServeUnitName(dir)}, nil
	}
	return ServeUnitView{Entry: entry, Name: schedule.ServeUnitName(dir)}, nil
}

// InstallServeUnit installs and starts the unit for the folder of the file
// at path, only if it is still exactly shown (what ServeUnit gave).
func (a *App) InstallServeUnit(path, shown string) error {
	dir := filepath.Dir(path)
	_, command, err := a.serveUnit(dir)
	if err != nil {
		return err
	}
	sd, err := a.service().UserSystemd(a.context())
	if err != nil {
		return err
	}
	return sd.InstallServe(a.context(), command[2], command, shown)
}

func (a *App) serveUnit(dir string) (string, []string, error) {
	cfg, err := serve.Defaults(dir, os.Getenv)
	if err != nil {
		return "", nil, err
	}
	self, err := serve.Self()
	if err != nil {
		return "", nil, err
	}
	sd, err := a.service().UserSystemd(a.context())
	if err != nil {
		return "", nil, err
	}
	return serve.Unit(a.context(), cfg, a.service(), sd, self, nil)
}
