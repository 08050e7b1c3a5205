package quote

import (
	"strings"
)

// Sh returns s as one POSIX shell word: wrapped in single quotes, inside
// which sh treats no character as special (not $, `, \, ", ;, newline or
// any other). Each single quote in s is written as four characters (close
// the quote, a backslash-escaped quote, reopen), and the empty string as
// two single quotes:
//
//	it's  →  'it'\''s'
//
// A value with a NUL byte is ErrNUL.
func Sh(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", ErrNUL
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	writeSingleQuoted(&b, s)
	b.WriteByte('\'')
	return b.String(), nil
}

// writeSingleQuoted writes s for the inside of a single-quoted region.
func writeSingleQuoted(b *strings.Builder, s string) {
	for {
		i := strings.IndexByte(s, '\'')
		if i < 0 {
			b.WriteString(s)
			return
		}
		b.WriteString(s[:i])
		b.WriteString(`'\''`)
		s = s[i+1:]
	}
}

// posixLexer follows the quoting context of a command template's literal
// text the way sh reads it, so that a value can be quoted for the place it
// lands in: a bare word, inside "…" or inside '…'. It models quotes,
// backslashes, comments, $(…) and (…) nesting, and skips over backticks,
// ${…} and $((…)); where sh's reading depends on more than that (a
// here-document, $'…', quotes inside backticks, a case inside $(…)) it
// stops being sure, and every later placeholder is refused rather than
// guessed at. It also knows the places where bash, macOS's sh, evaluates
// text as arithmetic even inside single quotes, running any $(…) in it:
// ((…)), [[ … -eq … ]], $[…] and an array subscript name[…]. The lexer never looks at inserted values: each value is
// quoted so that it leaves the context as it found it.
type posixLexer struct {
	stack     []pframe // innermost last; stack[0] is the command line itself
	esc       bool     // the previous byte was a backslash that escapes this one
	pend      pending  // a $ or $( whose meaning depends on the next byte
	wordStart bool     // in an unquoted frame: the next byte starts a word (# would start a comment)
	word      [4]byte  // the start of the current unquoted word, to spot the keyword case
	wordLen   int      // bytes in word; -1 once the word cannot be a keyword
	lt        bool     // the previous byte was an unquoted <
	open      bool     // the previous byte was an unquoted (
	unsure    string   // once set: why the context is no longer known
}

type frameKind uint8

const (
	fUnquoted frameKind = iota // the command line, $(…) or (…)
	fDouble                    // "…"
	fSingle                    // '…'
	fBacktick                  // `…`
	fBrace                     // ${…}
	fArith                     // $((…))
	fComment                   // # … up to the end of the line
)

type pframe struct {
	kind    frameKind
	paren   bool // an unquoted frame that a ) closes: $(…) or (…)
	bracket bool // an unquoted frame inside a word's […]: name[…] is an array subscript
	depth   int  // open parentheses inside $((…))
}

type pending uint8

const (
	pNone       pending = iota
	pDollar             // $
	pDollarOpen         // $(
	pArithClose         // the first ) of $((…))'s closing ))
)

// maxNesting bounds the lexer's stack: deeper nesting than any real
// command makes the context unknown instead of growing without limit.
const maxNesting = 64

func newPosixLexer() *posixLexer {
	return &posixLexer{stack: []pframe{{kind: fUnquoted}}, wordStart: true}
}

func (l *posixLexer) top() *pframe { return &l.stack[len(l.stack)-1] }

func (l *posixLexer) push(f pframe) {
	if len(l.stack) >= maxNesting {
		l.setUnsure("quotes and substitutions nested more than 64 deep")
		return
	}
	l.stack = append(l.stack, f)
	if f.kind == fUnquoted {
		l.wordStart, l.wordLen = true, 0
	}
}

func (l *posixLexer) pop() {
	if len(l.stack) > 1 {
		l.stack = l.stack[:len(l.stack)-1]
	}
}

func (l *posixLexer) setUnsure(why string) {
	if l.unsure == "" {
		l.unsure = why
	}
}

func (l *posixLexer) literal(s string) {
	for i := 0; i < len(s) && l.unsure == ""; i++ {
		l.step(s[i])
	}
}

func (l *posixLexer) step(c byte) {
	if l.esc {
		l.esc = false
		if l.top().kind == fUnquoted && c != '\n' { // \<newline> joins lines and is no part of a word
			l.wordByte(0)
		}
		return
	}
	switch l.pend {
	case pDollar:
		l.pend = pNone
		switch c {
		case '(':
			l.pend = pDollarOpen
			return
		case '{':
			l.push(pframe{kind: fBrace})
			return
		case '\'':
			if l.top().kind == fUnquoted {
				// bash reads $'…' with backslash escapes inside, dash
				// as $ and a plain '…': the shells disagree on where it ends.
				l.setUnsure("$'…' quoting")
				return
			}
		case '[':
			l.setUnsure("$[…], which bash evaluates as arithmetic")
			return
		}
	case pDollarOpen:
		l.pend = pNone
		if c == '(' {
			l.push(pframe{kind: fArith})
			return
		}
		l.push(pframe{kind: fUnquoted, paren: true})
	case pArithClose:
		l.pend = pNone
		if c == ')' {
			l.pop()
			return
		}
		l.setUnsure("a $((…)) closed by a single )")
		return
	}
	f := l.top()
	switch f.kind {
	case fSingle:
		if c == '\'' {
			l.pop()
		}
	case fComment:
		if c == '\n' {
			l.pop()
			l.wordStart, l.wordLen = true, 0
		}
	case fDouble:
		switch c {
		case '\\':
			l.esc = true
		case '"':
			l.pop()
		case '`':
			l.push(pframe{kind: fBacktick})
		case '$':
			l.pend = pDollar
		}
	case fBacktick:
		switch c {
		case '\\':
			l.esc = true
		case '`':
			l.pop()
		case '\'', '"':
			// Whether a quote inside `…` hides a backtick differs
			// between shells (POSIX leaves it undefined).
			l.setUnsure("quotes inside backticks")
		}
	case fBrace:
		switch c {
		case '}':
			l.pop()
		case '\\', '\'', '"', '`', '$', '{':
			l.setUnsure("quotes or nesting inside ${…}")
		}
	case fArith:
		switch c {
		case '(':
			f.depth++
		case ')':
			if f.depth > 0 {
				f.depth--
			} else {
				l.pend = pArithClose
			}
		case '\\', '\'', '"', '`':
			l.setUnsure("quotes inside $((…))")
		}
	case fUnquoted:
		l.unquoted(c, f)
	}
}

func (l *posixLexer) unquoted(c byte, f *pframe) {
	lt, open := l.lt, l.open
	l.lt, l.open = false, false
	switch c {
	case ' ', '\t', '\n', ';', '&', '|', '>':
		l.endWord()
	case '<':
		l.endWord()
		if lt {
			l.setUnsure("a here-document (<<)")
		}
		l.lt = true
	case '(':
		l.endWord()
		if open {
			// ((…)) is bash's arithmetic command, which evaluates
			// even single-quoted text as code.
			l.setUnsure("((…)), which bash evaluates as arithmetic")
			return
		}
		l.push(pframe{kind: fUnquoted, paren: true})
		l.open = true
	case ')':
		l.endWord()
		if f.paren {
			l.pop()
		}
		// A ) with nothing open is a case pattern's: the context stays.
	case '#':
		if l.wordStart {
			l.push(pframe{kind: fComment})
			return
		}
		l.wordByte(c)
	case '[':
		if !l.wordStart {
			// name[…]: bash evaluates an array subscript (in an
			// assignment, read, printf -v…) as arithmetic, quotes or not.
			f.bracket = true
		}
		l.wordByte(c)
	case ']':
		f.bracket = false
		l.wordByte(c)
	case '\\':
		l.esc = true
	case '\'':
		l.wordByte(0)
		l.push(pframe{kind: fSingle})
	case '"':
		l.wordByte(0)
		l.push(pframe{kind: fDouble})
	case '`':
		l.wordByte(0)
		l.push(pframe{kind: fBacktick})
	case '$':
		l.wordByte(0)
		l.pend = pDollar
	default:
		l.wordByte(c)
	}
}

// wordByte adds c to the current unquoted word; 0 marks a quote or
// expansion, after which the word is no keyword.
func (l *posixLexer) wordByte(c byte) {
	if l.wordStart {
		l.wordStart, l.wordLen = false, 0
	}
	switch {
	case l.wordLen < 0:
	case c == 0 || l.wordLen == len(l.word):
		l.wordLen = -1
	default:
		l.word[l.wordLen] = c
		l.wordLen++
		if l.wordLen == 2 && l.word[0] == '[' && l.word[1] == '[' {
			l.setUnsure("a [[ … ]] test, whose arithmetic comparisons bash evaluates as code (use [ … ])")
		}
	}
}

// endWord ends the current unquoted word. The keyword case matters: its
// patterns end with a ) that opens nothing, so inside $(…) or (…) the
// lexer could no longer tell which ) closes the substitution.
func (l *posixLexer) endWord() {
	l.top().bracket = false
	if !l.wordStart && l.wordLen == 4 && string(l.word[:]) == "case" {
		for _, f := range l.stack {
			if f.paren {
				l.setUnsure("a case statement inside $(…) or (…)")
				break
			}
		}
	}
	l.wordStart, l.wordLen = true, 0
}

// value writes v quoted for the current context.
func (l *posixLexer) value(b *strings.Builder, v string) error {
	if strings.IndexByte(v, 0) >= 0 {
		return ErrNUL
	}
	kind, err := l.place()
	if err != nil {
		return err
	}
	switch kind {
	case fUnquoted:
		b.WriteByte('\'')
		writeSingleQuoted(b, v)
		b.WriteByte('\'')
	case fDouble:
		// Close the author's "…", add the value single-quoted, reopen:
		// the pieces join into the same word.
		b.WriteString(`"'`)
		writeSingleQuoted(b, v)
		b.WriteString(`'"`)
	case fSingle:
		writeSingleQuoted(b, v)
	}
	return nil
}

// variable writes a reference to the environment variable name, expanded
// as one word (or part of the word it sits in) wherever a value could
// go: "${name}" in a bare word, ${name} inside the author's "…", and
// '"${name}"' (close, expand, reopen) inside '…'.
func (l *posixLexer) variable(b *strings.Builder, name string) error {
	kind, err := l.place()
	if err != nil {
		return err
	}
	switch kind {
	case fUnquoted:
		b.WriteString(`"${` + name + `}"`)
	case fDouble:
		b.WriteString(`${` + name + `}`)
	case fSingle:
		b.WriteString(`'"${` + name + `}"'`)
	}
	return nil
}

// place is the kind of quoting a value goes into at this point of the
// command, or why none may go there.
func (l *posixLexer) place() (frameKind, error) {
	if l.unsure != "" {
		return 0, l.unsureError()
	}
	switch l.pend {
	case pDollar:
		return 0, errorf("the placeholder follows a $, which would make the value part of a $-expansion; write \\$ for a dollar sign")
	case pDollarOpen:
		l.pend = pNone
		l.push(pframe{kind: fUnquoted, paren: true})
	case pArithClose:
		l.pend = pNone
		l.setUnsure("a $((…)) closed by a single )")
	}
	if l.unsure != "" { // set just above, by a pending $((…)) close
		return 0, l.unsureError()
	}
	if l.esc {
		return 0, errorf("the placeholder follows a backslash, which would escape the quote that starts the value")
	}
	for _, f := range l.stack {
		if f.bracket {
			return 0, errorf("the placeholder sits inside a word's […], which bash evaluates as arithmetic when it is an array subscript; put the value in a word of its own")
		}
	}
	kind := l.top().kind
	switch kind {
	case fComment:
		return 0, errorf("the placeholder sits in a shell comment (after #), where a line break in the value would end the comment")
	case fBacktick:
		return 0, errorf("the placeholder sits inside backticks, which sh reads twice; use $(…) instead")
	case fBrace:
		return 0, errorf("the placeholder sits inside ${…}; put the value in its own word instead")
	case fArith:
		return 0, errorf("the placeholder sits inside $((…)), which sh evaluates as arithmetic; compute it in an expression ({{a.n + 1}}) instead")
	}
	l.lt, l.open = false, false
	if kind == fUnquoted {
		l.wordByte(0)
	}
	return kind, nil
}

func (l *posixLexer) unsureError() error {
	return errorf("the placeholder comes after %s, where Weft cannot tell how sh will read the command; move the value into a file (write_file) or a separate step, or use {{raw …}} if the text is meant as shell code", l.unsure)
}
