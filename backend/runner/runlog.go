package runner

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/weftdir"
	"github.com/weft-dev/weft/backend/workflow"
)

// Run folders: $XDG_DATA_HOME/weft/runs/<id> for unsaved workflows, or
// .weft/runs/<id> beside a saved one. Each holds events.jsonl (every
// event), retry.log (seed 003's readable retry trail, made by the first
// retry line), workflow.json (what ran, with any fixes applied) and
// summary.json (written last).
//
// A run folder is cheap by construction, since triggers start many runs a
// second: a new folder is the run's alone, so its files are created
// outright (no temp-file litter scan, no link resolving), each file is
// written once through one buffer, and only summary.json is synced to disk
// (once, before it is renamed into place: after a power cut it is whole or
// absent; a log may lose its tail, which readers already skip, torn.go).
//
// Run folders are readable by their owner only (0700, files 0600): their
// events quote command output and request bodies. The workflow copy keeps
// the mode of the workflow file (0600 for an unsaved workflow), so it is no
// easier to read than the file it copies. Everything but the workflow copy
// is redacted (secrets.go).

const (
	eventsFile   = "events.jsonl"
	retryLogFile = "retry.log"
	summaryFile  = "summary.json"
	workflowFile = "workflow.json"
	// DefaultMaxLogBytes caps events.jsonl and, separately, retry.log:
	// past it only the events that matter for recovery are written (the
	// callback still gets all), so a run folder stays within about twice
	// this plus its summary and workflow copy.
	DefaultMaxLogBytes = 64 << 20
	// loopDetailIterations is how many iterations of a loop events.jsonl
	// keeps in full; later ones keep only what matters (thin).
	loopDetailIterations = flow.LoopDetailIterations
	flushEvery           = 200 * time.Millisecond
	runDirMode           = 0o700
	runFileMode          = 0o600
)

// DefaultRunsDir returns where runs of a workflow are logged: beside the
// file when it is saved, else in the XDG data dir.
func DefaultRunsDir(workflowPath string) (string, error) {
	if workflowPath != "" {
		dir, err := weftdir.Beside(workflowPath)
		if err != nil {
			return "", err
		}
		return filepath.Join(dir, "runs"), nil
	}
	return appdirs.DataDir("runs")
}

var runIDRe = regexp.MustCompile(`^\d{8}-\d{6}\.\d{3}-[0-9a-f]{6}$`)

// NewRunID is a new run's id: its start time (UTC, to the millisecond) and
// a random suffix, so runs started at once differ.
func NewRunID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405.000") + "-" + hex.EncodeToString(b[:])
}

// runLog writes a run's folder and delivers events live.
type runLog struct {
	runID   string
	dir     string
	onEvent func(Event)
	now     func() time.Time
	red     *redact.Redactor
	// workflowMode is the mode of workflow.json.
	workflowMode os.FileMode
	// workflowFile is the name of the workflow's file in its folder (""
	// unsaved), recorded in summary.json (forWorkflow).
	workflowFile string

	mu       sync.Mutex
	seq      int64
	events   *os.File
	ew       *bufio.Writer
	line     []byte // one encoded event, reused
	written  int64
	maxBytes int64
	capped   bool
	// thin holds the loops past their first loopDetailIterations
	// iterations: while any is, routine events are not written.
	thin         map[string]bool
	retryWritten int64
	retryCapped  bool
	lastFlush    time.Time
	// retry is opened by the first retry line (a run without one has no
	// retry.log).
	retry *os.File
	// fresh: this run made the folder, so no file in it exists yet
	// (openRunLog); else the files are appended to and replaced as any
	// file of the user's is.
	fresh bool
	// workflowCopy is workflow.json as last written (writeWorkflow).
	workflowCopy []byte
	err          error // first write error, reported once as a warning
}

func openRunLog(dir, runID string, onEvent func(Event), now func() time.Time, red *redact.Redactor) (*runLog, error) {
	fresh, err := makeRunDir(dir)
	if err != nil {
		return nil, err
	}
	l := &runLog{runID: runID, dir: dir, onEvent: onEvent, now: now, red: red, workflowMode: runFileMode,
		fresh: fresh, lastFlush: now(), maxBytes: DefaultMaxLogBytes, thin: map[string]bool{}}
	if l.events, err = l.openLog(eventsFile); err != nil {
		return nil, fmt.Errorf("create run log: %w", err)
	}
	l.ew = bufio.NewWriterSize(l.events, 64<<10)
	return l, nil
}

// makeRunDir creates the run folder, private, and says whether it made it
// (fresh) or found it. New parents (.weft/runs) are private too; existing
// ones are the user's to set.
func makeRunDir(dir string) (fresh bool, err error) {
	err = os.Mkdir(dir, runDirMode)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(filepath.Dir(dir), runDirMode); err == nil {
			err = os.Mkdir(dir, runDirMode)
		}
	}
	fresh = err == nil
	if errors.Is(err, fs.ErrExist) {
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			err = os.Chmod(dir, runDirMode)
			if err != nil {
				return false, fmt.Errorf("make run folder %s private: %w", dir, err)
			}
		}
	}
	if err != nil {
		return false, fmt.Errorf("create run folder %s: %w", dir, err)
	}
	if err := weftdir.IgnoreInGit(dir); err != nil {
		return false, err
	}
	return fresh, nil
}

// openLog opens a log of the run folder for appending: created outright in
// a fresh folder, else repaired and appended to (torn.go).
func (l *runLog) openLog(name string) (*os.File, error) {
	p := filepath.Join(l.dir, name)
	if l.fresh {
		return os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, runFileMode)
	}
	return openAppend(p)
}

// put writes a whole file of the run folder. In a fresh folder a file
// not written yet is created outright (each create costs: the folder holds
// as few as it can), and a durable one (summary.json, whose presence says
// the run ended) goes through a temp file, synced, then renamed, so no
// reader sees half of it and a power cut leaves it whole or absent. A
// file written before (a fixed workflow's copy), or any in a folder the
// run found, is replaced atomically as any file of the user's
// (atomicfile).
func (l *runLog) put(name string, data []byte, mode os.FileMode, durable bool) (err error) {
	p := filepath.Join(l.dir, name)
	if !l.fresh {
		return atomicfile.WriteFile(p, data, mode)
	}
	tmp := p
	if durable {
		tmp = filepath.Join(l.dir, "."+name+".tmp")
	}
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, mode)
	if errors.Is(err, fs.ErrExist) {
		return atomicfile.WriteFile(p, data, mode)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// The umask may have taken bits off mode (a 0640 workflow's copy).
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if durable {
		if err = f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", p, err)
		}
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	if tmp != p {
		if err = os.Rename(tmp, p); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}

// forWorkflow notes the workflow's file (path, "" when unsaved): its mode
// for the copy, and its name for summary.json. The runs folder is beside
// the file, so its name is enough to tell which file of the folder ran
// (two files with one id: the run history keeps them apart), and it stays
// true when the folder moves with its .weft.
func (l *runLog) forWorkflow(path string) {
	l.workflowMode = workflowMode(path)
	if path != "" {
		l.workflowFile = filepath.Base(path)
	}
}

// writeSummary writes summary.json (written last: its presence says the
// run ended).
func (l *runLog) writeSummary(res *Result, w *workflow.Workflow) error {
	b, err := json.MarshalIndent(summaryDoc(res, w, l.workflowFile), "", "  ")
	if err != nil {
		return err
	}
	// Its values are redacted already (the Result); the bytes are checked
	// again in case a secret reached a field nothing redacts.
	return l.put(summaryFile, append(l.red.Bytes(b), '\n'), runFileMode, true)
}

// workflowMode is the permission of the workflow file, for its copy; an
// unsaved (or unreadable) one gets runFileMode.
func workflowMode(path string) os.FileMode {
	if path == "" {
		return runFileMode
	}
	st, err := os.Stat(path)
	if err != nil {
		return runFileMode
	}
	return st.Mode().Perm()
}

// important events are always written and flushed at once: they are what
// someone reads after a crash.
func important(t EventType) bool {
	switch t {
	case EvFailure, EvRetry, EvEscalated, EvUserResponse, EvResolved, EvWarning, EvRunStarted, EvRunFinished:
		return true
	}
	return false
}

// kept says whether a thinned loop iteration still writes the event:
// what someone reads after the run (failures, escalations, answers,
// warnings, the steps' own log lines, verdicts, skipped or failed steps).
func kept(e *Event) bool {
	switch e.Type {
	case EvNodeStarted, EvAttempt, EvVariableSet, EvBranchEvaluated, EvLoopIteration, EvToolCall:
		return false
	case EvNodeFinished:
		return e.Status != StatusOK
	}
	return true
}

// thinning follows the walk's loop events: a loop's iterations past
// loopDetailIterations are thin from the event that says so (which is
// written) until the loop is entered afresh or done.
func (l *runLog) thinning(e *Event, written bool) {
	switch {
	case !written && e.Type == EvLoopIteration && e.Iteration == 1,
		!written && e.Type == EvBranchEvaluated && e.Branch == string(workflow.OutLoopDone):
		delete(l.thin, e.NodeID)
	case written && e.Type == EvLoopIteration && e.Iteration == loopDetailIterations+1 && e.Message != "":
		l.thin[e.NodeID] = true
	}
}

func (l *runLog) emit(e Event) {
	e = redactEvent(l.red, e) // before the file and the callback alike
	l.mu.Lock()
	l.seq++
	e.Seq = l.seq
	e.RunID = l.runID
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	l.thinning(&e, false)
	imp := important(e.Type)
	write := imp || !l.capped && (len(l.thin) == 0 || kept(&e))
	if write {
		// The file line leaves out the run id (the folder is the run)
		// and keeps milliseconds: a long loop writes many lines.
		fe := e
		fe.RunID = ""
		fe.Time = e.Time.Truncate(time.Millisecond)
		b, err := fe.AppendJSON(l.line[:0])
		if err != nil {
			bad := Event{Seq: e.Seq, Time: fe.Time, Type: EvWarning, NodeID: e.NodeID, Message: "event not encodable: " + err.Error()}
			b, _ = bad.AppendJSON(l.line[:0])
		}
		b = append(b, '\n')
		l.line = b
		l.ew.Write(b)
		l.written += int64(len(b))
		if l.written > l.maxBytes && !l.capped {
			l.capped = true
			note := Event{Seq: e.Seq, Time: fe.Time, Type: EvWarning, Message: fmt.Sprintf("events.jsonl reached %s; from here on only failures, retries, escalations and the end of the run are written", sizeText(l.maxBytes))}
			nb, _ := note.AppendJSON(nil)
			l.ew.Write(append(nb, '\n'))
		}
		if imp || e.Time.Sub(l.lastFlush) > flushEvery {
			l.flushLocked()
		}
	}
	l.thinning(&e, true)
	l.retryLine(&e)
	cb := l.onEvent
	l.mu.Unlock()
	if cb != nil {
		cb(e)
	}
}

func (l *runLog) flushLocked() {
	if err := l.ew.Flush(); err != nil && l.err == nil {
		l.err = err
	}
	l.lastFlush = l.now()
}

// retryLine writes what an event says about failures and recovery to
// retry.log, in seed 003's format: [time] [RETRY] [key] message. The
// file is a view of the events, so every engine's run folder has it.
// Called with l.mu held; e is redacted.
func (l *runLog) retryLine(e *Event) {
	key := e.NodeKey
	switch e.Type {
	case EvFailure:
		if f := e.Failure; f != nil {
			l.retryfLocked(key, "attempt=%d status=failed type=%s category=%s severity=%s retryable=%t", e.Attempt, f.FailureType, f.Category, f.Severity, f.Retryable)
			l.retryfLocked(key, "error=%q", truncate(f.Error, 200))
			if f.SuggestedFix != "" {
				l.retryfLocked(key, "suggested_fix=%q", f.SuggestedFix)
			}
		}
	case EvRetry:
		if strings.HasPrefix(e.Message, "after ") {
			l.retryfLocked(key, "retrying attempt=%d of %d %s", e.Attempt, e.MaxAttempts, e.Message)
		} else {
			l.retryfLocked(key, "retrying attempt=%d of %d in %v", e.Attempt, e.MaxAttempts, (time.Duration(e.DelayMs) * time.Millisecond).Round(time.Millisecond))
		}
	case EvResolved:
		status := e.Message
		switch e.Status {
		case StatusOK:
			status = "success"
		case StatusSkipped:
			status = "skipped"
		}
		if mode, ok := strings.CutPrefix(e.Message, "handled by on_error "); ok {
			status = "handled on_error=" + mode
		}
		l.retryfLocked(key, "resolved status=%s total_attempts=%d", status, e.Attempt)
	case EvEscalated:
		reason := ""
		if e.Escalation != nil {
			reason = e.Escalation.Reason
		}
		l.retryfLocked(key, "escalating reason=%q attempts=%d", reason, e.Attempt)
	case EvUserResponse:
		if e.Response != nil {
			l.retryfLocked(key, "user_response=%q", flow.DescribeResponse(*e.Response))
		}
	}
}

// retryf appends a line to retry.log (tests, and what no event says).
func (l *runLog) retryf(key, format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.retryfLocked(key, format, args...)
}

func (l *runLog) retryfLocked(key, format string, args ...any) {
	line := fmt.Sprintf("[%s] [RETRY] [%s] %s\n", l.now().UTC().Format(time.RFC3339), key, l.red.String(fmt.Sprintf(format, args...)))
	if l.retryCapped {
		return
	}
	if l.retryWritten+int64(len(line)) > l.maxBytes {
		l.retryCapped = true
		line = fmt.Sprintf("[%s] [RETRY] [-] retry.log reached %s; later retries are in events.jsonl only\n", l.now().UTC().Format(time.RFC3339), sizeText(l.maxBytes))
	}
	l.retryWritten += int64(len(line))
	if l.retry == nil {
		f, err := l.openLog(retryLogFile)
		if err != nil {
			if l.err == nil {
				l.err = fmt.Errorf("create retry log: %w", err)
			}
			l.retryCapped = true // said once; the events keep the retries
			return
		}
		l.retry = f
	}
	if _, err := l.retry.WriteString(line); err != nil && l.err == nil {
		l.err = err
	}
}

func sizeText(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// writeWorkflow writes the workflow copy, unredacted (it is what ran and
// can be run again) and with the workflow file's mode; again at the end
// only when the run changed the workflow (a fix applied).
func (l *runLog) writeWorkflow(w *workflow.Workflow) error {
	b, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if bytes.Equal(b, l.workflowCopy) {
		return nil
	}
	if err := l.put(workflowFile, b, l.workflowMode, false); err != nil {
		return err
	}
	l.workflowCopy = b
	return nil
}

func (l *runLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	var e2, e3 error
	if l.events != nil {
		e2 = l.events.Close()
	}
	if l.retry != nil {
		e3 = l.retry.Close()
	}
	for _, e := range []error{l.err, e2, e3} {
		if e != nil {
			return e
		}
	}
	return nil
}

// pruneRuns removes the oldest finished run folders in runsDir so that at
// most keep remain (the current one included). Folders of runs that may
// still be going (no summary.json, touched within the last day) are left
// alone, as is anything not named like a run.
//
// Every run calls it, so it lists runsDir only when the folder's link
// count does not already say it holds at most keep folders.
func pruneRuns(runsDir, current string, keep int, now time.Time) error {
	if st, err := os.Stat(runsDir); err == nil {
		if n, ok := subdirCount(st); ok && n <= keep {
			return nil
		}
	}
	ents, err := os.ReadDir(runsDir)
	if err != nil {
		return err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && runIDRe.MatchString(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids) // ids start with the UTC time: oldest first
	excess := len(ids) - keep
	var errs []string
	for _, id := range ids {
		if excess <= 0 {
			break
		}
		if id == current {
			continue
		}
		dir := filepath.Join(runsDir, id)
		if _, err := os.Stat(filepath.Join(dir, summaryFile)); err != nil {
			if st, err := os.Stat(dir); err == nil && now.Sub(st.ModTime()) < 24*time.Hour {
				continue
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		excess--
	}
	if len(errs) > 0 {
		return fmt.Errorf("prune old runs: %s", strings.Join(errs, "; "))
	}
	return nil
}
