package reveal

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
		esc            bool
	}{
		{"plain text stays", "plain text\n\twith tabs & newlines", "plain text\n\twith tabs & newlines", false},
		{"a backslash alone stays", `a\b \u202E`, `a\b \u202E`, false},
		{"printable unicode stays", "emoji 🙂 and ünïcödé, 中文, ﷺ", "emoji 🙂 and ünïcödé, 中文, ﷺ", false},
		{"a replacement character as written stays", "a\ufffdb", "a\ufffdb", false},
		{"escape sequence, backslash doubled", "a\x1b[31mred\\", `a\u001B[31mred\\`, true},
		{"carriage return", "\r", `\u000D`, true},
		{"NUL and DEL", "a\x00b\x7f", `a\u0000b\u007F`, true},
		{"C1 control", "a\u0085b", `a\u0085b`, true},
		{"right-to-left override", "cp out/usage.log out/\u202egol.pukcab", `cp out/usage.log out/\u202Egol.pukcab`, true},
		{"bidi isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`, true},
		{"marks", "\u200ea\u200fb\u061c", `\u200Ea\u200Fb\u061C`, true},
		{"zero-width space, joiner, non-joiner, BOM", "a\u200bb\u200cc\u200dd\ufeff", `a\u200Bb\u200Cc\u200Dd\uFEFF`, true},
		{"word joiner and invisible operators", "a\u2060b\u2062c", `a\u2060b\u2062c`, true},
		{"soft hyphen", "rm -r\u00adf", `rm -r\u00ADf`, true},
		{"no-break and other spaces", "rm\u00a0-rf\u3000~", `rm\u00A0-rf\u3000~`, true},
		{"line and paragraph separators", "line\u2028sep\u2029", `line\u2028sep\u2029`, true},
		{"tag characters", "x\U000E0041", `x\U000E0041`, true},
		{"variation selectors", "a\ufe0fb\U000E0100", `a\uFE0Fb\U000E0100`, true},
		{"Hangul filler", "if \u3164 then", `if \u3164 then`, true},
		{"combining grapheme joiner", "a\u034fb", `a\u034Fb`, true},
		{"private use", "a\ue000", `a\uE000`, true},
		{"unassigned", "a\U000EFFFF", `a\U000EFFFF`, true},
		{"invalid byte", "a\xffb", `a\xFFb`, true},
		{"lone surrogate (CESU)", "a\xed\xa0\x80b", `a\xED\xA0\x80b`, true},
		{"cut sequence", "a\xe2\x80", `a\xE2\x80`, true},
		{"a backslash beside an escape is doubled", `\u202E` + "\u202e", `\\u202E\u202E`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, esc := Text(tc.in)
			if got != tc.want || esc != tc.esc {
				t.Errorf("Text(%q) = %q, %v; want %q, %v", tc.in, got, esc, tc.want, tc.esc)
			}
			if back := unText(t, got, esc); back != tc.in {
				t.Errorf("Text(%q) reads back as %q", tc.in, back)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"command": "ls"}`, `{"command": "ls"}`},
		{`"a\\b \u0000` + "\u202e\U000E0041\u200b" + `"`, `"a\\b \u0000\u202E\uDB40\uDC41\u200B"`},
		{"\"a\xffb\"", `"a\uFFFDb"`},
	}
	for _, tc := range tests {
		got, esc := JSON(tc.in)
		if got != tc.want || esc != (tc.in != tc.want) {
			t.Errorf("JSON(%q) = %q, %v; want %q", tc.in, got, esc, tc.want)
		}
		sameJSON(t, tc.in, got)
	}
}

// unText reverses Text: every backslash of escaped text starts an escape.
// That it can shows Text never writes two different strings the same way.
func unText(t *testing.T, s string, escaped bool) string {
	t.Helper()
	if !escaped {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			t.Fatalf("%q ends in a lone backslash", s)
		}
		width := map[byte]int{'\\': 0, 'x': 2, 'u': 4, 'U': 8}[s[i+1]]
		if s[i+1] != '\\' && width == 0 || i+2+width > len(s) {
			t.Fatalf("%q: bad escape at %d", s, i)
		}
		hex := s[i+2 : i+2+width]
		switch s[i+1] {
		case '\\':
			b.WriteByte('\\')
		case 'x':
			n, err := strconv.ParseUint(hex, 16, 8)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			b.WriteByte(byte(n))
		default:
			n, err := strconv.ParseUint(hex, 16, 32)
			if err != nil {
				t.Fatalf("%q: %v", s, err)
			}
			b.WriteRune(rune(n))
		}
		i += 1 + width
	}
	return b.String()
}

func hides(s string) bool {
	return !utf8.ValidString(s) || strings.ContainsFunc(s, Hidden)
}

// sameJSON fails unless a and b decode to the same value.
func sameJSON(t *testing.T, a, b string) {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("%q: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("JSON(%q) = %q is not JSON: %v", a, b, err)
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	if !bytes.Equal(ja, jb) {
		t.Fatalf("JSON(%q) = %q reads %s, not %s", a, b, jb, ja)
	}
}

var seeds = []string{"", "rm -rf ~/", "a\x1b[2Kb\r", "x\u202ey", `\u202E`, "line\nnext\ttab",
	"\U000E0041", "\xff\xfe", "\xed\xa0\x80", "a\u200bb\u2066c", "\\\u202e\\", "❤️"}

// FuzzText: whatever a model or a file wrote, the text shown holds no
// character that would not show, is the input itself when nothing was
// escaped, and reads back as exactly the input (two commands never look
// the same).
func FuzzText(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, esc := Text(s)
		if hides(out) {
			t.Fatalf("Text(%q) = %q still hides characters", s, out)
		}
		if !esc && out != s {
			t.Fatalf("Text(%q) = %q changed text it did not escape", s, out)
		}
		if esc == !hides(s) {
			t.Fatalf("Text(%q) says escaped=%v", s, esc)
		}
		if back := unText(t, out, esc); back != s {
			t.Fatalf("Text(%q) = %q reads back as %q", s, out, back)
		}
	})
}

// FuzzJSON: JSON as the encoder writes it stays JSON for the same value,
// with nothing hidden.
func FuzzJSON(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []any{s, map[string]any{s: []any{s, 1.5, nil}}} {
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			out, _ := JSON(b.String())
			if hides(out) {
				t.Fatalf("JSON(%q) = %q still hides characters", b.String(), out)
			}
			sameJSON(t, b.String(), out)
		}
	})
}
