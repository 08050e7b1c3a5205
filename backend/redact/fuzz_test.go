package redact

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzRedact checks the package's promise on any secrets and any text:
// String never leaves a searched form of a registered secret in its
// output, a Writer fed the text in two pieces never passes one through
// that it did not itself make out of placeholder text, and neither
// panics. The text is built around the secret so that the fuzzer reaches
// the interesting cases (secret cut, escaped, repeated) quickly.
func FuzzRedact(f *testing.F) {
	f.Add("sk-abcdef123456", "other-secret", "token ", " end", uint8(3), uint8(0))
	f.Add("pa\"ss\\word", "D]xyzab", "{\"e\":\"", "\"}", uint8(20), uint8(1))
	f.Add("aaaaaaaa", "aaaaab", "aaaa", "aaaa", uint8(2), uint8(2))
	f.Add("-----BEGIN\nMIIEvQIBADANBgkqhkiG9w0B\n", "[REDACTED", "…", "…", uint8(7), uint8(3))
	f.Add("pässwörd-ü", "\xff\xfe\xfdabc", "x", "y", uint8(1), uint8(4))
	f.Fuzz(func(t *testing.T, a, b, pre, post string, split, mode uint8) {
		if len(a)+len(b)+len(pre)+len(post) > 4096 {
			return
		}
		r := New(a, b)
		var text string
		switch mode % 5 {
		case 0:
			text = pre + a + post + b
		case 1:
			text = pre + jsonNoHTML(a) + post
		case 2:
			text = pre + a[:len(a)/2] + "…" + a[len(a)/2:] + post
		case 3:
			text = pre + b + a + b + post
		default:
			text = pre + post
		}
		out := r.String(text)
		st := r.load()
		if st != nil {
			for _, f := range st.forms {
				if strings.Contains(out, f.s) {
					t.Fatalf("String(%q) = %q holds %q", text, out, f.s)
				}
			}
		}

		var buf bytes.Buffer
		w := r.NewWriter(&buf)
		cut := int(split) % (len(text) + 1)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Close()
		if st != nil {
			got := buf.String()
			for _, f := range st.forms {
				for from := 0; ; {
					i := strings.Index(got[from:], f.s)
					if i < 0 {
						break
					}
					i += from
					if !overlapsPlaceholder(got, i, i+len(f.s)) {
						t.Fatalf("Writer passed %q through: %q (cut %d of %q)", f.s, got, cut, text)
					}
					from = i + 1
				}
			}
		}
	})
}

// overlapsPlaceholder reports whether [from, to) of s overlaps an
// occurrence of the placeholder.
func overlapsPlaceholder(s string, from, to int) bool {
	for at := 0; ; {
		i := strings.Index(s[at:], Placeholder)
		if i < 0 {
			return false
		}
		i += at
		if i < to && from < i+len(Placeholder) {
			return true
		}
		at = i + 1
	}
}
