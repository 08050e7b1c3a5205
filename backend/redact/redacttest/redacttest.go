// Package redacttest helps tests check that a secret leaves nowhere: it
// lists the forms a step or a program could print a secret in, computed
// independently of the redactor, for a test to grep its output for.
package redacttest

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// Encodings returns secret in every form the redactor promises to catch:
// as it is, reversed, JSON-escaped, URL-escaped, hex (both cases) and
// base64 (standard and URL-safe, with and without padding, behind 0, 1
// and 2 other bytes, as in "user:secret"). For the base64 of a secret
// behind other bytes, only the characters that depend on the secret alone
// are listed.
func Encodings(secret string) map[string]string {
	r := []rune(secret)
	slices.Reverse(r)
	j, _ := json.Marshal(secret)
	out := map[string]string{
		"plain":    secret,
		"reversed": string(r),
		"json":     string(j[1 : len(j)-1]),
		"query":    url.QueryEscape(secret),
		"path":     url.PathEscape(secret),
		"hex":      hex.EncodeToString([]byte(secret)),
		"HEX":      strings.ToUpper(hex.EncodeToString([]byte(secret))),
	}
	encs := map[string]*base64.Encoding{
		"base64": base64.StdEncoding, "base64url": base64.URLEncoding,
		"base64raw": base64.RawStdEncoding, "base64urlraw": base64.RawURLEncoding,
	}
	for name, enc := range encs {
		for pre, prefix := range []string{"", "u", "u:"} {
			full := enc.EncodeToString([]byte(prefix + secret))
			from := 0
			if pre > 0 {
				from = 4 // the first group mixes in the prefix
			}
			to := 4 * ((len(prefix) + len(secret)) / 3) // the last group may mix in what follows
			if pre == 0 && len(secret)%3 == 0 {
				to = len(full)
			}
			out[name+"@"+prefix] = full[from:to]
		}
	}
	return out
}
