package planner

import (
	"bytes"
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
	return linearRepair(s, false)
}

// linearRepair is fastRepair; lenient, it also guesses where it would
// give up: quotes and brackets inside an unquoted value are text, stray
// characters are dropped (and said). Used for replies too large for the
// library, so that they are repaired rather than re-asked.
func linearRepair(s string, lenient bool) (string, *lexResult, bool) {
	f := &fixer{s: s, out: make([]byte, 0, len(s)+16), fixes: &lexResult{}, lenient: lenient}
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
	jsonp   bool // callback( was read: its ) and ; are dropped
	lenient bool // see linearRepair
	nObj    int  // open objects
	nArr    int  // open arrays
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
		f.nObj--
	} else {
		f.out = append(f.out, ']')
		f.nArr--
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
			if c == '{' {
				f.nObj++
			} else {
				f.nArr++
			}
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
			if t := f.top(); t != nil && t.state == stColon {
				// {"a" ] or {"a"}: a key with no colon and no value is
				// not something to guess; jsonrepair refuses it too.
				return false
			}
			if match >= 0 && match < len(f.stack)-1 && f.nextByte(f.i+1) == ',' {
				// [{…}}, {…}]: a closer of another kind than the one
				// open, then the list goes on: an extra closer, not
				// closers forgotten on the way.
				match = -1
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
			case t == nil && f.topDone:
				// [1],: a comma after the whole value
				f.note(fixTrailingComma)
			case t == nil:
				return false
			case t.state == stAfter:
				t.state = stCommaed
			case t.state == stColon:
				// {"a", "b": 1}: a key with no colon. A set? A lost value?
				// Not a guess to make (jsonrepair refuses it too).
				return false
			case t.kind == '{' && t.state == stValue:
				// {"a":, "b": 2}: the value is missing
				f.note(fixMissingValue)
				f.out = append(f.out, "null"...)
				t.state = stCommaed
			default:
				f.note(fixExtraComma)
			}
			f.i++
		case c == '\\' && f.i+1 < len(f.s) && strings.IndexByte("{}[]", f.s[f.i+1]) >= 0:
			// \{ outside a string: a Markdown escape of the bracket
			// (replies rendered for a chat window escape them).
			f.note(fixMarkdownEscape)
			f.i++
		case c == '\\' && f.i+1 < len(f.s) && strings.IndexByte("nrt", f.s[f.i+1]) >= 0:
			// \n outside a string: a line break written as its escape
			// (the reply was a string once), which is white space here.
			f.note(fixLiteralEscape)
			f.i += 2
		case c == ':':
			t := f.top()
			if t == nil || t.kind != '{' || t.state != stColon {
				if f.lenient {
					f.stray()
					continue
				}
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
			if !f.str(c, key) {
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
		case c == '-' || c == '.' || c >= '0' && c <= '9':
			end, ok := scanNumber(s, f.i)
			if !f.beforeValue() {
				return false
			}
			if ok {
				f.out = append(f.out, s[f.i:end]...)
				f.i = end
				continue
			}
			// 2., .5, 2e, - (often at the cut of a reply) are completed;
			// 0789, 0.0.1, a UUID or a date are text, as a string.
			end = f.i
			for end < len(s) && !f.tokenEnd(end) {
				end++
			}
			f.note(fixNumber)
			if num, ok := completeNumber(s[f.i:end]); ok {
				f.out = append(f.out, num...)
			} else {
				enc := jsonString(s[f.i:end])
				f.out = append(f.out, enc...)
			}
			f.i = end
		case (c == ')' || c == ';') && f.jsonp && len(f.stack) == 0:
			f.i++
		case smartQuote(s, f.i) != 0:
			key := f.inKeyPosition()
			if key {
				if !f.beforeKey() {
					return false
				}
			} else if !f.beforeValue() {
				return false
			}
			if !f.str(smartQuote(s, f.i), key) {
				return false
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[f.i:])
			if !oddSpace(r) {
				if f.lenient {
					f.stray()
					continue
				}
				return false
			}
			f.note(fixSpace)
			f.out = append(f.out, ' ')
			f.i += n
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
				if j < len(s) && s[j] == '"' {
					j++ // {a": 1}: only the opening quote was missing
				}
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
				if len(f.stack) == 0 && !f.topDone && !f.jsonp && j < len(s) && s[j] == '(' {
					// callback_123({...}); JSONP around the value
					f.note(fixJSONP)
					f.jsonp = true
					f.i = j + 1
					continue
				}
				// An unquoted value (ls -la /tmp, hello world): text up to
				// the next comma or closing bracket; in an object it goes
				// on over line breaks until a line starts a new key.
				// Done here, in linear time, rather than by the library,
				// whose cost grows with the square of the reply.
				inObj := f.top() != nil && f.top().kind == '{'
				end, depth := f.i, 0 // depth: brackets opened inside the text (lenient)
				for end < len(s) && (depth > 0 || s[end] != ',' && s[end] != '}' && s[end] != ']') {
					if s[end] == '\n' && (!inObj || startsEntry(s, end+1)) {
						break
					}
					switch s[end] {
					case '"', '{', '[':
						if !f.lenient {
							return false // quotes or brackets inside: the library decides
						}
						if s[end] != '"' {
							depth++
						}
					case '}', ']':
						depth--
					}
					end++
				}
				text := strings.TrimRight(s[f.i:end], " \t\r\n")
				if !f.beforeValue() {
					return false
				}
				f.note(fixUnquotedValue)
				enc := jsonString(text)
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
			if f.lenient {
				f.stray()
				continue
			}
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

// stray drops the character at f.i (lenient mode).
func (f *fixer) stray() {
	f.note(fixStray)
	_, n := utf8.DecodeRuneInString(f.s[f.i:])
	f.i += n
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
	enc := jsonString(body)
	f.out = append(f.out, enc...)
}

// str copies a string quoted with q as a JSON string. A quote that is
// not followed by what may follow a string (the end, a comma, a closing
// bracket, a colon after a key, the next value) is inside it: "(5'3")".
//
// q is the ASCII quote that opened it, or smartDouble / smartSingle for
// a string in typographic quotes (“…” or ‘…’, either of a pair closing it).
func (f *fixer) str(q byte, key bool) bool {
	s := f.s
	open := 1
	switch q {
	case '\'':
		f.note(fixSingleQuote)
	case smartDouble, smartSingle:
		f.note(fixSmartQuote)
		open = 3
	}
	f.out = append(f.out, '"')
	j := f.i + open
	lastComma, lastCommaOut := -1, 0
	for {
		if j >= len(s) {
			// Cut off by the end of the reply: the spaces at the cut are
			// where the model stopped, not content ({"s \ud → "s").
			f.i = j
			f.note(fixUnclosedString)
			f.out = append(bytes.TrimRight(f.out, " "), '"')
			return true
		}
		// A run of plain text is copied at once (most of any reply).
		if k := plainRun(s, j); k > j {
			f.out = append(f.out, s[j:k]...)
			j = k
			continue
		}
		c := s[j]
		if n := closingQuote(s, j, q); n > 0 {
			if key || f.quoteCloses(j+n, key) {
				if k := f.concatenated(j + n); k > 0 {
					// "a" + "b": JavaScript's concatenation, one string
					f.fixes.note(fixConcat, j+n)
					q, j = s[k], k+1
					continue
				}
				f.out = append(f.out, '"')
				f.i = j + n
				return true
			}
			if lastComma >= 0 && prevNonSpace(s, j-1) == lastComma {
				// {"a":"b,c,"d":"e"}: the string lost its closing quote
				// before the comma; this quote opens the next one.
				f.fixes.note(fixMissingQuote, lastComma)
				f.out = append(f.out[:lastCommaOut], '"')
				f.i = lastComma
				return true
			}
			f.fixes.note(fixInnerQuote, j)
			if q == '"' {
				f.out = append(f.out, '\\', '"')
			} else {
				f.out = append(f.out, s[j:j+n]...)
			}
			j += n
			continue
		}
		switch {
		case c == ',':
			lastComma, lastCommaOut = j, len(f.out)
			f.out = append(f.out, c)
			j++
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

// quoteCloses reports whether a quote ending at j (exclusive) closes its
// string: what follows, past spaces and comments, is the end, a line
// break, a comma, a closing bracket of an open container, a colon after a
// key, or the next value (a missing comma). A doubled quote ("72"") is
// inside when the second one closes.
func (f *fixer) quoteCloses(j int, key bool) bool {
	s := f.s
	if j < len(s) && (s[j] == '"' || s[j] == '\'') && s[j] == s[j-1] {
		k, nl := f.skipBlank(j + 1)
		return !(k >= len(s) || nl || f.delimiter(s[k], key))
	}
	k, nl := f.skipBlank(j)
	if k >= len(s) || nl {
		return true
	}
	c := s[k]
	if c == '\\' && k+1 < len(s) && strings.IndexByte("{}[]nrt", s[k+1]) >= 0 {
		// A Markdown-escaped bracket, or a written \n: what follows it.
		if s[k+1] == 'n' || s[k+1] == 'r' || s[k+1] == 't' {
			return true
		}
		c = s[k+1]
	}
	return f.delimiter(c, key) || c == '+' || c == '"' || c == '\'' || c == '{' || c == '[' || c >= '0' && c <= '9'
}

// concatenated returns the offset of the opening quote of a string joined
// to the one ending at j by "+" ("a" + "b", over lines too), or 0.
func (f *fixer) concatenated(j int) int {
	s := f.s
	k := skipSpaceNL(s, j)
	if k >= len(s) || s[k] != '+' {
		return 0
	}
	k = skipSpaceNL(s, k+1)
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		return k
	}
	return 0
}

func skipSpaceNL(s string, j int) int {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
		j++
	}
	return j
}

// delimiter reports whether c can follow a complete string here.
func (f *fixer) delimiter(c byte, key bool) bool {
	switch c {
	case ',':
		return len(f.stack) > 0
	case ':':
		return key
	case '}':
		return f.nObj > 0
	case ']':
		return f.nArr > 0
	case ')', ';':
		return f.jsonp && len(f.stack) == 0
	}
	return false
}

// skipBlank skips spaces and short comments from j; nl reports a line
// break among them. Comments are looked past only within a few hundred
// bytes, so a string full of quotes and "/*" stays linear.
func (f *fixer) skipBlank(j int) (k int, nl bool) {
	s := f.s
	for j < len(s) {
		switch c := s[j]; {
		case c == ' ' || c == '\t' || c == '\r':
			j++
		case c == '\n':
			return j, true
		case c == '/' && j+1 < len(s) && s[j+1] == '*':
			e := strings.Index(s[j+2:min(len(s), j+258)], "*/")
			if e < 0 {
				return j, false
			}
			j += e + 4
		case c == '/' && j+1 < len(s) && s[j+1] == '/':
			return j, true // a line comment runs to the line end
		default:
			return j, false
		}
	}
	return j, false
}

// nextByte is the first byte at or after j that is not white space, 0
// at the end.
func (f *fixer) nextByte(j int) byte { return nextSignificant(f.s, j) }

// prevNonSpace is the index of the last non-space byte at or before j.
func prevNonSpace(s string, j int) int {
	for j >= 0 && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r' || s[j] == '\n') {
		j--
	}
	return j
}

// tokenEnd reports whether s[j] ends a bare token (a number-like word).
func (f *fixer) tokenEnd(j int) bool {
	switch c := f.s[j]; c {
	case ' ', '\t', '\r', '\n', ',', ']', '}', ':', '"', '\'', ')', ';':
		return true
	case '/':
		return j+1 < len(f.s) && (f.s[j+1] == '/' || f.s[j+1] == '*')
	}
	return false
}

// completeNumber finishes a number cut short (2. 2e 2e+ - .5) and reports
// whether the result is a JSON number.
func completeNumber(tok string) (string, bool) {
	sign, body := "", tok
	if strings.HasPrefix(body, "-") {
		sign, body = "-", body[1:]
	}
	if body == "" {
		body = "0"
	}
	if body[0] == '.' {
		body = "0" + body
	}
	switch body[len(body)-1] {
	case '.', 'e', 'E', '+', '-':
		body += "0"
	}
	num := sign + body
	if end, ok := scanNumber(num, 0); ok && end == len(num) {
		return num, true
	}
	return "", false
}

// startsEntry reports whether the line from j starts a new object entry
// (a key and a colon, a quoted key) or closes the object, which ends an
// unquoted value spanning lines before it.
func startsEntry(s string, j int) bool {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
		j++
	}
	if j >= len(s) {
		return true
	}
	switch c := s[j]; {
	case c == '}' || c == ']' || c == '"' || c == '\'' || c == '/' || c == '#':
		return true
	case isIdentStart(c):
		for j < len(s) && (isIdentByte(s[j]) || s[j] == '$' || s[j] == '-') {
			j++
		}
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		return j < len(s) && s[j] == ':'
	}
	return false
}

// oddSpace: Unicode spaces models and editors put between tokens.
func oddSpace(r rune) bool {
	switch r {
	case 0xa0, 0x1680, 0x180e, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200b
}

// plainRun returns the end of the run of bytes from j that a string copies
// as they are: printable ASCII other than quotes, backslash and comma.
func plainRun(s string, j int) int {
	for j < len(s) {
		switch c := s[j]; {
		case c == '"' || c == '\\' || c == ',' || c == '\'' || c < 0x20 || c >= 0x80:
			return j
		}
		j++
	}
	return j
}

// Markers for strings in typographic quotes (never a byte of the text).
const (
	smartDouble byte = 1
	smartSingle byte = 2
)

// smartQuote returns the marker of a typographic quote at s[j] (“ ” or
// ‘ ’), or 0.
func smartQuote(s string, j int) byte {
	if j+3 > len(s) || s[j] != 0xe2 || s[j+1] != 0x80 {
		return 0
	}
	switch s[j+2] {
	case 0x9c, 0x9d:
		return smartDouble
	case 0x98, 0x99:
		return smartSingle
	}
	return 0
}

// closingQuote returns the length of a quote at s[j] that can close a
// string opened with q, or 0.
func closingQuote(s string, j int, q byte) int {
	switch q {
	case smartDouble, smartSingle:
		if smartQuote(s, j) == q {
			return 3
		}
		return 0
	}
	if s[j] == q {
		return 1
	}
	return 0
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

// jsonString is s as a JSON string, with <, > and & kept as they are.
func jsonString(s string) []byte {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
