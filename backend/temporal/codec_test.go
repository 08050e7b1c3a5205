package temporal

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"

	"go.temporal.io/sdk/converter"
)

func key(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

func TestSealCodec(t *testing.T) {
	k := key(t)
	dc, err := DataConverter(k)
	if err != nil {
		t.Fatal(err)
	}
	p, err := dc.ToPayload(map[string]any{"stdout": "sk-live-secret-value"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(p.Data, []byte("sk-live")) || string(p.Metadata[converter.MetadataEncoding]) != encodingSealed {
		t.Fatalf("payload not sealed: %q", p.Data)
	}
	var back map[string]any
	if err := dc.FromPayload(p, &back); err != nil || back["stdout"] != "sk-live-secret-value" {
		t.Fatalf("round trip: %v %v", back, err)
	}
	// Another key, a changed byte, no key at all: refused, never misread.
	other, _ := DataConverter(key(t))
	if err := other.FromPayload(p, &back); err == nil {
		t.Error("opened with another key")
	}
	p.Data[len(p.Data)-1] ^= 1
	if err := dc.FromPayload(p, &back); err == nil {
		t.Error("a changed payload opened")
	}
	// A payload written before the key was set still reads.
	plain, _ := converter.GetDefaultDataConverter().ToPayload("before")
	var s string
	if err := dc.FromPayload(plain, &s); err != nil || s != "before" {
		t.Errorf("plain payload: %q %v", s, err)
	}
}

func TestParseKey(t *testing.T) {
	k := key(t)
	if got, err := ParseKey(base64.StdEncoding.EncodeToString(k) + "\n"); err != nil || !bytes.Equal(got, k) {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "short", base64.StdEncoding.EncodeToString(k[:16])} {
		if _, err := ParseKey(bad); err == nil || !strings.Contains(err.Error(), "32 random bytes") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
