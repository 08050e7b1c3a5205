package temporal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// Step outputs, variables and arguments travel through the Temporal
// history, which the service stores and its operators can read. With a
// key (EnvKey, shared by the workers and the clients) every payload is
// sealed with AES-256-GCM before it leaves the process: the service keeps
// only ciphertext. A process with a key reads only payloads sealed with
// it: an unsealed signal from a process without the key (an escalation's
// answer, a query's argument) is refused, not acted on. A process without
// a key refuses sealed payloads, naming the key they need.

// EnvKey holds the payload key: 32 bytes, base64.
const EnvKey = "WEFT_TEMPORAL_KEY"

const (
	encodingSealed = "binary/weft-aes256gcm"
	// metaKeyID names the key a payload is sealed with (KeyID), so a
	// process that cannot open it says which key it needs.
	metaKeyID = "weft-key-id"
)

// ParseKey reads a base64 key of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%s must be 32 random bytes in base64 (head -c 32 /dev/urandom | base64)", EnvKey)
	}
	return b, nil
}

// KeyID names a key without revealing it: the first 8 bytes, in hex, of
// SHA-256 over a label and the key. Sealed payloads and the sealed task
// queue (TaskQueue) carry it.
func KeyID(key []byte) string {
	h := sha256.New()
	h.Write([]byte("weft temporal payload key id\x00"))
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// SealError is a payload this process refuses: sealed with a key it does
// not have, or not sealed while it has a key.
type SealError struct {
	// Sealed says the payload is sealed; PayloadKey is the id of its key
	// ("" when it is not sealed, or sealed before ids were recorded).
	Sealed     bool
	PayloadKey string
	// OwnKey is this process's key id ("" when it has none).
	OwnKey string
}

func (e *SealError) Error() string {
	theirs := e.PayloadKey
	if theirs == "" {
		theirs = "(id not recorded)"
	}
	switch {
	case !e.Sealed:
		return fmt.Sprintf("data that is not sealed is refused: this process has payload key %s (%s) and reads only data sealed with it (it came from a process without the key)", e.OwnKey, EnvKey)
	case e.OwnKey == "":
		return fmt.Sprintf("the run's data is sealed with payload key %s, which this process does not have (set %s to that key)", theirs, EnvKey)
	default:
		return fmt.Sprintf("the run's data is sealed with payload key %s; this process has key %s (another %s)", theirs, e.OwnKey, EnvKey)
	}
}

type sealCodec struct {
	aead cipher.AEAD
	id   string
}

// NewSealCodec is the payload codec of a key.
func NewSealCodec(key []byte) (converter.PayloadCodec, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return sealCodec{aead: aead, id: KeyID(key)}, nil
}

// DataConverter seals payloads with the key; nil key: they go as they
// are, and sealed ones are refused with the key they need.
func DataConverter(key []byte) (converter.DataConverter, error) {
	var c converter.PayloadCodec = keylessCodec{}
	if key != nil {
		var err error
		if c, err = NewSealCodec(key); err != nil {
			return nil, err
		}
	}
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c), nil
}

func (c sealCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, c.aead.NonceSize())
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingSealed), metaKeyID: []byte(c.id)},
			Data:     c.aead.Seal(nonce, nonce, plain, nil),
		}
	}
	return out, nil
}

func sealed(p *commonpb.Payload) bool {
	return string(p.GetMetadata()[converter.MetadataEncoding]) == encodingSealed
}

func (c sealCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if !sealed(p) {
			return nil, &SealError{OwnKey: c.id}
		}
		theirs := string(p.GetMetadata()[metaKeyID])
		if theirs != "" && theirs != c.id {
			return nil, &SealError{Sealed: true, PayloadKey: theirs, OwnKey: c.id}
		}
		n := c.aead.NonceSize()
		if len(p.Data) < n {
			return nil, errors.New("a sealed payload is too short")
		}
		plain, err := c.aead.Open(nil, p.Data[:n], p.Data[n:], nil)
		if err != nil {
			return nil, fmt.Errorf("a sealed payload does not open with this key (another %s, or changed in the history): %w", EnvKey, err)
		}
		var q commonpb.Payload
		if err := proto.Unmarshal(plain, &q); err != nil {
			return nil, err
		}
		out[i] = &q
	}
	return out, nil
}

// keylessCodec is a process without a key: payloads go as they are; a
// sealed one is refused with the key it needs.
type keylessCodec struct{}

func (keylessCodec) Encode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) { return ps, nil }

func (keylessCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	for _, p := range ps {
		if sealed(p) {
			return nil, &SealError{Sealed: true, PayloadKey: string(p.GetMetadata()[metaKeyID])}
		}
	}
	return ps, nil
}
