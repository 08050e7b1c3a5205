package redact

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// sensitiveWords are name words that mark a credential: Authorization,
// X-Api-Key, Set-Cookie, GITHUB_TOKEN, DB_PASSWORD, WEFT_LLM_API_KEY.
var sensitiveWords = map[string]bool{
	"key": true, "apikey": true, "token": true, "secret": true, "password": true, "passwd": true,
	"pass": true, "pwd": true, "credential": true, "credentials": true, "auth": true,
	"authorization": true, "cookie": true, "session": true, "sessionid": true, "pat": true,
	"private": true, "signature": true, "jwt": true, "bearer": true,
}

// SensitiveName reports whether a header or environment variable name says
// its value is a credential: one of its words (split at -, _, . and
// spaces, any case) is a credential word such as key, token, secret,
// password, auth, cookie or session, or ends in key, token or secret
// (hubkey, accesstoken), or contains password. KEYRING, MONKEY_PATH and
// Keep-Alive are not sensitive; X-Api-Key and PGPASSWORD are.
func SensitiveName(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return r == '-' || r == '_' || r == '.' || r == ' '
	}) {
		if sensitiveWords[w] || strings.Contains(w, "password") || strings.Contains(w, "passwd") {
			return true
		}
		for _, suf := range []string{"apikey", "token", "secret"} {
			if strings.HasSuffix(w, suf) {
				return true
			}
		}
	}
	return false
}

// AddHeader registers the value of a header whose name is sensitive
// (SensitiveName) and reports whether it did: the whole value and, where
// the value has parts, each part that could leak alone — the credentials
// after an auth scheme ("Bearer <token>"), the decoded "user:password" of
// Basic credentials and its password, and each cookie value.
func (r *Redactor) AddHeader(name, value string) bool {
	if r == nil || !SensitiveName(name) {
		return false
	}
	value = strings.TrimSpace(value)
	vals := []string{value}
	lname := strings.ToLower(name)
	if lname == "cookie" || lname == "set-cookie" {
		for _, part := range strings.Split(value, ";") {
			if _, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok {
				vals = append(vals, strings.Trim(v, `"`))
			}
		}
	} else if scheme, cred, ok := SchemeCredentials(value); ok {
		vals = append(vals, cred)
		if strings.EqualFold(scheme, "basic") {
			if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
				vals = append(vals, string(dec))
				if _, pw, ok := strings.Cut(string(dec), ":"); ok {
					vals = append(vals, pw)
				}
			}
		}
	}
	r.Add(vals...)
	return true
}

// SchemeCredentials splits an Authorization value into its auth scheme
// and credentials ("Bearer <token>", "Basic <base64>"); ok is false when
// the value has no scheme word.
func SchemeCredentials(value string) (scheme, cred string, ok bool) {
	scheme, cred, ok = strings.Cut(strings.TrimSpace(value), " ")
	if !ok || strings.ContainsAny(scheme, "=,") {
		return "", "", false
	}
	return scheme, strings.TrimSpace(cred), true
}

// AddURL registers the credentials a URL carries: the password of its
// user info and the values of query parameters with sensitive names
// (?api_key=…, ?access_token=…). It reports whether it found any.
func (r *Redactor) AddURL(raw string) bool {
	if r == nil {
		return false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false
	}
	var vals []string
	if u.User != nil {
		if pw, ok := u.User.Password(); ok {
			vals = append(vals, pw)
		}
	}
	for k, vs := range u.Query() {
		if SensitiveName(k) {
			vals = append(vals, vs...)
		}
	}
	if len(vals) == 0 {
		return false
	}
	r.Add(vals...)
	return true
}
