package temporal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
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
// only ciphertext.

// EnvKey holds the payload key: 32 bytes, base64.
const EnvKey = "WEFT_TEMPORAL_KEY"

const encodingSealed = "binary/weft-aes256gcm"

// ParseKey reads a base64 key of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%s must be 32 random bytes in base64 (head -c 32 /dev/urandom | base64)", EnvKey)
	}
	return b, nil
}

type sealCodec struct{ aead cipher.AEAD }

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
	return sealCodec{aead: aead}, nil
}

// DataConverter seals payloads with the key; nil key: the default one.
func DataConverter(key []byte) (converter.DataConverter, error) {
	if key == nil {
		return converter.GetDefaultDataConverter(), nil
	}
	c, err := NewSealCodec(key)
	if err != nil {
		return nil, err
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
			Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingSealed)},
			Data:     c.aead.Seal(nonce, nonce, plain, nil),
		}
	}
	return out, nil
}

// ErrNoKey is what a process without the key meets on sealed payloads.
var ErrNoKey = errors.New("the run's data is sealed with a key (" + EnvKey + ") this process does not have")

func (c sealCodec) Decode(ps []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(ps))
	for i, p := range ps {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != encodingSealed {
			out[i] = p // written before the key was set
			continue
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
