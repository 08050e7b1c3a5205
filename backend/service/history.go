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
	"github.com/weft-dev/weft/backend/runner"
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
	RunID        string          `json:"run_id"`
	Dir          string          `json:"dir"`
	WorkflowID   string          `json:"workflow_id"`
	WorkflowName string          `json:"workflow_name"`
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
// runs (a folder's runs are shared by its workflows).
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
	for _, id := range ids {
		if len(out.Runs) == maxHistoryRuns {
			break
		}
		rec, err := readRunRecord(filepath.Join(dir, id))
		if err != nil {
			out.Warnings = append(out.Warnings, fmt.Sprintf("run %s: %v", id, err))
			continue
		}
		if workflowID != "" && rec.WorkflowID != workflowID {
			continue
		}
		out.Runs = append(out.Runs, rec)
	}
	return out, nil
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
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return rec, fmt.Errorf("summary.json: %w", err)
	}
	rec.WorkflowID, rec.WorkflowName, rec.Replanned = doc.WorkflowID, doc.WorkflowName, doc.Replanned
	rec.Outcome, rec.Error, rec.StoppedAt, rec.Summary, rec.Verdict = doc.Outcome, doc.Error, doc.StoppedAt, doc.Summary, doc.Verdict
	rec.Warnings, rec.Started, rec.Finished = nonNil(doc.Warnings), doc.Started, doc.Finished
	rec.Complete, rec.Source = true, doc.Source
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
