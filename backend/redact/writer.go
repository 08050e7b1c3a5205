package redact

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// Writer redacts a stream on its way to another writer. A secret may be
// split across Write calls, so the longest tail of what was written that
// could be the start of a secret is held back until more arrives or Flush
// (or Close) is called; everything else is passed on at once, so a prompt
// that ends in ": " is shown at once. It is safe for concurrent use.
type Writer struct {
	r *Redactor
	w io.Writer

	mu      sync.Mutex
	pending []byte
	err     error
}

// NewWriter returns a Writer that redacts with r (secrets added to r later
// apply from then on) and writes to w.
func (r *Redactor) NewWriter(w io.Writer) *Writer { return &Writer{r: r, w: w} }

// Write accepts all of p; an error is one from the underlying writer,
// after which every Write fails.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return 0, w.err
	}
	st := w.r.load()
	if st == nil && len(w.pending) == 0 {
		if _, err := w.w.Write(p); err != nil {
			w.err = err
			return 0, err
		}
		return len(p), nil
	}
	w.pending = append(w.pending, p...)
	if st == nil {
		return len(p), w.flushLocked(nil, 0)
	}
	text := string(w.pending)
	cut := len(text) - st.heldBack(text)
	// A secret that crosses the cut must stay whole on one side of it.
	for _, s := range st.find(text, 0, nil) {
		if s.from < cut && cut < s.to {
			cut = s.from
			break
		}
	}
	out, _ := st.redact(text[:cut], 0)
	if _, err := io.WriteString(w.w, out); err != nil {
		w.err = err
		return 0, err
	}
	w.pending = append(w.pending[:0], text[cut:]...)
	return len(p), nil
}

// Flush writes what is held back, treating it as the end of the text (a
// cut-off piece of a secret at its end is removed).
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.flushLocked(w.r.load(), edgeEnd)
}

// Close flushes; it does not close the underlying writer.
func (w *Writer) Close() error { return w.Flush() }

func (w *Writer) flushLocked(st *set, e edges) error {
	if len(w.pending) == 0 {
		return nil
	}
	out := string(w.pending)
	if st != nil {
		out, _ = st.redact(out, e)
	}
	w.pending = w.pending[:0]
	if _, err := io.WriteString(w.w, out); err != nil {
		w.err = err
		return err
	}
	return nil
}

// heldBack is the length of the longest tail of text that is a proper
// prefix of some secret.
func (st *set) heldBack(text string) int {
	h := 0
	for i := range st.forms {
		f := &st.forms[i]
		if len(f.s)-1 <= h {
			break // forms are longest first: none after this one can beat h
		}
		h = max(h, f.prefixAtEnd(text, 1))
	}
	return h
}

// Handler wraps a slog.Handler so that log messages and attribute values
// are redacted before h formats them: a text or JSON handler would quote a
// secret in ways a Writer under it might not recognise. Attributes bound
// with WithAttrs are redacted with the secrets known at that time.
func (r *Redactor) Handler(h slog.Handler) slog.Handler { return &handler{r: r, h: h} }

type handler struct {
	r *Redactor
	h slog.Handler
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	if h.r.Empty() {
		return h.h.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.r.attr(a, 0))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.r.attr(a, 0)
	}
	return &handler{r: h.r, h: h.h.WithAttrs(red)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{r: h.r, h: h.h.WithGroup(name)}
}

func (r *Redactor) attr(a slog.Attr, depth int) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, r.String(v.String()))
	case slog.KindGroup:
		if depth > maxDepth {
			return slog.String(a.Key, Placeholder)
		}
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, x := range g {
			out[i] = r.attr(x, depth+1)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, r.String(err.Error()))
		}
		if s := fmt.Sprint(v.Any()); r.Contains(s) {
			return slog.String(a.Key, r.String(s))
		}
	}
	return a
}
