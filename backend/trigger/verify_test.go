package trigger

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// Signature verification, scheme by scheme: a valid delivery passes; an
// unsigned one, a bad signature, a tampered body, the wrong secret or
// scheme, a stale or future Stripe timestamp and malformed headers are
// refused, each saying why.
func TestVerify(t *testing.T) {
	secret := []byte("s3cret")
	body := []byte(`{"id":"evt_1","repo":"weft"}`)
	now := time.Unix(1_800_000_000, 0)
	hdr := func(kv ...string) http.Header {
		h := http.Header{}
		for i := 0; i < len(kv); i += 2 {
			h.Set(kv[i], kv[i+1])
		}
		return h
	}
	gh := SignGitHub(secret, body)
	st := SignStripe(secret, body, now.Add(-time.Minute))
	cases := []struct {
		name, scheme string
		h            http.Header
		body         []byte
		want         error // nil: verified
		msg          string
		keys         int
	}{
		{name: "github", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, gh, HeaderGitHubDelivery, "d-1"), keys: 2},
		{name: "github no delivery id", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, gh), keys: 1},
		{name: "github unsigned", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubDelivery, "d-1"), want: ErrUnsigned},
		{name: "github bad signature", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, SignGitHub([]byte("other"), body)), want: ErrBadSignature, msg: "does not match"},
		{name: "github tampered body", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, gh), body: []byte(`{"id":"evt_1","repo":"evil"}`), want: ErrBadSignature},
		{name: "github sha1 header", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, "sha1="+strings.Repeat("a", 40)), want: ErrBadSignature, msg: "sha256="},
		{name: "github not hex", scheme: workflow.SchemeGitHub, h: hdr(HeaderGitHubSignature, "sha256="+strings.Repeat("z", 64)), want: ErrBadSignature},
		{name: "github signature under hmac's header", scheme: workflow.SchemeGitHub, h: hdr(HeaderHMACSignature, gh), want: ErrUnsigned},
		{name: "hmac", scheme: workflow.SchemeHMAC, h: hdr(HeaderHMACSignature, SignHMAC(secret, body), HeaderHMACDelivery, "x"), keys: 2},
		{name: "hmac under github's header", scheme: workflow.SchemeHMAC, h: hdr(HeaderGitHubSignature, gh), want: ErrUnsigned},
		{name: "stripe", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, st), keys: 2},
		{name: "stripe two v1, one good", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, st+",v1="+strings.Repeat("0", 64)+",v0=zz"), keys: 2},
		{name: "stripe stale", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, SignStripe(secret, body, now.Add(-6*time.Minute))), want: ErrBadSignature, msg: "more than the 5m0s allowed"},
		{name: "stripe future", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, SignStripe(secret, body, now.Add(6*time.Minute))), want: ErrBadSignature, msg: "allowed"},
		{name: "stripe timestamp changed", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, strings.Replace(st, "t=1799999940", "t=1799999990", 1)), want: ErrBadSignature, msg: "no v1 signature"},
		{name: "stripe tampered body", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, st), body: []byte(`{"id":"evt_2"}`), want: ErrBadSignature},
		{name: "stripe unsigned", scheme: workflow.SchemeStripe, h: hdr(), want: ErrUnsigned},
		{name: "stripe no timestamp", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, "v1="+strings.Repeat("a", 64)), want: ErrBadSignature, msg: "no timestamp"},
		{name: "stripe no v1", scheme: workflow.SchemeStripe, h: hdr(HeaderStripeSignature, "t=1799999940,v0="+strings.Repeat("a", 64)), want: ErrBadSignature, msg: "no v1"},
		{name: "stripe signature as github", scheme: workflow.SchemeGitHub, h: hdr(HeaderStripeSignature, st), want: ErrUnsigned},
		{name: "wrong scheme", scheme: "sha1", h: hdr(HeaderGitHubSignature, gh), want: ErrBadSignature, msg: "not one Weft verifies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := body
			if c.body != nil {
				b = c.body
			}
			d, err := Verify(c.scheme, secret, c.h, b, now, StripeTolerance)
			if c.want == nil {
				if err != nil || len(d.Keys) != c.keys {
					t.Fatalf("want verified with %d keys, got %v %v", c.keys, d.Keys, err)
				}
				return
			}
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("want %v saying %q, got %v", c.want, c.msg, err)
			}
			if strings.Contains(err.Error(), string(secret)) {
				t.Fatal("the error shows the secret")
			}
		})
	}
}

// A delivery signed over a body is refused for every one-byte change of
// the body (the class, not one example).
func TestVerifyEveryByteCounts(t *testing.T) {
	secret, body := []byte("k"), []byte(`{"a":1,"b":"two"}`)
	now := time.Unix(1_800_000_000, 0)
	for _, scheme := range []string{workflow.SchemeGitHub, workflow.SchemeHMAC, workflow.SchemeStripe} {
		h := http.Header{}
		switch scheme {
		case workflow.SchemeGitHub:
			h.Set(HeaderGitHubSignature, SignGitHub(secret, body))
		case workflow.SchemeHMAC:
			h.Set(HeaderHMACSignature, SignHMAC(secret, body))
		default:
			h.Set(HeaderStripeSignature, SignStripe(secret, body, now))
		}
		if _, err := Verify(scheme, secret, h, body, now, StripeTolerance); err != nil {
			t.Fatalf("%s: %v", scheme, err)
		}
		for i := range body {
			b := append([]byte(nil), body...)
			b[i] ^= 1
			if _, err := Verify(scheme, secret, h, b, now, StripeTolerance); !errors.Is(err, ErrBadSignature) {
				t.Fatalf("%s: byte %d changed, got %v", scheme, i, err)
			}
		}
	}
}
