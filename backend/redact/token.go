package redact

import (
	"math"
	"strings"
)

// tokenPrefixes are the prefixes issuers put on their credentials, so that
// a token is known by its form alone wherever it is written.
var tokenPrefixes = []struct{ prefix, issuer string }{
	{"github_pat_", "a GitHub token"},
	{"ghp_", "a GitHub token"}, {"gho_", "a GitHub token"}, {"ghu_", "a GitHub token"},
	{"ghs_", "a GitHub token"}, {"ghr_", "a GitHub token"},
	{"glpat-", "a GitLab token"},
	{"sk-ant-", "an Anthropic API key"},
	{"sk-", "an API key (sk-)"},
	{"xoxb-", "a Slack token"}, {"xoxp-", "a Slack token"}, {"xoxa-", "a Slack token"},
	{"xoxs-", "a Slack token"}, {"xapp-", "a Slack token"},
	{"AKIA", "an AWS access key"}, {"ASIA", "an AWS access key"},
	{"AIza", "a Google API key"},
	{"npm_", "an npm token"},
	{"pypi-", "a PyPI token"},
	{"hf_", "a Hugging Face token"},
	{"sk_live_", "a Stripe key"}, {"rk_live_", "a Stripe key"},
	{"SG.", "a SendGrid key"},
	{"eyJ", "a JSON web token"},
}

// Bounds of TokenForm: shorter words are too common to judge, longer ones
// are not looked at (the cost of a look stays bounded).
const (
	minPrefixedToken = 16
	minEntropyToken  = 32
	maxTokenLen      = 4096
)

// TokenPrefix returns the issuer prefix a token starts with ("ghp_"), or "".
func TokenPrefix(word string) string {
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(word, p.prefix) {
			return p.prefix
		}
	}
	return ""
}

// TokenForm says why a word (no spaces) looks like a credential by its
// form alone, or returns "": it starts with an issuer's prefix (sk-, ghp_,
// xoxb-, AKIA, glpat-…) and goes on with at least 16 characters in all
// of letters and digits, or it is a long (32+) random-looking string
// mixing upper and lower case letters and digits (Shannon entropy of at
// least 4.3 bits a character). Hex digests and UUIDs (at most 4 bits a
// character, one case) and words of ordinary text do not qualify.
func TokenForm(word string) string {
	if len(word) < minPrefixedToken || len(word) > maxTokenLen || strings.ContainsAny(word, " \t\r\n") {
		return ""
	}
	for _, p := range tokenPrefixes {
		if strings.HasPrefix(word, p.prefix) && tokenLike(word[len(p.prefix):]) {
			if p.prefix == "AKIA" || p.prefix == "ASIA" {
				if !upperAlnum(word) {
					continue
				}
			}
			return "it has the form of " + p.issuer
		}
	}
	if len(word) >= minEntropyToken && mixedCase(word) && entropy(word) >= 4.3 {
		return "it is a long random-looking string"
	}
	return ""
}

func upperAlnum(s string) bool {
	for _, c := range s {
		if (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func mixedCase(s string) bool {
	var lower, upper, digit bool
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		}
	}
	return lower && upper && digit
}

// entropy is the Shannon entropy of s's bytes, in bits a byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	var h float64
	n := float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
