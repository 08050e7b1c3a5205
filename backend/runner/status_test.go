package runner

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
)

// A flaky command without verify: its non-zero exits fail the attempts and
// are retried (on main before issue 10 it read "ok" on the first try).
func TestFlakyCommandRetriedWithoutVerify(t *testing.T) {
	e := newEnv(t)
	e.write("flaky.sh", flakyScript)
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, `"nodes":[
 {"id":"f","key":"flaky","type":"Tool","params":{"tool":"run_command","arguments":{"command":"sh flaky.sh"}},"retry":{"max_attempts":4}},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{flaky.stdout}}"}}}],
 "edges":[{"from":"f","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	fails := e.rec.of(EvFailure)
	if len(fails) != 2 || fails[0].Failure.FailureType != failure.FailExecution || fails[0].Failure.Category != failure.CatNetwork {
		t.Fatalf("failures %+v", fails)
	}
	if !strings.Contains(fails[0].Failure.Error, "exit status 1") || !strings.Contains(fails[0].Failure.Error, "connection reset") {
		t.Errorf("error %q should name the status and stderr", fails[0].Failure.Error)
	}
	if got := e.rec.logs(); len(got) != 1 || !strings.Contains(got[0], "ok on try 3") {
		t.Fatalf("logs %q", got)
	}
}

func TestExitStatusClassified(t *testing.T) {
	for _, tc := range []struct {
		name, command string
		cat           failure.Category
		retryable     bool
		inError       string
	}{
		{"not found", "definitely-not-a-command-xyz", failure.CatDependency, false, "exit status 127"},
		{"not executable", "printf 'x' > noexec.sh; chmod 0644 noexec.sh; ./noexec.sh", failure.CatPermission, false, "exit status 126"},
		{"killed", "kill -9 $$", failure.CatResource, true, "signal 9"},
		{"terminated", "kill -15 $$", failure.CatUnknown, true, "signal 15"},
		{"plain failure", "exit 3", failure.CatUnknown, true, "exit status 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			res := e.run(parse(t, fmt.Sprintf(`"nodes":[{"id":"c","key":"cmd","type":"Tool","params":{"tool":"run_command","arguments":{"command":%q}}}],"edges":[]`, tc.command)))
			wantOutcome(t, res, OutcomeFailed)
			fails := e.rec.of(EvFailure)
			if len(fails) == 0 {
				t.Fatal("no failure")
			}
			f := fails[0].Failure
			if f.Category != tc.cat || f.Retryable != tc.retryable || !strings.Contains(f.Error, tc.inError) {
				t.Errorf("got %s retryable=%t %q; want %s retryable=%t containing %q", f.Category, f.Retryable, f.Error, tc.cat, tc.retryable, tc.inError)
			}
			if res.Summary.Failed != 1 {
				t.Errorf("summary failed = %d, want 1", res.Summary.Failed)
			}
		})
	}
}

func TestOkExitCodesAndVerifyReplaceTheDefault(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"grep","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo abc | grep -q zzz","ok_exit_codes":[0,1]}}},
 {"id":"b","key":"diff","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}},"verify":"diff.exit_code == 2"},
 {"id":"c","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{grep.exit_code}} {{diff.exit_code}}"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); len(got) != 1 || got[0] != "1 2" {
		t.Fatalf("logs %q", got)
	}
	// A status outside ok_exit_codes still fails; a signal fails even with verify.
	for _, node := range []string{
		`{"id":"a","key":"x","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2","ok_exit_codes":[0,1]}}}`,
		`{"id":"a","key":"x","type":"Tool","params":{"tool":"run_command","arguments":{"command":"kill -9 $$"}},"verify":"true"}`,
	} {
		e := newEnv(t)
		res := e.run(parse(t, `"nodes":[`+node+`],"edges":[]`))
		wantOutcome(t, res, OutcomeFailed)
	}
	// Bad lists are argument errors.
	for _, bad := range []any{"abc", []any{256.0}, []any{-1.0}, []any{1.5}, map[string]any{}} {
		_, err := call(t, t.TempDir(), "run_command", map[string]any{"command": "true", "ok_exit_codes": bad})
		var ae *ArgError
		if !errors.As(err, &ae) {
			t.Errorf("ok_exit_codes %v: %v", bad, err)
		}
	}
}

func TestHTTPStatusFailsTheStep(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch r.URL.Path {
		case "/missing":
			http.Error(w, "no such thing", http.StatusNotFound)
		case "/flaky":
			if n%3 != 0 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "fine")
		case "/limited":
			if hits.Load() == 1 {
				w.Header().Set("Retry-After", "2")
				http.Error(w, "slow down", http.StatusTooManyRequests)
				return
			}
			fmt.Fprint(w, "fine")
		case "/hour":
			w.Header().Set("Retry-After", "3600")
			http.Error(w, "come back later", http.StatusTooManyRequests)
		}
	}))
	defer srv.Close()
	node := func(path, extra string) string {
		return fmt.Sprintf(`"nodes":[{"id":"h","key":"req","type":"Tool","params":{"tool":"http_request","arguments":{"method":"GET","url":"%s%s"%s}},"retry":{"max_attempts":3,"backoff":{"initial_ms":10}}}],"edges":[]`, srv.URL, path, extra)
	}

	t.Run("404 fails, not retried", func(t *testing.T) {
		hits.Store(0)
		e := newEnv(t)
		res := e.run(parse(t, node("/missing", "")))
		wantOutcome(t, res, OutcomeFailed)
		f := e.rec.of(EvFailure)
		if len(f) != 1 || f[0].Failure.Category != failure.CatNotFound || f[0].Failure.Retryable || !strings.Contains(f[0].Failure.Error, "404") {
			t.Fatalf("failures %+v", f)
		}
	})
	t.Run("404 allowed by ok_status", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, node("/missing", `,"ok_status":[404]`)))
		wantOutcome(t, res, OutcomeSucceeded)
		if res.Outputs["req"].(map[string]any)["status"] != 404 {
			t.Fatalf("outputs %v", res.Outputs)
		}
	})
	t.Run("503 retried", func(t *testing.T) {
		hits.Store(0)
		e := newEnv(t)
		var sl sleeps
		e.opts.Sleep = sl.sleep
		res := e.run(parse(t, node("/flaky", "")))
		wantOutcome(t, res, OutcomeSucceeded)
		if len(e.rec.of(EvFailure)) != 2 {
			t.Fatalf("failures %d", len(e.rec.of(EvFailure)))
		}
	})
	t.Run("429 waits Retry-After", func(t *testing.T) {
		hits.Store(0)
		e := newEnv(t)
		var sl sleeps
		e.opts.Sleep = sl.sleep
		res := e.run(parse(t, node("/limited", "")))
		wantOutcome(t, res, OutcomeSucceeded)
		if len(sl.d) != 1 || sl.d[0] < 2*time.Second {
			t.Fatalf("waits %v, want at least the server's 2s", sl.d)
		}
	})
	t.Run("Retry-After longer than the cap escalates at once", func(t *testing.T) {
		e := newEnv(t)
		var sl sleeps
		e.opts.Sleep = sl.sleep
		res := e.run(parse(t, node("/hour", "")))
		wantOutcome(t, res, OutcomeFailed)
		f := e.rec.of(EvFailure)
		if len(sl.d) != 0 || len(f) != 1 || f[0].Failure.Retryable || !strings.Contains(f[0].Failure.SuggestedFix, "retry after") {
			t.Fatalf("waits %v failures %+v", sl.d, f)
		}
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-5":                            0,
		"NaN":                           0,
		"Inf":                           24 * time.Hour,
		"1e300":                         24 * time.Hour,
		"99999999999999999999999":       24 * time.Hour,
		"garbage":                       0,
		"Tue, 24 Nov 2026 12:01:00 GMT": time.Minute,
		"Tue, 24 Nov 2020 12:01:00 GMT": 0,
		strings.Repeat("9", 100):        0,
	} {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "1e300", "NaN", "-1", "Tue, 24 Nov 2026 12:01:00 GMT"} {
		f.Add(s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, s string) {
		if d := parseRetryAfter(s, now); d < 0 || d > 24*time.Hour {
			t.Fatalf("%q → %v", s, d)
		}
	})
}
