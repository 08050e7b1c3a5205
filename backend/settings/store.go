package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/weft-dev/weft/backend/appdirs"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"time"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/workflow"
)

// Environment overrides for headless use. They change the effective
// settings only; they are never written to the file.
const (
	EnvBaseURL           = "WEFT_LLM_BASE_URL"
	EnvModel             = "WEFT_LLM_MODEL"
	EnvAPIKey            = "WEFT_LLM_API_KEY"
	EnvMaxRepairAttempts = "WEFT_MAX_REPAIR_ATTEMPTS"
)

// maxSettingsSize bounds what Load reads; a settings file is a few KiB.
const maxSettingsSize = 4 << 20

// Store reads and writes one settings file.
type Store struct {
	Path    string
	Keyring Keyring
	Getenv  func(string) string
	Now     func() time.Time
	Log     *slog.Logger
	// Loaded, when set, is called with the settings Load reads from the
	// file and Effective returns, before they are returned: the command
	// line learns the secrets (Settings.Secrets) its output must hide
	// there, whichever command loads them.
	Loaded func(Settings)
}

// DefaultPath is $XDG_CONFIG_HOME/weft/settings.json.
func DefaultPath() (string, error) {
	p, err := appdirs.ConfigFile("settings.json")
	if err != nil {
		return "", fmt.Errorf("locate settings file: %w", err)
	}
	return p, nil
}

// NewStore returns a store on the default path with the OS keyring.
func NewStore() (*Store, error) {
	p, err := DefaultPath()
	if err != nil {
		return nil, err
	}
	return &Store{Path: p, Keyring: DefaultKeyring(os.Getenv), Getenv: os.Getenv, Now: time.Now, Log: slog.Default()}, nil
}

func (s *Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Store) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return ""
}

func (s *Store) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.Default()
}

// Load reads the file as saved (without environment overrides). A missing
// file gives defaults; a corrupt one is moved aside and gives defaults with
// a warning. Only an unreadable file (permissions, I/O) is an error.
func (s *Store) Load() (Settings, []string, error) {
	out := Defaults()
	data, err := atomicfile.ReadBounded(s.Path, maxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil, nil
	}
	if err != nil {
		return out, nil, fmt.Errorf("read settings %s: %w", s.Path, err)
	}
	var warnings []string
	if len(bytes.TrimSpace(data)) == 0 {
		return out, []string{"settings file " + s.Path + " is empty; using defaults"}, nil
	}
	problems, derr := decodeLenient(data, &out)
	if derr != nil {
		// Not JSON at all: nothing in it can be kept, so it goes aside
		// (kept for the user) rather than being overwritten by a save.
		moved, merr := atomicfile.MoveAside(s.Path, s.now())
		out = Defaults()
		if merr != nil {
			return out, []string{fmt.Sprintf("settings file %s is not JSON (%v) and could not be moved aside (%v); using defaults", s.Path, derr, merr)}, nil
		}
		s.log().Warn("corrupt settings moved aside", "path", s.Path, "moved_to", moved, "error", derr.Error())
		return out, []string{fmt.Sprintf("settings file %s was not JSON (%v); moved it to %s and loaded defaults", s.Path, derr, moved)}, nil
	}
	for _, p := range append(problems, out.Clamp()...) {
		warnings = append(warnings, p+" (in "+s.Path+")")
	}
	if out.LLM.APIKeyStore == "keyring" {
		key, kerr := s.keyring().Get(keyringService, keyringUser)
		if kerr != nil {
			warnings = append(warnings, "the API key is kept in the OS keyring, which is not available now: "+kerr.Error())
		} else {
			out.LLM.APIKey = key
		}
	}
	s.loaded(out)
	return out, warnings, nil
}

func (s *Store) loaded(st Settings) {
	if s.Loaded != nil {
		s.Loaded(st)
	}
}

// decodeStrict decodes JSON, reporting errors with line and column.
func decodeStrict(data []byte, out any) error {
	err := json.Unmarshal(data, out)
	if err == nil {
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset is just past the offending byte.
		l, c := workflow.LineCol(data, max(syn.Offset-1, 0))
		return fmt.Errorf("line %d, column %d: %v", l, c, syn)
	case errors.As(err, &typ):
		l, c := workflow.LineCol(data, typ.Offset)
		if typ.Field == "" {
			return fmt.Errorf("line %d, column %d: expected a JSON object, got %s", l, c, typ.Value)
		}
		return fmt.Errorf("line %d, column %d: %s: expected %s, got %s", l, c, typ.Field, typ.Type, typ.Value)
	}
	return err
}

// Effective is Load plus the WEFT_* environment overrides, for the CLI and
// for runs. Invalid override values are ignored with a warning.
func (s *Store) Effective() (Settings, []string, error) {
	st, warnings, err := s.Load()
	if err != nil {
		return st, warnings, err
	}
	warnings = append(warnings, ApplyEnv(&st, s.getenv)...)
	s.loaded(st)
	return st, warnings, nil
}

// ApplyEnv applies the WEFT_* overrides to st.
func ApplyEnv(st *Settings, getenv func(string) string) []string {
	var w []string
	if v := getenv(EnvBaseURL); v != "" {
		st.LLM.BaseURL = v
	}
	if v := getenv(EnvModel); v != "" {
		st.LLM.Model = v
	}
	if v := getenv(EnvAPIKey); v != "" {
		st.LLM.APIKey = v
	}
	if v := getenv(EnvMaxRepairAttempts); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			w = append(w, fmt.Sprintf("%s=%q is not a whole number; ignored", EnvMaxRepairAttempts, v))
		} else {
			st.MaxRepairAttempts = n
			w = append(w, st.Clamp()...)
		}
	}
	return w
}

// Save validates and writes the settings atomically with mode 0600. The API
// key goes to the OS keyring when it is available, else into the file.
// Unknown keys already in the file survive even if st does not carry them.
func (s *Store) Save(st Settings) ([]string, error) {
	warnings := st.Clamp()
	// Keep unknown keys from the file on disk that the caller did not load.
	if data, err := atomicfile.ReadBounded(s.Path, maxSettingsSize); err == nil {
		var onDisk map[string]json.RawMessage
		if json.Unmarshal(data, &onDisk) == nil {
			for k, v := range onDisk {
				if knownKeys[k] {
					continue
				}
				if st.Extra == nil {
					st.Extra = map[string]json.RawMessage{}
				}
				if _, ok := st.Extra[k]; !ok {
					st.Extra[k] = v
				}
			}
		}
	}
	toWrite := st
	toWrite.LLM.APIKeyStore = ""
	if st.LLM.APIKey != "" {
		if err := s.keyring().Set(keyringService, keyringUser, st.LLM.APIKey); err == nil {
			toWrite.LLM.APIKey = ""
			toWrite.LLM.APIKeyStore = "keyring"
		} else {
			warnings = append(warnings, "OS keyring not available ("+err.Error()+"); the API key is stored in the settings file, readable only by you")
		}
	} else {
		_ = s.keyring().Delete(keyringService, keyringUser) // a cleared key must not linger
	}
	data, err := json.MarshalIndent(toWrite, "", "  ")
	if err != nil {
		return warnings, fmt.Errorf("encode settings: %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.WriteFile(s.Path, data, 0o600); err != nil {
		return warnings, fmt.Errorf("save settings: %w", err)
	}
	return warnings, nil
}

func (s *Store) keyring() Keyring {
	if s.Keyring != nil {
		return s.Keyring
	}
	return NoKeyring{}
}
