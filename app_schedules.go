package main

// Schedules: the Schedules dialog lists, makes, pauses and removes the
// workflows run on a cron expression (by this machine's scheduler, which
// runs this binary as `weft run FILE`, or by a Temporal service), and the
// app tells when it opens of scheduled runs that failed or were missed.
// The decisions (checks, approval, installing) are the service's
// (backend/service/schedules.go), the same as `weft schedule`'s.

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
)

// SchedulesView is the Schedules dialog's content.
type SchedulesView struct {
	Schedules []service.ScheduleState `json:"schedules"`
	// Scheduler is this machine's scheduler ("systemd", "cron"); "" when
	// it has none (NoScheduler says why: only Temporal schedules then).
	Scheduler   string `json:"scheduler"`
	NoScheduler string `json:"no_scheduler,omitempty"`
	// Temporal is the address of the Temporal service in the settings
	// ("" when none is set).
	Temporal string `json:"temporal"`
}

func (a *App) scheduleManager() (*schedule.Manager, error) {
	return a.service().ScheduleManager(a.context())
}

// ListSchedules is every schedule with how its runs went and when it runs
// next.
func (a *App) ListSchedules() (SchedulesView, error) {
	v := SchedulesView{Schedules: []service.ScheduleState{}}
	m, err := a.scheduleManager()
	if err != nil {
		return v, err
	}
	all, err := m.List()
	if err != nil {
		return v, err
	}
	v.Schedules = a.service().ScheduleStates(all, time.Now())
	if err := m.Unavailable(); err != nil {
		v.NoScheduler = err.Error()
	} else {
		v.Scheduler = m.Backend.Name()
	}
	if st, err := a.settingsStore(); err == nil {
		if s, _, err := st.Effective(); err == nil {
			v.Temporal = s.Engine.Temporal.Address
		}
	}
	return v, nil
}

// NewSchedule is a schedule the person asks for in the dialog.
type NewSchedule struct {
	// Path is the saved workflow file: the schedule runs it as saved.
	Path string `json:"path"`
	Cron string `json:"cron"`
	// Engine is "local" or "temporal".
	Engine string `json:"engine"`
	Pinned bool   `json:"pinned"`
	// Approved are the fingerprints of the model-written steps the person
	// approved in the approval dialog (exactly the content shown).
	Approved []string `json:"approved"`
	// Shown is the scheduler entry PreviewSchedule showed (local engine):
	// only that entry is installed.
	Shown *service.ShownEntry `json:"shown,omitempty"`
	// Inputs are the values of the workflow's declared inputs each run
	// gets, as typed in the form (parsed and checked as a run's are).
	Inputs map[string]string `json:"inputs,omitempty"`
	// SecretInputs give secret inputs stored secrets by name (input →
	// secret): a schedule keeps the name, never a value.
	SecretInputs map[string]string `json:"secret_inputs,omitempty"`
}

// PreviewSchedule is the entry a local schedule would install (a crontab
// line, systemd unit files), shown before AddSchedule installs it.
func (a *App) PreviewSchedule(req NewSchedule) (service.ShownEntry, error) {
	m, err := a.scheduleManager()
	if err != nil {
		return service.ShownEntry{}, err
	}
	return a.service().PreviewSchedule(m, service.ScheduleRequest{Path: req.Path, Cron: req.Cron, UsePinned: req.Pinned, InputTexts: req.Inputs, Inputs: inputs.WithRefs(nil, req.SecretInputs)})
}

// AddSchedule makes a schedule, or says why not: problems, or the steps a
// model wrote that wait for approval (listed in full for the dialog).
func (a *App) AddSchedule(req NewSchedule) (service.ScheduleResult, error) {
	m, err := a.scheduleManager()
	if err != nil {
		return service.ScheduleResult{}, err
	}
	res, err := a.service().AddSchedule(a.context(), m, service.ScheduleRequest{Path: req.Path, Cron: req.Cron, Engine: req.Engine,
		UsePinned: req.Pinned, InputTexts: req.Inputs, Inputs: inputs.WithRefs(nil, req.SecretInputs), Approver: service.Preapproved(req.Approved), ApprovedBy: "desktop (schedule)", Shown: req.Shown})
	res.Problems, res.Approval, res.Warnings = nonNil(res.Problems), nonNil(res.Approval), nonNil(res.Warnings)
	return res, err
}

// SetSchedulePaused pauses or resumes a schedule.
func (a *App) SetSchedulePaused(id string, paused bool) error {
	m, err := a.scheduleManager()
	if err != nil {
		return err
	}
	return m.SetPaused(a.context(), id, paused)
}

// RemoveSchedule deletes a schedule and its entry in the scheduler.
func (a *App) RemoveSchedule(id string) error {
	m, err := a.scheduleManager()
	if err != nil {
		return err
	}
	return m.Remove(a.context(), id)
}

// CronPreview says what a cron expression means: its next run times, or
// what is wrong with it.
type CronPreview struct {
	Error string `json:"error,omitempty"`
	// Words says it in words ("at 07:00, on weekdays"); "" for a shape
	// that the expression and its next runs say better.
	Words string `json:"words,omitempty"`
	// Next are the next run times (RFC 3339, local time).
	Next []string `json:"next"`
}

// PreviewCron checks a cron expression as it is typed.
func (a *App) PreviewCron(expr string) CronPreview {
	p := CronPreview{Next: []string{}}
	c, err := schedule.ParseCron(expr)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Words = schedule.Describe(expr)
	t := time.Now()
	for len(p.Next) < 3 {
		n, ok := c.Next(t)
		if !ok {
			break
		}
		p.Next, t = append(p.Next, n.Format(time.RFC3339)), n
	}
	if len(p.Next) == 0 {
		p.Error = "it names no time within a year"
	}
	return p
}

// ScheduleNotices says, one line a schedule, which scheduled workflows
// need attention. The ended Temporal runs nobody followed are logged
// first, so a Temporal schedule's last run counts too.
func (a *App) ScheduleNotices() []string {
	all, err := a.service().Schedules()
	if err != nil {
		return []string{"The schedules could not be read: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(a.context(), temporalLogWait)
	out := a.service().LogUnfollowedRuns(ctx, all)
	cancel()
	for _, st := range a.service().ScheduleStates(all, time.Now()) {
		if st.Attention {
			out = append(out, fmt.Sprintf("Scheduled run of %s (%s; see Schedules): %s", filepath.Base(st.File), st.Cron, st.State))
		}
	}
	return out
}

// temporalLogWait bounds logging the Temporal runs at start (a service
// that is down must not hold the notices back for long).
const temporalLogWait = 30 * time.Second

// StaleSchedules are this machine's schedules of the file saved at path
// whose runs are refused because it changed since they were made: the
// app offers to update them after a save.
func (a *App) StaleSchedules(path string) ([]schedule.Schedule, error) {
	all, err := a.service().Schedules()
	if err != nil {
		return nil, err
	}
	return a.service().StaleSchedules(all, path), nil
}

// UpdateSchedules makes the schedules of the file saved at path run it as
// it is now, after the checks a new schedule gets; approved are the
// fingerprints the person approved of what waited (the approval dialog).
func (a *App) UpdateSchedules(path string, approved []string) (service.ScheduleUpdateResult, error) {
	m, err := a.scheduleManager()
	if err != nil {
		return service.ScheduleUpdateResult{Updated: []schedule.Schedule{}}, err
	}
	res, err := a.service().UpdateSchedules(a.context(), m, service.ScheduleUpdate{Path: path,
		Approver: service.Preapproved(approved), ApprovedBy: "desktop (schedule update)"})
	res.Problems, res.Approval, res.Warnings = nonNil(res.Problems), nonNil(res.Approval), nonNil(res.Warnings)
	return res, err
}
