package service

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// A schedule runs the content approved when it was made (or last
// updated), as a Temporal schedule holds its workflow: the scheduled
// command names the SHA-256 of the file's bytes then
// (StartRequest.RequireSHA256), and a run of other bytes is refused before
// anything of it runs, and logged as needs_review.

// readPinned reads a workflow file once, bounded: its bytes' SHA-256 (hex)
// and the workflow parsed from those very bytes (nil, with perr, when they
// do not parse).
func readPinned(path string) (sum string, w *workflow.Workflow, perr, err error) {
	data, err := atomicfile.ReadBounded(path, workflow.MaxFileSize)
	if err != nil {
		return "", nil, nil, fmt.Errorf("open workflow %s: %w", path, err)
	}
	w, _, perr = workflow.ParseFile(path, data)
	if perr != nil {
		perr = fmt.Errorf("%s: %w", path, perr)
	}
	return approval.Sum(data), w, perr, nil
}

// pinned is what a run of the file at path that must have content want
// runs: the workflow of the bytes read, when their SHA-256 is want; else
// refused is the run logged as needs_review (nothing of it ran).
func (s *Service) pinned(path, want string, source runner.RunSource) (w *workflow.Workflow, refused *Record, err error) {
	path, err = absPath(path)
	if err != nil || path == "" {
		return nil, nil, fmt.Errorf("a run of pinned content needs its workflow file: %v", err)
	}
	sum, w, perr, err := readPinned(path)
	if err != nil {
		return nil, nil, err
	}
	if strings.EqualFold(sum, strings.TrimSpace(want)) {
		if perr != nil {
			return nil, nil, perr
		}
		return w, nil, nil
	}
	why := fmt.Sprintf("%s changed since its schedule was made, so nothing ran: its content (SHA-256 %.12s…) is not the one approved then (%.12s…). "+
		"Review it, then update the schedule: save it in Weft and choose Update the schedule, or run weft schedule update %s",
		filepath.Base(path), sum, want, path)
	refused, err = s.logRefused(path, w, runner.OutcomeNeedsReview, why, source)
	return w, refused, err
}

// logRefused logs a run of w (saved at path; nil when it does not parse)
// that did not start, with outcome and why, as a run of source: a
// schedule's runs are listed whatever became of them.
func (s *Service) logRefused(path string, w *workflow.Workflow, outcome runner.Outcome, why string, source runner.RunSource) (*Record, error) {
	if w == nil { // logged under the file's name
		w = &workflow.Workflow{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	}
	st, _, err := s.settings()
	if err != nil {
		return nil, err
	}
	opts := runner.Options{Settings: st, WorkflowPath: path, Source: source}
	if s.deps.Tune != nil {
		s.deps.Tune(&opts)
	}
	res, err := runner.New(opts).Refuse(w, outcome, why)
	if err != nil {
		return nil, fmt.Errorf("%s (and the refused run could not be logged: %w)", why, err)
	}
	rec, err := readRunRecord(res.Dir)
	if err != nil {
		return nil, err
	}
	return &rec, nil
}

// logScheduledRefusal logs a schedule's run that did not start (not
// approved: needs_review; not valid, or not startable: failed), so the
// schedule's last run is this one and not an older success. Only a
// schedule's: a person who starts a run sees at once why it did not.
func (s *Service) logScheduledRefusal(req StartRequest, res *StartResult, err error) {
	if req.Source != runner.RunBySchedule || res.Started || res.Refused != nil || errors.Is(err, ErrRunActive) {
		return
	}
	path, perr := absPath(req.Path)
	if perr != nil || path == "" {
		return
	}
	outcome, why := runner.OutcomeFailed, res.Error
	switch {
	case err != nil:
		why = err.Error()
	case len(res.Approval) > 0:
		outcome = runner.OutcomeNeedsReview
	}
	if why == "" {
		why = "the run did not start"
	}
	rec, lerr := s.logRefused(path, req.Workflow, outcome, why, req.Source)
	if lerr != nil {
		res.Warnings = append(res.Warnings, "the run that did not start is not logged: "+lerr.Error())
		return
	}
	res.Refused = rec
}
