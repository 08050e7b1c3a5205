// Package literals finds credentials written as literal text in a
// workflow's arguments (an Authorization header, an api_key query
// parameter, a token in a command) and moves one into the credentials
// store, leaving a {{secrets.NAME}} reference where it was. What looks
// like a credential is redact's rule (redact.NamedCredential,
// redact.TokenForm): the redactor and this package judge alike.
package literals

import (
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/workflow"
)

// Literal is one credential written in a node's arguments. Its value is
// unexported: what shows (Masked) never holds it.
type Literal struct {
	NodeID string `json:"node_id"`
	// Path is the JSON pointer (RFC 6901) of the string in the node's
	// arguments that holds it: "/headers/Authorization", "/url", "/body".
	Path string `json:"path"`
	// Key is the name it is written under (a header, query parameter or
	// JSON member), or "" when its form alone gives it away.
	Key string `json:"key,omitempty"`
	// Why says what gives it away, for people.
	Why string `json:"why"`
	// Masked shows it without showing it: an issuer prefix at most and its
	// length.
	Masked string `json:"masked"`
	// Suggested is a secret name for it (API_TOKEN from api_token).
	Suggested string `json:"suggested"`

	raw   string // as it is written in the string (URL- or JSON-escaped)
	value string // the credential itself
}

// Bounds: a string longer than maxScan is looked at in its first maxScan
// bytes, and at most maxPerNode literals are reported for one node.
const (
	maxScan    = 256 << 10
	maxPerNode = 64
	maxDepth   = 32
)

// Find returns the literal credentials in the arguments of w's Tool steps,
// in node order, then in the order of each node's argument paths.
func Find(w *workflow.Workflow) []Literal {
	if w == nil {
		return nil
	}
	var out []Literal
	for i := range w.Nodes {
		out = append(out, InNode(&w.Nodes[i])...)
	}
	return out
}

// InNode returns the literal credentials in one node's arguments.
func InNode(n *workflow.Node) []Literal {
	if n == nil || n.Type != workflow.TypeTool || n.Params.Arguments == nil {
		return nil
	}
	f := finder{node: n.ID}
	var segs [8]string
	f.walk(segs[:0], "", n.Params.Arguments, 0)
	return f.out
}

type finder struct {
	node string
	out  []Literal
}

func (f *finder) walk(segs []string, key string, x any, depth int) {
	if depth > maxDepth || len(f.out) >= maxPerNode {
		return
	}
	switch t := x.(type) {
	case string:
		f.leaf(segs, key, t)
	case map[string]any:
		var small [8]string
		keys := small[:0]
		for k := range t {
			keys = append(keys, k)
		}
		if len(keys) > 1 {
			sort.Strings(keys)
		}
		for _, k := range keys {
			f.walk(append(segs, k), k, t[k], depth+1)
		}
	case []any:
		for i, e := range t {
			f.walk(append(segs, strconv.Itoa(i)), key, e, depth+1)
		}
	}
}

// pointer is the JSON pointer of segs.
func pointer(segs []string) string {
	var b strings.Builder
	for _, s := range segs {
		b.WriteByte('/')
		b.WriteString(escapePointer(s))
	}
	return b.String()
}

// mayName is a cheap first look for redact.NamedCredential: whether name
// holds a fragment of a credential word at all (most argument names,
// command, url, method, do not).
func mayName(name string) bool {
	l := strings.ToLower(name) // no copy when already lower case
	for _, w := range nameFragments {
		if strings.Contains(l, w) {
			return true
		}
	}
	return false
}

var nameFragments = []string{"key", "token", "secret", "pass", "pwd", "auth", "cookie", "session", "pat", "private", "signature", "jwt", "bearer", "credential"}

// leaf looks at one string: the value of a sensitive name, the
// credentials of URLs, the sensitive members of a JSON text, then words
// that look like tokens by their form. Placeholders are not literals.
func (f *finder) leaf(segs []string, key, s string) {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	first := len(f.out) // the literals of this string start here
	path := ""
	add := func(key, why, raw, value string) {
		if value == "" || len(f.out) >= maxPerNode {
			return
		}
		for _, l := range f.out[first:] {
			if l.value == value {
				return
			}
		}
		if path == "" {
			path = pointer(segs)
		}
		f.out = append(f.out, Literal{NodeID: f.node, Path: path, Key: key, Why: why, Masked: Mask(value), Suggested: suggest(key, value), raw: raw, value: value})
	}
	if key != "" && mayName(key) && redact.NamedCredential(key, s) {
		v := strings.TrimSpace(s)
		lk := strings.ToLower(key)
		if lk == "authorization" || lk == "proxy-authorization" {
			if _, cred, ok := redact.SchemeCredentials(v); ok {
				v = cred // keep the scheme word: Bearer {{secrets.NAME}}
			}
		}
		add(key, "it is the value of "+q(key), v, v)
		return
	}
	if strings.Contains(s, "://") && strings.ContainsAny(s, "?@") {
		for _, u := range redact.URLs(s) {
			f.urlCreds(u, add)
		}
	}
	if t := strings.TrimSpace(s); (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) && strings.Contains(t, `":`) {
		redact.JSONMembers(s, func(name, raw, value string) {
			if redact.NamedCredential(name, value) {
				add(name, "it is the value of the JSON member "+q(name), raw, value)
			}
		})
	}
	forEachWord(s, func(w string) {
		if why := redact.TokenForm(w); why != "" {
			add("", why, w, w)
		}
	})
}

// forEachWord calls fn with each run of 16 or more token characters
// (letters, digits, _ + -, then any = padding) in s outside {{…}}
// placeholders: what a token written in text can be. A loop over bytes, not a regexp: validate looks
// at every argument of every step.
func forEachWord(s string, fn func(string)) {
	for i := 0; i < len(s); {
		if s[i] == '{' && strings.HasPrefix(s[i:], "{{") {
			// A placeholder is not a literal: skip to its end.
			if end := strings.Index(s[i+2:], "}}"); end >= 0 {
				i += end + 4
				continue
			}
		}
		if !isTokenByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isTokenByte(s[j]) {
			j++
		}
		if j-i >= 16 {
			end := j
			for end < len(s) && s[end] == '=' {
				end++
			}
			fn(s[i:end])
		}
		i = j
	}
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '+' || c == '-'
}

func (f *finder) urlCreds(raw string, add func(key, why, raw, value string)) {
	u, err := url.Parse(raw)
	if err != nil {
		return
	}
	if u.User != nil {
		if pw, ok := u.User.Password(); ok && pw != "" {
			rawPw := u.User.String()
			if _, p, ok := strings.Cut(rawPw, ":"); ok {
				add("", "it is the password of a URL", p, pw)
			}
		}
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		name, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			continue
		}
		if redact.NamedCredential(name, value) {
			add(name, "it is the value of the query parameter "+q(name), v, value)
		}
	}
}

// Mask shows a credential without its secret part: the issuer prefix it
// starts with, if any, and how long it is ("ghp_… (40 characters)").
func Mask(v string) string {
	return redact.TokenPrefix(v) + "… (" + strconv.Itoa(len([]rune(v))) + " characters)"
}

// suggest names a secret after the key it was written under (api_token →
// API_TOKEN, Authorization → AUTHORIZATION) or the issuer of its form.
func suggest(key, value string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(key) {
		switch {
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	name := strings.Trim(b.String(), "_")
	switch name {
	case "", "AUTHORIZATION", "PROXY_AUTHORIZATION", "COOKIE":
		switch p := redact.TokenPrefix(value); {
		case strings.HasPrefix(p, "gh"):
			return "GITHUB_TOKEN"
		case p == "glpat-":
			return "GITLAB_TOKEN"
		case strings.HasPrefix(p, "xox"), p == "xapp-":
			return "SLACK_TOKEN"
		case p == "AKIA", p == "ASIA":
			return "AWS_ACCESS_KEY_ID"
		case p == "sk-ant-":
			return "ANTHROPIC_API_KEY"
		case p == "sk-":
			return "API_KEY"
		case name == "COOKIE":
			return "SESSION_COOKIE"
		}
		return "API_TOKEN"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

func q(s string) string { return "'" + s + "'" }

func escapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

func unescapePointer(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
}
