package runner

import (
	"path/filepath"

	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// Refuse logs a run of w that was refused before any step ran, with
// outcome and why (OutcomeNeedsReview: a scheduled file whose content is
// not the one approved), in a run folder like any run's (its start and
// end events, the workflow as found, summary.json with Options.Source),
// so the run history, the schedules' list and weft stats show it as what
// it is. Nothing of w runs; OnEvent hears the two events.
func (rn *Runner) Refuse(w *workflow.Workflow, outcome Outcome, why string) (*Result, error) {
	o := &rn.opts
	runsDir := o.RunsDir
	if runsDir == "" {
		var err error
		if runsDir, err = DefaultRunsDir(o.WorkflowPath); err != nil {
			return nil, err
		}
	}
	started := o.Now()
	id := NewRunID(started)
	red, _ := runRedactor(o, w, o.Inputs)
	log, err := openRunLog(filepath.Join(runsDir, id), id, o.OnEvent, o.Now, red)
	if err != nil {
		return nil, err
	}
	log.forWorkflow(o.WorkflowPath)
	res := &Result{RunID: id, Dir: log.dir, Outcome: outcome, Error: why, Outputs: map[string]any{}, Completed: []string{},
		Summary: Summary{Details: []NodeStat{}}, Started: started, Finished: started, Source: o.source()}
	redactResult(red, res)
	log.emit(Event{Type: EvRunStarted, Message: w.Name + ": refused before any step ran"})
	log.emit(Event{Type: EvRunFinished, Outcome: outcome, Message: res.Error, Summary: &res.Summary})
	if err := log.writeWorkflow(w); err != nil {
		res.Warnings = append(res.Warnings, red.String("could not save the workflow copy: "+err.Error()))
	}
	err = log.writeSummary(res, w)
	if cerr := log.close(); err == nil {
		err = cerr
	}
	// A refused schedule refuses at every tick: its runs are pruned as
	// any run's are.
	keep := o.Settings.Run.RetentionRuns
	if keep <= 0 {
		keep = settings.DefaultRetentionRuns
	}
	if perr := pruneRuns(runsDir, id, keep, started); perr != nil {
		res.Warnings = append(res.Warnings, perr.Error())
	}
	return res, err
}
