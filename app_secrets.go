package main

// Secrets: the Preferences page that lists, adds, rebinds and removes the
// named secrets workflows refer to as {{secrets.NAME}}. Where values live
// and what a name, host or tool may be is decided by backend/credentials;
// these bindings translate. No binding ever returns a value.

import (
	"os"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/literals"
	"github.com/weft-dev/weft/backend/workflow"
)

// SecretsView is the Secrets page's content: names, bindings and where
// each value is stored, never a value. Warning says when the index could
// not be read (it was moved aside).
type SecretsView struct {
	Secrets []credentials.Secret `json:"secrets"`
	Warning string               `json:"warning,omitempty"`
}

func (a *App) credentials() (*credentials.Store, error) {
	return credentials.Default(os.Getenv)
}

// ListSecrets is every stored secret without its value.
func (a *App) ListSecrets() (SecretsView, error) {
	v := SecretsView{Secrets: []credentials.Secret{}}
	st, err := a.credentials()
	if err != nil {
		return v, err
	}
	list, err := st.List()
	if err != nil {
		v.Warning = err.Error()
	}
	v.Secrets = append(v.Secrets, list...)
	return v, nil
}

// SetSecret stores a secret's value and the hosts and tools it may go to.
func (a *App) SetSecret(name, value string, hosts, tools []string) error {
	st, err := a.credentials()
	if err != nil {
		return err
	}
	return st.Set(credentials.Secret{Name: name, Value: value, Hosts: hosts, Tools: tools})
}

// SetSecretBindings changes where a stored secret may go, keeping its
// value.
func (a *App) SetSecretBindings(name string, hosts, tools []string) error {
	return a.SetSecret(name, "", hosts, tools)
}

// RemoveSecret deletes a secret and its value.
func (a *App) RemoveSecret(name string) error {
	st, err := a.credentials()
	if err != nil {
		return err
	}
	return st.Remove(name)
}

// MoveLiteralToSecrets stores the literal credential at path (written
// under key, if any) in node's arguments (a literal_secret warning) as the secret name, bound to hosts
// and tools (none: the URL's host or the step's tool), and returns the
// workflow with {{secrets.NAME}} in its place, for the editor to apply as
// one change. The value is never returned.
func (a *App) MoveLiteralToSecrets(w workflow.Workflow, node, path, key, name string, hosts, tools []string) (*workflow.Workflow, error) {
	out, _, err := a.service().MoveLiteral(&w, literals.Move{NodeID: node, Path: path, Key: key, Name: name, Hosts: hosts, Tools: tools})
	return out, err
}
