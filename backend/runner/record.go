package runner

import (
	"path/filepath"
	"time"

	"github.com/weft-dev/weft/backend/redact"

	"github.com/weft-dev/weft/backend/workflow"
)

// Recorder writes a run made by another engine (Temporal) into a run
// folder exactly as Run writes its own (events.jsonl, workflow.json,
// summary.json, secrets hidden), so the run history, the app and
// `weft stats` read it like any run.
type Recorder struct {
	log *runLog
	w   *workflow.Workflow
}

// NewRecorder opens a run folder for w (saved at workflowPath) under
// runsDir ("" = DefaultRunsDir of the path), named like a local run's so
// the history and pruning see it; id (the engine's run id) is recorded in
// its events and summary. opts gives the settings whose secrets are
// hidden.
func NewRecorder(opts Options, w *workflow.Workflow, workflowPath, runsDir, id string) (*Recorder, error) {
	if runsDir == "" {
		var err error
		if runsDir, err = DefaultRunsDir(workflowPath); err != nil {
			return nil, err
		}
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	red, _ := runRedactor(&opts, w, opts.Inputs)
	log, err := openRunLog(filepath.Join(runsDir, NewRunID(opts.Now())), id, nil, opts.Now, red)
	if err != nil {
		return nil, err
	}
	log.forWorkflow(workflowPath)
	if err := log.writeWorkflow(w); err != nil {
		log.close()
		return nil, err
	}
	return &Recorder{log: log, w: w}, nil
}

// Dir is the run folder.
func (r *Recorder) Dir() string { return r.log.dir }

// Event records one event (numbered anew, in the order given) and returns
// it as written: secrets hidden by this machine's settings and the
// workflow's credentials (the worker hid its own), for showing too.
func (r *Recorder) Event(e Event) Event {
	e.Seq = 0
	var out Event
	r.log.onEvent = func(x Event) { out = x }
	r.log.emit(e)
	return out
}

// Redact hides this machine's secrets in a result from another engine
// (its error, warnings and outputs), in place.
func (r *Recorder) Redact(res *Result) { redactResult(r.log.red, res) }

// Finish writes summary.json and closes the folder.
func (r *Recorder) Finish(res *Result) error {
	c := *res
	redactResult(r.log.red, &c)
	err := r.log.writeSummary(&c, r.w)
	if cerr := r.log.close(); err == nil {
		err = cerr
	}
	return err
}

// Close leaves the folder without a summary (the run goes on elsewhere):
// the history shows it as not complete.
func (r *Recorder) Close() error { return r.log.close() }

// RedactEvent hides red's secrets in an event from another engine.
func RedactEvent(red *redact.Redactor, e Event) Event { return redactEvent(red, e) }

// RedactResult hides red's secrets in a result from another engine, in
// place.
func RedactResult(red *redact.Redactor, res *Result) { redactResult(red, res) }
