// Package credentials keeps the named secrets workflows refer to as
// {{secrets.NAME}}: each value in the OS keyring, or in a 0600 file when no
// keyring answers, and an index of the names, the hosts and tools each
// may go to and where each value lives. The index never holds a value;
// nothing here ever returns an empty value for a secret it cannot read.
package credentials

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	gokeyring "github.com/zalando/go-keyring"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/settings"
)

// Secret is a named credential and where it may go. Value never serializes.
type Secret struct {
	Name  string   `json:"name"`            // [A-Za-z_][A-Za-z0-9_]* (≤ 64)
	Hosts []string `json:"hosts,omitempty"` // HTTP hosts it may be sent to: "api.example.com", "api.example.com:8443", "*.example.com"
	Tools []string `json:"tools,omitempty"` // tools it may be passed to: "run_command", "gh.create_issue" (MCP), …
	// Stored is where the value lives: StoredKeyring or StoredFile.
	Stored string `json:"stored,omitempty"`
	Value  string `json:"-"`
}

// Where a value lives.
const (
	StoredKeyring = "keyring"
	StoredFile    = "file"
)

// Files in the store's folder, and the keyring service values are kept
// under (the user is the secret's name).
const (
	IndexFile      = "index.json"
	ValuesFile     = "values.json"
	keyringService = "weft-secrets"
	maxIndexBytes  = 1 << 20
	maxValuesBytes = 16 << 20
	indexVersion   = 1
)

// ErrNotFound is wrapped by Get when no secret has the name.
var ErrNotFound = errors.New("no such secret")

// Store is the credentials store. It re-reads its files on every call, so
// the desktop app, the CLI and a scheduled run share one set of secrets.
type Store struct {
	dir     string
	keyring settings.Keyring
	now     func() time.Time
	mu      sync.Mutex
}

type indexDoc struct {
	Version int      `json:"version"`
	Secrets []Secret `json:"secrets"`
}

// Open uses the folder dir (created 0700 on the first write) and keyring
// (settings.NoKeyring keeps every value in the file).
func Open(dir string, keyring settings.Keyring) *Store {
	return &Store{dir: dir, keyring: keyring, now: time.Now}
}

// Default is the store in $XDG_DATA_HOME/weft/secrets with the OS keyring
// (none when WEFT_KEYRING=off).
func Default(getenv func(string) string) (*Store, error) {
	dir, err := appdirs.DataDir("secrets")
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return Open(dir, settings.DefaultKeyring(getenv)), nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

func (s *Store) indexPath() string  { return filepath.Join(s.dir, IndexFile) }
func (s *Store) valuesPath() string { return filepath.Join(s.dir, ValuesFile) }

// readJSON reads one of the store's files into v. A missing file leaves v
// as it is; one that cannot be read or parsed (or is not a regular file)
// is moved aside, kept for the person to look at, and counts as empty.
func (s *Store) readJSON(path, what string, limit int64, v any) error {
	moved, err := atomicfile.ReadJSON(path, limit, v, s.now())
	switch {
	case err == nil:
		return nil
	case moved != "":
		return fmt.Errorf("secrets %s %s could not be read (%v); moved it to %s", what, path, err, moved)
	}
	return fmt.Errorf("secrets %s %s could not be read: %w", what, path, err)
}

// load reads the index; warn says when it had to be moved aside.
func (s *Store) load() (map[string]Secret, error) {
	var d indexDoc
	warn := s.readJSON(s.indexPath(), "index", maxIndexBytes, &d)
	m := map[string]Secret{}
	for _, sec := range d.Secrets {
		if ValidName(sec.Name) == nil {
			sec.Value = ""
			m[sec.Name] = sec
		}
	}
	return m, warn
}

// writeFile writes one of the store's files, 0600 in a 0700 folder.
func (s *Store) writeFile(path string, v any) error {
	if err := atomicfile.PrivateDir(s.dir); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	if err := atomicfile.WriteJSON(path, v, 0o600); err != nil {
		return fmt.Errorf("secrets: %w", err)
	}
	return nil
}

func (s *Store) save(m map[string]Secret) error {
	d := indexDoc{Version: indexVersion, Secrets: sortedSecrets(m)}
	return s.writeFile(s.indexPath(), d)
}

func sortedSecrets(m map[string]Secret) []Secret {
	out := make([]Secret, 0, len(m))
	for _, sec := range m {
		sec.Value = ""
		out = append(out, sec)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (s *Store) loadValues() (map[string]string, error) {
	v := map[string]string{}
	err := s.readJSON(s.valuesPath(), "file", maxValuesBytes, &v)
	return v, err
}

// List is every secret's name, bindings and where its value lives, never
// a value. The secrets come back with an error when the index had to be
// moved aside (the list is then empty).
func (s *Store) List() ([]Secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, warn := s.load()
	return sortedSecrets(m), warn
}

// Get is the secret called name with its value. A secret that is not
// stored, or whose value cannot be read (a locked keyring, a keyring that
// does not answer under a schedule, a missing file), is an error naming
// it: never an empty value.
func (s *Store) Get(name string) (Secret, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ValidName(name); err != nil {
		return Secret{}, err
	}
	m, warn := s.load()
	sec, ok := m[name]
	if !ok {
		if warn != nil {
			return Secret{}, fmt.Errorf("secret %s: %w (%v)", name, ErrNotFound, warn)
		}
		return Secret{}, fmt.Errorf("secret %s: %w: store it with `weft secrets set %s` or in Preferences › Secrets", name, ErrNotFound, name)
	}
	v, err := s.value(sec)
	if err != nil {
		return Secret{}, err
	}
	if v == "" {
		return Secret{}, fmt.Errorf("secret %s: its stored value is empty: set it again", name)
	}
	sec.Value = v
	return sec, nil
}

func (s *Store) value(sec Secret) (string, error) {
	if sec.Stored == StoredKeyring {
		v, err := s.keyring.Get(keyringService, sec.Name)
		switch {
		case errors.Is(err, settings.ErrNoKeyring):
			return "", fmt.Errorf("secret %s is in the OS keyring, which is switched off (WEFT_KEYRING=off): switch it on or set the secret again", sec.Name)
		case errors.Is(err, gokeyring.ErrNotFound):
			return "", fmt.Errorf("secret %s: the OS keyring has no value for it (removed outside Weft?): set it again", sec.Name)
		case err != nil:
			return "", fmt.Errorf("secret %s is in the OS keyring, which could not give it (locked, or no keyring answers here, as under a schedule or a worker): %v; unlock the keyring or store the secret again where it runs", sec.Name, err)
		}
		return v, nil
	}
	vals, err := s.loadValues()
	if err != nil {
		return "", fmt.Errorf("secret %s: %w", sec.Name, err)
	}
	v, ok := vals[sec.Name]
	if !ok {
		return "", fmt.Errorf("secret %s: its value is missing from %s: set it again", sec.Name, s.valuesPath())
	}
	return v, nil
}

// Set stores sec: its value in the OS keyring, or in the 0600 file when
// no keyring answers, and its bindings in the index. An empty Value keeps
// the value already stored (only the bindings change); a new secret needs
// a value.
func (s *Store) Set(sec Secret) error {
	sec, err := normalize(sec)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, _ := s.load() // an unreadable index was moved aside: start afresh
	old, had := m[sec.Name]
	if sec.Value == "" {
		if !had {
			return fmt.Errorf("secret %s: a new secret needs a value", sec.Name)
		}
		sec.Stored = old.Stored
		m[sec.Name] = sec
		return s.save(m)
	}
	if kerr := s.keyring.Set(keyringService, sec.Name, sec.Value); kerr == nil {
		sec.Stored = StoredKeyring
		if had && old.Stored == StoredFile {
			if err := s.setFileValue(sec.Name, ""); err != nil {
				return err
			}
		}
	} else {
		sec.Stored = StoredFile
		if err := s.setFileValue(sec.Name, sec.Value); err != nil {
			return err
		}
		if had && old.Stored == StoredKeyring {
			_ = s.keyring.Delete(keyringService, sec.Name) // the index no longer points there
		}
	}
	sec.Value = ""
	m[sec.Name] = sec
	return s.save(m)
}

// setFileValue puts a value in the fallback file ("" removes it).
func (s *Store) setFileValue(name, value string) error {
	vals, err := s.loadValues()
	if err != nil && len(vals) == 0 {
		if _, statErr := os.Lstat(s.valuesPath()); statErr == nil {
			return err // still there and unreadable: never overwrite it
		}
	}
	if value == "" {
		if _, ok := vals[name]; !ok {
			return nil
		}
		delete(vals, name)
	} else {
		vals[name] = value
	}
	return s.writeFile(s.valuesPath(), vals)
}

// Remove deletes the secret's value and its entry. A value the keyring
// cannot delete (locked) keeps the entry, so it is not forgotten there.
func (s *Store) Remove(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ValidName(name); err != nil {
		return err
	}
	m, warn := s.load()
	sec, ok := m[name]
	if !ok {
		if warn != nil {
			return fmt.Errorf("secret %s: %w (%v)", name, ErrNotFound, warn)
		}
		return fmt.Errorf("secret %s: %w", name, ErrNotFound)
	}
	if sec.Stored == StoredKeyring {
		err := s.keyring.Delete(keyringService, name)
		switch {
		case errors.Is(err, settings.ErrNoKeyring):
			return fmt.Errorf("secret %s is in the OS keyring, which is switched off (WEFT_KEYRING=off): switch it on to remove the secret", name)
		case err != nil && !errors.Is(err, gokeyring.ErrNotFound):
			return fmt.Errorf("secret %s: the OS keyring could not delete it (locked?): %v", name, err)
		}
	} else if err := s.setFileValue(name, ""); err != nil {
		return err
	}
	delete(m, name)
	return s.save(m)
}
