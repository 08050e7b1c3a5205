package redact

import (
	"bytes"
	"fmt"
	"testing"
)

// The runner redacts every string of every event, so the cost of a text
// with no secret in it is what matters most.

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New("sk-abcdef123456", "other-secret")
	}
}

func BenchmarkStringClean(b *testing.B) {
	r := New("sk-abcdef123456", "other-secret")
	for b.Loop() {
		r.String("a normal line of output with nothing in it")
	}
}

func BenchmarkString(b *testing.B) {
	r := New("sk-abcdef123456", "other-secret")
	for b.Loop() {
		r.String("token sk-abcdef123456 end other-secret")
	}
}

func BenchmarkWriter(b *testing.B) {
	r := New("sk-abcdef123456", "other-secret")
	text := "token sk-abcdef123456 end other-secret"
	for b.Loop() {
		var buf bytes.Buffer
		w := r.NewWriter(&buf)
		w.Write([]byte(text[:10]))
		w.Write([]byte(text[10:]))
		w.Close()
	}
}

// A run can learn up to MaxSecrets secrets one at a time.
func BenchmarkAddOneByOne(b *testing.B) {
	for b.Loop() {
		r := New()
		for i := 0; i < MaxSecrets; i++ {
			r.Add(fmt.Sprintf("secret-%06d", i))
		}
	}
}
