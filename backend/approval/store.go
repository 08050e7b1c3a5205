package approval

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
)

// StoreFile is the approvals file's name in Weft's XDG data directory.
const StoreFile = "approvals.json"

const (
	// maxStoreBytes bounds reading the file: a wrong or hostile file
	// cannot exhaust memory.
	maxStoreBytes = 32 << 20
	// maxEntries bounds the file: the oldest approvals go first (they are
	// asked for again if their steps ever come back).
	maxEntries = 100_000
)

// Record is one approved content at one place.
type Record struct {
	Time time.Time `json:"time"`
	// Path is the canonical path of the workflow file the content was
	// approved in ("" for an unsaved workflow): an approval holds there
	// only, since what a step may reach depends on where it runs from.
	Path string `json:"path"`
	// Key, Tool and Workflow say what was approved, for a person reading
	// the file; only the fingerprint decides.
	Key      string `json:"key,omitempty"`
	Tool     string `json:"tool,omitempty"`
	Workflow string `json:"workflow,omitempty"`
	// By says how: "desktop", "cli", "cli --approve", "weft approve".
	By string `json:"by,omitempty"`
}

// storeVersion 2 keys approvals by fingerprint and path. Version 1 keyed
// them by fingerprint alone, so approving a step in one folder approved
// the same content in any other: its entries are not read (asked again).
const storeVersion = 2

type storeDoc struct {
	Version  int               `json:"version"`
	Approved map[string]Record `json:"approved"`
}

// recordKey is a record's key in the file: the fingerprint (64 hex
// digits, no space) and the path.
func recordKey(fp, path string) string { return fp + " " + path }

// Store keeps approved fingerprints in a JSON file. It re-reads the file
// before every answer and merges before every write, so the desktop app
// and the CLI share one set of approvals. Two processes approving at the
// same instant can lose one of the two records (there is no file lock):
// that step is then asked about again, never approved by accident. A file that cannot be read is
// moved aside and counts as empty: everything is asked for again, never
// approved by accident.
type Store struct {
	path string
	now  func() time.Time

	mu sync.Mutex
}

// OpenStore uses the file at path.
func OpenStore(path string) *Store {
	return &Store{path: path, now: time.Now}
}

// DefaultStore is $XDG_DATA_HOME/weft/approvals.json.
func DefaultStore() (*Store, error) {
	p, err := appdirs.DataFile(StoreFile)
	if err != nil {
		return nil, fmt.Errorf("approvals: %w", err)
	}
	return OpenStore(p), nil
}

// Path is the file the store uses.
func (s *Store) Path() string { return s.path }

// load reads the file; a missing file is empty, an unreadable one is moved
// aside (warn says so).
func (s *Store) load() (doc storeDoc, warn error) {
	doc.Approved = map[string]Record{}
	var d storeDoc
	warn = readState(s.path, "approvals file", "earlier approvals are asked for again", &d, s.now)
	for k, r := range d.Approved {
		if d.Version >= storeVersion && strings.Contains(k, " ") {
			doc.Approved[k] = r
		}
	}
	return doc, warn
}

// readState reads one of approval's JSON state files into v. A missing
// file leaves v as it is; one that cannot be read or parsed is moved
// aside and counts as empty: what it approved or trusted is asked for
// again (after, in the error), never granted by accident.
func readState(path, what, after string, v any, now func() time.Time) error {
	moved, err := atomicfile.ReadJSON(path, maxStoreBytes, v, now())
	switch {
	case err == nil:
		return nil
	case moved != "":
		return fmt.Errorf("%s %s could not be read (%v); moved it to %s: %s", what, path, err, moved, after)
	}
	return fmt.Errorf("%s %s could not be read: %w; %s", what, path, err, after)
}

// Snapshot reads once (for checking many steps) the fingerprints approved
// in the workflow file at path ("" for an unsaved workflow); warn is set
// when the file had to be moved aside.
func (s *Store) Snapshot(path string) (Set, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, warn := s.load()
	path = Canonical(path)
	out := Set{}
	for k, r := range doc.Approved {
		if r.Path == path {
			out[strings.TrimSuffix(k, " "+path)] = true
		}
	}
	return out, warn
}

// Approve records the steps' fingerprints as approved in the workflow file
// at path ("" for an unsaved workflow).
func (s *Store) Approve(steps []Step, path, workflowName, by string) error {
	if len(steps) == 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	doc, _ := s.load()
	now := s.now().UTC()
	path = Canonical(path)
	for _, st := range steps {
		if st.Fingerprint == "" {
			continue
		}
		doc.Approved[recordKey(st.Fingerprint, path)] = Record{Time: now, Path: path, Key: st.Key, Tool: st.Tool, Workflow: workflowName, By: by}
	}
	prune(doc.Approved)
	doc.Version = storeVersion
	if err := atomicfile.WriteJSON(s.path, doc, 0o600); err != nil {
		return fmt.Errorf("save approvals: %w", err)
	}
	return nil
}

// prune keeps the newest maxEntries approvals.
func prune(m map[string]Record) {
	if len(m) <= maxEntries {
		return
	}
	type kv struct {
		fp string
		t  time.Time
	}
	all := make([]kv, 0, len(m))
	for fp, r := range m {
		all = append(all, kv{fp, r.Time})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t.After(all[j].t) })
	for _, x := range all[maxEntries:] {
		delete(m, x.fp)
	}
}

// Checker answers "is this approved?" for a run: a store, or a fixed set
// (tests, a single CLI invocation).
type Checker interface {
	Approved(fingerprint string) bool
}

// Set is a Checker over a fixed set of fingerprints.
type Set map[string]bool

// Approved implements Checker.
func (s Set) Approved(fp string) bool { return s[fp] }
