package main

// The engine: the Temporal credentials, kept in the OS keyring.

import (
	"os"
	"strings"

	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/temporal"
)

// TemporalCredentials says which Temporal credentials are set, and where
// (the environment wins over the keyring).
type TemporalCredentials struct {
	APIKeySet     bool `json:"api_key_set"`
	PayloadKeySet bool `json:"payload_key_set"`
	APIKeyEnv     bool `json:"api_key_env"`
	PayloadKeyEnv bool `json:"payload_key_env"`
}

// GetTemporalCredentials says which Temporal credentials are set; their
// values never leave the backend.
func (a *App) GetTemporalCredentials() (TemporalCredentials, error) {
	var c TemporalCredentials
	st, err := a.settingsStore()
	if err != nil {
		return c, err
	}
	c.APIKeyEnv, c.PayloadKeyEnv = os.Getenv(settings.EnvTemporalAPIKey) != "", os.Getenv(temporal.EnvKey) != ""
	api, err := st.Secret(settings.SecretTemporalAPIKey)
	if err != nil {
		return c, err
	}
	payload, err := st.Secret(settings.SecretTemporalPayloadKey)
	if err != nil {
		return c, err
	}
	c.APIKeySet, c.PayloadKeySet = c.APIKeyEnv || api != "", c.PayloadKeyEnv || payload != ""
	return c, nil
}

// SetTemporalCredentials stores the Temporal API key and payload key in the
// OS keyring: nil keeps one, "" removes it. A payload key must be 32 bytes
// in base64. Without a keyring it fails (they are never written to the
// settings file: use the environment then).
func (a *App) SetTemporalCredentials(apiKey, payloadKey *string) (TemporalCredentials, error) {
	st, err := a.settingsStore()
	if err != nil {
		return TemporalCredentials{}, err
	}
	if payloadKey != nil && *payloadKey != "" {
		if _, err := temporal.ParseKey(*payloadKey); err != nil {
			return TemporalCredentials{}, err
		}
	}
	for _, c := range []struct {
		name string
		v    *string
	}{{settings.SecretTemporalAPIKey, apiKey}, {settings.SecretTemporalPayloadKey, payloadKey}} {
		if c.v == nil {
			continue
		}
		if err := st.SetSecret(c.name, strings.TrimSpace(*c.v)); err != nil {
			return TemporalCredentials{}, err
		}
	}
	return a.GetTemporalCredentials()
}
