// Package literals finds credentials written as literal text in a
// workflow's arguments (an Authorization header, an api_key query
// parameter, a token in a command) and moves one into the credentials
// store, leaving a {{secrets.NAME}} reference where it was. What looks
// like a credential is redact's rule (redact.NamedCredential,
// redact.TokenForm): the redactor and this package judge alike.
package literals

import (
	"encoding/json"
	"net/url"
	"regexp"
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

var (
	placeholderRe = regexp.MustCompile(`\{\{.*?\}\}`)
	wordRe        = regexp.MustCompile(`[A-Za-z0-9_+-]{16,}=*`)
	urlRe         = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\\]+`)
	jsonMemberRe  = regexp.MustCompile(`"((?:[^"\\\n]|\\.){1,64})"\s*:\s*"((?:[^"\\\n]|\\.)*)"`)
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
	f.walk("", "", n.Params.Arguments, 0)
	return f.out
}

type finder struct {
	node string
	out  []Literal
}

func (f *finder) walk(path, key string, x any, depth int) {
	if depth > maxDepth || len(f.out) >= maxPerNode {
		return
	}
	switch t := x.(type) {
	case string:
		f.leaf(path, key, t)
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			f.walk(path+"/"+escapePointer(k), k, t[k], depth+1)
		}
	case []any:
		for i, e := range t {
			f.walk(path+"/"+strconv.Itoa(i), key, e, depth+1)
		}
	}
}

// leaf looks at one string: the value of a sensitive name, the
// credentials of URLs, the sensitive members of a JSON text, then words
// that look like tokens by their form. Placeholders are not literals.
func (f *finder) leaf(path, key, s string) {
	if len(s) > maxScan {
		s = s[:maxScan]
	}
	seen := map[string]bool{}
	add := func(key, why, raw, value string) {
		if value == "" || seen[value] || len(f.out) >= maxPerNode {
			return
		}
		seen[value] = true
		f.out = append(f.out, Literal{NodeID: f.node, Path: path, Key: key, Why: why, Masked: Mask(value), Suggested: suggest(key, value), raw: raw, value: value})
	}
	if key != "" && redact.NamedCredential(key, s) {
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
	if strings.Contains(s, "{{") {
		s = placeholderRe.ReplaceAllStringFunc(s, func(p string) string { return strings.Repeat(" ", len(p)) })
	}
	for _, u := range urlRe.FindAllString(s, -1) {
		f.urlCreds(u, add)
	}
	if t := strings.TrimSpace(s); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		for _, m := range jsonMemberRe.FindAllStringSubmatch(s, -1) {
			name, value := unquoteJSON(m[1]), unquoteJSON(m[2])
			if redact.NamedCredential(name, value) {
				add(name, "it is the value of the JSON member "+q(name), m[2], value)
			}
		}
	}
	for _, w := range wordRe.FindAllString(s, -1) {
		if why := redact.TokenForm(w); why != "" {
			add("", why, w, w)
		}
	}
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

func unquoteJSON(s string) string {
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return s
	}
	return out
}
