package redact

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestWriterSplitsAnywhere(t *testing.T) {
	r := New(key, "second-secret-value")
	text := "start " + key + " middle second-secret-value end " + key
	for cut1 := 0; cut1 <= len(text); cut1++ {
		for _, cut2 := range []int{cut1, (cut1 + len(text)) / 2, len(text)} {
			var buf bytes.Buffer
			w := r.NewWriter(&buf)
			for _, part := range []string{text[:cut1], text[cut1:cut2], text[cut2:]} {
				if n, err := w.Write([]byte(part)); err != nil || n != len(part) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			want := "start [REDACTED] middle [REDACTED] end [REDACTED]"
			if buf.String() != want {
				t.Fatalf("cuts %d,%d: got %q", cut1, cut2, buf.String())
			}
		}
	}
}

func TestWriterByteAtATime(t *testing.T) {
	r := New(key)
	var buf bytes.Buffer
	w := r.NewWriter(&buf)
	in := "x" + key + "y" + key[:12]
	for i := 0; i < len(in); i++ {
		w.Write([]byte{in[i]})
	}
	w.Flush()
	if got := buf.String(); got != "x[REDACTED]y[REDACTED]" {
		t.Errorf("got %q", got)
	}
}

func TestWriterShowsPromptsAtOnce(t *testing.T) {
	r := New(key)
	var buf bytes.Buffer
	w := r.NewWriter(&buf)
	w.Write([]byte("answer (retry, skip, abort): "))
	if buf.String() != "answer (retry, skip, abort): " {
		t.Errorf("a prompt that cannot start a secret was held back: %q", buf.String())
	}
	w.Write([]byte("token sk-te"))
	if buf.String() != "answer (retry, skip, abort): token " {
		t.Errorf("the possible start of a secret must be held back: %q", buf.String())
	}
	w.Write([]byte("rrible"))
	if !strings.HasSuffix(buf.String(), "token sk-terrible") {
		t.Errorf("held bytes must follow once they cannot be a secret: %q", buf.String())
	}
}

func TestWriterWithoutSecretsPassesThrough(t *testing.T) {
	r := New()
	var buf bytes.Buffer
	w := r.NewWriter(&buf)
	w.Write([]byte("abc"))
	if buf.String() != "abc" {
		t.Errorf("got %q", buf.String())
	}
	r.Add(key) // learned later: applies from now on
	w.Write([]byte(" " + key))
	w.Flush()
	if buf.String() != "abc [REDACTED]" {
		t.Errorf("got %q", buf.String())
	}
}

type failWriter struct{}

func (failWriter) Write(p []byte) (int, error) { return 0, errors.New("disk full") }

func TestWriterReportsErrors(t *testing.T) {
	w := New(key).NewWriter(failWriter{})
	if _, err := w.Write([]byte("hello\n")); err == nil {
		t.Fatal("no error from a failing writer")
	}
	if _, err := w.Write([]byte("again")); err == nil || w.Flush() == nil {
		t.Error("later writes must keep failing")
	}
}

func TestHandler(t *testing.T) {
	r := New(key)
	var buf bytes.Buffer
	log := slog.New(r.Handler(slog.NewJSONHandler(&buf, nil)))
	log.With("bound", "k="+key).WithGroup("g").Warn("calling with "+key,
		"header", "Bearer "+key, "err", errors.New("refused "+key), "n", 3,
		slog.Group("inner", "tok", key), "any", map[string]string{"t": key})
	out := buf.String()
	if strings.Contains(out, key) || strings.Contains(out, key[:12]) {
		t.Errorf("log line leaks: %s", out)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if m["bound"] != "k=[REDACTED]" || m["msg"] != "calling with [REDACTED]" {
		t.Errorf("log line %s", out)
	}
	if g := m["g"].(map[string]any); g["n"] != 3.0 || g["err"] != "refused [REDACTED]" {
		t.Errorf("group %v", g)
	}
	if !log.Enabled(t.Context(), slog.LevelInfo) {
		t.Error("Enabled must follow the wrapped handler")
	}
}
