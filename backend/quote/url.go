package quote

import (
	"fmt"
	"net/url"
	"strings"
)

// URL builds a URL from a template: literal text as written, each value
// percent-encoded for the part of the URL it lands in, which the literal
// text before it decides:
//
//   - scheme, user info, host and port (everything up to the first /, ?
//     or # after "://"): refused, since a value there chooses which
//     server receives the request (make the whole URL one placeholder, see
//     WholeURL, or use {{raw …}});
//   - path: one segment, url.PathEscape (a / in the value is %2F), with a
//     value of . or .. written %2E and %2E%2E so it is no dot segment;
//   - query: url.QueryEscape (&, =, #, + and space encoded);
//   - fragment: url.PathEscape.
//
// The zero URL is ready to use.
type URL struct {
	b    strings.Builder
	part urlPart
	prev [2]byte // the last two bytes of template text, to spot "://"
}

type urlPart uint8

const (
	partScheme    urlPart = iota // before "://"
	partAuthority                // user info, host, port
	partPath
	partQuery
	partFragment
)

// Literal appends template text.
func (u *URL) Literal(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch u.part {
		case partScheme:
			if c == '/' && u.prev == [2]byte{':', '/'} {
				u.part = partAuthority
			}
		case partAuthority:
			switch c {
			case '/':
				u.part = partPath
			case '?':
				u.part = partQuery
			case '#':
				u.part = partFragment
			}
		case partPath:
			switch c {
			case '?':
				u.part = partQuery
			case '#':
				u.part = partFragment
			}
		case partQuery:
			if c == '#' {
				u.part = partFragment
			}
		}
		u.prev = [2]byte{u.prev[1], c}
		u.b.WriteByte(c)
	}
}

// Raw appends text the author chose to insert as part of the URL's syntax
// ({{raw …}}): unchanged, and read as template text.
func (u *URL) Raw(s string) { u.Literal(s) }

// Value appends v percent-encoded for the part of the URL it lands in. On
// error nothing is appended.
func (u *URL) Value(v string) error {
	switch u.part {
	case partScheme, partAuthority:
		return fmt.Errorf("the placeholder sits in the scheme or host of the URL, where a value would choose the server; write the scheme and host in the template, make the whole URL one placeholder, or use {{raw …}} for a base URL you trust")
	case partPath:
		u.b.WriteString(pathSegment(v))
	case partQuery:
		u.b.WriteString(url.QueryEscape(v))
	case partFragment:
		u.b.WriteString(url.PathEscape(v))
	}
	return nil
}

// Encoder returns how a value is encoded where the URL built so far
// ends (see Value): what a secret, inserted only when the request is
// made, goes through.
func (u *URL) Encoder() (func(string) string, error) {
	switch u.part {
	case partScheme, partAuthority:
		return nil, fmt.Errorf("a secret cannot sit in the scheme or host of the URL: where it is sent must be written in the template")
	case partPath:
		return pathSegment, nil
	case partQuery:
		return url.QueryEscape, nil
	}
	return url.PathEscape, nil
}

func pathSegment(v string) string {
	switch v {
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	return url.PathEscape(v)
}

// URLMayRefuse reports whether a URL built from template's text could
// refuse a value: only when a {{ comes before the end of the host. It
// lets a validator skip the common case cheaply.
func URLMayRefuse(template string) bool {
	i := strings.Index(template, "://")
	if i < 0 || strings.Contains(template[:i], "{{") {
		return true
	}
	rest := template[i+3:]
	j := strings.IndexAny(rest, "/?#")
	if j < 0 {
		j = len(rest)
	}
	return strings.Contains(rest[:j], "{{")
}

// String returns the URL built so far.
func (u *URL) String() string { return u.b.String() }

// WholeURL checks a value that is the whole URL (a url argument that is
// exactly one placeholder): it must be an absolute http or https URL, and
// is then used as is.
func WholeURL(v string) (string, error) {
	p, err := url.Parse(v)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return "", fmt.Errorf("the value %q is not an absolute http or https URL", clip(v, 80))
	}
	return v, nil
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
