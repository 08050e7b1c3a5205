package settings

import (
	"errors"
	"fmt"
	"time"

	gokeyring "github.com/zalando/go-keyring"
)

const (
	keyringService = "weft"
	keyringUser    = "llm-api-key"
	// EnvKeyring set to "off" keeps the key in the file (CI, containers).
	EnvKeyring = "WEFT_KEYRING"
)

// Keyring stores secrets outside the settings file.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// ErrNoKeyring means no OS keyring is in use.
var ErrNoKeyring = errors.New("no OS keyring")

// NoKeyring is used when the keyring is switched off.
type NoKeyring struct{}

func (NoKeyring) Get(string, string) (string, error) { return "", ErrNoKeyring }
func (NoKeyring) Set(string, string, string) error   { return ErrNoKeyring }
func (NoKeyring) Delete(string, string) error        { return ErrNoKeyring }

// osKeyring wraps go-keyring with a time bound: on a desktop without a
// Secret Service, D-Bus calls can stall, and settings must never hang.
type osKeyring struct{ timeout time.Duration }

// DefaultKeyring returns the OS keyring unless WEFT_KEYRING=off.
func DefaultKeyring(getenv func(string) string) Keyring {
	if getenv(EnvKeyring) == "off" {
		return NoKeyring{}
	}
	return osKeyring{timeout: 3 * time.Second}
}

func (k osKeyring) run(f func() (string, error)) (string, error) {
	type res struct {
		v   string
		err error
	}
	ch := make(chan res, 1)
	go func() { v, err := f(); ch <- res{v, err} }()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(k.timeout):
		return "", fmt.Errorf("OS keyring did not answer within %s", k.timeout)
	}
}

func (k osKeyring) Get(service, user string) (string, error) {
	return k.run(func() (string, error) { return gokeyring.Get(service, user) })
}

func (k osKeyring) Set(service, user, secret string) error {
	_, err := k.run(func() (string, error) { return "", gokeyring.Set(service, user, secret) })
	return err
}

func (k osKeyring) Delete(service, user string) error {
	_, err := k.run(func() (string, error) { return "", gokeyring.Delete(service, user) })
	if errors.Is(err, gokeyring.ErrNotFound) {
		return nil
	}
	return err
}

// The Temporal engine's credentials (its API key, the payload key) live in
// the OS keyring only: never in the settings file. The environment
// (WEFT_TEMPORAL_API_KEY, WEFT_TEMPORAL_KEY) wins over them.
const (
	SecretTemporalAPIKey     = "temporal-api-key"
	SecretTemporalPayloadKey = "temporal-payload-key"
	// EnvTemporalAPIKey is the environment variable of the Temporal API
	// key (the payload key's is temporal.EnvKey).
	EnvTemporalAPIKey = "WEFT_TEMPORAL_API_KEY"
)

// Secret reads a credential from the keyring ("" when none is stored).
func (s *Store) Secret(name string) (string, error) {
	v, err := s.keyring().Get(keyringService, name)
	if err != nil && (errors.Is(err, gokeyring.ErrNotFound) || errors.Is(err, ErrNoKeyring)) {
		return "", nil
	}
	return v, err
}

// SetSecret stores a credential in the keyring, or removes it ("").
// Without a keyring it fails: such a credential is never written to the
// settings file.
func (s *Store) SetSecret(name, value string) error {
	if value == "" {
		err := s.keyring().Delete(keyringService, name)
		if errors.Is(err, ErrNoKeyring) {
			return nil
		}
		return err
	}
	if err := s.keyring().Set(keyringService, name, value); err != nil {
		return fmt.Errorf("the OS keyring is not available (%v): set the environment variable instead", err)
	}
	return nil
}
