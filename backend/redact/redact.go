// Package redact keeps secrets out of what Weft shows and writes: the
// terminal, the desktop UI, run logs and error messages. A Redactor is built
// from the secrets Weft knows (the model's API key, the values of MCP
// servers' env) and learns more while a run goes (the values of
// Authorization, Cookie and other credential headers an http_request
// sends); everything bound for a sink passes through it.
//
// What counts as an occurrence of a secret:
//   - the value itself, and each line of a multi-line value;
//   - its JSON string form (with and without HTML escaping) and its Go %q
//     form, as error messages and log files write it;
//   - its URL query and path escapes;
//   - its hex encoding, lower and upper case, and the value reversed (as
//     a step that obfuscates its output prints it);
//   - for values of 12 bytes or more, its standard and URL-safe base64 at
//     each of the three byte alignments (as in a Basic Authorization header
//     built from "user:<secret>"), counting only the characters that depend
//     on the secret alone.
//
// Values shorter than MinLen bytes are not registered: redacting "1" or
// "true" would shred every output while protecting nothing. Neither are
// values that are part of the placeholder itself.
//
// Besides whole occurrences, String and Bytes remove a cut-off piece of a
// secret at least 8 bytes long at the start or end of the text or next to
// an ellipsis (…), where truncated output leaves one. That rule is best
// effort; the guarantee, which FuzzRedact checks, is that no registered
// secret occurs in the output.
package redact

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Placeholder replaces every occurrence of a secret.
const Placeholder = "[REDACTED]"

const (
	// MinLen is the shortest value registered as a secret.
	MinLen = 6
	// MaxLen is the longest; longer values are not registered (a PEM
	// key is about 3 KiB).
	MaxLen = 16 << 10
	// MaxSecrets bounds how many secrets one Redactor holds, so a run
	// that sends a new token with every request cannot grow it without
	// end.
	MaxSecrets = 1024
	// partialMin is the shortest cut-off piece of a secret removed at an
	// edge of the text.
	partialMin = 8
	// maxMarkers bounds how many ellipses in one text are checked for
	// cut-off secrets next to them.
	maxMarkers = 256
	// maxPasses bounds the re-checks of a redacted text; if a secret
	// still occurs after them (only contrived secrets that overlap the
	// placeholder can do that), the whole text is replaced.
	maxPasses = 3
	ellipsis  = "…"
)

// Redactor removes secrets from text. It is safe for concurrent use; the
// zero value and nil redact nothing.
type Redactor struct {
	mu  sync.Mutex // serialises Add
	set atomic.Pointer[set]
}

// set is an immutable snapshot of the secrets: readers load it without
// locking, Add replaces it.
type set struct {
	secrets []string // as registered, in order
	forms   []form   // every searched form, longest first
	maxLen  int      // of the forms
}

// form is one searched string with the KMP failure functions of it and of
// its reverse, for finding cut-off pieces at the edges of a text.
type form struct {
	s         string
	fail, rev []int
}

// New returns a Redactor for the secrets (see Add for which are kept).
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Clone returns a Redactor with the same secrets; what is added to either
// afterwards stays its own.
func (r *Redactor) Clone() *Redactor {
	c := &Redactor{}
	if r != nil {
		c.set.Store(r.set.Load())
	}
	return c
}

// Add registers secrets and reports how many were new. Surrounding white
// space is ignored; values shorter than MinLen or longer than MaxLen, and
// values that occur in the placeholder, are not registered. Once MaxSecrets
// are held, further values are refused.
func (r *Redactor) Add(secrets ...string) int {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.set.Load()
	var have []string
	if old != nil {
		have = old.secrets
	}
	var fresh []string
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if !acceptable(s) || slices.Contains(have, s) || slices.Contains(fresh, s) {
			continue
		}
		if len(have)+len(fresh) >= MaxSecrets {
			break
		}
		fresh = append(fresh, s)
	}
	if len(fresh) == 0 {
		return 0
	}
	r.set.Store(old.with(fresh))
	return len(fresh)
}

func acceptable(s string) bool {
	return len(s) >= MinLen && len(s) <= MaxLen && !strings.Contains(Placeholder, s)
}

// Secrets returns the registered secrets, for callers that must keep them
// out of somewhere other than text (a child's environment).
func (r *Redactor) Secrets() []string {
	if st := r.load(); st != nil {
		return slices.Clone(st.secrets)
	}
	return nil
}

// Empty reports whether there is nothing to redact.
func (r *Redactor) Empty() bool { return r.load() == nil }

func (r *Redactor) load() *set {
	if r == nil {
		return nil
	}
	st := r.set.Load()
	if st == nil || len(st.forms) == 0 {
		return nil
	}
	return st
}

// with returns a set of st's secrets and fresh ones; st's forms are
// reused, so a run that learns secrets one by one does not rebuild them
// all each time. st may be nil.
func (st *set) with(fresh []string) *set {
	var secrets []string
	var forms []form
	if st != nil {
		secrets, forms = st.secrets, st.forms
	}
	return newSet(append(slices.Clip(secrets), fresh...), forms, fresh)
}

// newSet builds the set of secrets from the forms already built (of the
// secrets before fresh) and those of fresh.
func newSet(secrets []string, forms []form, fresh []string) *set {
	seen := make(map[string]bool, len(forms))
	st := &set{secrets: secrets}
	for _, f := range forms {
		seen[f.s] = true
		st.maxLen = max(st.maxLen, len(f.s))
	}
	var added []form
	add := func(f string) {
		if len(f) < MinLen || seen[f] || strings.Contains(Placeholder, f) {
			return
		}
		seen[f] = true
		added = append(added, form{s: f, fail: failure(f), rev: failure(reverse(f))})
		st.maxLen = max(st.maxLen, len(f))
	}
	for _, s := range fresh {
		for _, v := range variants(s) {
			add(v)
			if j, err := json.Marshal(v); err == nil {
				add(string(j[1 : len(j)-1]))
			}
			add(jsonNoHTML(v))
			if q := strconv.Quote(v); len(q) >= 2 {
				add(q[1 : len(q)-1])
			}
			add(url.QueryEscape(v))
			add(url.PathEscape(v))
			h := hex.EncodeToString([]byte(v))
			add(h)
			add(strings.ToUpper(h))
			add(reverseRunes(v))
			if len(v) >= 12 {
				for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
					for pad := 0; pad < 3; pad++ {
						add(base64Middle(enc, v, pad))
					}
				}
			}
		}
	}
	// Longest first: heldBack stops at the first form too short to hold
	// back more than it already does. The old forms are in that order
	// already: merge the new ones in.
	longer := func(a, b form) int { return len(b.s) - len(a.s) }
	slices.SortStableFunc(added, longer)
	st.forms = make([]form, 0, len(forms)+len(added))
	for len(forms) > 0 && len(added) > 0 {
		if longer(added[0], forms[0]) < 0 {
			st.forms, added = append(st.forms, added[0]), added[1:]
		} else {
			st.forms, forms = append(st.forms, forms[0]), forms[1:]
		}
	}
	st.forms = append(append(st.forms, forms...), added...)
	return st
}

// variants are the secret and, for a multi-line one, each line long
// enough to be recognisable on its own (PEM bodies are printed line by
// line, sometimes with other line endings).
func variants(s string) []string {
	out := []string{s}
	if !strings.ContainsAny(s, "\r\n") {
		return out
	}
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if line = strings.TrimSpace(line); len(line) >= 16 {
			out = append(out, line)
		}
	}
	return out
}

func jsonNoHTML(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return ""
	}
	q := strings.TrimSuffix(b.String(), "\n")
	return q[1 : len(q)-1]
}

// base64Middle encodes s after pad filler bytes and keeps the characters
// that depend only on s: whatever surrounds a secret in a real stream, they
// are the same.
func base64Middle(enc *base64.Encoding, s string, pad int) string {
	full := enc.EncodeToString(append(make([]byte, pad), s...))
	end := 4 * ((pad + len(s)) / 3)
	start := 0
	if pad > 0 {
		start = 4
	}
	if end-start < 12 {
		return ""
	}
	return full[start:end]
}

// reverseRunes is s reversed character by character (byte by byte where
// s is not UTF-8), as a program that reverses a string prints it.
func reverseRunes(s string) string {
	if !utf8.ValidString(s) {
		return reverse(s)
	}
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

func reverse(s string) string {
	b := []byte(s)
	slices.Reverse(b)
	return string(b)
}

// failure is the KMP failure function: f[i] is the length of the longest
// proper prefix of s[:i+1] that is also its suffix.
func failure(s string) []int {
	f := make([]int, len(s))
	k := 0
	for i := 1; i < len(s); i++ {
		for k > 0 && s[i] != s[k] {
			k = f[k-1]
		}
		if s[i] == s[k] {
			k++
		}
		f[i] = k
	}
	return f
}

// String returns s with every secret replaced by Placeholder. s is taken
// as a whole: a cut-off piece of a secret at its start or end is removed
// too.
func (r *Redactor) String(s string) string {
	st := r.load()
	if st == nil {
		return s
	}
	out, _ := st.redact(s, edgeStart|edgeEnd|edgeMarkers)
	return out
}

// Bytes is String for a byte slice; it returns b itself when nothing was
// replaced.
func (r *Redactor) Bytes(b []byte) []byte {
	st := r.load()
	if st == nil {
		return b
	}
	out, changed := st.redact(string(b), edgeStart|edgeEnd|edgeMarkers)
	if !changed {
		return b
	}
	return []byte(out)
}

// Contains reports whether s holds a whole secret.
func (r *Redactor) Contains(s string) bool {
	st := r.load()
	return st != nil && st.contains(s)
}

type edges uint8

const (
	edgeStart edges = 1 << iota
	edgeEnd
	edgeMarkers
)

type span struct{ from, to int }

func (st *set) contains(text string) bool {
	for i := range st.forms {
		if strings.Contains(text, st.forms[i].s) {
			return true
		}
	}
	return false
}

// redact replaces every span found, then checks the result again: a secret
// that overlaps the placeholder could otherwise be formed anew.
func (st *set) redact(text string, e edges) (string, bool) {
	if len(text) < MinLen {
		return text, false // too short to hold a form or a cut-off piece
	}
	spans := st.find(text, e, nil)
	if len(spans) == 0 {
		return text, false
	}
	out := apply(text, spans)
	for pass := 0; pass < maxPasses; pass++ {
		spans = st.find(out, 0, spans[:0])
		if len(spans) == 0 {
			return out, true
		}
		out = apply(out, spans)
	}
	if st.contains(out) {
		return Placeholder, true
	}
	return out, true
}

// find returns the merged, sorted spans to replace.
func (st *set) find(text string, e edges, spans []span) []span {
	for i := range st.forms {
		f := st.forms[i].s
		for from := 0; from+len(f) <= len(text); {
			j := strings.Index(text[from:], f)
			if j < 0 {
				break
			}
			spans = append(spans, span{from + j, from + j + len(f)})
			from += j + len(f)
		}
	}
	if e != 0 {
		spans = st.findPartial(text, e, spans)
	}
	if len(spans) == 0 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// findPartial adds cut-off pieces of secrets: a prefix at the end of the
// text or before an ellipsis, a suffix at its start or after one.
func (st *set) findPartial(text string, e edges, spans []span) []span {
	if len(text) < partialMin {
		return spans
	}
	var markers []int
	if e&edgeMarkers != 0 {
		for from := 0; len(markers) < maxMarkers; {
			j := strings.Index(text[from:], ellipsis)
			if j < 0 {
				break
			}
			markers = append(markers, from+j)
			from += j + len(ellipsis)
		}
	}
	for i := range st.forms {
		f := &st.forms[i]
		if len(f.s) <= partialMin {
			continue
		}
		endsBefore := func(end int) {
			if k := f.prefixAtEnd(text[:end], partialMin); k >= partialMin {
				spans = append(spans, span{end - k, end})
			}
		}
		startsAt := func(start int) {
			if k := f.suffixAtStart(text[start:]); k >= partialMin {
				spans = append(spans, span{start, start + k})
			}
		}
		if e&edgeEnd != 0 {
			endsBefore(len(text))
		}
		if e&edgeStart != 0 {
			startsAt(0)
		}
		for _, m := range markers {
			endsBefore(m)
			if m > 0 && text[m-1] == '\n' { // "…" on a line of its own after cut output
				endsBefore(m - 1)
			}
			startsAt(m + len(ellipsis))
		}
	}
	return spans
}

// prefixAtEnd is the length of the longest proper prefix of f that ends
// text, or 0 if that is shorter than least.
func (f *form) prefixAtEnd(text string, least int) int {
	n := len(f.s)
	start := max(0, len(text)-(n-1))
	if n > partialMin && !strings.Contains(text[start:], f.s[:partialMin]) {
		if least >= partialMin {
			return 0
		}
		return f.shortPrefixAtEnd(text)
	}
	q := 0
	for i := start; i < len(text); i++ {
		c := text[i]
		for q > 0 && f.s[q] != c {
			q = f.fail[q-1]
		}
		if f.s[q] == c {
			q++
		}
		if q == n {
			q = f.fail[q-1]
		}
	}
	return q
}

// suffixAtStart is the length of the longest proper suffix of f that
// starts text: the same automaton run backwards over f reversed.
func (f *form) suffixAtStart(text string) int {
	n := len(f.s)
	end := min(len(text), n-1)
	if n > partialMin && !strings.Contains(text[:end], f.s[n-partialMin:]) {
		return 0 // callers only want pieces of partialMin bytes or more
	}
	q := 0
	for i := end - 1; i >= 0; i-- {
		c := text[i]
		for q > 0 && f.s[n-1-q] != c {
			q = f.rev[q-1]
		}
		if f.s[n-1-q] == c {
			q++
		}
		if q == n {
			q = f.rev[q-1]
		}
	}
	return q
}

// shortPrefixAtEnd is prefixAtEnd when the piece, if any, is shorter than
// partialMin bytes (the fast check found no longer one).
func (f *form) shortPrefixAtEnd(text string) int {
	for k := min(partialMin-1, len(text)); k > 0; k-- {
		if text[len(text)-k:] == f.s[:k] {
			return k
		}
	}
	return 0
}

func apply(text string, spans []span) string {
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.from])
		b.WriteString(Placeholder)
		at = s.to
	}
	b.WriteString(text[at:])
	return b.String()
}
