package trigger

import (
	"errors"
	"testing"
)

// The signature headers come from anyone who can reach the port: any
// text gives a value or ErrUnsigned/ErrBadSignature, never a panic, and
// what is accepted is well-formed.
func FuzzParseStripeHeader(f *testing.F) {
	for _, s := range []string{"", "t=1,v1=" + hex64, "t=1,v1=" + hex64 + ",v0=x", "t=,v1=", "t=1,t=2,v1=" + hex64, ",,,", "v1=" + hex64} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ts, sigs, err := ParseStripeHeader(s)
		if err != nil {
			if !errors.Is(err, ErrUnsigned) && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if ts <= 0 || len(sigs) == 0 || len(sigs) > maxStripeSigs {
			t.Fatalf("%q accepted as %d %d", s, ts, len(sigs))
		}
		for _, g := range sigs {
			if len(g) != 32 {
				t.Fatalf("%q: a signature of %d bytes", s, len(g))
			}
		}
	})
}

func FuzzParseSHA256Header(f *testing.F) {
	for _, s := range []string{"", "sha256=" + hex64, "sha1=abc", "sha256=", "sha256=" + hex64 + "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSHA256Header(s)
		if err != nil {
			if !errors.Is(err, ErrUnsigned) && !errors.Is(err, ErrBadSignature) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		if len(sig) != 32 {
			t.Fatalf("%q accepted as %d bytes", s, len(sig))
		}
	})
}

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
