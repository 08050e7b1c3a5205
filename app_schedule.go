package main

// The scheduled runs the person should hear of when the app opens: a
// schedule's last run failed, or a due run is missing (the schedules are
// made with `weft schedule add`; backend/schedule, backend/service).

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/schedule"
)

// ScheduleNotices says, one line a schedule, which scheduled workflows
// need attention.
func (a *App) ScheduleNotices() []string {
	path, err := appdirs.ConfigFile("schedules.json")
	if err != nil {
		return []string{"The schedules could not be read: " + err.Error()}
	}
	all, err := (&schedule.Manager{Path: path}).List()
	if err != nil {
		return []string{"The schedules could not be read: " + err.Error()}
	}
	out := []string{}
	for _, st := range a.service().ScheduleStates(all, time.Now()) {
		if st.Attention {
			out = append(out, fmt.Sprintf("Scheduled run of %s (%s, weft schedule list): %s", filepath.Base(st.File), st.Cron, st.State))
		}
	}
	return out
}
