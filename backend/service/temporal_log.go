package service

// Runs on Temporal are logged beside their workflow like local runs (the
// run history, `weft stats`, a schedule's last run), once they have ended,
// from the service: the run's events asked of the run, its end from its
// history. A run the app or `weft run` followed to its end is logged then;
// one nobody did (detached, started by a Temporal Schedule, followed by an
// app that was closed) when LogTemporalRuns reads the service's runs, on
// the machine that has its workflow file.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/temporal"
	"github.com/weft-dev/weft/backend/workflow"
)

const (
	// maxLogRuns bounds the runs one LogTemporalRuns reads (newest first).
	maxLogRuns = 200
	// loggedIndexFile lists, in a runs folder, the Temporal runs logged
	// there: a run whose folder was pruned (run.retention_runs) is not
	// logged again.
	loggedIndexFile = "temporal-runs.json"
	// seenIndexFile (XDG state) lists the runs this machine has dealt
	// with: logged, or not its own.
	seenIndexFile = "temporal-runs-seen.json"
	// maxIDs bounds each list (the newest are kept).
	maxIDs = 2000
)

// TemporalLog says what LogTemporalRuns wrote.
type TemporalLog struct {
	// Logged are the run folders written.
	Logged   []string `json:"logged"`
	Warnings []string `json:"warnings"`
}

// LogTemporalRuns logs the ended runs on eng's service that are not
// logged yet and whose workflow file is on this machine.
func (s *Service) LogTemporalRuns(ctx context.Context, eng *temporal.Engine) (TemporalLog, error) {
	out := TemporalLog{Logged: []string{}, Warnings: []string{}}
	st, _, err := s.settings()
	if err != nil {
		return out, err
	}
	runs, err := eng.List(ctx, maxLogRuns)
	if err != nil {
		return out, err
	}
	// A closed run answers for its events only while a worker is up to
	// replay it: once nobody answered, the rest are logged without asking.
	ask := true
	// The runs dealt with before (logged, or not this machine's) are not
	// read again: this runs whenever the app opens.
	seenPath, err := appdirs.StateFile(seenIndexFile)
	if err != nil {
		return out, err
	}
	seen := map[string]bool{}
	for _, id := range readIDs(seenPath) {
		seen[id] = true
	}
	var done []string
	// Runs this machine cannot read (sealed with a key it lacks): one
	// warning for them all, and they are read again once it has the key.
	unreadable := map[string]int{}
	for _, r := range runs {
		if r.Status == "running" || seen[r.RunID] {
			continue
		}
		in, err := eng.Input(ctx, r.RunID)
		var se *temporal.SealError
		if errors.As(err, &se) {
			unreadable[se.Error()]++
			continue
		}
		if err != nil {
			out.Warnings = append(out.Warnings, err.Error())
			continue
		}
		// Unsaved, or another machine's file: nowhere to log it here.
		if in.Path == "" {
			done = append(done, r.RunID)
			continue
		}
		if _, err := os.Stat(filepath.Dir(in.Path)); err != nil {
			done = append(done, r.RunID)
			continue
		}
		w, err := inputWorkflow(in)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %s: its workflow: %v", r.RunID, err))
			continue
		}
		dir, err := s.logTemporalRun(ctx, eng, st, r, w, in.Path, nil, in.Source, &ask)
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %s: %v", r.RunID, err))
			continue
		}
		done = append(done, r.RunID)
		if dir != "" {
			out.Logged = append(out.Logged, dir)
		}
	}
	for _, why := range slices.Sorted(maps.Keys(unreadable)) {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d ended runs are not logged here: %s", unreadable[why], why))
	}
	if err := appendIDs(seenPath, done); err != nil {
		out.Warnings = append(out.Warnings, "the runs read are not remembered: "+err.Error())
	}
	return out, nil
}

// inputWorkflow is the workflow a Temporal run was given, read as its
// file's (workflow.ParseFile): one submitted without an id has the id its
// file has here, so the run joins the file's history whichever door
// submitted it.
func inputWorkflow(in temporal.RunInput) (*workflow.Workflow, error) {
	w, _, err := workflow.ParseFile(in.Path, in.Workflow)
	return w, err
}

// askEventsFor bounds asking an ended run for its events (a worker replays
// it to answer; with none up the query waits).
const askEventsFor = 10 * time.Second

// LogUnfollowedRuns is LogTemporalRuns on every Temporal service this
// machine uses: the settings' (when runs go there) and those that keep the
// schedules in all. It returns, a line each, the services it could not
// read.
func (s *Service) LogUnfollowedRuns(ctx context.Context, all []schedule.Schedule) []string {
	var services []settings.TemporalEngine
	if st, _, err := s.settings(); err == nil && st.Engine.Kind == settings.EngineTemporal && st.Engine.Temporal.Address != "" {
		services = append(services, st.Engine.Temporal)
	}
	for _, sc := range all {
		if sc.Temporal != nil {
			services = append(services, remoteEngine(sc.Temporal))
		}
	}
	notes := []string{}
	seen := map[string]bool{}
	for _, t := range services {
		key := t.Address + "\x00" + t.Namespace
		if seen[key] {
			continue
		}
		seen[key] = true
		eng, _, err := s.TemporalEngine(t)
		if err == nil {
			_, err = s.LogTemporalRuns(ctx, eng)
			eng.Client.Close()
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("The runs on Temporal at %s could not be read: %v", t.Address, err))
		}
	}
	return notes
}

// logTemporalRun logs run r of w (saved at path) unless it is logged
// already; res is its end when the caller has it (a follower, which may
// have turned it into a replan), else it is read from the service;
// source is who started it (its input's), for an end that does not say.
// The run is asked for its events while *ask (set false when it does not
// answer). dir is the run folder written ("" when none was).
func (s *Service) logTemporalRun(ctx context.Context, eng *temporal.Engine, st settings.Settings, r temporal.RunInfo, w *workflow.Workflow, path string, res *runner.Result, source runner.RunSource, ask *bool) (string, error) {
	runsDir, err := runner.DefaultRunsDir(path)
	if err != nil {
		return "", err
	}
	logged, err := loggedTemporalRuns(runsDir)
	if err != nil {
		return "", err
	}
	if logged[r.RunID] {
		return "", nil
	}
	var warnings []string
	if res == nil {
		res = endOf(ctx, eng, r)
	}
	// Its events: the run answers for them while a worker is up (a closed
	// run is replayed to answer); else only its end is logged.
	var events []runner.Event
	asked := false
	if *ask {
		qctx, cancel := context.WithTimeout(ctx, askEventsFor)
		state, err := eng.State(qctx, r.RunID, 0)
		cancel()
		if err == nil {
			events, asked = state.Events, true
		} else {
			*ask = false
		}
	}
	if !asked {
		warnings = append(warnings, "the run's step events are not in this log (no worker answered for the ended run; the Temporal history has them)")
	}
	rec, err := runner.NewRecorder(runner.Options{Settings: st, Now: func() time.Time { return startOf(res, r) }}, w, path, runsDir, r.RunID)
	if err != nil {
		return "", err
	}
	for _, e := range events {
		rec.Event(e)
	}
	c := *res
	c.Warnings = append(append([]string{}, res.Warnings...), warnings...)
	if c.Source == "" {
		c.Source = source
	}
	if err := rec.Finish(&c); err != nil {
		return rec.Dir(), err
	}
	return rec.Dir(), markLogged(runsDir, r.RunID)
}

// endOf is how run r ended, from the service (temporal.Engine.End); a
// result that cannot be read ends it as failed, saying why.
func endOf(ctx context.Context, eng *temporal.Engine, r temporal.RunInfo) *runner.Result {
	res, err := eng.End(ctx, r)
	if err != nil {
		return &runner.Result{RunID: r.RunID, Outcome: runner.OutcomeFailed, Started: r.Started, Finished: r.Closed,
			Error: fmt.Sprintf("the run's end cannot be read from the Temporal service: %v", err)}
	}
	return res
}

// startOf is when the run started, for its folder's name (the history
// sorts by it).
func startOf(res *runner.Result, r temporal.RunInfo) time.Time {
	if !res.Started.IsZero() {
		return res.Started
	}
	return r.Started
}

// loggedTemporalRuns are the Temporal runs logged in runsDir: the index,
// and the run folders' summaries (runs logged before the index was kept).
func loggedTemporalRuns(runsDir string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, id := range readIDs(filepath.Join(runsDir, loggedIndexFile)) {
		out[id] = true
	}
	ents, err := os.ReadDir(runsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		if !e.IsDir() || !runIDPattern.MatchString(e.Name()) {
			continue
		}
		if rec, err := readRunRecord(filepath.Join(runsDir, e.Name())); err == nil && rec.Complete && rec.EngineRunID != "" {
			out[rec.EngineRunID] = true
		}
	}
	return out, nil
}

// markLogged adds id to runsDir's index of logged Temporal runs.
func markLogged(runsDir, id string) error {
	return appendIDs(filepath.Join(runsDir, loggedIndexFile), []string{id})
}

// readIDs reads a list of run ids; a missing or damaged one is empty (it
// only saves work, or is rebuilt from the run folders).
func readIDs(path string) []string {
	var ids []string
	if b, err := atomicfile.ReadBounded(path, maxIDs*1024); err == nil {
		_ = json.Unmarshal(b, &ids)
	}
	return ids
}

// appendIDs adds ids to the list at path, keeping the newest maxIDs.
func appendIDs(path string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	all := append(readIDs(path), ids...) // oldest first: the oldest go first
	if len(all) > maxIDs {
		all = all[len(all)-maxIDs:]
	}
	b, err := json.Marshal(all)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o600)
}
