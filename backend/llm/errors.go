package llm

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinels that classify every error a Client returns, for errors.Is.
// None of them means "the model wrote something unusable": those are
// content problems the caller detects itself. A caller that repairs bad
// model output should not spend a repair attempt on any of these.
var (
	// ErrConfig: the settings cannot work (empty base URL or model, bad
	// URL). Returned before any network traffic.
	ErrConfig = errors.New("llm: not configured")
	// ErrUnreachable: the endpoint could not be used after retries
	// (connection refused, timeouts, 408/409/429/5xx, broken streams).
	ErrUnreachable = errors.New("llm: endpoint unreachable")
	// ErrCircuitOpen: too many transport failures in a row; calls fail fast
	// for a cool-down. Errors of this kind also match ErrUnreachable.
	ErrCircuitOpen = errors.New("llm: circuit open")
	// ErrRejected: the endpoint refused the request with a 4xx other than
	// 408/409/429 (bad key, unknown model, bad request). Never retried.
	ErrRejected = errors.New("llm: request rejected")
	// ErrBadResponse: the endpoint answered 200 with something that is not
	// an OpenAI-compatible chat completion (wrong base URL, odd proxy).
	ErrBadResponse = errors.New("llm: malformed response")
	// ErrCanceled: the caller's context ended; the error also matches
	// context.Canceled or context.DeadlineExceeded.
	ErrCanceled = errors.New("llm: call canceled")
	// ErrRateLimited: the server kept answering 429 Too Many Requests, or
	// asked to wait longer than Weft waits. Errors of this kind also
	// match ErrUnreachable.
	ErrRateLimited = errors.New("llm: rate limited")
)

// Error is the type of every error Chat and TestConnection return. Its
// message is meant for the user and never contains the API key.
type Error struct {
	// Kind is one of the sentinels above.
	Kind error
	// Endpoint is the base URL (without credentials or query).
	Endpoint string
	// StatusCode and Status ("401 Unauthorized") are set when the server
	// answered with an HTTP error.
	StatusCode int
	Status     string
	// ServerMessage is the error message from the response body, if any
	// (shortened, API key removed).
	ServerMessage string
	// Reason is a short description of a transport fault, such as
	// "connection refused" or "no response within 30s".
	Reason string
	// Attempts is how many HTTP requests were made (0 when none were).
	Attempts int
	// RetryAfter is the last wait the server asked for, if any.
	RetryAfter time.Duration
	// Err is the underlying error, if any; errors.Is/As see it.
	Err error

	msg string
}

func (e *Error) Error() string {
	if e.msg != "" {
		return e.msg
	}
	return e.build()
}

// Is matches the Kind sentinel; circuit-open errors also match
// ErrUnreachable.
func (e *Error) Is(target error) bool {
	if target == nil {
		return false
	}
	if target == e.Kind {
		return true
	}
	return (e.Kind == ErrCircuitOpen || e.Kind == ErrRateLimited) && target == ErrUnreachable
}

func (e *Error) Unwrap() error { return e.Err }

// build renders the user-facing message from the fields.
func (e *Error) build() string {
	ep := e.Endpoint
	switch e.Kind {
	case ErrConfig:
		return "LLM not configured: " + e.Reason + "; set it in Preferences → Model"
	case ErrRejected:
		var b strings.Builder
		fmt.Fprintf(&b, "LLM at %s rejected the request: %s", ep, e.Status)
		if e.ServerMessage != "" {
			b.WriteString(": " + e.ServerMessage)
		}
		b.WriteString("; " + rejectHint(e.StatusCode))
		return b.String()
	case ErrBadResponse:
		return fmt.Sprintf("LLM at %s sent a response that is not an OpenAI-compatible chat completion: %s; check the base URL in Preferences → Model", ep, e.Reason)
	case ErrCanceled:
		if e.Err != nil {
			return fmt.Sprintf("LLM call to %s canceled: %v", ep, e.Err)
		}
		return fmt.Sprintf("LLM call to %s canceled", ep)
	case ErrCircuitOpen:
		if e.StatusCode >= 500 || serverErrorReason(e.Reason) {
			return fmt.Sprintf("LLM at %s keeps failing with a server error: %s; Weft waits before asking it again (check the server or Preferences → Model)", ep, e.Reason)
		}
		return fmt.Sprintf("LLM at %s unreachable: %s; check Preferences → Model", ep, e.Reason)
	case ErrRateLimited:
		s := fmt.Sprintf("LLM at %s rate limited the request: %s", ep, e.Reason)
		if e.Attempts > 1 {
			s += fmt.Sprintf(" (%d attempts)", e.Attempts)
		}
		return s
	default: // ErrUnreachable
		s := fmt.Sprintf("LLM at %s unreachable: %s", ep, e.Reason)
		if e.StatusCode >= 500 || e.StatusCode == 408 {
			// It answered: reachable, but failing (a 500 is not a wrong URL).
			s = fmt.Sprintf("LLM at %s answered with a server error: %s", ep, e.Reason)
			if e.Attempts > 1 {
				s += fmt.Sprintf(" (%d attempts)", e.Attempts)
			}
			return s + "; the model server failed, not the request: try again, or look at the server's log"
		}
		if e.Attempts > 1 {
			s += fmt.Sprintf(" (%d attempts)", e.Attempts)
		}
		return s + "; check Preferences → Model"
	}
}

// serverErrorReason reports whether a fault's reason is an HTTP 5xx
// status ("500 Internal Server Error: down").
func serverErrorReason(r string) bool {
	return len(r) >= 4 && r[0] == '5' && r[1] >= '0' && r[1] <= '9' && r[2] >= '0' && r[2] <= '9' && r[3] == ' '
}

func rejectHint(status int) string {
	switch status {
	case 401, 403:
		return "check the API key in Preferences → Model"
	case 404:
		return "check the base URL (usually ending in /v1) and the model name in Preferences → Model"
	default:
		return "check Preferences → Model"
	}
}

// IsEndpointError reports whether err is about reaching or configuring the
// endpoint (any Error from this package other than a cancellation), as
// opposed to a problem with what the model wrote.
func IsEndpointError(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind != ErrCanceled
}

// redactor removes secrets from text that goes into errors and logs.
type redactor struct{ secrets []string }

func newRedactor(key string) redactor {
	var r redactor
	if k := strings.TrimSpace(key); k != "" {
		r.secrets = append(r.secrets, k)
		// Servers often echo a key with only its middle masked; hide the
		// recognisable tail and head as well when the key is long enough.
		if len(k) >= 16 {
			r.secrets = append(r.secrets, k[:len(k)/2], k[len(k)/2:])
		}
	}
	return r
}

func (r redactor) clean(s string) string {
	for _, sec := range r.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// finish renders e.msg with secrets removed, so Error() is stable and safe.
func (r redactor) finish(e *Error) *Error {
	e.ServerMessage = r.clean(e.ServerMessage)
	e.Reason = r.clean(e.Reason)
	e.msg = r.clean(e.build())
	if e.Err != nil {
		e.Err = redactedErr{err: e.Err, r: r}
	}
	return e
}

// redactedErr keeps errors.Is/As working on the cause while scrubbing its
// text.
type redactedErr struct {
	err error
	r   redactor
}

func (x redactedErr) Error() string { return x.r.clean(x.err.Error()) }
func (x redactedErr) Unwrap() error { return x.err }
