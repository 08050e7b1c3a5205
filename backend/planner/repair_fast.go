package planner

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// fastRepair rewrites JSON-like text into JSON in one linear pass, fixing
// the defects models commonly make: comments, single-quoted strings,
// unquoted keys, Python and JavaScript literals, trailing, missing and
// doubled commas, missing colons and values, raw control characters and
// bad escapes in strings, "..." placeholders, extra or mismatched closing
// brackets, and the unclosed string and brackets of a cut-off reply. It
// records each fix exactly. Anything it is not sure about (an unquoted
// string value, a quote inside a string, odd numbers, several top-level
// values, stray characters) makes it give up (ok false), and RepairJSON
// falls back to the repair library, which is thorough but quadratic.
func fastRepair(s string) (string, *lexResult, bool) {
	f := &fixer{s: s, out: make([]byte, 0, len(s)+16), fixes: &lexResult{}}
	if !f.run() {
		return "", nil, false
	}
	return string(f.out), f.fixes, true
}

// fixer states within a container.
const (
	stValue   = iota // a value may come (array start, after a comma, after a colon)
	stKey            // an object key may come
	stColon          // a key was read; the colon must come
	stAfter          // a value was read; a comma or the closing bracket must come
	stCommaed        // a comma was read (array: a value must come; object: a key)
)

type fixFrame struct {
	kind  byte // '{' or '['
	state int
}

type fixer struct {
	s       string
	i       int
	out     []byte
	stack   []fixFrame
	topDone bool
	fixes   *lexResult
}

func (f *fixer) note(kind int) { f.fixes.note(kind, f.i) }

func (f *fixer) top() *fixFrame {
	if len(f.stack) == 0 {
		return nil
	}
	return &f.stack[len(f.stack)-1]
}

// beforeValue makes room for a value at the current position; it reports
// false when a value cannot be there.
func (f *fixer) beforeValue() bool {
	t := f.top()
	if t == nil {
		if f.topDone {
			return false
		}
		f.topDone = true
		return true
	}
	switch {
	case t.kind == '[' && t.state == stAfter:
		f.note(fixMissingComma)
		f.out = append(f.out, ',')
	case t.kind == '[' && t.state == stCommaed:
		f.out = append(f.out, ',')
	case t.kind == '[' && t.state == stValue:
	case t.kind == '{' && t.state == stValue:
	case t.kind == '{' && t.state == stColon:
		f.note(fixMissingColon)
		f.out = append(f.out, ':')
	default:
		return false
	}
	t.state = stAfter
	return true
}

// beforeKey makes room for an object key; false when there is no object
// waiting for one.
func (f *fixer) beforeKey() bool {
	t := f.top()
	if t == nil || t.kind != '{' {
		return false
	}
	switch t.state {
	case stKey:
	case stCommaed:
		f.out = append(f.out, ',')
	case stAfter:
		f.note(fixMissingComma)
		f.out = append(f.out, ',')
	default:
		return false
	}
	t.state = stColon
	return true
}

// inKeyPosition reports whether the next token is an object key.
func (f *fixer) inKeyPosition() bool {
	t := f.top()
	return t != nil && t.kind == '{' && (t.state == stKey || t.state == stCommaed || t.state == stAfter)
}

// closeTop ends the innermost container, filling in a missing value.
func (f *fixer) closeTop() {
	t := f.top()
	switch t.state {
	case stColon:
		f.note(fixMissingValue)
		f.out = append(f.out, ":null"...)
	case stValue:
		if t.kind == '{' {
			f.note(fixMissingValue)
			f.out = append(f.out, "null"...)
		}
	case stCommaed:
		f.note(fixTrailingComma)
	}
	if t.kind == '{' {
		f.out = append(f.out, '}')
	} else {
		f.out = append(f.out, ']')
	}
	f.stack = f.stack[:len(f.stack)-1]
}

func (f *fixer) run() bool {
	s := f.s
	for f.i < len(s) {
		c := s[f.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			f.out = append(f.out, c)
			f.i++
		case c == '/' && f.i+1 < len(s) && s[f.i+1] == '/', c == '#':
			f.note(fixComment)
			for f.i < len(s) && s[f.i] != '\n' {
				f.i++
			}
		case c == '/' && f.i+1 < len(s) && s[f.i+1] == '*':
			f.note(fixComment)
			if k := strings.Index(s[f.i+2:], "*/"); k >= 0 {
				f.i += k + 4
			} else {
				f.i = len(s)
			}
		case c == '{' || c == '[':
			if !f.beforeValue() {
				return false
			}
			st := stValue
			if c == '{' {
				st = stKey
			}
			f.stack = append(f.stack, fixFrame{kind: c, state: st})
			f.out = append(f.out, c)
			f.i++
		case c == '}' || c == ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			match := -1
			for k := len(f.stack) - 1; k >= 0; k-- {
				if f.stack[k].kind == open {
					match = k
					break
				}
			}
			if match < 0 {
				f.note(fixExtraClose)
				f.i++
				continue
			}
			for len(f.stack)-1 > match {
				f.note(fixMismatched)
				f.closeTop()
			}
			f.closeTop()
			f.i++
		case c == ',':
			t := f.top()
			switch {
			case t == nil:
				return false
			case t.state == stAfter:
				t.state = stCommaed
			case t.state == stColon:
				// {"a", "b": 1}: a key without a value.
				f.note(fixMissingValue)
				f.out = append(f.out, ":null"...)
				t.state = stCommaed
			default:
				f.note(fixExtraComma)
			}
			f.i++
		case c == ':':
			t := f.top()
			if t == nil || t.kind != '{' || t.state != stColon {
				return false
			}
			f.out = append(f.out, ':')
			t.state = stValue
			f.i++
		case c == '"' || c == '\'':
			key := f.inKeyPosition()
			if key {
				if !f.beforeKey() {
					return false
				}
			} else if !f.beforeValue() {
				return false
			}
			if triple := s[f.i : f.i+min(3, len(s)-f.i)]; !key && (triple == `"""` || triple == "'''") {
				// Python's triple-quoted string: a command or a prompt
				// over several lines. Without this it read as "" then junk.
				f.tripleStr(triple)
				continue
			}
			if !f.str(c) {
				return false
			}
		case c == '.' && strings.HasPrefix(s[f.i:], "..."):
			t := f.top()
			if t == nil || t.kind != '[' {
				return false
			}
			f.note(fixEllipsis)
			f.i += 3
			if t.state == stAfter || t.state == stValue {
				// [1, 2, ...] or [...]: as if the placeholder were not there
				for f.i < len(s) && (s[f.i] == ' ' || s[f.i] == '\n' || s[f.i] == '\t' || s[f.i] == '\r') {
					f.i++
				}
				if f.i < len(s) && s[f.i] == ',' && t.state == stValue {
					f.i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			end, ok := scanNumber(s, f.i)
			if !ok || !f.beforeValue() {
				return false
			}
			f.out = append(f.out, s[f.i:end]...)
			f.i = end
		case isIdentStart(c):
			j := f.i
			for j < len(s) && (isIdentByte(s[j]) || s[j] == '$') {
				j++
			}
			word := s[f.i:j]
			if f.inKeyPosition() {
				if !f.beforeKey() {
					return false
				}
				f.note(fixUnquotedKey)
				f.out = append(f.out, '"')
				f.out = append(f.out, word...)
				f.out = append(f.out, '"')
				f.i = j
				continue
			}
			var lit string
			switch word {
			case "true", "false", "null":
				lit = word
			case "True", "False":
				f.note(fixPython)
				lit = strings.ToLower(word)
			case "None":
				f.note(fixPython)
				lit = "null"
			case "undefined", "NaN", "Infinity":
				f.note(fixLiteral)
				lit = "null"
			default:
				// An unquoted value (ls -la /tmp, hello world): text up to
				// the next comma, closing bracket or line end. Done here,
				// in linear time, rather than by the library, whose cost
				// grows with the square of the reply.
				end := f.i
				for end < len(s) && s[end] != ',' && s[end] != '}' && s[end] != ']' && s[end] != '\n' {
					if s[end] == '"' || s[end] == '{' || s[end] == '[' {
						return false // quotes or brackets inside: the library decides
					}
					end++
				}
				text := strings.TrimRight(s[f.i:end], " \t\r")
				if !f.beforeValue() {
					return false
				}
				f.note(fixUnquotedValue)
				enc, _ := json.Marshal(text)
				f.out = append(f.out, enc...)
				f.i = f.i + len(text)
				continue
			}
			if !f.beforeValue() {
				return false
			}
			f.out = append(f.out, lit...)
			f.i = j
		default:
			return false
		}
	}
	// The end: close what is still open (a cut-off reply).
	if len(f.stack) > 0 {
		f.note(fixUnclosed)
		for len(f.stack) > 0 {
			if t := f.top(); t.state == stCommaed {
				t.state = stAfter // a dangling comma at the cut is not a defect of its own
			}
			f.closeTop()
		}
	}
	return f.topDone
}

// tripleStr copies a Python triple-quoted string (q is \"\"\" or \'\'\') as
// a JSON string; unclosed, it runs to the end (a cut-off reply).
func (f *fixer) tripleStr(q string) {
	f.note(fixTripleQuote)
	start := f.i + 3
	end := strings.Index(f.s[start:], q)
	body := ""
	if end < 0 {
		body = f.s[start:]
		f.i = len(f.s)
		f.note(fixUnclosedString)
	} else {
		body = f.s[start : start+end]
		f.i = start + end + 3
	}
	enc, _ := json.Marshal(body)
	f.out = append(f.out, enc...)
}

// str copies a string quoted with q as a JSON string.
func (f *fixer) str(q byte) bool {
	s := f.s
	if q == '\'' {
		f.note(fixSingleQuote)
	}
	f.out = append(f.out, '"')
	j := f.i + 1
	for {
		if j >= len(s) {
			f.i = j
			f.note(fixUnclosedString)
			f.out = append(f.out, '"')
			return true
		}
		c := s[j]
		switch {
		case c == q:
			f.out = append(f.out, '"')
			j++
			// A quote right before a letter is likely inside the
			// string ("echo "hi" there"): leave that to the library.
			if j < len(s) && (isIdentByte(s[j]) || s[j] == q) {
				return false
			}
			f.i = j
			return true
		case c == '\\':
			if j+1 >= len(s) {
				j++
				continue
			}
			e := s[j+1]
			switch {
			case e == '\'':
				// \' (Don\'t): JavaScript's escaped apostrophe, which JSON
				// writes bare; in a double-quoted string too.
				if q != '\'' {
					f.fixes.note(fixBadEscape, j)
				}
				f.out = append(f.out, '\'')
			case e == '\n':
				// a backslash before a line break: the line break meant
				f.fixes.note(fixControlChar, j)
				f.out = append(f.out, '\\', 'n')
			case e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't':
				f.out = append(f.out, c, e)
			case e == 'u' && j+5 < len(s) && isHex4(s[j+2:j+6]):
				f.out = append(f.out, s[j:j+6]...)
				j += 4
			case e == 'u' && j+6 > len(s) && isHexPrefix(s[j+2:]):
				// \u cut off by the end of the reply: drop the half escape
				j = len(s)
				continue
			default:
				// \d, C:\Users: a backslash that escapes nothing
				f.fixes.note(fixBadEscape, j)
				f.out = append(f.out, '\\', '\\')
				j++
				continue
			}
			j += 2
		case c == '"':
			// a double quote inside a single-quoted string
			f.out = append(f.out, '\\', '"')
			j++
		case c < 0x20:
			f.fixes.note(fixControlChar, j)
			switch c {
			case '\n':
				f.out = append(f.out, '\\', 'n')
			case '\r':
				f.out = append(f.out, '\\', 'r')
			case '\t':
				f.out = append(f.out, '\\', 't')
			default:
				f.out = append(f.out, '\\', 'u', '0', '0', "0123456789abcdef"[c>>4], "0123456789abcdef"[c&15])
			}
			j++
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && n <= 1 {
				return false
			}
			f.out = append(f.out, s[j:j+n]...)
			j += n
		default:
			f.out = append(f.out, c)
			j++
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isHexPrefix reports whether s (shorter than 4) is only hex digits.
func isHexPrefix(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func isHex4(s string) bool {
	for i := 0; i < 4; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// scanNumber reads a strict JSON number at s[i]; ok is false for anything
// else (leading zeros, a lone "-", "1.", a letter right after).
func scanNumber(s string, i int) (int, bool) {
	j := i
	if j < len(s) && s[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return j - k
	}
	start := j
	if n := digits(); n == 0 || n > 1 && s[start] == '0' {
		return j, false
	}
	if j < len(s) && s[j] == '.' {
		j++
		if digits() == 0 {
			return j, false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if digits() == 0 {
			return j, false
		}
	}
	if j < len(s) && (isIdentByte(s[j]) || s[j] == '.') {
		return j, false
	}
	return j, true
}
