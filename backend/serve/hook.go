package serve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/trigger"
)

// hook is one webhook trigger.
type hook struct {
	base
	// verify holds the secret's value: it is opened only here, where a
	// delivery's signature is checked.
	verify func(h http.Header, body []byte, now time.Time) (trigger.Delivery, error)
}

func newHook(b base, secret []byte) *hook {
	scheme, tol := b.t.Scheme, b.s.cfg.Tolerance
	return &hook{base: b, verify: func(h http.Header, body []byte, now time.Time) (trigger.Delivery, error) {
		return trigger.Verify(scheme, secret, h, body, now, tol)
	}}
}

// Answer is the JSON body of every answer: what became of the delivery.
type Answer struct {
	RunID string `json:"run_id,omitempty"`
	Error string `json:"error,omitempty"`
	// Inputs, for a 400 for the inputs, say which input and why.
	Inputs any `json:"inputs,omitempty"`
}

func answer(w http.ResponseWriter, status int, a Answer) {
	w.Header().Set("Content-Type", "application/json")
	if status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(a)
}

// Handler answers the webhooks: 202 with the run's id when a run
// started, else a status that says why not: 404 no trigger at that path,
// 405 not a POST, 413 a body over the bound, 401 unsigned or badly
// signed (a stale Stripe timestamp too), 400 a body the inputs cannot be
// read from or that does not fit them, 429 over the trigger's limits,
// 409 a delivery handled already, 503 a run that could not start (the
// workflow changed since serve started, a step waits for approval).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, ok := s.hooks[r.URL.Path]
		if !ok {
			answer(w, http.StatusNotFound, Answer{Error: "no trigger answers at " + r.URL.Path})
			return
		}
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			answer(w, http.StatusMethodNotAllowed, Answer{Error: "a webhook is a POST"})
			return
		}
		h.serve(w, r)
	})
}

func (h *hook) serve(w http.ResponseWriter, r *http.Request) {
	log := h.s.cfg.Log.With("trigger", h.t.Path, "workflow", h.e.path)
	refuse := func(status int, a Answer) {
		log.Info("delivery refused", "status", status, "why", a.Error)
		answer(w, status, a)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.s.cfg.MaxBody))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		refuse(http.StatusRequestEntityTooLarge, Answer{Error: "the body is larger than weft serve takes (--max-body)"})
		return
	case err != nil:
		refuse(http.StatusBadRequest, Answer{Error: "the body could not be read: " + err.Error()})
		return
	}
	now := h.s.cfg.Now()
	d, err := h.verify(r.Header, body, now)
	if err != nil {
		refuse(http.StatusUnauthorized, Answer{Error: err.Error()})
		return
	}
	values, err := trigger.Fill(&h.t, h.e.schema, body, "")
	if err != nil {
		refuse(http.StatusBadRequest, Answer{Error: err.Error()})
		return
	}
	if err := h.lim.Take(now); err != nil {
		refuse(http.StatusTooManyRequests, Answer{Error: err.Error()})
		return
	}
	if err := h.seen.Claim(d.Keys, now); err != nil {
		h.lim.Done()
		status := http.StatusConflict
		if !errors.Is(err, trigger.ErrSeen) {
			status = http.StatusInternalServerError
		}
		refuse(status, Answer{Error: "this delivery was handled already (the same delivery id or signature): " + err.Error()})
		return
	}
	res, err := h.start(r.Context(), values, nil)
	if err == nil && res.Started {
		log.Info("delivery started a run", "run_id", res.RunID)
		answer(w, http.StatusAccepted, Answer{RunID: res.RunID})
		return
	}
	// Nothing ran: the sender may try the same delivery again.
	_ = h.seen.Release(d.Keys, now)
	switch {
	case err != nil:
		refuse(http.StatusServiceUnavailable, Answer{Error: err.Error()})
	case len(res.InputProblems) > 0:
		refuse(http.StatusBadRequest, Answer{Error: res.Error, Inputs: res.InputProblems})
	default:
		refuse(http.StatusServiceUnavailable, Answer{Error: strings.TrimSpace("the run did not start: " + res.Error)})
	}
	log.Debug("start result", "result", logValue(res))
}
