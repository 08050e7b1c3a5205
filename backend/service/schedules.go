package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/temporal"
	"github.com/weft-dev/weft/backend/workflow"
)

// Schedules: workflows run on a cron expression by this machine's
// scheduler (backend/schedule) or by a Temporal service (Temporal
// Schedules). The app and `weft schedule` make them here: the workflow
// file as saved is validated and its model-written steps approved, as for
// a run, before anything is installed.

// ScheduleManager is this machine's schedules: the list in the config
// folder, the OS scheduler found here (WEFT_SCHEDULER "systemd:COMMAND"
// or "cron:COMMAND" picks one instead), and the Temporal services that
// keep the others. The scheduled command is this program: the weft CLI,
// or the desktop binary, which is the CLI when started with a command.
// Backend is nil when this machine has no scheduler (Temporal schedules
// still work; AddSchedule says why a local one cannot be made).
func (s *Service) ScheduleManager(ctx context.Context) (*schedule.Manager, error) {
	path, err := schedulesFile()
	if err != nil {
		return nil, err
	}
	b, missing, err := s.localScheduler(ctx)
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &schedule.Manager{Path: path, Backend: b, NoBackend: missing, Weft: self,
		Others: map[string]schedule.Backend{"temporal": temporalSchedules{s}}}, nil
}

// Schedules lists the schedules, oldest first, without looking for this
// machine's scheduler (ScheduleManager does, to change them).
func (s *Service) Schedules() ([]schedule.Schedule, error) {
	path, err := schedulesFile()
	if err != nil {
		return nil, err
	}
	return (&schedule.Manager{Path: path}).List()
}

func schedulesFile() (string, error) { return appdirs.ConfigFile("schedules.json") }

// localScheduler is this machine's scheduler: the one WEFT_SCHEDULER names
// (systemd:COMMAND, cron:COMMAND: tests, and machines where detection
// guesses wrong), else the one that answers (schedule.Detect; missing says
// why there is none).
func (s *Service) localScheduler(ctx context.Context) (b schedule.Backend, missing, err error) {
	path, err := schedulesFile()
	if err != nil {
		return nil, nil, err
	}
	cfg := filepath.Dir(filepath.Dir(path)) // $XDG_CONFIG_HOME
	locks, err := appdirs.StateFile("schedule-locks")
	if err != nil {
		return nil, nil, err
	}
	switch kind, cmd, _ := strings.Cut(s.getenv("WEFT_SCHEDULER"), ":"); kind {
	case "systemd":
		return schedule.Systemd{Dir: filepath.Join(cfg, "systemd", "user"), Systemctl: cmd}, nil, nil
	case "cron":
		return schedule.Crontab{Crontab: cmd, LockDir: locks}, nil, nil
	case "":
		b, missing = schedule.Detect(ctx, cfg, locks)
		return b, missing, nil
	default:
		return nil, nil, fmt.Errorf("WEFT_SCHEDULER %q: use systemd:COMMAND or cron:COMMAND", kind)
	}
}

// UserSystemd is this machine's systemd user instance, where weft serve
// is installed as a service (schedules use it too); an error says why
// there is none.
func (s *Service) UserSystemd(ctx context.Context) (schedule.Systemd, error) {
	b, missing, err := s.localScheduler(ctx)
	if err != nil {
		return schedule.Systemd{}, err
	}
	if sd, ok := b.(schedule.Systemd); ok {
		return sd, nil
	}
	if missing != nil {
		return schedule.Systemd{}, missing
	}
	return schedule.Systemd{}, errors.New("weft serve runs as a systemd user service, and no systemd user instance answers here (systemctl --user); run weft serve from your own service manager instead")
}

// temporalSchedules pauses and removes the schedules a Temporal service
// keeps, reaching it where the schedule was made.
type temporalSchedules struct{ s *Service }

func (temporalSchedules) Name() string { return settings.EngineTemporal }

func (temporalSchedules) Entry(schedule.Schedule, []string) (string, error) {
	return "", errors.New("a Temporal schedule has no entry on this machine")
}

func (temporalSchedules) Install(context.Context, schedule.Schedule, []string) error {
	return errors.New("a Temporal schedule is made by the service (AddSchedule with the temporal engine)")
}

func (t temporalSchedules) with(sc schedule.Schedule, f func(*temporal.Engine) error) error {
	if sc.Temporal == nil {
		return fmt.Errorf("schedule %s does not say which Temporal service keeps it", sc.ID)
	}
	eng, _, err := t.s.TemporalEngine(remoteEngine(sc.Temporal))
	if err != nil {
		return err
	}
	defer eng.Client.Close()
	return f(eng)
}

func (t temporalSchedules) SetPaused(ctx context.Context, sc schedule.Schedule, paused bool) error {
	return t.with(sc, func(eng *temporal.Engine) error { return eng.SetSchedulePaused(ctx, sc.ID, paused) })
}

func (t temporalSchedules) Remove(ctx context.Context, sc schedule.Schedule) error {
	return t.with(sc, func(eng *temporal.Engine) error { return eng.RemoveSchedule(ctx, sc.ID) })
}

// remoteEngine is how to reach the Temporal service a schedule names.
func remoteEngine(r *schedule.Remote) settings.TemporalEngine {
	return settings.TemporalEngine{Address: r.Address, Namespace: r.Namespace, TaskQueue: r.TaskQueue, TLS: r.TLS}
}

// ScheduleRequest is a schedule to make of a saved workflow file.
type ScheduleRequest struct {
	Path string
	// Cron is a five-field cron expression ("0 7 * * *").
	Cron string
	// Engine is "local" (this machine's scheduler; "" too) or "temporal".
	Engine string
	// Inputs and InputTexts are values for the workflow's declared inputs,
	// as a run takes them (StartRequest): each of its runs is given them
	// (inputs.Stored says which may be kept).
	Inputs     map[string]any
	InputTexts map[string]string
	// Temporal replaces the settings' Temporal service (the CLI's flags).
	Temporal  *settings.TemporalEngine
	UsePinned bool
	// Approver is asked about the model-written steps waiting for
	// approval, as for a run: a scheduled run cannot ask anybody.
	Approver   Approver
	ApprovedBy string
	// Shown is the scheduler entry the person was shown (PreviewSchedule),
	// for the local engine: the schedule keeps its ID, and is installed
	// only if its entry is still exactly Entry. nil: the caller shows the
	// entry after (ScheduleResult.Entry).
	Shown *ShownEntry
}

// ShownEntry is what PreviewSchedule showed: the schedule's name and the
// text the scheduler gets.
type ShownEntry struct {
	ID    string `json:"id"`
	Entry string `json:"entry"`
	// InputProblems say, input by input, why no entry can be made with
	// the inputs given (inputs.Stored's check, AddSchedule's too).
	InputProblems []inputs.Problem `json:"input_problems,omitempty"`
}

// ScheduleResult is StartResult for a schedule: Started says it was made.
type ScheduleResult struct {
	StartResult
	Schedule *schedule.Schedule `json:"schedule,omitempty"`
	// Entry is the text installed in this machine's scheduler.
	Entry string `json:"entry,omitempty"`
}

// PreviewSchedule is the entry a local schedule of the file saved at
// req.Path would install (a crontab line, systemd unit files), with the
// name it would have: the person sees it before AddSchedule installs it
// (req.Shown). It checks nothing else; AddSchedule does.
func (s *Service) PreviewSchedule(m *schedule.Manager, req ScheduleRequest) (ShownEntry, error) {
	abs, err := filepath.Abs(req.Path)
	if err != nil {
		return ShownEntry{}, err
	}
	sum, w, perr, err := readPinned(abs)
	if err != nil {
		return ShownEntry{}, fmt.Errorf("schedule %s: %w", req.Path, err)
	}
	if perr != nil {
		w = &workflow.Workflow{} // AddSchedule says what is wrong with it
	}
	args, _, err := scheduleArgs(w, req)
	if ie := (*inputs.Error)(nil); errors.As(err, &ie) {
		return ShownEntry{InputProblems: ie.Problems}, nil
	}
	if err != nil {
		return ShownEntry{}, err
	}
	d, err := m.Draft("", abs, req.Cron, sum, args)
	if err != nil {
		return ShownEntry{}, err
	}
	entry, err := m.Entry(d)
	return ShownEntry{ID: d.ID, Entry: entry}, err
}

// scheduleArgs are the flags of a local schedule's `weft run` (its
// inputs as --inputs JSON, a secret input's stored secret as
// --input-secret NAME=SECRET: each word of the command is quoted for the
// scheduler that reads it, schedule/render.go) and the inputs a schedule
// of w keeps (inputs.Stored, the one check: refused, an *inputs.Error
// says why input by input).
func scheduleArgs(w *workflow.Workflow, req ScheduleRequest) ([]string, map[string]any, error) {
	kept, err := inputs.Stored(w.Inputs, req.Inputs, req.InputTexts)
	if err != nil {
		return nil, nil, err
	}
	var args []string
	if req.UsePinned {
		args = append(args, "--pinned")
	}
	values, refs := inputs.Split(kept) // a stored secret is kept by its name, never a value
	if len(values) > 0 {
		b, err := json.Marshal(values) // keys sorted: the entry shown is the entry installed
		if err != nil {
			return nil, nil, err
		}
		args = append(args, "--inputs", string(b))
	}
	for _, k := range slices.Sorted(maps.Keys(refs)) {
		args = append(args, "--input-secret", k+"="+refs[k])
	}
	return args, kept, nil
}

// AddSchedule checks the workflow saved at req.Path as a run would be
// (validation, approval of its model-written steps), then schedules it on
// this machine's scheduler or as a Temporal Schedule, and records it in m.
func (s *Service) AddSchedule(ctx context.Context, m *schedule.Manager, req ScheduleRequest) (ScheduleResult, error) {
	var res ScheduleResult
	c, err := schedule.ParseCron(req.Cron)
	if err != nil {
		return res, err
	}
	abs, err := filepath.Abs(req.Path)
	if err != nil {
		return res, err
	}
	// The bytes checked are the bytes pinned: read once.
	sum, w, perr, err := readPinned(abs)
	if err == nil {
		err = perr
	}
	if err != nil {
		return res, fmt.Errorf("schedule %s: %w", req.Path, err)
	}
	args, kept, err := scheduleArgs(w, req)
	if ie := (*inputs.Error)(nil); errors.As(err, &ie) {
		res.InputProblems = ie.Problems
		res.Error = "the schedule was not made: " + err.Error()
		return res, nil
	}
	if err != nil {
		return res, err
	}
	start := StartRequest{Workflow: w, Path: abs, Approver: req.Approver, ApprovedBy: req.ApprovedBy, UsePinned: req.UsePinned, Source: runner.RunBySchedule, Inputs: kept}
	var made schedule.Schedule
	var remote Remote
	var warnings []string
	switch req.Engine {
	case "", settings.EngineLocal:
		if err := m.Unavailable(); err != nil {
			return res, err
		}
		id := ""
		var shown *string
		if req.Shown != nil {
			id, shown = req.Shown.ID, &req.Shown.Entry
		}
		d, err := m.Draft(id, abs, c.String(), sum, args)
		if err != nil {
			return res, err
		}
		remote = localSchedule{m: m, draft: d, shown: shown, made: &made}
	case settings.EngineTemporal:
		t := req.Temporal
		if t == nil {
			st, _, err := s.settings()
			if err != nil {
				return res, err
			}
			t = &st.Engine.Temporal
		}
		if t.Address == "" {
			return res, errors.New("no Temporal service set: Preferences → Engine, or --temporal-address")
		}
		eng, warn, err := s.TemporalEngine(*t)
		warnings = warn
		if err != nil {
			return res, err
		}
		defer eng.Client.Close()
		made = schedule.Schedule{ID: schedule.NewID(abs), File: abs, Cron: c.String(), Backend: settings.EngineTemporal,
			Created: time.Now().UTC(), SHA256: sum, Temporal: &schedule.Remote{Address: t.Address, Namespace: t.Namespace, TaskQueue: t.TaskQueue, TLS: t.TLS}}
		remote = temporalSchedule{eng: eng, id: made.ID, cron: made.Cron}
	default:
		return res, fmt.Errorf("engine %q: use local or temporal", req.Engine)
	}
	res.StartResult, _, err = s.Submit(ctx, start, remote)
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil || !res.Started {
		return res, err
	}
	if made.Backend == settings.EngineTemporal {
		if err := m.Put(made); err != nil {
			return res, fmt.Errorf("the Temporal schedule %s was made but could not be recorded here: %w", made.ID, err)
		}
	}
	res.Schedule = &made
	if made.Backend != settings.EngineTemporal {
		res.Entry, _ = m.Entry(made) // installed already: it renders
	}
	return res, nil
}

// localSchedule installs a checked workflow with the OS scheduler.
type localSchedule struct {
	m     *schedule.Manager
	draft schedule.Schedule
	shown *string
	made  *schedule.Schedule
}

func (l localSchedule) Submit(ctx context.Context, w *workflow.Workflow, sub Submission) (string, error) {
	sc, err := l.m.Install(ctx, l.draft, l.shown)
	*l.made = sc
	return sc.ID, err
}

// ScheduleUpdate asks that the schedules of a file run it as it is now.
type ScheduleUpdate struct {
	Path string
	// Approver is asked about the model-written steps waiting for
	// approval, as when the schedule was made.
	Approver   Approver
	ApprovedBy string
}

// ScheduleUpdateResult is StartResult for an update: Started says the
// schedules were updated; Approval lists what waits for approval.
type ScheduleUpdateResult struct {
	StartResult
	Updated []schedule.Schedule `json:"updated"`
}

// StaleSchedules are the schedules in all of the file at path (this
// machine's) whose pinned content is not the file's now: their runs are
// refused until UpdateSchedules (the app offers it after a save).
func (s *Service) StaleSchedules(all []schedule.Schedule, path string) []schedule.Schedule {
	out := []schedule.Schedule{}
	abs, err := filepath.Abs(path)
	if err != nil {
		return out
	}
	sum, _, _, err := readPinned(abs)
	if err != nil {
		return out
	}
	for _, sc := range all {
		if sc.File == abs && sc.Backend != settings.EngineTemporal && !strings.EqualFold(sc.SHA256, sum) {
			out = append(out, sc)
		}
	}
	return out
}

// UpdateSchedules pins the file at req.Path, as it is now, in every
// schedule of it on this machine, after the checks a new schedule gets
// (validation, approval of its model-written steps, asking req.Approver):
// a reviewed edit runs at the next tick, an unreviewed one never does.
// A Temporal schedule holds its workflow: it is made again to change, and
// a warning says so.
func (s *Service) UpdateSchedules(ctx context.Context, m *schedule.Manager, req ScheduleUpdate) (ScheduleUpdateResult, error) {
	res := ScheduleUpdateResult{Updated: []schedule.Schedule{}}
	abs, err := filepath.Abs(req.Path)
	if err != nil {
		return res, err
	}
	all, err := m.List()
	if err != nil {
		return res, err
	}
	var mine []schedule.Schedule
	for _, sc := range all {
		if sc.File != abs {
			continue
		}
		if sc.Backend == settings.EngineTemporal {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the Temporal schedule %s holds the workflow as it was scheduled: schedule it again to run the new content", sc.ID))
			continue
		}
		mine = append(mine, sc)
	}
	if len(mine) == 0 {
		res.Error = fmt.Sprintf("%s has no schedule on this machine to update", abs)
		return res, nil
	}
	sum, w, perr, err := readPinned(abs)
	if err == nil {
		err = perr
	}
	if err != nil {
		return res, fmt.Errorf("update the schedules of %s: %w", req.Path, err)
	}
	// Each schedule's inputs must fit the file as it is now (the same
	// check as when it was made).
	var given map[string]any
	for i, sc := range mine {
		vals, err := sc.Inputs()
		if err != nil {
			return res, err
		}
		kept, err := inputs.Stored(w.Inputs, vals, nil)
		if ie := (*inputs.Error)(nil); errors.As(err, &ie) {
			res.InputProblems = ie.Problems
			res.Error = fmt.Sprintf("the schedules were not updated: schedule %s: %v (remove it and add it again with the inputs the file takes now)", sc.ID, err)
			return res, nil
		}
		if err != nil {
			return res, err
		}
		if i == 0 {
			given = kept
		}
	}
	warnings := res.Warnings
	res.StartResult, _, err = s.Submit(ctx, StartRequest{Workflow: w, Path: abs, Approver: req.Approver, ApprovedBy: req.ApprovedBy, Source: runner.RunBySchedule, Inputs: given},
		repin{m: m, schedules: mine, sum: sum, done: &res.Updated})
	res.Warnings = append(res.Warnings, warnings...)
	return res, err
}

// repin re-pins checked content in the local schedules of its file.
type repin struct {
	m         *schedule.Manager
	schedules []schedule.Schedule
	sum       string
	done      *[]schedule.Schedule
}

func (r repin) Submit(ctx context.Context, w *workflow.Workflow, sub Submission) (string, error) {
	for _, sc := range r.schedules {
		up, err := r.m.Repin(ctx, sc.ID, r.sum)
		if err != nil {
			return "", err
		}
		*r.done = append(*r.done, up)
	}
	return r.sum, nil
}

// temporalSchedule makes a Temporal Schedule of a checked workflow: it
// holds the workflow as it is now.
type temporalSchedule struct {
	eng      *temporal.Engine
	id, cron string
}

func (r temporalSchedule) Submit(ctx context.Context, w *workflow.Workflow, sub Submission) (string, error) {
	sub.Source = runner.RunBySchedule
	return r.id, r.eng.Schedule(ctx, r.id, r.cron, w, runInput(sub))
}

// ScheduleState is a schedule with how its runs went.
type ScheduleState struct {
	schedule.Schedule
	// State says it in words: paused, the file changed since it was
	// scheduled, missed the run due at …, the last run's outcome, not run
	// yet.
	State string `json:"state"`
	// Words says the cron expression in words (schedule.Describe), if it can.
	Words   string     `json:"words,omitempty"`
	LastRun *time.Time `json:"last_run,omitempty"`
	Outcome string     `json:"last_outcome,omitempty"`
	Missed  *time.Time `json:"missed,omitempty"`
	// Next is when the schedule runs next (nil when paused, or never
	// within a year).
	Next *time.Time `json:"next,omitempty"`
	// Changed is set when the file's content is not the one the schedule
	// pinned (or it pinned none): UpdateSchedules makes it run the file as
	// it is now, after the same checks as when it was made.
	Changed bool `json:"changed"`
	// Attention is set when the person should hear of it: the last run did
	// not succeed, a due run is missing, or a local schedule's runs are
	// refused because the file changed.
	Attention bool `json:"attention"`
}

// missGrace is how late a scheduled run may start before it counts as
// missed.
const missGrace = 5 * time.Minute

// lastScheduledRun is the newest run in h a schedule started: runs the
// person started (the editor, weft run) are never a schedule's.
func lastScheduledRun(h History, since time.Time) (Record, bool) {
	for _, r := range h.Runs {
		// A run from before the schedule was made is not one of its
		// runs, whatever it says (a new schedule showed "last run …
		// succeeded" from a run made in the editor).
		// (To the second: a log may keep its start time so.)
		if r.BySchedule() && !r.Started.Before(since.Truncate(time.Second)) {
			return r, true
		}
	}
	return Record{}, false
}

// ScheduleStates says how each schedule's runs went, from the run history
// beside its file (a Temporal schedule's runs once they are logged there:
// LogTemporalRuns): the newest run a schedule started, whatever its
// outcome; and whether the file is still the content the schedule pinned.
func (s *Service) ScheduleStates(all []schedule.Schedule, now time.Time) []ScheduleState {
	out := []ScheduleState{}
	for _, sc := range all {
		r := ScheduleState{Schedule: sc, Words: schedule.Describe(sc.Cron)}
		if c, err := schedule.ParseCron(sc.Cron); err == nil && !sc.Paused {
			if n, ok := c.Next(now); ok {
				r.Next = &n
			}
		}
		sum, w, perr, err := readPinned(sc.File)
		if err == nil {
			err = perr
		}
		if err != nil {
			r.State, r.Attention = "the file cannot be read: "+err.Error(), true
			out = append(out, r)
			continue
		}
		// A Temporal schedule made before content was pinned holds some
		// content: which, is not known here.
		r.Changed = !strings.EqualFold(sum, sc.SHA256) && (sc.SHA256 != "" || sc.Backend != settings.EngineTemporal)
		var last time.Time
		lastRun, lastBad := "", false
		if h, err := s.RunHistory(sc.File, w.ID); err == nil {
			if run, ok := lastScheduledRun(h, sc.Created); ok {
				last = run.Started
				r.LastRun, r.Outcome = &last, string(run.Outcome)
				if !run.Complete {
					r.Outcome = "running or killed"
				}
				lastRun = fmt.Sprintf("last run %s: %s", last.Local().Format("2006-01-02 15:04"), r.Outcome)
				lastBad = run.Complete && run.Outcome != runner.OutcomeSucceeded
			}
		}
		if sc.Backend == settings.EngineTemporal && sc.Temporal != nil {
			// The service starts the runs (and catches up missed ones);
			// they are logged here once read back (LogTemporalRuns).
			r.State = "on Temporal at " + sc.Temporal.Address
			switch {
			case sc.Paused:
				r.State = "paused, " + r.State
			case lastRun != "":
				r.State, r.Attention = r.State+"; "+lastRun, lastBad
			default:
				r.State += " (weft runs list shows its runs)"
			}
			if r.Changed {
				r.State += "; the file changed since it was scheduled: the schedule runs the content as it was then (schedule it again to run the new content)"
			}
			out = append(out, r)
			continue
		}
		due, missed := schedule.Missed(sc.Cron, sc.Created, last, now, missGrace)
		switch {
		case sc.Paused:
			r.State = "paused"
		case r.Changed && sc.SHA256 == "":
			r.State, r.Attention = "made before Weft pinned a schedule's content: update it so it runs only the content you approve (weft schedule update "+sc.File+", or save the file in Weft)", true
		case r.Changed:
			r.State, r.Attention = "the file changed since it was scheduled: its runs are refused (needs review) until you update the schedule (weft schedule update "+sc.File+", or save the file in Weft)", true
		case missed:
			r.Missed = &due
			r.State, r.Attention = "missed the run due at "+due.Local().Format("2006-01-02 15:04"), true
		case lastRun != "":
			r.State, r.Attention = lastRun, lastBad
		default:
			r.State = "not run yet"
		}
		if r.Changed && lastRun != "" && !sc.Paused {
			r.State += "; " + lastRun
		}
		out = append(out, r)
	}
	return out
}

// ScheduledRun is one past run of a scheduled workflow.
type ScheduledRun struct {
	Schedule string `json:"schedule"`
	File     string `json:"file"`
	Record
}

// ScheduledRuns are the past runs of the scheduled workflows that a
// schedule started, newest first, at most limit (`weft runs list` without
// a Temporal service): the runs logged beside their files, without those
// the person started.
func (s *Service) ScheduledRuns(all []schedule.Schedule, limit int) []ScheduledRun {
	out := []ScheduledRun{}
	seen := map[string]bool{}
	for _, sc := range all {
		w, _, err := workflow.Load(sc.File)
		if err != nil || seen[sc.File+"\x00"+w.ID] {
			continue
		}
		seen[sc.File+"\x00"+w.ID] = true
		h, err := s.RunHistory(sc.File, w.ID)
		if err != nil {
			continue
		}
		for _, r := range h.Runs {
			if r.BySchedule() {
				out = append(out, ScheduledRun{Schedule: sc.ID, File: sc.File, Record: r})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
