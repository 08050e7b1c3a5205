package temporal

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
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
}

// Each process reads only what it can trust: with a key, only payloads
// sealed with it (an unsealed one, a signal from a process without the
// key, is refused naming the key); without, sealed ones are refused naming
// the key they need. Every value kind a run sends goes through the rule.
func TestSealRefusals(t *testing.T) {
	k, other := key(t), key(t)
	keyed, _ := DataConverter(k)
	otherDC, _ := DataConverter(other)
	keyless, _ := DataConverter(nil)
	values := []any{"before", int64(7), map[string]any{"action": "skip"}, []string{"a"}, nil, true}
	for _, v := range values {
		plain, err := keyless.ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(plain.Metadata[converter.MetadataEncoding]) == encodingSealed {
			t.Fatalf("%v: sealed without a key", v)
		}
		var out any
		var se *SealError
		if err := keyed.FromPayload(plain, &out); !errors.As(err, &se) || se.Sealed || !strings.Contains(err.Error(), KeyID(k)) {
			t.Errorf("%v: a keyed process read an unsealed payload: %v", v, err)
		}
		if err := keyless.FromPayload(plain, &out); err != nil {
			t.Errorf("%v: keyless round trip: %v", v, err)
		}
		sealedP, err := keyed.ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := keyless.FromPayload(sealedP, &out); !errors.As(err, &se) || !se.Sealed || se.OwnKey != "" || !strings.Contains(err.Error(), KeyID(k)) || !strings.Contains(err.Error(), EnvKey) {
			t.Errorf("%v: a keyless process read a sealed payload: %v", v, err)
		}
		if err := otherDC.FromPayload(sealedP, &out); !errors.As(err, &se) || se.PayloadKey != KeyID(k) || se.OwnKey != KeyID(other) {
			t.Errorf("%v: another key: %v", v, err)
		}
		// Sealed before key ids were recorded: another key still fails
		// to open it, never misreads it.
		delete(sealedP.Metadata, metaKeyID)
		if err := otherDC.FromPayload(sealedP, &out); err == nil {
			t.Errorf("%v: opened with another key", v)
		}
		if err := keyed.FromPayload(sealedP, &out); err != nil {
			t.Errorf("%v: sealed without an id: %v", v, err)
		}
		// The whole batch is refused when one payload is not sealed.
		ps, _ := keyed.ToPayloads(v, "x")
		ps.Payloads[1] = plain
		if err := keyed.FromPayloads(ps, &out, &out); !errors.As(err, &se) {
			t.Errorf("%v: a batch with an unsealed payload: %v", v, err)
		}
	}
}

// The key id names a key without revealing it, and is the key's alone.
func TestKeyIDAndQueue(t *testing.T) {
	k := key(t)
	id := KeyID(k)
	if len(id) != 16 || id != KeyID(append([]byte{}, k...)) || id == KeyID(key(t)) {
		t.Fatalf("id %q", id)
	}
	if strings.Contains(base64.StdEncoding.EncodeToString(k), id) || strings.Contains(hex.EncodeToString(k), id) {
		t.Fatal("the id shows the key")
	}
	for _, c := range []struct {
		base string
		key  []byte
		want string
	}{{"", nil, DefaultTaskQueue}, {"q", nil, "q"}, {"", k, DefaultTaskQueue + "-sealed-" + id}, {"team-a", k, "team-a-sealed-" + id}} {
		got := TaskQueue(c.base, c.key)
		if got != c.want || (Config{TaskQueue: c.base, Key: c.key}).Queue() != got {
			t.Errorf("TaskQueue(%q, key %v) = %q, want %q", c.base, c.key != nil, got, c.want)
		}
		if base, kid := splitQueue(got); kid != (map[bool]string{true: id}[c.key != nil]) || TaskQueue(base, c.key) != got {
			t.Errorf("splitQueue(%q) = %q %q", got, base, kid)
		}
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
