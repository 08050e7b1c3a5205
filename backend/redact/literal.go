package redact

import (
	"encoding/json"
	"regexp"
	"strings"
)

// Literal credentials written in a text (a workflow shown to a model, a
// prompt): the values of JSON members and header lines with sensitive
// names, and the credentials of URLs. Values holding a template ({{…}})
// are references, not secrets.
var (
	jsonMemberRe = regexp.MustCompile(`"((?:[^"\\\n]|\\.){1,64})"\s*:\s*"((?:[^"\\\n]|\\.)*)"`)
	headerLineRe = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z][A-Za-z0-9_-]{0,63})[ \t]*:[ \t]*(\S[^\r\n]*)$`)
	urlRe        = regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://[^\s"'<>\\]+`)
)

// AddLiterals registers the literal credentials written in text (see
// Literals) and reports how many were new.
func (r *Redactor) AddLiterals(text string) int {
	if r == nil {
		return 0
	}
	before := len(r.Secrets())
	JSONMembers(text, func(name, _, value string) { r.addNamed(name, value) })
	for _, m := range headerLineRe.FindAllStringSubmatch(text, -1) {
		r.addNamed(m[1], strings.TrimSpace(m[2]))
	}
	for _, u := range URLs(text) {
		if !strings.Contains(u, "{{") {
			r.AddURL(u)
		}
	}
	return len(r.Secrets()) - before
}

// JSONMembers calls fn with the name, the value as written (escaped) and
// the value of each "name": "string" member written in text.
func JSONMembers(text string, fn func(name, raw, value string)) {
	for _, m := range jsonMemberRe.FindAllStringSubmatch(text, -1) {
		fn(unquoteJSON(m[1]), m[2], unquoteJSON(m[2]))
	}
}

// URLs returns the URLs (scheme://…) written in text.
func URLs(text string) []string { return urlRe.FindAllString(text, -1) }

// addNamed registers value as AddHeader does when name is sensitive. The
// word "key" is too common (a node's key, sort_key, primary_key) to mark a
// credential alone: when it is the name's only sensitive word, the value
// counts only if it looks like one (a long word of letters and digits).
func (r *Redactor) addNamed(name, value string) {
	if NamedCredential(name, value) {
		r.AddHeader(name, value)
	}
}

// NamedCredential reports whether value, written under name (a header, a
// JSON member, a query parameter, an argument), is a literal credential:
// the name is sensitive (SensitiveName) and the value holds no template
// ({{…}} is a reference, not a secret). When "key" is the name's only
// sensitive word, the value must also look like one (a long word of
// letters and digits). It is the one rule of what a named literal
// credential is: the redactor and `weft validate` (literal_secret) use it.
func NamedCredential(name, value string) bool {
	if strings.TrimSpace(value) == "" || strings.Contains(value, "{{") || !SensitiveName(name) || describesOther(name) {
		return false
	}
	return SensitiveName(withoutKeyWord(name)) || tokenLike(value)
}

// notCredentialWords end names that speak about a credential without
// holding one: token_count, token_url, password_length, secret_name.
var notCredentialWords = map[string]bool{
	"count": true, "limit": true, "max": true, "min": true, "size": true, "length": true, "len": true,
	"ttl": true, "expiry": true, "expires": true, "type": true, "url": true, "uri": true, "endpoint": true,
	"file": true, "path": true, "name": true, "id": true, "header": true, "field": true, "param": true,
	"format": true, "usage": true, "budget": true, "policy": true, "env": true,
}

func describesOther(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == ' '
	})
	return len(words) > 1 && notCredentialWords[words[len(words)-1]]
}

func withoutKeyWord(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == ' '
	})
	var kept []string
	for i, w := range words {
		if w != "key" || (i > 0 && words[i-1] == "api") { // api_key, X-Api-Key
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, "_")
}

func tokenLike(s string) bool {
	if len(s) < 16 || strings.ContainsAny(s, " \t\n") {
		return false
	}
	var letter, digit bool
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

func unquoteJSON(s string) string {
	var out string
	if json.Unmarshal([]byte(`"`+s+`"`), &out) != nil {
		return s
	}
	return out
}
