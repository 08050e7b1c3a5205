//go:build unix

// Package statefiles tests, across the packages that keep them, that
// every file Weft keeps (approvals, settings, the session, proposals,
// chats, versions, workflows, logs) is read or appended to only if it is a
// regular file: a FIFO, a socket, a folder or a device put at its path
// makes the reader return promptly with an error, never hang or read
// without end (atomicfile.OpenFile, the one opener they share).
package statefiles

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/atomicfile/atomicfiletest"
	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/session"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// stateFile is one file Weft keeps: where it is in dir, and a call that
// reads (or appends to) it and returns what went wrong.
type stateFile struct {
	name string
	path func(t *testing.T, dir string) string
	use  func(t *testing.T, dir string) error
}

func at(name string) func(*testing.T, string) string {
	return func(_ *testing.T, dir string) string { return filepath.Join(dir, name) }
}

const (
	proposalID = "0123456789abcdef"
	runID      = "20261127-120000.000-abcdef"
)

func stateFiles() []stateFile {
	wf := func() *workflow.Workflow {
		w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"wf1","name":"w","nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]}`))
		if err != nil {
			panic(err)
		}
		return w
	}
	return []stateFile{
		{"approvals", at("approvals.json"), func(_ *testing.T, dir string) error {
			_, err := approval.OpenStore(filepath.Join(dir, "approvals.json")).Snapshot(filepath.Join(dir, "flow.weft.json"))
			return err
		}},
		{"secrets index", at(credentials.IndexFile), func(_ *testing.T, dir string) error {
			_, err := credentials.Open(dir, settings.NoKeyring{}).List()
			return err
		}},
		{"secrets file", at(credentials.ValuesFile), func(t *testing.T, dir string) error {
			idx := `{"version":1,"secrets":[{"name":"A","stored":"file"}]}`
			if err := os.WriteFile(filepath.Join(dir, credentials.IndexFile), []byte(idx), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := credentials.Open(dir, settings.NoKeyring{}).Get("A")
			return err
		}},
		{"settings", at("settings.json"), func(_ *testing.T, dir string) error {
			_, _, err := (&settings.Store{Path: filepath.Join(dir, "settings.json")}).Load()
			return err
		}},
		{"session autosave", at(session.AutosaveFile), func(_ *testing.T, dir string) error {
			_, _, err := (&session.Store{Dir: dir}).LoadAutosave()
			return err
		}},
		{"session recent files", at(session.RecentFile), func(_ *testing.T, dir string) error {
			_, _, err := (&session.Store{Dir: dir}).Recent()
			return err
		}},
		{"a proposal", func(t *testing.T, dir string) string {
			t.Setenv("XDG_DATA_HOME", dir)
			p, err := assistant.ProposalPath(proposalID)
			if err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(p), 0o755)
			return p
		}, func(_ *testing.T, dir string) error {
			_, err := assistant.LoadProposal(proposalID)
			return err
		}},
		{"a chat", at("chat.json"), func(_ *testing.T, dir string) error {
			_, _, err := assistant.LoadChat(filepath.Join(dir, "chat.json"), "wf1")
			return err
		}},
		{"a version", func(t *testing.T, dir string) string {
			v, err := (&versions.Store{Dir: dir}).Save(wf(), versions.ReasonManual)
			if err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "wf1", "v"+strconv.Itoa(v.N)+".json")
		}, func(_ *testing.T, dir string) error {
			// An hour on: an empty file is not one being written just now.
			later := func() time.Time { return time.Now().Add(time.Hour) }
			_, err := (&versions.Store{Dir: dir, Now: later}).Load("wf1", 1)
			return err
		}},
		{"the versions index", func(t *testing.T, dir string) string {
			if _, err := (&versions.Store{Dir: dir}).Save(wf(), versions.ReasonManual); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(dir, "wf1", "index.json")
		}, func(_ *testing.T, dir string) error {
			_, err := (&versions.Store{Dir: dir}).List("wf1")
			return err
		}},
		{"a workflow file", at("flow.weft.json"), func(_ *testing.T, dir string) error {
			_, _, err := workflow.Load(filepath.Join(dir, "flow.weft.json"))
			return err
		}},
		{"the repair memory", at("repair-memory.jsonl"), func(_ *testing.T, dir string) error {
			_, _, err := (&planner.Memory{Path: filepath.Join(dir, "repair-memory.jsonl")}).Load()
			return err
		}},
		{"failure patterns", at("patterns.jsonl"), func(_ *testing.T, dir string) error {
			_, err := (&failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}).Relevant("run_command", 5)
			return err
		}},
		{"failure patterns (appending)", at("patterns.jsonl"), func(_ *testing.T, dir string) error {
			return (&failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}).Record(failure.Pattern{Tool: "run_command", Error: "boom", Resolution: "retry"})
		}},
		{"the schedules", at("schedules.json"), func(_ *testing.T, dir string) error {
			_, err := (&schedule.Manager{Path: filepath.Join(dir, "schedules.json")}).List()
			return err
		}},
		{"a past run's summary", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, ".weft", "runs", runID, "summary.json")
			os.MkdirAll(filepath.Dir(p), 0o755)
			return p
		}, func(_ *testing.T, dir string) error {
			h, err := (&service.Service{}).RunHistory(filepath.Join(dir, "flow.weft.json"), "")
			if err == nil && len(h.Warnings) > 0 {
				err = errors.New(strings.Join(h.Warnings, "; "))
			}
			return err
		}},
		{"a past run's events", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, runID, "events.jsonl")
			os.MkdirAll(filepath.Dir(p), 0o755)
			return p
		}, func(_ *testing.T, dir string) error {
			_, err := (&service.Service{}).RunEvents(filepath.Join(dir, runID))
			return err
		}},
		{"a run log", at("events.jsonl"), func(_ *testing.T, dir string) error {
			_, err := runner.RepairLog(filepath.Join(dir, "events.jsonl"))
			return err
		}},
	}
}

func TestStateFilesAreRegularOnly(t *testing.T) {
	for _, sf := range stateFiles() {
		for _, sp := range atomicfiletest.Specials() {
			t.Run(sf.name+"/"+sp.Name, func(t *testing.T) {
				dir := t.TempDir()
				p := sf.path(t, dir)
				sp.Make(t, p)
				err := atomicfiletest.Prompt(t, sf.name, func() error { return sf.use(t, dir) })
				if err == nil || !strings.Contains(err.Error(), "not a regular file") {
					t.Fatalf("%s at %s: err %v, want it refused as not a regular file", sp.Name, p, err)
				}
			})
		}
	}
}
