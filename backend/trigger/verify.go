package trigger

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/workflow"
)

// Headers each scheme reads.
const (
	HeaderGitHubSignature = "X-Hub-Signature-256"
	HeaderGitHubDelivery  = "X-GitHub-Delivery"
	HeaderStripeSignature = "Stripe-Signature"
	HeaderHMACSignature   = "X-Weft-Signature-256"
	HeaderHMACDelivery    = "X-Weft-Delivery"
	// StripeTolerance is how far a Stripe-Signature's timestamp may be
	// from now (Stripe's own libraries use five minutes).
	StripeTolerance = 5 * time.Minute
	maxHeaderLen    = 4096
	maxStripeSigs   = 16
)

// ErrUnsigned and ErrBadSignature say why a delivery is refused (401).
var (
	ErrUnsigned     = errors.New("unsigned")
	ErrBadSignature = errors.New("bad signature")
)

// Delivery is what a verified delivery is remembered by: Keys are its
// delivery id (when the sender gives one) and its signature. Neither
// GitHub's delivery header nor Weft's is signed, so a replay under a new
// id is still caught by its signature (the same body, the same secret).
type Delivery struct {
	Keys []string
}

// Verify checks that body was signed with secret under scheme, in the
// request's headers, at now: constant-time comparisons, a Stripe
// timestamp within tolerance of now. It never logs or returns the secret.
func Verify(scheme string, secret []byte, h http.Header, body []byte, now time.Time, tolerance time.Duration) (Delivery, error) {
	switch scheme {
	case workflow.SchemeGitHub, workflow.SchemeHMAC:
		name, idName := HeaderGitHubSignature, HeaderGitHubDelivery
		if scheme == workflow.SchemeHMAC {
			name, idName = HeaderHMACSignature, HeaderHMACDelivery
		}
		sig, err := ParseSHA256Header(h.Get(name))
		if err != nil {
			return Delivery{}, fmt.Errorf("%s: %w", name, err)
		}
		if !hmac.Equal(sig, mac(secret, body)) {
			return Delivery{}, fmt.Errorf("%w: %s does not match the body signed with the trigger's secret", ErrBadSignature, name)
		}
		d := Delivery{Keys: []string{"sig:" + hex.EncodeToString(sig)}}
		if id := strings.TrimSpace(h.Get(idName)); id != "" && len(id) <= 256 {
			d.Keys = append(d.Keys, "id:"+id)
		}
		return d, nil
	case workflow.SchemeStripe:
		ts, sigs, err := ParseStripeHeader(h.Get(HeaderStripeSignature))
		if err != nil {
			return Delivery{}, fmt.Errorf("%s: %w", HeaderStripeSignature, err)
		}
		want := mac(secret, append([]byte(strconv.FormatInt(ts, 10)+"."), body...))
		var match []byte
		for _, s := range sigs {
			if hmac.Equal(s, want) {
				match = s
			}
		}
		if match == nil {
			return Delivery{}, fmt.Errorf("%w: no v1 signature in %s matches the body signed with the trigger's secret", ErrBadSignature, HeaderStripeSignature)
		}
		if age := now.Sub(time.Unix(ts, 0)); age > tolerance || age < -tolerance {
			return Delivery{}, fmt.Errorf("%w: the %s timestamp is %s from now, more than the %s allowed (a replay, or a clock that is off)", ErrBadSignature, HeaderStripeSignature, age.Round(time.Second), tolerance)
		}
		d := Delivery{Keys: []string{"sig:" + hex.EncodeToString(match)}}
		// Stripe retries an event with a new timestamp: its id says it
		// is the same one.
		var ev struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(body, &ev) == nil && ev.ID != "" && len(ev.ID) <= 256 {
			d.Keys = append(d.Keys, "id:"+ev.ID)
		}
		return d, nil
	}
	return Delivery{}, fmt.Errorf("%w: the trigger's scheme %q is not one Weft verifies", ErrBadSignature, scheme)
}

func mac(secret, data []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write(data)
	return m.Sum(nil)
}

// ParseSHA256Header reads "sha256=HEX" (GitHub's X-Hub-Signature-256,
// Weft's X-Weft-Signature-256): a missing header is ErrUnsigned, anything
// but 64 hex digits after sha256= is ErrBadSignature.
func ParseSHA256Header(v string) ([]byte, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil, fmt.Errorf("%w: the header is missing", ErrUnsigned)
	}
	hexSig, ok := strings.CutPrefix(v, "sha256=")
	if !ok || len(hexSig) != 2*sha256.Size {
		return nil, fmt.Errorf("%w: the header is not sha256= and 64 hex digits", ErrBadSignature)
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil {
		return nil, fmt.Errorf("%w: the header is not sha256= and 64 hex digits", ErrBadSignature)
	}
	return sig, nil
}

// ParseStripeHeader reads "t=UNIX,v1=HEX[,v1=HEX…]" (other schemes, such
// as v0, are skipped, as Stripe's libraries do): a missing header is
// ErrUnsigned; no timestamp, no v1 or a malformed one is ErrBadSignature.
func ParseStripeHeader(v string) (int64, [][]byte, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil, fmt.Errorf("%w: the header is missing", ErrUnsigned)
	}
	if len(v) > maxHeaderLen {
		return 0, nil, fmt.Errorf("%w: the header is longer than %d bytes", ErrBadSignature, maxHeaderLen)
	}
	var ts int64
	seenT := false
	var sigs [][]byte
	for _, part := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return 0, nil, fmt.Errorf("%w: %q is not key=value", ErrBadSignature, cut(part))
		}
		switch k {
		case "t":
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 || seenT {
				return 0, nil, fmt.Errorf("%w: the timestamp t=%q is not one Unix time", ErrBadSignature, cut(val))
			}
			ts, seenT = n, true
		case "v1":
			s, err := hex.DecodeString(val)
			if err != nil || len(s) != sha256.Size {
				return 0, nil, fmt.Errorf("%w: v1=%q is not 64 hex digits", ErrBadSignature, cut(val))
			}
			if len(sigs) >= maxStripeSigs {
				return 0, nil, fmt.Errorf("%w: more than %d v1 signatures", ErrBadSignature, maxStripeSigs)
			}
			sigs = append(sigs, s)
		}
	}
	switch {
	case !seenT:
		return 0, nil, fmt.Errorf("%w: no timestamp t=", ErrBadSignature)
	case len(sigs) == 0:
		return 0, nil, fmt.Errorf("%w: no v1= signature", ErrBadSignature)
	}
	return ts, sigs, nil
}

func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// SignGitHub, SignHMAC and SignStripe are the headers a sender writes:
// for tests, benchmarks and the documentation's examples.
func SignGitHub(secret, body []byte) string { return "sha256=" + hex.EncodeToString(mac(secret, body)) }

// SignHMAC is Weft's plain scheme's X-Weft-Signature-256.
func SignHMAC(secret, body []byte) string { return SignGitHub(secret, body) }

// SignStripe is a Stripe-Signature for body at t.
func SignStripe(secret, body []byte, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac(secret, append([]byte(ts+"."), body...)))
}
