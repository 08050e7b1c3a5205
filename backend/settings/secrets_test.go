package settings

import (
	"slices"
	"testing"
)

func TestSecrets(t *testing.T) {
	s := Defaults()
	s.LLM.APIKey = "sk-live-abcdef"
	s.MCPServers = map[string]MCPServer{
		"github": {Command: "npx", Env: map[string]string{
			"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_0123456789",
			"NODE_ENV":                     "production",
			"HOME":                         "/home/me",
			"PATH":                         "/usr/bin:/bin",
			"PORT":                         "808080",
			"DEBUG":                        "true",
			"WEBHOOK":                      "https://hooks.example.com/services/T0/B0/XyZ",
			"SSH_KEY":                      "/home/me/.ssh/id_ed25519",
			"SESSION_TIMEOUT":              "300000",
			"EMPTY":                        "  ",
		}},
		"db": {Command: "db-mcp", Env: map[string]string{"DSN": "postgres://u:pw@db/x", "PGPASSWORD": "production"}},
	}
	got := s.Secrets()
	want := []string{
		"sk-live-abcdef",
		"postgres://u:pw@db/x", "production", // db: PGPASSWORD's name wins over a plain-looking value
		"ghp_0123456789", "/home/me/.ssh/id_ed25519", "https://hooks.example.com/services/T0/B0/XyZ",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Secrets() =\n %q\nwant\n %q", got, want)
	}
	if n := len(Defaults().Secrets()); n != 0 {
		t.Errorf("fresh settings have %d secrets", n)
	}
}

func TestLoadedSeesEverySecret(t *testing.T) {
	s := newStore(t, map[string]string{EnvAPIKey: "sk-from-env-123456"})
	write(t, s.Path, `{"mcp_servers":{"gh":{"command":"x","env":{"GITHUB_TOKEN":"ghp_from_file_123"}}}}`)
	var seen [][]string
	s.Loaded = func(st Settings) { seen = append(seen, st.Secrets()) }
	if _, _, err := s.Effective(); err != nil {
		t.Fatal(err)
	}
	// Load (inside Effective) reports the file's secrets, Effective adds
	// the environment's key.
	if len(seen) != 2 || !slices.Equal(seen[0], []string{"ghp_from_file_123"}) || !slices.Equal(seen[1], []string{"sk-from-env-123456", "ghp_from_file_123"}) {
		t.Errorf("Loaded saw %q", seen)
	}
}
