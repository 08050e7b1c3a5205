// Package reveal writes text for a person to read so that what they read is
// what a program holds: characters that would not show, or would show as
// something else, are written as escapes. Every place that shows a person
// text a model or a file wrote, before it runs (the approval dialog and
// prompt, the review of a change, the terminal), passes it through here, so
// the desktop and the command line escape the same characters the same way.
package reveal

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Note says, beside text that was escaped, how to read it. The desktop and
// the command line show these words.
const Note = `invisible characters are shown as \u escapes`

// Text writes the characters of s that would not show on screen as \uXXXX
// (\UXXXXXXXX above the BMP) and each byte that is not UTF-8 (a lone
// surrogate, a cut sequence) as \xNN. Hidden are control characters other
// than newline and tab; bidi controls, zero-width, soft-hyphen and other
// format characters (Unicode Cf); spaces other than U+0020; line and
// paragraph separators; variation selectors and the other characters
// Unicode says to render as nothing (Hangul fillers, tags); private-use and
// unassigned code points. When it escapes anything it also doubles each
// backslash, so an escape cannot be confused with text, and reports true;
// otherwise s comes back unchanged.
func Text(s string) (string, bool) {
	return write(s, false)
}

// JSON is Text for JSON text as encoding/json writes it (control characters
// inside strings already escaped): it writes hidden runes as \uXXXX,
// above the BMP as a surrogate pair, and a byte that is not UTF-8 as
// \uFFFD, which is what a JSON decoder reads for it; backslashes, which
// JSON escapes itself, are left alone. The result is JSON for the same
// value.
func JSON(s string) (string, bool) {
	return write(s, true)
}

// Hidden reports whether Text escapes r (newline and tab stay as they are).
func Hidden(r rune) bool {
	switch r {
	case '\n', '\t':
		return false
	}
	return !unicode.IsPrint(r) ||
		unicode.Is(unicode.Variation_Selector, r) ||
		unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r)
}

// clean reports whether s is UTF-8 with nothing hidden.
func clean(s string) bool {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if (c < ' ' && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || Hidden(r) {
			return false
		}
		i += n
	}
	return true
}

func write(s string, asJSON bool) (string, bool) {
	if clean(s) {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && asJSON:
			b.WriteString(`\uFFFD`)
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02X`, s[i])
		case r == '\\' && !asJSON:
			b.WriteString(`\\`)
		case !Hidden(r):
			b.WriteString(s[i : i+n])
		case r > 0xFFFF && asJSON:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04X\u%04X`, r1, r2)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08X`, r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
		i += n
	}
	return b.String(), true
}
