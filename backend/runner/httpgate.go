package runner

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Redirects are part of the effect gate: a step's url is content a person
// wrote or approved, but where a server redirects it is the server's
// choice. http_request follows a redirect to the same origin as the
// request (scheme, host and port), and the upgrade from http to https on
// the same host; a redirect to another host only when the step's own
// arguments name it (follow_redirects), and from https to http never. A
// request that carries secrets follows a redirect only to hosts every
// one of them is bound to, whatever follow_redirects says: its headers
// and a 307/308 body would travel with it.

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 10

// RedirectError is a redirect http_request refused to follow. Retrying
// gives the same answer: the fix is in the step's arguments.
type RedirectError struct {
	From, To string // origins: scheme://host[:port]
	// Why says what was refused, Fix what allows it ("" when nothing does).
	Why, Fix string
}

func (e *RedirectError) Error() string {
	msg := fmt.Sprintf("http_request: %s redirected to %s, %s", e.From, e.To, e.Why)
	if e.Fix != "" {
		msg += "; " + e.Fix
	}
	return msg
}

// redirectRule is a step's follow_redirects: the hosts besides the
// request's own that its redirects may lead to.
type redirectRule struct {
	anyHost bool
	hosts   []string // host, host:port or *.domain, lower case
}

// parseRedirectRule reads follow_redirects: absent or false (the same
// origin only), true (any host), or a list of host names (host, host:port
// or *.example.com).
func parseRedirectRule(v any) (redirectRule, error) {
	const usage = `http_request: follow_redirects must be true, false or a list of host names (such as ["cdn.example.com", "*.example.org", "localhost:8080"])`
	switch t := v.(type) {
	case nil:
		return redirectRule{}, nil
	case bool:
		return redirectRule{anyHost: t}, nil
	case []any:
		var rr redirectRule
		for _, x := range t {
			h, ok := x.(string)
			h = strings.ToLower(strings.TrimSpace(h))
			if !ok || h == "" || strings.ContainsAny(h, "/?#@ ") {
				return redirectRule{}, argErrorf("%s, not %v", usage, x)
			}
			rr.hosts = append(rr.hosts, h)
		}
		return rr, nil
	case string: // a template that rendered to text, or a hand-written "true"
		switch strings.TrimSpace(t) {
		case "true":
			return redirectRule{anyHost: true}, nil
		case "false", "":
			return redirectRule{}, nil
		}
	}
	return redirectRule{}, argErrorf("%s, not %v", usage, v)
}

// allows reports whether the rule names u's host.
func (rr redirectRule) allows(u *url.URL) bool {
	if rr.anyHost {
		return true
	}
	host, port := strings.ToLower(u.Hostname()), portOf(u)
	for _, h := range rr.hosts {
		switch {
		case strings.HasPrefix(h, "*."):
			if strings.HasSuffix(host, h[1:]) {
				return true
			}
		case h == host, h == net.JoinHostPort(host, port):
			return true
		}
	}
	return false
}

// check is the http.Client's CheckRedirect for a request of first;
// carries, when set, refuses a redirect its secrets may not follow.
func (rr redirectRule) check(first *url.URL, carries func(*url.URL) error) func(req *http.Request, via []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		prev, next := via[len(via)-1].URL, req.URL
		if carries != nil {
			if err := carries(next); err != nil {
				return err
			}
		}
		switch {
		case len(via) >= maxRedirects:
			return &RedirectError{From: origin(prev), To: origin(next), Why: fmt.Sprintf("after %d redirects already", len(via)),
				Fix: "a chain this long is a loop or a mistake: request the final URL directly"}
		case prev.Scheme == "https" && next.Scheme != "https":
			return &RedirectError{From: origin(prev), To: origin(next), Why: "from https to http, which Weft never follows (the response could be read or changed on the way)",
				Fix: "request the http URL directly if that is really meant"}
		case sameOrigin(first, next), upgrade(first, next), rr.allows(next):
			return nil
		}
		return &RedirectError{From: origin(first), To: origin(next), Why: "another host, which the step does not allow",
			Fix: fmt.Sprintf(`to follow it, add "follow_redirects": [%q] to the step's arguments (or true for any host)`, next.Host)}
	}
}

// origin is u's scheme, host and port, the part of a URL a redirect check
// is about (a path or query may hold a token).
func origin(u *url.URL) string {
	return u.Scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), portOf(u))
}

func sameOrigin(a, b *url.URL) bool { return origin(a) == origin(b) }

// upgrade is http://host → https://host on the default ports: the same
// server made safer.
func upgrade(a, b *url.URL) bool {
	return a.Scheme == "http" && b.Scheme == "https" && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == "80" && portOf(b) == "443"
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}
