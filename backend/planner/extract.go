package planner

import (
	"bytes"
	"fmt"
	"strings"
)

// thinkTags are the reasoning blocks local reasoning models wrap their
// chain of thought in (deepseek-r1, qwq, qwen3: <think>).
var thinkTags = []string{"think", "thinking", "reasoning"}

// maxNestedRescans bounds how many unclosed brackets the extractor looks
// inside of, so adversarial input ("{{{{…") stays linear.
const maxNestedRescans = 16

// ExtractJSON finds the plan's JSON in a model reply: it drops <think>
// blocks, code fences and prose, and when there are several JSON blocks it
// takes the one holding "steps" or "nodes" (preferring complete ones, then
// the last). An unclosed block runs to the end of the reply, for RepairJSON
// to close. No JSON at all is a StageError.
func ExtractJSON(text string) (string, []Warning, error) {
	var warnings []Warning
	warn := func(format string, a ...any) {
		warnings = append(warnings, Warning{Stage: StageExtract, Message: fmt.Sprintf(format, a...)})
	}

	text = strings.TrimPrefix(text, "\uFEFF")
	visible, thoughts, notes := stripThink(text)
	for _, n := range notes {
		warn("%s", n)
	}

	cands := scanCandidates(visible)
	best := pickCandidate(visible, cands)
	src := visible
	if (best < 0 || cands[best].class < classPlan) && len(thoughts) > 0 {
		// The answer may sit inside the reasoning (a model that never
		// closed <think>, or put its JSON there).
		inner := strings.Join(thoughts, "\n")
		ic := scanCandidates(inner)
		if ib := pickCandidate(inner, ic); ib >= 0 && ic[ib].class >= classStep && (best < 0 || ic[ib].class > cands[best].class) {
			cands, best, src = ic, ib, inner
			warn("no plan JSON outside the reasoning block; took the JSON found inside it")
		}
	}
	if best < 0 {
		return "", warnings, &StageError{Stage: StageExtract,
			Msg: `no JSON found in the reply; answer with one JSON object holding "steps" (or "nodes" and "edges")`}
	}
	c := cands[best]
	if c.class == classOther {
		warn("no JSON block holds \"steps\" or \"nodes\"; took the largest JSON block (characters %d-%d)", c.start+1, c.end)
	}
	if n, k := topLevel(cands, best); n > 1 {
		if k > 0 {
			warn("the reply holds %d JSON blocks; took block %d of %d (%s%s)", n, k, n, c.describe(), completeNote(c))
		} else {
			warn("the reply holds %d JSON blocks; took one nested in an unclosed block (%s)", n, c.describe())
		}
	}
	if !c.closed {
		warn("the JSON is not closed (%d bracket(s) still open at the end); the reply looks cut off", c.open)
	}
	before, fenced := withoutFences(src[:c.start])
	after, _ := withoutFences(src[c.end:])
	switch {
	case before != "" || after != "":
		fence := ""
		if fenced {
			fence = "took the JSON out of a code fence; "
		}
		warn("%signored %d characters of prose before and %d after the JSON", fence, len(before), len(after))
	case fenced:
		warn("took the JSON out of a code fence")
	}
	return strings.TrimSpace(src[c.start:c.end]), warnings, nil
}

// withoutFences trims s and drops the code-fence markers at its ends
// ("```json" before the JSON, "```" after); it reports whether there was one.
func withoutFences(s string) (string, bool) {
	s = strings.TrimSpace(s)
	fenced := false
	if i := strings.LastIndex(s, "```"); i >= 0 && !strings.ContainsAny(s[i+3:], " \n\t") && len(s)-i-3 <= 16 {
		// "```json" (or "```") right before the JSON
		s, fenced = strings.TrimSpace(s[:i]), true
	} else if strings.HasPrefix(s, "```") {
		// "```" right after the JSON
		s, fenced = strings.TrimSpace(s[3:]), true
	}
	return s, fenced
}

// topLevel counts the candidates not nested in an unclosed one, and gives
// the 1-based rank of candidate best among them (0 when it is nested).
func topLevel(cs []candidate, best int) (n, k int) {
	for i, c := range cs {
		if c.nested {
			continue
		}
		n++
		if i == best {
			k = n
		}
	}
	return n, k
}

func completeNote(c candidate) string {
	if c.valid {
		return ""
	}
	if c.closed {
		return ", not valid JSON as is"
	}
	return ", unclosed"
}

// stripThink removes reasoning blocks and returns the remaining text, the
// blocks' contents (a fallback search space) and notes for warnings.
func stripThink(text string) (string, []string, []string) {
	var thoughts, notes []string
	if strings.IndexByte(text, '<') < 0 {
		return text, nil, nil
	}
	for _, tag := range thinkTags {
		open, closeTag := "<"+tag+">", "</"+tag+">"
		if indexFold(text, open, 0) < 0 && indexFold(text, closeTag, 0) < 0 {
			continue
		}
		var b strings.Builder
		i, removed := 0, 0
		o, c := -2, -2 // next open and close tag at or after i; -2: not looked for
		for {
			if o != -1 && o < i {
				o = indexFold(text, open, i)
			}
			if c != -1 && c < i {
				c = indexFold(text, closeTag, i)
			}
			if c >= 0 && (o < 0 || c < o) {
				// A close tag with no open tag: the chat template
				// opened the block, so everything before it is reasoning.
				thoughts = append(thoughts, text[i:c])
				notes = append(notes, fmt.Sprintf("removed %d characters of reasoning ending in %s (its opening tag was not in the reply)", c-i, closeTag))
				b.Reset()
				i = c + len(closeTag)
				continue
			}
			if o < 0 {
				b.WriteString(text[i:])
				break
			}
			b.WriteString(text[i:o])
			if c < 0 {
				// Unterminated: the model never closed its reasoning.
				// Keep the text, so an answer inside it can still be found.
				rest := text[o+len(open):]
				thoughts = append(thoughts, rest)
				notes = append(notes, fmt.Sprintf("%s is never closed; searched the text after it", open))
				b.WriteString(rest)
				break
			}
			thoughts = append(thoughts, text[o+len(open):c])
			removed++
			i = c + len(closeTag)
		}
		if removed > 0 {
			notes = append(notes, fmt.Sprintf("removed %d %s reasoning block(s)", removed, open))
		}
		text = b.String()
	}
	return text, thoughts, notes
}

// indexFold is strings.Index from position from, ASCII case-insensitive.
func indexFold(s, sub string, from int) int {
	n := len(sub)
	for i := from; i+n <= len(s); i++ {
		k := strings.IndexByte(s[i:len(s)-n+1], sub[0]) // tags start with '<'
		if k < 0 {
			return -1
		}
		i += k
		if strings.EqualFold(s[i:i+n], sub) {
			return i
		}
	}
	return -1
}

// Candidate classes, best last.
const (
	classOther = iota // some JSON block
	classStep         // looks like a step or a list of steps
	classPlan         // holds "steps" or "nodes"
)

type candidate struct {
	start, end int  // byte offsets; end exclusive
	closed     bool // brackets balanced
	open       int  // brackets still open at the end when !closed
	valid      bool // strict JSON as is
	nested     bool // inside an unclosed candidate
	class      int
}

func (c candidate) describe() string {
	switch c.class {
	case classPlan:
		return `the one holding "steps" or "nodes"`
	case classStep:
		return "the one that looks like steps"
	}
	return "the largest"
}

// scanCandidates lists the bracketed blocks of s: balanced ones, plus an
// unclosed one running to the end (and, bounded, the blocks inside it).
func scanCandidates(s string) []candidate {
	var out []candidate
	rescans, unclosedEnd := 0, -1
	for i := 0; i < len(s); i++ {
		if s[i] != '{' && s[i] != '[' {
			continue
		}
		end, open := matchBracket(s, i)
		c := candidate{start: i, end: end, closed: open == 0, open: open, nested: i < unclosedEnd}
		if !c.closed {
			// Prose after a cut-off fence is not JSON.
			if f := strings.Index(s[i:], "\n```"); f >= 0 {
				c.end = i + f
			}
		}
		if c.end-c.start < 2 && (c.closed || strings.TrimSpace(s[i+1:]) != "") {
			continue // a lone "{" at the very end is a reply cut off at once
		}
		if c.closed || rescans >= maxNestedRescans {
			// A lone "[1]" or "{x}" in prose is a candidate too; the
			// classes sort it out.
			out = append(out, c)
			i = end - 1
			continue
		}
		out = append(out, c)
		rescans++
		if c.end > unclosedEnd {
			unclosedEnd = c.end
		}
	}
	for k := range out {
		out[k].class = classify(s[out[k].start:out[k].end])
	}
	// Validity only ranks candidates of the same class; skip the pass
	// when there is nothing to rank.
	var perClass [classPlan + 1]int
	for _, c := range out {
		perClass[c.class]++
	}
	for k := range out {
		if perClass[out[k].class] > 1 && out[k].closed {
			out[k].valid = validJSON(s[out[k].start:out[k].end])
		}
	}
	return out
}

// nextSignificant is the first byte at or after j that is not white
// space, 0 at the end.
func nextSignificant(s string, j int) byte {
	if j = skipSpaceNL(s, j); j < len(s) {
		return s[j]
	}
	return 0
}

// matchBracket returns the end (exclusive) of the block opening at s[i] and
// how many brackets are still open at the end of s (0 when balanced). It
// skips strings (double-quoted, and single-quoted where a value can start)
// and // and /* */ comments.
func matchBracket(s string, i int) (int, int) {
	// The kinds still open: a closer of a kind not open at all is an
	// extra one ([{…}}, {…}]: a brace too many), skipped; one of a kind
	// open deeper closes down to it (a closer forgotten on the way).
	var small [32]byte
	open := small[:0]
	prev := byte(0) // last non-space byte outside strings
	for j := i; j < len(s); j++ {
		c := s[j]
		switch c {
		case '"':
			j = skipString(s, j, '"')
			prev = '"'
			continue
		case '\'':
			if prev == '{' || prev == '[' || prev == ',' || prev == ':' {
				j = skipString(s, j, '\'')
				prev = '"'
				continue
			}
		case '/':
			if j+1 < len(s) && s[j+1] == '/' {
				for j < len(s) && s[j] != '\n' {
					j++
				}
				continue
			}
			if j+1 < len(s) && s[j+1] == '*' {
				k := strings.Index(s[j+2:], "*/")
				if k < 0 {
					return len(s), len(open)
				}
				j += k + 3
				continue
			}
		case '{', '[':
			open = append(open, c)
		case '}', ']':
			want := byte('{')
			if c == ']' {
				want = '['
			}
			k := bytes.LastIndexByte(open, want)
			if k < len(open)-1 && nextSignificant(s, j+1) == ',' {
				k = -1 // another kind is open and the list goes on
			}
			if k < 0 {
				break // an extra closer
			}
			open = open[:k]
			if len(open) == 0 {
				return j + 1, 0
			}
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
	}
	return len(s), len(open)
}

// skipString returns the index of the closing quote of the string opening at
// s[i], or len(s)-1 when it never closes.
func skipString(s string, i int, q byte) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return len(s) - 1
}

// classify tells a plan from a step list from any other block, by the keys
// it mentions (it need not be valid JSON yet).
func classify(body string) int {
	if hasKey(body, "steps") || hasKey(body, "nodes") {
		return classPlan
	}
	if hasKey(body, "step_type") || hasKey(body, "tool_name") {
		return classStep
	}
	return classOther
}

// hasKey reports whether key appears as an object key: quoted or bare,
// followed by a colon.
func hasKey(body, key string) bool {
	for from := 0; ; {
		k := strings.Index(body[from:], key)
		if k < 0 {
			return false
		}
		k += from
		from = k + len(key)
		if k > 0 && isIdentByte(body[k-1]) {
			continue
		}
		j := from
		if j < len(body) && (body[j] == '"' || body[j] == '\'') {
			j++
		} else if j < len(body) && isIdentByte(body[j]) {
			continue
		}
		for j < len(body) && (body[j] == ' ' || body[j] == '\t' || body[j] == '\n' || body[j] == '\r') {
			j++
		}
		if j < len(body) && body[j] == ':' {
			return true
		}
	}
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// pickCandidate returns the index of the best candidate, or -1: the highest
// class; then valid JSON over merely closed over unclosed; then, for plans,
// the last (a model's final answer follows its drafts), for other blocks
// the largest.
func pickCandidate(s string, cs []candidate) int {
	best := -1
	rank := func(c candidate) int {
		r := c.class * 4
		if c.valid {
			r += 2
		} else if c.closed {
			r++
		}
		return r
	}
	for k, c := range cs {
		if best < 0 {
			best = k
			continue
		}
		b := cs[best]
		rc, rb := rank(c), rank(b)
		switch {
		case rc > rb:
			best = k
		case rc == rb:
			if c.class == classOther {
				if c.end-c.start > b.end-b.start {
					best = k
				}
			} else {
				best = k
			}
		}
	}
	if best >= 0 && cs[best].nested {
		// A complete block inside an unclosed one that starts like JSON
		// is a fragment of a cut-off reply: taking it would silently
		// drop everything around it. Take the outer one, to be repaired
		// with the cut-off warning.
		for k := best - 1; k >= 0; k-- {
			if o := cs[k]; !o.closed && !o.nested && o.start < cs[best].start && startsLikeJSON(s, o.start) {
				return k
			}
		}
	}
	return best
}

// startsLikeJSON reports whether the bracket at s[i] opens JSON rather
// than prose ("[note: …"): an object's first key, an array's first value,
// or nothing yet.
func startsLikeJSON(s string, i int) bool {
	j := skipSpaceNL(s, i+1)
	if j >= len(s) {
		return true
	}
	c := s[j]
	if s[i] == '{' {
		if c == '"' || c == '\'' || c == '}' {
			return true
		}
		k := j
		for k < len(s) && isIdentByte(s[k]) {
			k++
		}
		return k > j && skipSpaceNL(s, k) < len(s) && s[skipSpaceNL(s, k)] == ':'
	}
	switch {
	case c == '{' || c == '[' || c == '"' || c == '\'' || c == ']' || c == '-' || c >= '0' && c <= '9':
		return true
	}
	for _, w := range []string{"true", "false", "null"} {
		if strings.HasPrefix(s[j:], w) {
			return true
		}
	}
	return false
}
