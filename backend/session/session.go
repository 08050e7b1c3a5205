// Package session keeps the desktop editor's state between runs: the
// autosaved copy of a document with unsaved changes (so a crash or a kill
// loses at most a few seconds of work), the list of recently opened files,
// and whether the window may close without asking. Files live in the XDG
// data directory ($XDG_DATA_HOME/weft) and are written atomically; an
// unreadable file is moved aside and never stops the app.
package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/appdirs"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/workflow"
)

// File names inside the store's directory.
const (
	AutosaveFile = "autosave.json"
	RecentFile   = "recent.json"
)

// MaxRecent bounds the recent files list.
const MaxRecent = 10

// maxAutosaveSize bounds what LoadAutosave reads (the workflow file limit).
const maxAutosaveSize = workflow.MaxFileSize

// maxRecentSize bounds what the recent list reads; it holds ten paths.
const maxRecentSize = 1 << 20

// Store reads and writes the session files in Dir.
type Store struct {
	Dir string
	// Now stamps autosaves and names corrupt files moved aside.
	Now func() time.Time
	// Exists tells whether a recent file is still there; os.Stat by default.
	Exists func(path string) bool
	Log    *slog.Logger

	mu sync.Mutex
}

// DefaultDir is $XDG_DATA_HOME/weft, read afresh so that XDG_* changes made
// after start (tests, embedding) apply.
func DefaultDir() (string, error) {
	p, err := appdirs.DataFile(AutosaveFile)
	if err != nil {
		return "", fmt.Errorf("locate session directory: %w", err)
	}
	return filepath.Dir(p), nil
}

// NewStore returns a store in DefaultDir.
func NewStore() (*Store, error) {
	dir, err := DefaultDir()
	if err != nil {
		return nil, err
	}
	return &Store{Dir: dir}, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

func (s *Store) exists(path string) bool {
	if s.Exists != nil {
		return s.Exists(path)
	}
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}

func (s *Store) path(name string) string { return filepath.Join(s.Dir, name) }

// Autosave is a document with unsaved changes as it was last autosaved.
type Autosave struct {
	SavedAt time.Time `json:"saved_at"`
	// Path is the file the document belongs to; "" for one never saved.
	Path string `json:"path"`
	// Name is the name shown in the title (the file's base name, or the
	// sample's name).
	Name     string             `json:"name"`
	Workflow *workflow.Workflow `json:"workflow"`
}

// autosaveDoc is the file form: the workflow kept as raw JSON so that it is
// written and read with the workflow package's own encoding (unknown fields
// kept, errors with line and column).
type autosaveDoc struct {
	Version  int             `json:"version"`
	SavedAt  time.Time       `json:"saved_at"`
	Path     string          `json:"path"`
	Name     string          `json:"name"`
	Workflow json.RawMessage `json:"workflow"`
}

// Autosave writes w, the document of the file at path (or "" if it has
// none), as the autosave, replacing the previous one atomically.
func (s *Store) Autosave(w *workflow.Workflow, path, name string) error {
	if w == nil {
		return errors.New("autosave: no workflow")
	}
	raw, err := workflow.Marshal(w)
	if err != nil {
		return fmt.Errorf("autosave: %w", err)
	}
	data, err := json.Marshal(autosaveDoc{Version: 1, SavedAt: s.now().UTC(), Path: path, Name: name, Workflow: raw})
	if err != nil {
		return fmt.Errorf("autosave: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := atomicfile.WriteFile(s.path(AutosaveFile), data, 0o600); err != nil {
		return fmt.Errorf("autosave: %w", err)
	}
	return nil
}

// LoadAutosave returns the autosave, or nil when there is none. A file that
// cannot be parsed is moved aside and reported as a warning, not an error:
// only an unreadable file (permissions, I/O) is an error.
func (s *Store) LoadAutosave() (*Autosave, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.path(AutosaveFile)
	data, err := atomicfile.ReadBounded(p, maxAutosaveSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read autosave %s: %w", p, err)
	}
	var doc autosaveDoc
	var w *workflow.Workflow
	var warnings []string
	derr := json.Unmarshal(data, &doc)
	if derr == nil && len(bytes.TrimSpace(doc.Workflow)) == 0 {
		derr = errors.New("no workflow in it")
	}
	if derr == nil {
		w, warnings, derr = workflow.Parse(doc.Workflow)
	}
	if derr != nil {
		return nil, []string{s.moveAside(p, "autosave", derr)}, nil
	}
	return &Autosave{SavedAt: doc.SavedAt, Path: doc.Path, Name: doc.Name, Workflow: w}, warnings, nil
}

// ClearAutosave removes the autosave; a missing one is not an error.
func (s *Store) ClearAutosave() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.Remove(s.path(AutosaveFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("clear autosave: %w", err)
	}
	return nil
}

// Recent is one recently opened or saved workflow file.
type Recent struct {
	Path     string    `json:"path"`
	Name     string    `json:"name"`
	OpenedAt time.Time `json:"opened_at"`
}

type recentDoc struct {
	Version int      `json:"version"`
	Files   []Recent `json:"files"`
}

// Recent returns the recent files, newest first, without the ones that no
// longer exist (the pruned list is written back). A corrupt list is moved
// aside and read as empty, with a warning.
func (s *Store) Recent() ([]Recent, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, warnings, err := s.readRecent()
	if err != nil {
		return nil, warnings, err
	}
	kept := s.prune(list)
	if len(kept) != len(list) {
		if werr := s.writeRecent(kept); werr != nil {
			warnings = append(warnings, werr.Error())
		}
	}
	return kept, warnings, nil
}

// AddRecent puts path at the top of the recent files and returns the list.
// Relative paths are made absolute; the list keeps MaxRecent entries.
func (s *Store) AddRecent(path string) ([]Recent, []string, error) {
	if path == "" {
		return nil, nil, errors.New("add recent file: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("add recent file: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, warnings, err := s.readRecent()
	if err != nil {
		// An unreadable list is replaced rather than blocking the open.
		warnings = append(warnings, err.Error())
		list = nil
	}
	out := []Recent{{Path: abs, Name: filepath.Base(abs), OpenedAt: s.now().UTC()}}
	for _, r := range s.prune(list) {
		if r.Path != abs {
			out = append(out, r)
		}
	}
	if len(out) > MaxRecent {
		out = out[:MaxRecent]
	}
	if err := s.writeRecent(out); err != nil {
		return out, warnings, err
	}
	return out, warnings, nil
}

// RemoveRecent drops path from the recent files (after it failed to open).
func (s *Store) RemoveRecent(path string) ([]Recent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list, _, err := s.readRecent()
	if err != nil {
		return nil, err
	}
	out := make([]Recent, 0, len(list))
	for _, r := range list {
		if r.Path != path {
			out = append(out, r)
		}
	}
	if len(out) != len(list) {
		if err := s.writeRecent(out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Store) prune(list []Recent) []Recent {
	out := make([]Recent, 0, len(list))
	seen := map[string]bool{}
	for _, r := range list {
		if r.Path == "" || seen[r.Path] || !s.exists(r.Path) {
			continue
		}
		seen[r.Path] = true
		if r.Name == "" {
			r.Name = filepath.Base(r.Path)
		}
		out = append(out, r)
	}
	if len(out) > MaxRecent {
		out = out[:MaxRecent]
	}
	return out
}

func (s *Store) readRecent() ([]Recent, []string, error) {
	p := s.path(RecentFile)
	data, err := atomicfile.ReadBounded(p, maxRecentSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read recent files %s: %w", p, err)
	}
	var doc recentDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, []string{s.moveAside(p, "recent files list", err)}, nil
	}
	return doc.Files, nil, nil
}

func (s *Store) writeRecent(list []Recent) error {
	if list == nil {
		list = []Recent{}
	}
	data, err := json.MarshalIndent(recentDoc{Version: 1, Files: list}, "", "  ")
	if err != nil {
		return fmt.Errorf("save recent files: %w", err)
	}
	if err := atomicfile.WriteFile(s.path(RecentFile), append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("save recent files: %w", err)
	}
	return nil
}

// moveAside moves a corrupt file out of the way and says so.
func (s *Store) moveAside(p, what string, why error) string {
	moved, err := atomicfile.MoveAside(p, s.now())
	if err != nil {
		s.log().Warn("corrupt session file could not be moved aside", "path", p, "error", err.Error())
		return fmt.Sprintf("the %s %s is corrupt (%v) and could not be moved aside (%v); ignored it", what, p, why, err)
	}
	s.log().Warn("corrupt session file moved aside", "path", p, "moved_to", moved, "error", why.Error())
	return fmt.Sprintf("the %s was corrupt (%v); moved it to %s", what, why, moved)
}
