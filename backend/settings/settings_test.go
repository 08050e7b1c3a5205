package settings

import (
	"encoding/json"
	"errors"
	gokeyring "github.com/zalando/go-keyring"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type memKeyring struct {
	m    map[string]string
	fail bool
}

func (k *memKeyring) Get(s, u string) (string, error) {
	if k.fail {
		return "", errors.New("keyring locked")
	}
	v, ok := k.m[s+"/"+u]
	if !ok {
		return "", errors.New("not found")
	}
	return v, nil
}
func (k *memKeyring) Set(s, u, v string) error {
	if k.fail {
		return errors.New("keyring locked")
	}
	k.m[s+"/"+u] = v
	return nil
}
func (k *memKeyring) Delete(s, u string) error { delete(k.m, s+"/"+u); return nil }

func newStore(t *testing.T, env map[string]string) *Store {
	t.Helper()
	dir := t.TempDir()
	return &Store{
		Path:    filepath.Join(dir, "weft", "settings.json"),
		Keyring: NoKeyring{},
		Getenv:  func(k string) string { return env[k] },
		Now:     func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) },
		Log:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestMissingFileGivesDefaults(t *testing.T) {
	s := newStore(t, nil)
	got, warnings, err := s.Load()
	if err != nil || len(warnings) != 0 {
		t.Fatalf("Load: %v %v", err, warnings)
	}
	d := Defaults()
	if got.MaxRepairAttempts != 3 || got.LLM.BaseURL != "http://localhost:11434/v1" || !got.Features.AllowAITransforms || got.Features.AllowAgentSteps || got.Run.DefaultRetries != d.Run.DefaultRetries {
		t.Fatalf("defaults wrong: %+v", got)
	}
}

func TestCorruptFileMovedAside(t *testing.T) {
	for name, content := range map[string]string{
		"syntax":    `{"max_repair_attempts": 4,,}`,
		"truncated": `{"llm": {"model": "qwen"`,
		"array":     `[1,2,3]`,
	} {
		t.Run(name, func(t *testing.T) {
			s := newStore(t, nil)
			write(t, s.Path, content)
			got, warnings, err := s.Load()
			if err != nil {
				t.Fatalf("Load error: %v", err)
			}
			if got.MaxRepairAttempts != DefaultMaxRepairAttempts {
				t.Fatalf("want defaults, got %+v", got)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], "not JSON") || !strings.Contains(warnings[0], ".corrupt-20260102T030405") {
				t.Fatalf("warning: %v", warnings)
			}
			if _, err := os.Stat(s.Path); !os.IsNotExist(err) {
				t.Fatalf("corrupt file still in place: %v", err)
			}
			matches, _ := filepath.Glob(s.Path + ".corrupt-*")
			if len(matches) != 1 {
				t.Fatalf("moved-aside file: %v", matches)
			}
			kept, _ := os.ReadFile(matches[0])
			if string(kept) != content {
				t.Fatalf("moved file content changed: %q", kept)
			}
		})
	}
}

func TestSyntaxErrorNamesLineAndColumn(t *testing.T) {
	s := newStore(t, nil)
	write(t, s.Path, "{\n  \"max_repair_attempts\": 4,\n  \"llm\": {,}\n}")
	_, warnings, _ := s.Load()
	if len(warnings) != 1 || !strings.Contains(warnings[0], "line 3, column 11") {
		t.Fatalf("want line/column in %v", warnings)
	}
}

func TestClamping(t *testing.T) {
	cases := []struct {
		json    string
		want    int
		clamped bool
	}{
		{`{"max_repair_attempts": 42}`, 10, true},
		{`{"max_repair_attempts": -1}`, 0, true},
		{`{"max_repair_attempts": 0}`, 0, false},
		{`{"max_repair_attempts": 10}`, 10, false},
	}
	for _, c := range cases {
		s := newStore(t, nil)
		write(t, s.Path, c.json)
		got, warnings, err := s.Load()
		if err != nil {
			t.Fatal(err)
		}
		if got.MaxRepairAttempts != c.want {
			t.Errorf("%s: got %d want %d", c.json, got.MaxRepairAttempts, c.want)
		}
		if c.clamped != (len(warnings) == 1) {
			t.Errorf("%s: warnings %v", c.json, warnings)
		}
	}
}

func TestEnvOverridesAreNotSaved(t *testing.T) {
	env := map[string]string{
		EnvBaseURL: "http://127.0.0.1:9/v1", EnvModel: "qwen2.5", EnvAPIKey: "sk-env-secret", EnvMaxRepairAttempts: "7",
	}
	s := newStore(t, env)
	eff, warnings, err := s.Effective()
	if err != nil || len(warnings) != 0 {
		t.Fatal(err, warnings)
	}
	if eff.LLM.BaseURL != env[EnvBaseURL] || eff.LLM.Model != "qwen2.5" || eff.LLM.APIKey != "sk-env-secret" || eff.MaxRepairAttempts != 7 {
		t.Fatalf("overrides not applied: %+v", eff)
	}
	onFile, _, _ := s.Load()
	if onFile.LLM.Model != "" || onFile.MaxRepairAttempts != 3 {
		t.Fatalf("Load must not apply env: %+v", onFile)
	}
	env[EnvMaxRepairAttempts] = "many"
	_, warnings, _ = s.Effective()
	if len(warnings) != 1 || !strings.Contains(warnings[0], EnvMaxRepairAttempts) {
		t.Fatalf("bad override warning: %v", warnings)
	}
	env[EnvMaxRepairAttempts] = "99"
	eff, _, _ = s.Effective()
	if eff.MaxRepairAttempts != 10 {
		t.Fatalf("override not clamped: %d", eff.MaxRepairAttempts)
	}
}

func TestUnknownKeysSurviveSave(t *testing.T) {
	s := newStore(t, nil)
	write(t, s.Path, `{"max_repair_attempts": 2, "future_feature": {"x": [1, 2]}, "theme": "dark"}`)
	st, _, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	st.MaxRepairAttempts = 5
	if _, err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	// A caller that never loaded the unknown keys must not drop them either.
	fresh := Defaults()
	fresh.MaxRepairAttempts = 6
	if _, err := s.Save(fresh); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var future struct {
		X []int `json:"x"`
	}
	if string(m["theme"]) != `"dark"` || json.Unmarshal(m["future_feature"], &future) != nil || len(future.X) != 2 || future.X[1] != 2 {
		t.Fatalf("unknown keys lost: %s", data)
	}
	if string(m["max_repair_attempts"]) != "6" {
		t.Fatalf("saved value: %s", m["max_repair_attempts"])
	}
}

func TestSaveIsAtomicWithMode0600(t *testing.T) {
	s := newStore(t, nil)
	st := Defaults()
	st.LLM.Model = "llama3.1"
	if _, err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", info.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(s.Path))
	if len(entries) != 1 {
		t.Fatalf("temp files left behind: %v", entries)
	}
	// A failed save (directory made read-only) keeps the previous file intact.
	if os.Geteuid() != 0 {
		before, _ := os.ReadFile(s.Path)
		os.Chmod(filepath.Dir(s.Path), 0o500)
		defer os.Chmod(filepath.Dir(s.Path), 0o755)
		st.LLM.Model = "other"
		if _, err := s.Save(st); err == nil {
			t.Fatal("save into read-only dir succeeded")
		}
		after, _ := os.ReadFile(s.Path)
		if string(before) != string(after) {
			t.Fatal("previous file changed by a failed save")
		}
	}
}

func TestSaveFailsCleanlyWhenPathIsADirectory(t *testing.T) {
	s := newStore(t, nil)
	if err := os.MkdirAll(s.Path, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Save(Defaults()); err == nil || !strings.Contains(err.Error(), "save settings") {
		t.Fatalf("want wrapped error, got %v", err)
	}
}

func TestAPIKeyGoesToKeyringWhenAvailable(t *testing.T) {
	s := newStore(t, nil)
	kr := &memKeyring{m: map[string]string{}}
	s.Keyring = kr
	st := Defaults()
	st.LLM.APIKey = "sk-very-secret-123"
	if _, err := s.Save(st); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(s.Path)
	if strings.Contains(string(data), "sk-very-secret") || !strings.Contains(string(data), `"api_key_store": "keyring"`) {
		t.Fatalf("key leaked to file or store not recorded: %s", data)
	}
	got, _, _ := s.Load()
	if got.LLM.APIKey != "sk-very-secret-123" {
		t.Fatalf("key not read back: %q", got.LLM.APIKey)
	}
	// Keyring unavailable at load: warning, no crash, no key.
	kr.fail = true
	got, warnings, err := s.Load()
	if err != nil || got.LLM.APIKey != "" || len(warnings) != 1 {
		t.Fatalf("locked keyring: %v %q %v", err, got.LLM.APIKey, warnings)
	}
}

func TestAPIKeyFallsBackToFile(t *testing.T) {
	s := newStore(t, nil)
	st := Defaults()
	st.LLM.APIKey = "sk-file-key"
	warnings, err := s.Save(st)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || strings.Contains(warnings[0], "sk-file-key") {
		t.Fatalf("fallback warning: %v", warnings)
	}
	got, _, _ := s.Load()
	if got.LLM.APIKey != "sk-file-key" {
		t.Fatalf("key: %q", got.LLM.APIKey)
	}
}

func TestSetAndGet(t *testing.T) {
	st := Defaults()
	for _, c := range []struct{ key, val, want string }{
		{"max_repair_attempts", "5", "5"},
		{"llm.model", "qwen2.5-coder", "qwen2.5-coder"},
		{"llm.base_url", "https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"features.allow_agent_steps", "true", "true"},
		{"run.default_retries", "4", "4"},
	} {
		if err := Set(&st, c.key, c.val); err != nil {
			t.Fatalf("Set %s: %v", c.key, err)
		}
		got, err := Get(st, c.key)
		if err != nil || got != c.want {
			t.Fatalf("Get %s = %q, %v", c.key, got, err)
		}
	}
	if err := Set(&st, "mcp_servers", `{"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]}}`); err != nil {
		t.Fatal(err)
	}
	if st.MCPServers["filesystem"].Command != "npx" {
		t.Fatalf("mcp: %+v", st.MCPServers)
	}
	for _, bad := range []struct{ key, val, msg string }{
		{"max_repair_attempts", "11", "between 0 and 10"},
		{"max_repair_attempts", "x", "whole number"},
		{"llm.base_url", "localhost:11434", "http://"},
		{"features.allow_agent_steps", "maybe", "true or false"},
		{"nope", "1", "unknown setting"},
		{"mcp_servers", `{"a.b": {"command": "x"}}`, "without dots"},
		{"mcp_servers", `{"fs": {"args": []}}`, "needs a command"},
		{"mcp_servers", `{"fs": {"cmd": "x"}}`, "JSON object"},
	} {
		if err := Set(&st, bad.key, bad.val); err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("Set %s=%s: want %q, got %v", bad.key, bad.val, bad.msg, err)
		}
	}
	if st.MaxRepairAttempts != 5 {
		t.Fatal("a rejected Set changed the value")
	}
}

func TestMasked(t *testing.T) {
	st := Defaults()
	st.LLM.APIKey = "sk-abcdefghijklmnop"
	m := st.Masked()
	if strings.Contains(m.LLM.APIKey, "defghijklmn") || m.LLM.APIKey == "" {
		t.Fatalf("mask: %q", m.LLM.APIKey)
	}
	if st.LLM.APIKey != "sk-abcdefghijklmnop" {
		t.Fatal("Masked changed the original")
	}
}

func TestDefaultPathFollowsXDGConfigHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, "weft", "settings.json") {
		t.Fatalf("path %s", p)
	}
}

// One slip costs that value only: the file stays, every other key (and
// unknown keys) is kept, and the slip is reported with the value used.
func TestTypeSlipsFallBackPerKey(t *testing.T) {
	const base = `"llm": {"base_url": "http://gpu:8000/v1", "model": "qwen3", "timeout_s": 30},
 "mcp_servers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]}},
 "run": {"default_retries": 4},
 "future_key": {"x": [1, 2]}`
	for _, tc := range []struct {
		name, slip, want string
		check            func(t *testing.T, s Settings)
	}{
		{"string for a number", `"max_repair_attempts": "abc"`, `max_repair_attempts: "abc" is not a whole number; using 3`, func(t *testing.T, s Settings) {
			if s.MaxRepairAttempts != 3 {
				t.Errorf("max_repair_attempts %d", s.MaxRepairAttempts)
			}
		}},
		{"quoted number", `"max_repair_attempts": "3"`, `max_repair_attempts: "3" is not a whole number; using 3`, nil},
		{"exponent", `"max_repair_attempts": 1e3`, `max_repair_attempts: 1e3 is not a whole number; using 3`, nil},
		{"out of range", `"max_repair_attempts": 1000`, `max_repair_attempts 1000 is out of range 0–10; using 10`, func(t *testing.T, s Settings) {
			if s.MaxRepairAttempts != 10 {
				t.Errorf("max_repair_attempts %d", s.MaxRepairAttempts)
			}
		}},
		{"nested", `"features": {"allow_agent_steps": "yes"}`, `features.allow_agent_steps: "yes" is not true or false; using false`, nil},
		{"object for a string", `"run": {"auto_replan": {"min_severity": 5}}`, `run.auto_replan.min_severity: 5 is not a string; using "HIGH"`, func(t *testing.T, s Settings) {
			if s.Run.DefaultRetries != 2 {
				// run is given twice in this case (base and slip): JSON keeps the last.
				t.Errorf("default_retries %d", s.Run.DefaultRetries)
			}
		}},
		{"bad MCP entry", `"mcp_servers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"]}, "bad": {"command": "x", "args": "not a list"}}`,
			`mcp_servers.bad: args: "not a list" is not a list of strings; left this entry out`, func(t *testing.T, s Settings) {
				if _, ok := s.MCPServers["fs"]; !ok || len(s.MCPServers) != 1 {
					t.Errorf("servers %v", s.MCPServers)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore(t, nil)
			content := "{" + base + ",\n " + tc.slip + "}"
			if strings.HasPrefix(tc.slip, `"llm"`) {
				content = "{" + tc.slip + "}"
			}
			write(t, s.Path, content)
			got, warnings, err := s.Load()
			if err != nil {
				t.Fatal(err)
			}
			if len(warnings) != 1 || !strings.Contains(warnings[0], tc.want) || !strings.Contains(warnings[0], s.Path) {
				t.Fatalf("warnings %q, want one containing %q and the path", warnings, tc.want)
			}
			if !strings.Contains(tc.name, "MCP") {
				if got.LLM.BaseURL != "http://gpu:8000/v1" || got.LLM.Model != "qwen3" || got.LLM.TimeoutS != 30 || got.MCPServers["fs"].Command != "npx" {
					t.Errorf("other keys lost: %+v", got)
				}
			}
			if string(got.Extra["future_key"]) == "" && !strings.Contains(tc.name, "llm") {
				t.Errorf("unknown key lost: %v", got.Extra)
			}
			if tc.check != nil {
				tc.check(t, got)
			}
			// The file is not touched by a load.
			if b, _ := os.ReadFile(s.Path); string(b) != content {
				t.Errorf("Load rewrote the file")
			}
			if m, _ := filepath.Glob(s.Path + ".corrupt-*"); len(m) != 0 {
				t.Errorf("moved aside: %v", m)
			}
			// A save keeps the unknown keys and the good values.
			if _, err := s.Save(got); err != nil {
				t.Fatal(err)
			}
			again, _, err := s.Load()
			if err != nil || again.LLM.Model != got.LLM.Model || string(again.Extra["future_key"]) == "" {
				t.Errorf("after save: %+v %v", again, err)
			}
		})
	}
	t.Run("llm model a number", func(t *testing.T) {
		s := newStore(t, nil)
		write(t, s.Path, `{"llm": {"base_url": "http://gpu:8000/v1", "model": 5}, "max_repair_attempts": 5}`)
		got, warnings, _ := s.Load()
		if got.LLM.BaseURL != "http://gpu:8000/v1" || got.LLM.Model != "" || got.MaxRepairAttempts != 5 || len(warnings) != 1 || !strings.Contains(warnings[0], `llm.model: 5 is not a string`) {
			t.Fatalf("%+v %q", got, warnings)
		}
	})
}

func FuzzLoadSettings(f *testing.F) {
	for _, s := range []string{`{}`, `{"llm": {"model": 5}}`, `{"mcp_servers": {"a": {"command": "x", "env": {"K": 1}}}}`, `[1]`, `{"run": []}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		out := Defaults()
		problems, err := decodeLenient([]byte(data), &out)
		if err == nil {
			out.Clamp()
			if out.MaxRepairAttempts < MinRepairAttempts || out.MaxRepairAttempts > MaxRepairAttempts {
				t.Fatalf("%q: out of range after clamp", data)
			}
		}
		_ = problems
	})
}

func TestEngineSettings(t *testing.T) {
	for _, tc := range []struct {
		in   Engine
		kind string
		warn string
	}{
		{Engine{}, EngineLocal, ""},
		{Engine{Kind: "cloud"}, EngineLocal, `engine.kind "cloud"`},
		{Engine{Kind: EngineTemporal}, EngineLocal, "address is empty"},
		{Engine{Kind: EngineTemporal, Temporal: TemporalEngine{Address: "t:7233"}}, EngineTemporal, ""},
	} {
		s := Defaults()
		s.Engine = tc.in
		w := strings.Join(s.Clamp(), "\n")
		if s.Engine.Kind != tc.kind || (tc.warn == "") != (w == "") || !strings.Contains(w, tc.warn) {
			t.Errorf("%+v: kind %s, warnings %q", tc.in, s.Engine.Kind, w)
		}
		if s.Engine.Temporal.Namespace != "default" || s.Engine.Temporal.TaskQueue != "weft" {
			t.Errorf("defaults %+v", s.Engine.Temporal)
		}
	}
}

// osLikeKeyring answers "not found" as the OS keyring does.
type osLikeKeyring struct{ *memKeyring }

func (k osLikeKeyring) Get(s, u string) (string, error) {
	v, err := k.memKeyring.Get(s, u)
	if err != nil && !k.fail {
		return "", gokeyring.ErrNotFound
	}
	return v, err
}

func TestStoredSecrets(t *testing.T) {
	kr := osLikeKeyring{&memKeyring{m: map[string]string{}}}
	s := &Store{Path: filepath.Join(t.TempDir(), "settings.json"), Keyring: kr}
	if v, err := s.Secret(SecretTemporalAPIKey); v != "" || err != nil {
		t.Fatalf("none stored: %q %v", v, err)
	}
	if err := s.SetSecret(SecretTemporalAPIKey, "tk-123456789"); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Secret(SecretTemporalAPIKey); v != "tk-123456789" {
		t.Fatalf("stored: %q", v)
	}
	if err := s.SetSecret(SecretTemporalAPIKey, ""); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Secret(SecretTemporalAPIKey); v != "" {
		t.Fatalf("removed: %q", v)
	}
	// No keyring: refused, and never written to the file.
	off := &Store{Path: filepath.Join(t.TempDir(), "settings.json"), Keyring: NoKeyring{}}
	if err := off.SetSecret(SecretTemporalAPIKey, "tk-123456789"); err == nil || !strings.Contains(err.Error(), "environment variable") {
		t.Fatalf("no keyring: %v", err)
	}
	if _, err := os.Stat(off.Path); err == nil {
		t.Fatal("a file was written")
	}
}
