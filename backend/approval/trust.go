package approval

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
)

// TrustFile is the file-trust index's name in Weft's XDG data directory;
// the copies of trusted content live in the folder TrustCopies beside it.
const (
	TrustFile   = "trust.json"
	TrustCopies = "trusted"
)

const (
	trustVersion = 1
	// maxTrustedFiles bounds the index: the oldest go first (those files
	// are reviewed again if they are ever run).
	maxTrustedFiles = 20_000
	// maxCopyBytes bounds reading a copy back (a workflow file's limit).
	maxCopyBytes = 256 << 20
)

// Trust remembers, per canonical path, the SHA-256 of the bytes of a
// workflow file that Weft last wrote for the person or that the person
// reviewed, with a private copy of that content (to show what changed
// since), and the folders whose files the person trusts as they are (the
// direnv and VS Code model). A file whose bytes differ — a clone, a
// download, an edit in another editor, a git pull, a reformat — is
// reviewed before anything in it acts. Like Store it re-reads its file
// before every answer, so the app and the CLI share it.
type Trust struct {
	path   string
	copies string
	now    func() time.Time
	mu     sync.Mutex
}

// FileRecord is what the index keeps of a trusted file.
type FileRecord struct {
	SHA256 string    `json:"sha256"`
	Time   time.Time `json:"time"`
	// By says how: "saved in Weft", "reviewed (desktop)", "weft approve"…
	By string `json:"by,omitempty"`
}

// Folder is a folder whose files are trusted as they are.
type Folder struct {
	Path string    `json:"path"`
	Time time.Time `json:"time"`
	By   string    `json:"by,omitempty"`
}

type trustDoc struct {
	Version int                   `json:"version"`
	Files   map[string]FileRecord `json:"files"`
	Folders map[string]Folder     `json:"folders"`
}

// FileState is the trust of one file's bytes.
type FileState struct {
	// Path is the canonical path ("" for an unsaved workflow).
	Path    string `json:"path"`
	SHA256  string `json:"sha256"`
	Trusted bool   `json:"trusted"`
	// Why says in words why it is trusted or not.
	Why string `json:"why"`
	// Folder is the trusted folder that covers the file, if one does.
	Folder string `json:"folder,omitempty"`
	// Previous is the content last trusted at Path, when it differs from
	// the bytes judged (to show what changed); nil when there is none.
	Previous []byte `json:"-"`
}

// OpenTrust uses the index at path and keeps copies beside it.
func OpenTrust(path string) *Trust {
	return &Trust{path: path, copies: filepath.Join(filepath.Dir(path), TrustCopies), now: time.Now}
}

// DefaultTrust is $XDG_DATA_HOME/weft/trust.json.
func DefaultTrust() (*Trust, error) {
	p, err := appdirs.DataFile(TrustFile)
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	return OpenTrust(p), nil
}

// Sum is the hex SHA-256 of data.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// load reads the index; a missing file is empty. One that cannot be read
// is moved aside and counts as empty: files are reviewed again, never
// trusted by accident.
func (t *Trust) load() (trustDoc, error) {
	var d trustDoc
	warn := readState(t.path, "trust file", "workflow files are reviewed again", &d, t.now)
	doc := trustDoc{Files: map[string]FileRecord{}, Folders: map[string]Folder{}}
	for k, v := range d.Files {
		doc.Files[k] = v
	}
	for k, v := range d.Folders {
		doc.Folders[k] = v
	}
	return doc, warn
}

func (t *Trust) save(doc trustDoc) error {
	doc.Version = trustVersion
	if err := atomicfile.WriteJSON(t.path, doc, 0o600); err != nil {
		return fmt.Errorf("save trust: %w", err)
	}
	return nil
}

// State judges data, the bytes of the workflow file at path. An unsaved
// workflow ("") was made in Weft: it is trusted.
func (t *Trust) State(path string, data []byte) (FileState, error) {
	st := FileState{Path: Canonical(path), SHA256: Sum(data)}
	if st.Path == "" {
		st.Trusted, st.Why = true, "not saved yet: made in Weft"
		return st, nil
	}
	t.mu.Lock()
	doc, warn := t.load()
	t.mu.Unlock()
	if dir, ok := coveringFolder(doc, st.Path); ok {
		st.Trusted, st.Folder, st.Why = true, dir, "in a folder you trust ("+dir+")"
		return st, warn
	}
	rec, seen := doc.Files[st.Path]
	switch {
	case seen && rec.SHA256 == st.SHA256:
		st.Trusted, st.Why = true, "as "+orDefault(rec.By, "trusted")+" on "+rec.Time.Local().Format("2006-01-02 15:04")
	case seen:
		st.Why = "changed since it was " + orDefault(rec.By, "trusted") + " on " + rec.Time.Local().Format("2006-01-02 15:04") + " (edited elsewhere, pulled or downloaded)"
		if b, err := atomicfile.ReadBounded(t.copyPath(rec.SHA256), maxCopyBytes); err == nil && Sum(b) == rec.SHA256 {
			st.Previous = b
		}
	default:
		st.Why = "Weft did not write this file and you have not reviewed it (cloned, downloaded or written elsewhere)"
	}
	return st, warn
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// FolderOf returns the trusted folder that holds path, if one does.
func (t *Trust) FolderOf(path string) (string, bool, error) {
	t.mu.Lock()
	doc, warn := t.load()
	t.mu.Unlock()
	dir, ok := coveringFolder(doc, Canonical(path))
	return dir, ok, warn
}

// coveringFolder finds a trusted folder that holds path.
func coveringFolder(doc trustDoc, path string) (string, bool) {
	for dir := range doc.Folders {
		if within(dir, path) {
			return dir, true
		}
	}
	return "", false
}

// within reports whether path is dir or beneath it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func (t *Trust) copyPath(sum string) string { return filepath.Join(t.copies, sum+".json") }

// Record trusts data as the content of the file at path (Weft wrote it for
// the person, or the person reviewed it), keeping a private copy.
func (t *Trust) Record(path string, data []byte, by string) error {
	path = Canonical(path)
	if path == "" {
		return nil
	}
	sum := Sum(data)
	if err := os.MkdirAll(t.copies, 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := atomicfile.WriteFile(t.copyPath(sum), data, 0o600); err != nil {
		return fmt.Errorf("trust: keep a copy: %w", err)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, _ := t.load()
	doc.Files[path] = FileRecord{SHA256: sum, Time: t.now().UTC(), By: by}
	t.prune(&doc)
	return t.save(doc)
}

// Forget removes the trust of the file at path (its bytes are reviewed
// again).
func (t *Trust) Forget(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, _ := t.load()
	if _, ok := doc.Files[Canonical(path)]; !ok {
		return nil
	}
	delete(doc.Files, Canonical(path))
	t.prune(&doc)
	return t.save(doc)
}

// prune keeps the newest maxTrustedFiles and removes the copies nothing
// refers to any more.
func (t *Trust) prune(doc *trustDoc) {
	if len(doc.Files) > maxTrustedFiles {
		type kv struct {
			p string
			t time.Time
		}
		all := make([]kv, 0, len(doc.Files))
		for p, r := range doc.Files {
			all = append(all, kv{p, r.Time})
		}
		sort.Slice(all, func(i, j int) bool { return all[i].t.After(all[j].t) })
		for _, x := range all[maxTrustedFiles:] {
			delete(doc.Files, x.p)
		}
	}
	used := map[string]bool{}
	for _, r := range doc.Files {
		used[r.SHA256+".json"] = true
	}
	entries, err := os.ReadDir(t.copies)
	if err != nil {
		return
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".json") && !used[e.Name()] {
			os.Remove(filepath.Join(t.copies, e.Name()))
		}
	}
}

// ErrFolderTooWide refuses trusting a folder that holds the home folder.
var ErrFolderTooWide = errors.New("trusting it would trust every workflow in your home folder or on the system")

// TrustFolder trusts the files beneath dir as they are (CI checkouts,
// checked-in workflows): their file-level review is skipped; steps a
// model wrote still need their own approval. The home folder, / and any
// folder that holds the home folder are refused.
func (t *Trust) TrustFolder(dir, by string) (string, error) {
	dir = Canonical(dir)
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("trust %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("trust %s: not a folder", dir)
	}
	if dir == string(filepath.Separator) || filepath.Dir(dir) == dir {
		return "", fmt.Errorf("trust %s: %w", dir, ErrFolderTooWide)
	}
	if home, err := os.UserHomeDir(); err == nil && within(dir, Canonical(home)) {
		return "", fmt.Errorf("trust %s: %w", dir, ErrFolderTooWide)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, _ := t.load()
	doc.Folders[dir] = Folder{Path: dir, Time: t.now().UTC(), By: by}
	return dir, t.save(doc)
}

// UntrustFolder removes dir from the trusted folders; false when it was
// not one.
func (t *Trust) UntrustFolder(dir string) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	doc, _ := t.load()
	dir = Canonical(dir)
	if _, ok := doc.Folders[dir]; !ok {
		return false, nil
	}
	delete(doc.Folders, dir)
	return true, t.save(doc)
}

// Folders lists the trusted folders, sorted.
func (t *Trust) Folders() ([]Folder, error) {
	t.mu.Lock()
	doc, warn := t.load()
	t.mu.Unlock()
	out := make([]Folder, 0, len(doc.Folders))
	for _, f := range doc.Folders {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, warn
}
