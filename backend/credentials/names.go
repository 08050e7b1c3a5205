package credentials

import (
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// Bounds on what a secret may carry: a value goes into an environment
// variable or a header, and a binding list is read by people.
const (
	maxValueBytes = 64 << 10
	maxBindings   = 64
	maxToolLen    = 128
)

var (
	nameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,63}$`)
	toolRE  = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.:/-]*$`)
	labelRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)
)

// ValidName checks a secret's name: a letter or underscore, then letters,
// digits and underscores, 64 characters at most (it is also the name of
// the environment variable a command receives it in).
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("secret name %q: use letters, digits and _ (not starting with a digit), 64 characters at most", name)
	}
	return nil
}

// NormalizeHost checks one host a secret may be sent to and returns it in
// lower case: "api.example.com", "api.example.com:8443", "*.example.com"
// (any subdomain, not example.com itself) or an IP address. A scheme, a
// path, a user or a bare "*" is refused: a binding names a host, nothing
// more.
func NormalizeHost(h string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("host %q: %s (write api.example.com, api.example.com:8443 or *.example.com)", h, why)
	}
	if h == "" {
		return bad("empty")
	}
	if strings.Contains(h, "://") {
		return bad("a host has no scheme")
	}
	if strings.ContainsAny(h, "/?#@ \t\r\n\\") {
		return bad("a host has no path, query, user or spaces")
	}
	host, port := h, ""
	if strings.HasPrefix(h, "[") || strings.Count(h, ":") == 1 {
		u, err := url.Parse("//" + h)
		if err != nil || u.Host != h {
			return bad("not a host or host:port")
		}
		host, port = u.Hostname(), u.Port()
		if strings.HasSuffix(h, ":") {
			return bad("the port is empty")
		}
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return bad("the port is not a number from 1 to 65535")
		}
	}
	if ip := net.ParseIP(host); ip != nil {
		if strings.Contains(host, ":") {
			host = "[" + ip.String() + "]"
		} else {
			host = ip.String()
		}
	} else {
		host = strings.ToLower(host)
		name := strings.TrimPrefix(host, "*.")
		if name == "" || len(name) > 253 {
			return bad("not a host name")
		}
		labels := strings.Split(name, ".")
		if strings.HasPrefix(host, "*.") && len(labels) < 2 {
			return bad("a wildcard needs a domain under it (*.example.com)")
		}
		for _, l := range labels {
			if !labelRE.MatchString(l) {
				return bad("not a host name")
			}
		}
	}
	if port != "" {
		return host + ":" + port, nil
	}
	return host, nil
}

// ValidTool checks one tool a secret may be passed to ("run_command",
// "gh.create_issue").
func ValidTool(t string) error {
	if len(t) > maxToolLen || !toolRE.MatchString(t) {
		return fmt.Errorf("tool %q: write a tool's name (run_command, gh.create_issue)", t)
	}
	return nil
}

// normalize checks a secret's name and bindings and returns it with hosts
// in lower case and duplicates dropped.
func normalize(sec Secret) (Secret, error) {
	if err := ValidName(sec.Name); err != nil {
		return sec, err
	}
	if len(sec.Hosts) > maxBindings || len(sec.Tools) > maxBindings {
		return sec, fmt.Errorf("secret %s: at most %d hosts and %d tools", sec.Name, maxBindings, maxBindings)
	}
	out := Secret{Name: sec.Name, Value: sec.Value}
	seen := map[string]bool{}
	for _, h := range sec.Hosts {
		n, err := NormalizeHost(strings.TrimSpace(h))
		if err != nil {
			return sec, fmt.Errorf("secret %s: %w", sec.Name, err)
		}
		if !seen["h "+n] {
			seen["h "+n] = true
			out.Hosts = append(out.Hosts, n)
		}
	}
	for _, t := range sec.Tools {
		t = strings.TrimSpace(t)
		if err := ValidTool(t); err != nil {
			return sec, fmt.Errorf("secret %s: %w", sec.Name, err)
		}
		if !seen["t "+t] {
			seen["t "+t] = true
			out.Tools = append(out.Tools, t)
		}
	}
	if len(sec.Value) > maxValueBytes {
		return sec, fmt.Errorf("secret %s: the value is over %d bytes", sec.Name, maxValueBytes)
	}
	if strings.ContainsRune(sec.Value, 0) {
		return sec, fmt.Errorf("secret %s: the value holds a NUL byte, which no environment variable or header can carry", sec.Name)
	}
	return out, nil
}

// AllowsHost reports whether the secret may be sent to hostport (a URL's
// host, with or without a port). A binding without a port allows the web's
// default ports only (none given, 443, 80): another port on the same name
// may be another service. "*.example.com" allows every subdomain of
// example.com, not example.com itself.
func (s Secret) AllowsHost(hostport string) bool {
	host, port := strings.ToLower(hostport), ""
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = strings.ToLower(h), p
	}
	host = strings.Trim(host, "[]")
	for _, b := range s.Hosts {
		bh, bp := b, ""
		if h, p, err := net.SplitHostPort(b); err == nil {
			bh, bp = h, p
		}
		bh = strings.Trim(bh, "[]")
		if bp != port && (bp != "" || (port != "443" && port != "80")) {
			continue
		}
		if bh == host || (strings.HasPrefix(bh, "*.") && strings.HasSuffix(host, bh[1:]) && len(host) > len(bh)-1) {
			return true
		}
	}
	return false
}

// AllowsTool reports whether the secret may be passed to tool.
func (s Secret) AllowsTool(tool string) bool {
	for _, t := range s.Tools {
		if t == tool {
			return true
		}
	}
	return false
}
