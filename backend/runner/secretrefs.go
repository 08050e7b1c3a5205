package runner

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/render"
)

// Secret references ({{secrets.NAME}}, package render) are resolved here,
// in the effect gate, at the last moment: rendering seals the arguments
// that hold one (render.Sealed), events show the reference, and only the
// call itself gets the value (on a Temporal worker that is inside the
// activity, Runner.Step, so no value enters the history). Each secret is
// bound to where it may go: an http_request only to the hosts it lists,
// any other tool only if it lists the tool. A call that would send one
// elsewhere fails before it acts. Every value is added to the run's
// redactor as it is read, and taken out of what the call returns.

// SecretSource is where a run reads the secrets its steps refer to: the
// credentials store (credentials.Store).
type SecretSource interface {
	Get(name string) (credentials.Secret, error)
}

// SecretError is a secret a call cannot have: missing, unreadable, or
// bound elsewhere. Retrying gives the same answer.
type SecretError struct{ Msg string }

func (e *SecretError) Error() string { return e.Msg }

func secretErrorf(format string, args ...any) error {
	return &SecretError{Msg: fmt.Sprintf(format, args...)}
}

// opened is what a call that carries secrets needs besides its
// arguments: the variables its commands read them from, the secrets'
// bindings for the redirects of an http_request, and the values to take
// out of what it returns.
type opened struct {
	env     []string // NAME=value lines to add to the environment
	secrets []credentials.Secret
	values  []string
}

// openSecrets gives tool name the values of the secrets its arguments
// refer to, after checking each may go there. Arguments without a
// reference are returned as they are, with a nil *opened (which adds
// nothing).
func (r *run) openSecrets(name string, args map[string]any) (map[string]any, *opened, error) {
	if !render.HasSealed(args) {
		return args, nil, nil
	}
	names := render.SecretNames(args)
	if r.opts.Secrets == nil {
		return nil, nil, secretErrorf("%s refers to the secret %s, but no credentials store is set up, so no secret can be read", name, names[0])
	}
	var host *url.URL
	if name == "http_request" {
		// The host is template text (a reference cannot choose it), so
		// the URL opened with placeholders in place of values has it.
		raw := toText(render.Open(args["url"], func(string) string { return "x" }))
		u, err := url.Parse(strings.TrimSpace(raw))
		if err != nil || u.Host == "" {
			return nil, nil, secretErrorf("http_request: the URL %q has no host, so no secret may be sent with it", render.Shown(args["url"]))
		}
		host = u
	}
	o := &opened{}
	vals := make(map[string]string, len(names))
	for _, n := range names {
		sec, err := r.opts.Secrets.Get(n)
		if err != nil {
			return nil, nil, secretErrorf("the secret %s cannot be read: %v", n, err)
		}
		if err := allowed(sec, name, host); err != nil {
			return nil, nil, err
		}
		if sec.Value == "" {
			return nil, nil, secretErrorf("the secret %s has no value", n)
		}
		if r.red.Add(sec.Value) > 0 {
			// A variable Weft inherited with this value goes to no
			// command from now on, bound or not (childEnv).
			r.env = childEnv(r.red)
		}
		vals[n] = sec.Value
		o.secrets = append(o.secrets, sec)
		o.values = append(o.values, sec.Value)
	}
	opened, _ := render.Open(args, func(n string) string { return vals[n] }).(map[string]any)
	for _, n := range render.EnvSecrets(args) {
		o.env = append(o.env, render.SecretEnv(n)+"="+vals[n])
	}
	return opened, o, nil
}

// allowed says whether sec may go to tool (to host, for an http_request).
func allowed(sec credentials.Secret, tool string, host *url.URL) error {
	if host != nil {
		if sec.AllowsHost(host.Host) {
			return nil
		}
		return secretErrorf("the secret %s may not be sent to %s (%s); nothing was sent. To allow it: %s",
			sec.Name, host.Host, bindings("hosts", sec.Hosts), bindCommand(sec, host.Host, ""))
	}
	if sec.AllowsTool(tool) {
		return nil
	}
	return secretErrorf("the secret %s may not be passed to the tool %s (%s); the step did not run. To allow it: %s",
		sec.Name, tool, bindings("tools", sec.Tools), bindCommand(sec, "", tool))
}

func bindings(what string, list []string) string {
	if len(list) == 0 {
		return "it lists no " + what
	}
	return "its " + what + ": " + strings.Join(list, ", ")
}

// bindCommand is the command that keeps sec's bindings and adds a host
// or a tool (weft secrets bind sets them all).
func bindCommand(sec credentials.Secret, host, tool string) string {
	b := []string{"weft secrets bind", sec.Name}
	for _, h := range append(slices.Clip(sec.Hosts), host) {
		if h != "" {
			b = append(b, "--host", h)
		}
	}
	for _, t := range append(slices.Clip(sec.Tools), tool) {
		if t != "" {
			b = append(b, "--tool", t)
		}
	}
	return strings.Join(b, " ")
}

// redirect checks that every secret a request carries may follow it to
// u: headers and a 307/308 body travel with a redirect.
func (o *opened) redirect(u *url.URL) error {
	for _, sec := range o.secrets {
		if !sec.AllowsHost(u.Host) {
			return secretErrorf("http_request: a redirect leads to %s, where the secret %s may not be sent (%s); it was not followed", u.Host, sec.Name, bindings("hosts", sec.Hosts))
		}
	}
	return nil
}

// callEnv is the environment of the processes a call starts.
func (o *opened) callEnv(base []string) []string {
	if o == nil || len(o.env) == 0 {
		return base
	}
	return append(slices.Clip(base), o.env...)
}

// scrub takes the call's secret values out of what it returns (a command
// could print one): later steps, and a model, read these outputs.
func (o *opened) scrub(out map[string]any) map[string]any {
	if o == nil || out == nil {
		return out
	}
	m, _ := redact.New(o.values...).Value(out).(map[string]any)
	return m
}

// shownArgs are a Tool step's rendered arguments as an attempt event
// shows them: references as written, long values cut.
func shownArgs(args map[string]any) map[string]any {
	m, _ := render.Shown(args).(map[string]any)
	return bounded(m, 2000)
}

// sealModelArgs seals the secret references in a model's tool call, as
// rendering does a Tool step's (only those: a model's call has no other
// placeholders), so the gate opens them the same way.
func sealModelArgs(tool string, args map[string]any) (map[string]any, error) {
	if args == nil {
		return nil, nil
	}
	return render.Args(tool, args, noKeys{}, quote.HostShell())
}

// noKeys knows no node key: only secret references are placeholders.
type noKeys struct{}

func (noKeys) Known(string) bool        { return false }
func (noKeys) Eval(string) (any, error) { return nil, nil }
