// Package schedule runs workflows on a schedule ("every morning at 7")
// with the operating system's scheduler, so nothing of Weft has to be
// running: a systemd user timer on Linux, or a crontab entry where there
// is no systemd. (macOS launchd and the Windows Task Scheduler are not
// supported yet; Temporal Schedules are issue 13's next step.) The
// scheduled command is `weft run FILE --on-escalate abort --source
// schedule --require-sha256 HEX`: it runs headless, its run is logged
// beside the file like any run (as a schedule's), it runs only the file's
// content approved when the schedule was made (HEX, its SHA-256: other
// content is refused as needs_review), and the approval of the steps a
// model wrote must have been given before (at `weft schedule add`), for
// their exact content.
package schedule

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
)

// Schedule is one workflow file run on a cron expression.
type Schedule struct {
	ID      string    `json:"id"`
	File    string    `json:"file"`
	Cron    string    `json:"cron"`
	Paused  bool      `json:"paused"`
	Backend string    `json:"backend"`
	Created time.Time `json:"created"`
	// Args are the flags the scheduled `weft run` gets after FILE.
	Args []string `json:"args,omitempty"`
	// SHA256 is the hex SHA-256 of the file's bytes approved when the
	// schedule was made or last updated: a run of other content is
	// refused. "" for a schedule made before content was pinned.
	SHA256 string `json:"sha256,omitempty"`
	// Temporal says where a schedule kept by a Temporal service is.
	Temporal *Remote `json:"temporal,omitempty"`
}

// Remote is a Temporal service's address, namespace and task queue.
type Remote struct {
	Address   string `json:"address"`
	Namespace string `json:"namespace"`
	TaskQueue string `json:"task_queue"`
	TLS       bool   `json:"tls,omitempty"`
}

// Backend installs schedules into an OS scheduler.
type Backend interface {
	Name() string
	// Entry is the text Install gives the scheduler for s, to show the
	// person before it is installed.
	Entry(s Schedule, command []string) (string, error)
	Install(ctx context.Context, s Schedule, command []string) error
	SetPaused(ctx context.Context, s Schedule, paused bool) error
	Remove(ctx context.Context, s Schedule) error
}

// Manager keeps the schedules (a JSON file) and their OS entries in step.
type Manager struct {
	// Path is the schedules file.
	Path    string
	Backend Backend
	// NoBackend says why Backend is nil (Detect's error).
	NoBackend error
	// Weft is the absolute path of the weft binary the schedules run.
	Weft string
	Now  func() time.Time
	// Others are the backends of schedules made elsewhere (by name: a
	// Temporal service's schedules).
	Others map[string]Backend
}

// Unavailable says why this machine cannot schedule (nil when it can).
func (m *Manager) Unavailable() error {
	switch {
	case m.Backend != nil:
		return nil
	case m.NoBackend != nil:
		return m.NoBackend
	}
	return errors.New("no scheduler on this machine")
}

func (m *Manager) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

// maxListSize bounds reading the list of schedules.
const maxListSize = 16 << 20

// List returns the schedules, oldest first.
func (m *Manager) List() ([]Schedule, error) {
	b, err := atomicfile.ReadBounded(m.Path, maxListSize)
	if errors.Is(err, os.ErrNotExist) {
		return []Schedule{}, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Schedule
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", m.Path, err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

func (m *Manager) save(all []Schedule) error {
	if err := os.MkdirAll(filepath.Dir(m.Path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(m.Path, append(b, '\n'), 0o600)
}

// Command is what the OS runs for s.
func (m *Manager) Command(s Schedule) []string {
	cmd := []string{m.Weft, "run", s.File, "--on-escalate", "abort", "--source", "schedule"}
	if s.SHA256 != "" {
		cmd = append(cmd, "--require-sha256", s.SHA256)
	}
	return append(cmd, s.Args...)
}

// Inputs are the values s gives each run for the workflow's inputs (its
// Args' --inputs JSON; nil when none).
func (s Schedule) Inputs() (map[string]any, error) {
	i := slices.Index(s.Args, "--inputs")
	if i < 0 {
		return nil, nil
	}
	if i+1 >= len(s.Args) {
		return nil, fmt.Errorf("schedule %s: --inputs without its value", s.ID)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(s.Args[i+1]), &v); err != nil {
		return nil, fmt.Errorf("schedule %s: its inputs are not a JSON object: %w", s.ID, err)
	}
	return v, nil
}

// Add schedules file on cron and installs it; sum is the SHA-256 of its
// approved content (the runs refuse any other).
func (m *Manager) Add(ctx context.Context, file, cron, sum string, args []string) (Schedule, error) {
	s, err := m.Draft("", file, cron, sum, args)
	if err != nil {
		return Schedule{}, err
	}
	return m.Install(ctx, s, nil)
}

// Draft is the schedule Add would make of file on cron, not installed: id
// names it ("" for a new name). Its Entry can be shown, then Install
// installs it.
func (m *Manager) Draft(id, file, cron, sum string, args []string) (Schedule, error) {
	if err := m.Unavailable(); err != nil {
		return Schedule{}, err
	}
	c, err := ParseCron(cron)
	if err != nil {
		return Schedule{}, err
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return Schedule{}, err
	}
	if _, err := os.Stat(abs); err != nil {
		return Schedule{}, fmt.Errorf("schedule %s: %w", file, err)
	}
	if id == "" {
		id = newID(abs)
	} else if !validID(id) {
		return Schedule{}, fmt.Errorf("schedule id %q: want lower-case letters, digits and dashes, at most 40", id)
	}
	return Schedule{ID: id, File: abs, Cron: c.String(), Backend: m.Backend.Name(), Args: args, SHA256: sum}, nil
}

// Entry is the text the scheduler gets for s (a crontab line, unit files).
func (m *Manager) Entry(s Schedule) (string, error) {
	if err := m.Unavailable(); err != nil {
		return "", err
	}
	return m.Backend.Entry(s, m.Command(s))
}

// Install installs the draft s and records it. shown, when not nil, is
// the entry the person was shown: a draft whose entry is not exactly that
// now (the file changed since, another name) is refused, so nothing is
// installed that was not seen.
func (m *Manager) Install(ctx context.Context, s Schedule, shown *string) (Schedule, error) {
	if err := m.Unavailable(); err != nil {
		return Schedule{}, err
	}
	if shown != nil {
		entry, err := m.Entry(s)
		if err != nil {
			return Schedule{}, err
		}
		if entry != *shown {
			return Schedule{}, errors.New("the scheduler's entry is not the one shown (the file changed since?): look at it again")
		}
	}
	all, err := m.List()
	if err != nil {
		return Schedule{}, err
	}
	for _, o := range all {
		if o.ID == s.ID {
			return Schedule{}, fmt.Errorf("a schedule named %s exists already", s.ID)
		}
	}
	s.Created = m.now().UTC()
	if err := m.Backend.Install(ctx, s, m.Command(s)); err != nil {
		return Schedule{}, fmt.Errorf("install the schedule with %s: %w", m.Backend.Name(), err)
	}
	if err := m.save(append(all, s)); err != nil {
		_ = m.Backend.Remove(ctx, s) // no OS entry the list does not know
		return Schedule{}, err
	}
	return s, nil
}

// validID is a name newID could have made: it lands in file names and a
// crontab comment.
func validID(id string) bool {
	if id == "" || len(id) > 40 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// locate finds schedule id among all, with the backend that made it.
func (m *Manager) locate(id string) ([]Schedule, int, Backend, error) {
	all, err := m.List()
	if err != nil {
		return nil, -1, nil, err
	}
	for i := range all {
		if all[i].ID == id {
			b, err := m.backendOf(all[i])
			return all, i, b, err
		}
	}
	return all, -1, nil, fmt.Errorf("no schedule %q (weft schedule list shows them)", id)
}

// SetPaused pauses or resumes a schedule.
func (m *Manager) SetPaused(ctx context.Context, id string, paused bool) error {
	all, i, b, err := m.locate(id)
	if err != nil {
		return err
	}
	if err := b.SetPaused(ctx, all[i], paused); err != nil {
		return err
	}
	all[i].Paused = paused
	return m.save(all)
}

// Repin makes schedule id run the content whose SHA-256 is sum from now
// on (the file was reviewed again): its OS entry is made anew, paused if
// it was. The schedule as it was stays when that fails.
func (m *Manager) Repin(ctx context.Context, id, sum string) (Schedule, error) {
	all, i, b, err := m.locate(id)
	if err != nil {
		return Schedule{}, err
	}
	old := all[i]
	s := old
	s.SHA256 = sum
	install := func(s Schedule) error {
		if err := b.Install(ctx, s, m.Command(s)); err != nil {
			return err
		}
		if s.Paused {
			return b.SetPaused(ctx, s, true)
		}
		return nil
	}
	if err := b.Remove(ctx, old); err != nil {
		return Schedule{}, fmt.Errorf("update schedule %s: %w", id, err)
	}
	if err := install(s); err != nil {
		if rerr := install(old); rerr != nil {
			return Schedule{}, fmt.Errorf("update schedule %s: %w; and the schedule as it was could not be put back: %v (weft schedule add makes it again)", id, err, rerr)
		}
		return Schedule{}, fmt.Errorf("update schedule %s: %w", id, err)
	}
	all[i] = s
	return s, m.save(all)
}

// Remove deletes a schedule and its OS entry.
func (m *Manager) Remove(ctx context.Context, id string) error {
	all, i, b, err := m.locate(id)
	if err != nil {
		return err
	}
	if err := b.Remove(ctx, all[i]); err != nil {
		return err
	}
	return m.save(append(all[:i], all[i+1:]...))
}

func (m *Manager) backendOf(s Schedule) (Backend, error) {
	if b, ok := m.Others[s.Backend]; ok {
		return b, nil
	}
	if m.Backend == nil || m.Backend.Name() != s.Backend {
		return nil, fmt.Errorf("schedule %s was made with %s, which this machine does not offer now", s.ID, s.Backend)
	}
	return m.Backend, nil
}

// NewID names a new schedule of the file.
func NewID(file string) string { return newID(file) }

// Put records a schedule another backend made (a Temporal schedule).
func (m *Manager) Put(s Schedule) error {
	all, err := m.List()
	if err != nil {
		return err
	}
	return m.save(append(all, s))
}

func newID(file string) string {
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	var clean strings.Builder
	for _, r := range strings.ToLower(base) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			clean.WriteRune(r)
		} else if clean.Len() > 0 && !strings.HasSuffix(clean.String(), "-") {
			clean.WriteByte('-')
		}
		if clean.Len() >= 24 {
			break
		}
	}
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return strings.Trim(clean.String(), "-") + "-" + hex.EncodeToString(b)
}

// run executes name args… and returns its output, saying what failed.
func run(ctx context.Context, stdin []byte, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// Missed says whether the last time the schedule should have run (at or
// before now, after it was created) has no run started since (lastRun,
// zero when it never ran), allowing grace for the run to start.
func Missed(cron string, created, lastRun, now time.Time, grace time.Duration) (time.Time, bool) {
	c, err := ParseCron(cron)
	if err != nil {
		return time.Time{}, false
	}
	due, ok := c.Previous(now.Add(-grace))
	if !ok || due.Before(created) {
		return time.Time{}, false
	}
	return due, lastRun.Before(due)
}
