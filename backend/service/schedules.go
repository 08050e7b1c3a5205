package service

import (
	"fmt"
	"time"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// ScheduleState is a schedule with how its runs went.
type ScheduleState struct {
	schedule.Schedule
	// State says it in words: paused, missed the run due at …, the last
	// run's outcome, not run yet.
	State   string     `json:"state"`
	LastRun *time.Time `json:"last_run,omitempty"`
	Outcome string     `json:"last_outcome,omitempty"`
	Missed  *time.Time `json:"missed,omitempty"`
	// Attention is set when the person should hear of it: the last run did
	// not succeed, or a due run is missing.
	Attention bool `json:"attention"`
}

// missGrace is how late a scheduled run may start before it counts as
// missed.
const missGrace = 5 * time.Minute

// ScheduleStates says how each schedule's runs went, from the run history
// beside its file (Temporal schedules: their runs are on the service).
func (s *Service) ScheduleStates(all []schedule.Schedule, now time.Time) []ScheduleState {
	out := []ScheduleState{}
	for _, sc := range all {
		r := ScheduleState{Schedule: sc}
		if sc.Backend == "temporal" && sc.Temporal != nil {
			r.State = "on Temporal at " + sc.Temporal.Address + " (weft runs list shows its runs)"
			if sc.Paused {
				r.State = "paused, " + r.State
			}
			out = append(out, r)
			continue
		}
		w, _, err := workflow.Load(sc.File)
		if err != nil {
			r.State, r.Attention = "the file cannot be read: "+err.Error(), true
			out = append(out, r)
			continue
		}
		var last time.Time
		if h, err := s.RunHistory(sc.File, w.ID); err == nil && len(h.Runs) > 0 {
			last = h.Runs[0].Started
			r.LastRun, r.Outcome = &last, string(h.Runs[0].Outcome)
			if !h.Runs[0].Complete {
				r.Outcome = "running or killed"
			}
		}
		due, missed := schedule.Missed(sc.Cron, sc.Created, last, now, missGrace)
		switch {
		case sc.Paused:
			r.State = "paused"
		case missed:
			r.Missed = &due
			r.State, r.Attention = "missed the run due at "+due.Local().Format("2006-01-02 15:04"), true
		case r.LastRun != nil:
			r.State = fmt.Sprintf("last run %s: %s", last.Local().Format("2006-01-02 15:04"), r.Outcome)
			r.Attention = r.Outcome != "succeeded" && r.Outcome != "running or killed"
		default:
			r.State = "not run yet"
		}
		out = append(out, r)
	}
	return out
}
