package service

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/settings"
)

// The Temporal credentials: the environment's win, else the keyring's; a
// payload key that is not 32 bytes is refused.
func TestTemporalConfigCredentials(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("k", 32)))
	env := map[string]string{}
	kept := map[string]string{settings.SecretTemporalAPIKey: "from-keyring", settings.SecretTemporalPayloadKey: key}
	svc := New(Deps{Getenv: func(k string) string { return env[k] }, Secret: func(n string) (string, error) { return kept[n], nil }})
	st := settings.Defaults()
	st.Engine.Temporal.Address = "t:7233"
	cfg, _, err := svc.temporalConfig(st.Engine.Temporal)
	if err != nil || cfg.APIKey != "from-keyring" || len(cfg.Key) != 32 || cfg.Address != "t:7233" {
		t.Fatalf("keyring: %+v %v", cfg, err)
	}
	env["WEFT_TEMPORAL_API_KEY"] = "from-env"
	if cfg, _, _ := svc.temporalConfig(st.Engine.Temporal); cfg.APIKey != "from-env" {
		t.Fatalf("env: %q", cfg.APIKey)
	}
	kept[settings.SecretTemporalPayloadKey] = "short"
	if _, _, err := svc.temporalConfig(st.Engine.Temporal); err == nil {
		t.Fatal("a bad payload key was taken")
	}
	// A keyring that does not answer is a warning, not a refusal.
	broken := New(Deps{Getenv: func(string) string { return "" }, Secret: func(string) (string, error) { return "", errors.New("no D-Bus") }})
	cfg, warnings, err := broken.temporalConfig(st.Engine.Temporal)
	if err != nil || cfg.APIKey != "" || len(warnings) != 2 || !strings.Contains(warnings[0], "no D-Bus") || !strings.Contains(warnings[1], "as they are") {
		t.Fatalf("broken keyring: %+v %q %v", cfg, warnings, err)
	}
}
