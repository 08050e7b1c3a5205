// Package versions keeps the versions of each workflow, so that any two can
// be compared: a manual save, a replan after a failed run, an applied
// assistant patch. They live in $XDG_DATA_HOME/weft/versions/<workflow
// id>/ as v<N>.json (a plain weft/v1 workflow file, openable in Weft) and
// index.json (number, time, reason and summary of each). Writes are
// atomic; a corrupt file is moved aside and never stops the store.
package versions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/appdirs"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/workflow"
)

// Reason says why a version was saved.
type Reason string

const (
	ReasonManual    Reason = "manual save"
	ReasonReplan    Reason = "replan"
	ReasonAssistant Reason = "assistant patch"
	// ReasonUnknown is given to version files found without an index
	// entry (an index that was lost or corrupt).
	ReasonUnknown Reason = "unknown"
)

// Version describes one saved version.
type Version struct {
	N      int       `json:"n"`
	Time   time.Time `json:"time"`
	Reason Reason    `json:"reason"`
	// Summary says what changed from the previous version.
	Summary string `json:"summary"`
	// Name and Nodes are the workflow's name and node count then.
	Name  string `json:"name"`
	Nodes int    `json:"nodes"`
}

// ErrNotFound is returned by Load for a version that does not exist.
var ErrNotFound = errors.New("no such version")

// ErrCorrupt is returned by Load for a version file that could not be
// read; the file has been moved aside.
var ErrCorrupt = errors.New("corrupt version file")

const (
	indexFile = "index.json"
	// maxIndexSize bounds what reading the index takes.
	maxIndexSize = 64 << 20
	// claimGrace is how long an empty version file counts as being
	// written by another process rather than left by a crash.
	claimGrace = time.Minute
)

// Store is a versions folder. It is safe for concurrent use; several
// processes may save at once (version numbers are claimed with exclusive
// creates, and List rebuilds entries the index lost).
type Store struct {
	// Dir holds one folder per workflow id.
	Dir string
	Now func() time.Time
	Log *slog.Logger

	mu sync.Mutex
}

// DefaultDir is $XDG_DATA_HOME/weft/versions.
func DefaultDir() (string, error) {
	return appdirs.DataDir("versions")
}

// DefaultStore opens the store in DefaultDir.
func DefaultStore() (*Store, error) {
	dir, err := DefaultDir()
	if err != nil {
		return nil, err
	}
	return &Store{Dir: dir}, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

func (s *Store) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

var safeID = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$`)

// folder is the workflow's folder: its id when that is a safe file name,
// else a hash of it.
func (s *Store) folder(id string) (string, error) {
	if strings.TrimSpace(id) == "" {
		return "", errors.New("versions: the workflow has no id")
	}
	name := id
	if !safeID.MatchString(id) || id == "." || id == ".." {
		sum := sha256.Sum256([]byte(id))
		name = "id-" + hex.EncodeToString(sum[:12])
	}
	return filepath.Join(s.Dir, name), nil
}

type index struct {
	WorkflowID string    `json:"workflow_id"`
	Versions   []Version `json:"versions"`
}

var versionFile = regexp.MustCompile(`^v([0-9]{1,9})\.json`)

func fileName(n int) string { return "v" + strconv.Itoa(n) + ".json" }

// Save stores w as a new version, with a summary of what changed since
// the latest one. A workflow identical to the latest version is not
// stored twice: its Version is returned instead.
func (s *Store) Save(w *workflow.Workflow, reason Reason) (Version, error) {
	return s.SaveWithSummary(w, reason, "")
}

// SaveWithSummary is Save with the summary given ("" computes it).
func (s *Store) SaveWithSummary(w *workflow.Workflow, reason Reason, summary string) (Version, error) {
	if w == nil {
		return Version{}, errors.New("versions: no workflow")
	}
	dir, err := s.folder(w.ID)
	if err != nil {
		return Version{}, err
	}
	data, err := workflow.Marshal(w)
	if err != nil {
		return Version{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Versions hold workflows, and workflows can hold credentials: the
	// store and its files are the user's alone (0700, 0600), and a looser
	// folder or index left by an earlier Weft is tightened now.
	for _, d := range []string{s.Dir, dir} {
		if err := atomicfile.PrivateDir(d); err != nil {
			return Version{}, fmt.Errorf("versions: %w", err)
		}
	}
	list, highest, err := s.list(dir, w.ID)
	if err != nil {
		return Version{}, err
	}
	if len(list) > 0 {
		latest := list[len(list)-1]
		prev, err := s.load(dir, latest.N)
		if err == nil {
			if old, err := workflow.Marshal(prev); err == nil && bytes.Equal(old, data) {
				return latest, nil
			}
			if summary == "" {
				summary = Compare(prev, w).Summary()
			}
		}
	}
	if summary == "" {
		summary = "first version: " + count(len(w.Nodes), "step", "steps")
		if len(list) > 0 {
			summary = count(len(w.Nodes), "step", "steps")
		}
	}

	// Claim the next number with an exclusive create, then write the
	// content atomically over the claim.
	n := highest + 1
	for ; ; n++ {
		f, err := os.OpenFile(filepath.Join(dir, fileName(n)), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return Version{}, fmt.Errorf("versions: %w", err)
		}
		f.Close()
		break
	}
	path := filepath.Join(dir, fileName(n))
	if err := atomicfile.WriteFile(path, data, 0o600); err != nil {
		os.Remove(path)
		return Version{}, fmt.Errorf("versions: %w", err)
	}
	v := Version{N: n, Time: s.now(), Reason: reason, Summary: summary, Name: w.Name, Nodes: len(w.Nodes)}
	list = append(list, v)
	if err := s.writeIndex(dir, w.ID, list); err != nil {
		// The version is saved; List finds it without the index.
		s.log().Warn("versions: could not write the index", "dir", dir, "error", err)
	}
	return v, nil
}

func (s *Store) writeIndex(dir, id string, list []Version) error {
	data, err := json.MarshalIndent(index{WorkflowID: id, Versions: list}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, indexFile), append(data, '\n'), 0o600)
}

// List returns the versions of a workflow, oldest first; none is not an
// error. Version files the index does not know are listed with
// ReasonUnknown; index entries whose file is gone are left out.
func (s *Store) List(id string) ([]Version, error) {
	dir, err := s.folder(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, _, err := s.list(dir, id)
	if list == nil && err == nil {
		list = []Version{}
	}
	return list, err
}

// list reads the index and the folder. highest is the largest version
// number ever used, corrupt files moved aside included.
func (s *Store) list(dir, id string) ([]Version, int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("versions: %w", err)
	}
	highest := 0
	files := map[int]os.DirEntry{}
	for _, e := range entries {
		m := versionFile.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		highest = max(highest, n)
		if e.Name() == fileName(n) {
			files[n] = e
		}
	}

	var idx index
	indexPath := filepath.Join(dir, indexFile)
	data, err := atomicfile.ReadBounded(indexPath, maxIndexSize)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, 0, fmt.Errorf("versions: %w", err)
	default:
		if jerr := json.Unmarshal(data, &idx); jerr != nil {
			if aside, merr := atomicfile.MoveAside(indexPath, s.now()); merr == nil {
				s.log().Warn("versions: the index was corrupt; moved aside and rebuilt from the version files", "moved_to", aside, "error", jerr)
			}
			idx = index{}
		}
	}

	var out []Version
	seen := map[int]bool{}
	for _, v := range idx.Versions {
		if _, ok := files[v.N]; ok && !seen[v.N] {
			seen[v.N] = true
			out = append(out, v)
		}
		highest = max(highest, v.N)
	}
	for n, e := range files {
		if seen[n] {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if info.Size() == 0 {
			continue // being written (or a crash's leftover, moved aside by Load)
		}
		v := Version{N: n, Time: info.ModTime().UTC(), Reason: ReasonUnknown, Summary: "found without an index entry"}
		if w, err := s.load(dir, n); err == nil {
			v.Name, v.Nodes = w.Name, len(w.Nodes)
		} else {
			continue // moved aside
		}
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].N < out[j].N })
	return out, highest, nil
}

// Load returns version n of a workflow. A file that cannot be read is
// moved aside and reported with ErrCorrupt.
func (s *Store) Load(id string, n int) (*workflow.Workflow, error) {
	dir, err := s.folder(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.load(dir, n)
}

func (s *Store) load(dir string, n int) (*workflow.Workflow, error) {
	path := filepath.Join(dir, fileName(n))
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || n <= 0 {
		return nil, fmt.Errorf("version %d: %w", n, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("version %d: %w", n, err)
	}
	if st.Size() == 0 && s.now().Sub(st.ModTime()) < claimGrace {
		return nil, fmt.Errorf("version %d is being written: %w", n, ErrNotFound)
	}
	w, _, err := workflow.Load(path)
	if err == nil {
		return w, nil
	}
	aside, merr := atomicfile.MoveAside(path, s.now())
	if merr != nil {
		return nil, fmt.Errorf("version %d: %w: %v (and it could not be moved aside: %v)", n, ErrCorrupt, err, merr)
	}
	s.log().Warn("versions: a version file was corrupt; moved aside", "version", n, "moved_to", aside, "error", err)
	return nil, fmt.Errorf("version %d: %w: %v; moved aside to %s", n, ErrCorrupt, err, aside)
}

// Latest returns the newest version of a workflow, ok false when it has
// none.
func (s *Store) Latest(id string) (Version, bool, error) {
	list, err := s.List(id)
	if err != nil || len(list) == 0 {
		return Version{}, false, err
	}
	return list[len(list)-1], true, nil
}

// CompareVersions loads versions a and b of a workflow and compares them.
func (s *Store) CompareVersions(id string, a, b int) (Diff, error) {
	wa, err := s.Load(id, a)
	if err != nil {
		return Diff{}, err
	}
	wb, err := s.Load(id, b)
	if err != nil {
		return Diff{}, err
	}
	return Compare(wa, wb), nil
}

// Save stores w in the default store.
func Save(w *workflow.Workflow, reason Reason) (Version, error) {
	s, err := DefaultStore()
	if err != nil {
		return Version{}, err
	}
	return s.Save(w, reason)
}

// List lists the versions of a workflow in the default store.
func List(id string) ([]Version, error) {
	s, err := DefaultStore()
	if err != nil {
		return nil, err
	}
	return s.List(id)
}

// Load loads a version from the default store.
func Load(id string, n int) (*workflow.Workflow, error) {
	s, err := DefaultStore()
	if err != nil {
		return nil, err
	}
	return s.Load(id, n)
}
