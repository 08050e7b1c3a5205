package service

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// Limits of the history reads.
const (
	maxHistoryRuns   = 100
	maxHistoryEvents = 5000
	// maxWorkflowCopy bounds reading a run's workflow.json for its name.
	maxWorkflowCopy = 8 << 20
	// maxSummary bounds reading a run's summary.json.
	maxSummary = 64 << 20
)

// Record is one past run, from its summary.json.
type Record struct {
	RunID        string `json:"run_id"`
	Dir          string `json:"dir"`
	WorkflowID   string `json:"workflow_id"`
	WorkflowName string `json:"workflow_name"`
	// WorkflowFile is the name of the file that ran, in the folder beside
	// its runs folder; "" unsaved, or logged before runs recorded it, or
	// not ended (no summary.json).
	WorkflowFile string          `json:"workflow_file,omitempty"`
	Outcome      runner.Outcome  `json:"outcome"`
	Error        string          `json:"error,omitempty"`
	StoppedAt    *runner.NodeRef `json:"stopped_at,omitempty"`
	Summary      *runner.Summary `json:"summary,omitempty"`
	// Verdict is the workflow's goal check (done_when), when it had one.
	Verdict   *runner.Verdict `json:"verdict,omitempty"`
	Warnings  []string        `json:"warnings"`
	Replanned bool            `json:"replanned"`
	Started   time.Time       `json:"started"`
	Finished  time.Time       `json:"finished"`
	// Complete is false for a folder without summary.json: a run still
	// going, or one that was killed.
	Complete bool `json:"complete"`
	// EngineRunID is the run's id on the engine that ran it elsewhere (a
	// Temporal workflow id); "" for a local run.
	EngineRunID string `json:"engine_run_id,omitempty"`
	// Source is who started the run (manual, schedule); "" for a run
	// logged before it was recorded.
	Source runner.RunSource `json:"source,omitempty"`
	// Parent is the run whose Workflow step ran this one (a
	// sub-workflow's run); SubRuns the runs its Workflow steps started.
	Parent  *flow.RunLink  `json:"parent,omitempty"`
	SubRuns []flow.RunLink `json:"sub_runs,omitempty"`
}

// BySchedule says whether a schedule may have started the run: it says
// so, or it was logged before runs said who started them.
func (r Record) BySchedule() bool {
	return r.Source == runner.RunBySchedule || r.Source == ""
}

// History lists past runs, newest first.
type History struct {
	Dir      string   `json:"dir"`
	Runs     []Record `json:"runs"`
	Warnings []string `json:"warnings"`
}

// Log is the events of a past run.
type Log struct {
	Events []runner.Event `json:"events"`
	// Total counts the events in the file; only the last maxHistoryEvents
	// are returned.
	Total     int      `json:"total"`
	Truncated bool     `json:"truncated"`
	Warnings  []string `json:"warnings"`
}

var runIDPattern = regexp.MustCompile(`^\d{8}-\d{6}\.\d{3}-[0-9a-f]{6}$`)

// RunHistory lists the past runs of a workflow, newest first (at most
// 100): the run folders in .weft/runs beside its file (path) or, unsaved,
// in the XDG data dir. workflowID, when set, keeps only that workflow's
// runs (a folder's runs are shared by its workflows); with path too, a
// run another file of the folder made under the same id (a copy that kept
// its id) is that file's, not this one's: a warning says so.
func (s *Service) RunHistory(path, workflowID string) (History, error) {
	out := History{Runs: []Record{}, Warnings: []string{}}
	dir, err := runner.DefaultRunsDir(strings.TrimSpace(path))
	if err != nil {
		return out, fmt.Errorf("run history: %w", err)
	}
	out.Dir = dir
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		return out, fmt.Errorf("run history: %w", err)
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && runIDPattern.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids))) // ids start with the UTC time
	own := ownRuns{path: strings.TrimSpace(path), id: workflowID, others: map[string]*otherFile{}}
	for _, id := range ids {
		if len(out.Runs) == maxHistoryRuns {
			break
		}
		rec, err := readRunRecord(filepath.Join(dir, id))
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %s: %v", id, err))
			continue
		}
		if workflowID != "" && (rec.WorkflowID != workflowID || !own.of(rec)) {
			continue
		}
		out.Runs = append(out.Runs, rec)
	}
	out.Warnings = append(out.Warnings, own.warnings()...)
	return out, nil
}

// ownRuns tells a file's runs from those of another file of its folder
// with the same workflow id. A run records the name of the file that ran
// (summary.json's workflow_file); one recorded under another name is that
// file's while a file of that name is there, and this file's once it is
// gone (this file was renamed or moved here). Two names of one workflow
// are not two files: a link to this file, and a version Weft made of it
// by replanning (notes.replanned-v2.json beside notes.json: the same id
// on purpose, so its versions and runs are the workflow's).
type ownRuns struct {
	path, id string
	// others caches, by file name, the other file there (nil: none, or
	// this workflow under another name).
	others map[string]*otherFile
	files  []*otherFile
	// replanned: this file is a version made by replanning (read once,
	// when another name is met).
	replanned *bool
}

// otherFile is another file beside this one, by all the names its runs
// were recorded under (links to it).
type otherFile struct {
	names   []string
	info    os.FileInfo
	sameID  bool
	skipped int
}

// of says whether rec (a run under this workflow's id) is this file's.
func (o *ownRuns) of(rec Record) bool {
	name := rec.WorkflowFile
	if o.path == "" || name == "" || name == filepath.Base(o.path) {
		return true // unsaved, or not recorded: the id says it all
	}
	f, seen := o.others[name]
	if !seen {
		f = o.other(name)
		o.others[name] = f
	}
	if f != nil {
		f.skipped++
	}
	return f == nil
}

// other is the file named name beside this one when it is there and is
// not this file.
func (o *ownRuns) other(name string) *otherFile {
	p := filepath.Join(filepath.Dir(o.path), name)
	st, err := os.Stat(p)
	if err != nil {
		return nil
	}
	if me, err := os.Stat(o.path); err == nil && os.SameFile(me, st) {
		return nil
	}
	for _, f := range o.files {
		if os.SameFile(f.info, st) {
			f.names = append(f.names, name)
			return f
		}
	}
	f := &otherFile{names: []string{name}, info: st}
	if w, _, err := workflow.Load(p); err == nil && w.ID == o.id {
		if replannedVersion(w) || o.isReplanned() {
			return nil
		}
		f.sameID = true
	}
	o.files = append(o.files, f)
	return f
}

// isReplanned says whether this file is a version made by replanning.
func (o *ownRuns) isReplanned() bool {
	if o.replanned == nil {
		w, _, err := workflow.Load(o.path)
		v := err == nil && replannedVersion(w)
		o.replanned = &v
	}
	return *o.replanned
}

// replannedVersion says whether w is a version Weft made by replanning
// (it keeps the id of the workflow it replans).
func replannedVersion(w *workflow.Workflow) bool {
	_, ok := failure.ReplanInfoOf(w)
	return ok
}

// warnings name the other files with this workflow's id.
func (o *ownRuns) warnings() []string {
	var out []string
	for _, f := range o.files {
		if !f.sameID {
			continue
		}
		name := f.names[0]
		if len(f.names) > 1 {
			name += " (also run as " + strings.Join(f.names[1:], ", ") + ")"
		}
		out = append(out, fmt.Sprintf("%s beside this file has the same workflow id (%s), so the two would share their run history, versions and chat: its %d run(s) are not counted here. "+
			"Give the copy an id of its own: delete its \"id\" line (a file without one gets an id from its path) or set a new one", name, o.id, f.skipped))
	}
	return out
}

func readRunRecord(dir string) (Record, error) {
	rec := Record{RunID: filepath.Base(dir), Dir: dir, Warnings: []string{}}
	b, err := atomicfile.ReadBounded(filepath.Join(dir, "summary.json"), maxSummary)
	if errors.Is(err, os.ErrNotExist) {
		// Still going, or killed: say which workflow from its copy.
		var w struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		}
		if wb, err := readCapped(filepath.Join(dir, "workflow.json"), maxWorkflowCopy); err == nil {
			_ = json.Unmarshal(wb, &w)
		}
		rec.WorkflowID, rec.WorkflowName = w.ID, w.Name
		if st, err := os.Stat(dir); err == nil {
			rec.Started = st.ModTime()
		}
		return rec, nil
	}
	if err != nil {
		return rec, err
	}
	var doc struct {
		WorkflowID   string           `json:"workflow_id"`
		WorkflowName string           `json:"workflow_name"`
		WorkflowFile string           `json:"workflow_file"`
		Replanned    bool             `json:"replanned"`
		Outcome      runner.Outcome   `json:"outcome"`
		Error        string           `json:"error"`
		StoppedAt    *runner.NodeRef  `json:"stopped_at"`
		Summary      *runner.Summary  `json:"summary"`
		Verdict      *runner.Verdict  `json:"verdict"`
		Warnings     []string         `json:"warnings"`
		Started      time.Time        `json:"started"`
		Finished     time.Time        `json:"finished"`
		RunID        string           `json:"run_id"`
		Source       runner.RunSource `json:"source"`
		Parent       *flow.RunLink    `json:"parent"`
		SubRuns      []flow.RunLink   `json:"sub_runs"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return rec, fmt.Errorf("summary.json: %w", err)
	}
	rec.WorkflowID, rec.WorkflowName, rec.WorkflowFile, rec.Replanned = doc.WorkflowID, doc.WorkflowName, doc.WorkflowFile, doc.Replanned
	rec.Outcome, rec.Error, rec.StoppedAt, rec.Summary, rec.Verdict = doc.Outcome, doc.Error, doc.StoppedAt, doc.Summary, doc.Verdict
	rec.Warnings, rec.Started, rec.Finished = nonNil(doc.Warnings), doc.Started, doc.Finished
	rec.Complete, rec.Source = true, doc.Source
	rec.Parent, rec.SubRuns = doc.Parent, doc.SubRuns
	if doc.RunID != rec.RunID {
		rec.EngineRunID = doc.RunID
	}
	return rec, nil
}

// readCapped reads the start of a regular file, at most max bytes.
func readCapped(path string, max int64) ([]byte, error) {
	f, _, err := atomicfile.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}

// RunEvents reads events.jsonl of a past run (a folder RunHistory listed):
// the last 5000 events, with how many there are.
func (s *Service) RunEvents(runDir string) (Log, error) {
	out := Log{Events: []runner.Event{}, Warnings: []string{}}
	runDir = filepath.Clean(strings.TrimSpace(runDir))
	if !runIDPattern.MatchString(filepath.Base(runDir)) {
		return out, fmt.Errorf("%q is not a run folder", runDir)
	}
	f, _, err := atomicfile.OpenFile(filepath.Join(runDir, "events.jsonl"), os.O_RDONLY, 0)
	if err != nil {
		return out, fmt.Errorf("run events: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	// The last maxHistoryEvents lines, in a ring: a long run's log is
	// read once, without moving what was kept.
	ring := make([][]byte, 0, 256)
	next := 0
	bad := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		out.Total++
		if len(ring) < maxHistoryEvents {
			ring = append(ring, append([]byte(nil), line...))
			continue
		}
		ring[next] = append(ring[next][:0], line...)
		next = (next + 1) % maxHistoryEvents
	}
	if err := sc.Err(); err != nil {
		out.Warnings = append(out.Warnings, "the log is cut short: "+err.Error())
	}
	runID := filepath.Base(runDir)
	for k := range ring {
		line := ring[(next+k)%len(ring)]
		var e runner.Event
		if err := json.Unmarshal(line, &e); err != nil {
			bad++
			continue
		}
		if e.RunID == "" {
			e.RunID = runID // lines leave it out: the folder is the run
		}
		out.Events = append(out.Events, e)
	}
	if bad > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d unreadable line(s) left out", bad))
	}
	out.Truncated = out.Total > len(ring)
	return out, nil
}
