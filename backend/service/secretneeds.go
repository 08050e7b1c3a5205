package service

import (
	"net/url"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/render"
	"github.com/weft-dev/weft/backend/workflow"
)

// NeededSecret is a secret a workflow refers to, with the bindings where
// it is used suggests: the hosts of the http_request steps that send it,
// the tools of the other steps. It never holds a value.
type NeededSecret struct {
	Name  string   `json:"name"`
	Hosts []string `json:"hosts"`
	Tools []string `json:"tools"`
	// Nodes are the ids of the steps that refer to it.
	Nodes []string `json:"nodes"`
	// Missing is set when this computer's credentials store lacks it.
	Missing bool `json:"missing"`
}

// SetCommand is the command that stores the secret with its suggested
// bindings (the value is read from the terminal or standard input).
// Names, hosts and tools are of plain characters (credentials checks
// them), so the command needs no quoting.
func (n NeededSecret) SetCommand() string {
	b := []string{"weft secrets set", n.Name}
	for _, h := range n.Hosts {
		b = append(b, "--host", h)
	}
	for _, t := range n.Tools {
		b = append(b, "--tool", t)
	}
	return strings.Join(b, " ")
}

// SecretNeeds lists the secrets the enabled Tool steps of w refer to, in
// the order they first appear, each marked Missing when have (the store's
// names) lacks it. have nil means the store could not be listed: every
// secret counts as missing then, since none can be read.
func SecretNeeds(w *workflow.Workflow, have []string) []NeededSecret {
	if w == nil {
		return nil
	}
	var out []NeededSecret
	at := map[string]int{}
	for i := range w.Nodes {
		nd := &w.Nodes[i]
		if nd.Type != workflow.TypeTool || !nd.IsEnabled() {
			continue
		}
		// The run's renderer seals the references; a malformed one is
		// validate's bad_secret_ref, not a secret to ask for.
		args, err := render.Args(nd.Params.Tool, nd.Params.Arguments, noKeys{}, quote.HostShell())
		if err != nil {
			continue
		}
		names := render.SecretNames(args)
		slices.Sort(names) // a map's order would vary
		if len(names) == 0 {
			continue
		}
		host := ""
		if nd.Params.Tool == "http_request" {
			host = suggestedHost(args["url"])
		}
		for _, name := range names {
			j, ok := at[name]
			if !ok {
				j = len(out)
				at[name] = j
				out = append(out, NeededSecret{Name: name, Hosts: []string{}, Tools: []string{}, Missing: !slices.Contains(have, name)})
			}
			n := &out[j]
			n.Nodes = appendOnce(n.Nodes, nd.ID)
			switch {
			case nd.Params.Tool == "http_request":
				if host != "" {
					n.Hosts = appendOnce(n.Hosts, host)
				}
			case credentials.ValidTool(nd.Params.Tool) == nil:
				n.Tools = appendOnce(n.Tools, nd.Params.Tool)
			}
		}
	}
	return out
}

// MissingSecrets are the secrets of SecretNeeds that this computer lacks.
func MissingSecrets(w *workflow.Workflow, have []string) []NeededSecret {
	var out []NeededSecret
	for _, n := range SecretNeeds(w, have) {
		if n.Missing {
			out = append(out, n)
		}
	}
	return out
}

// SecretNeeds lists the secrets w refers to and which of them this
// computer's credentials store lacks.
func (s *Service) SecretNeeds(w *workflow.Workflow) []NeededSecret {
	return SecretNeeds(w, s.secretNames())
}

// suggestedHost is the host (with its port when the URL names one) of a
// rendered http_request URL, as a binding; "" when the host is not fixed
// text (a placeholder chooses it) or not a host a binding accepts.
func suggestedHost(x any) string {
	raw := render.ToText(render.Open(x, func(string) string { return "x" }))
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || strings.ContainsAny(u.Host, "{}") {
		return ""
	}
	h, err := credentials.NormalizeHost(u.Host)
	if err != nil {
		return ""
	}
	return h
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// noKeys knows no node key: only secret references are placeholders.
type noKeys struct{}

func (noKeys) Known(string) bool        { return false }
func (noKeys) Eval(string) (any, error) { return nil, nil }

// MissingSecretsMessage says which secrets are missing and, for each, the
// command that adds it.
func MissingSecretsMessage(miss []NeededSecret) string {
	var b strings.Builder
	b.WriteString("the workflow refers to secrets this computer's credentials store lacks, so nothing ran; add each (the value is asked for), or in Preferences › Secrets:")
	for _, n := range miss {
		b.WriteString("\n  ")
		b.WriteString(n.SetCommand())
	}
	return b.String()
}
