package llm

import (
	"net/http"
	"testing"
	"time"
)

func TestParseRetryAfterGuards(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		header, value string
		want          time.Duration
		ok            bool
	}{
		{"Retry-After", "3", 3 * time.Second, true},
		{"Retry-After", "0.5", 500 * time.Millisecond, true},
		{"Retry-After", "-5", 0, false},
		{"Retry-After", "NaN", 0, false},
		{"Retry-After", "Inf", 24 * time.Hour, true},
		{"Retry-After", "1e300", 24 * time.Hour, true},
		{"Retry-After", "99999999999999999999", 24 * time.Hour, true},
		{"Retry-After", "soon", 0, false},
		{"Retry-After", "Tue, 24 Nov 2026 12:01:00 GMT", time.Minute, true},
		{"Retry-After", "Tue, 24 Nov 2020 12:01:00 GMT", 0, true},
		{"Retry-After-Ms", "1500", 1500 * time.Millisecond, true},
		{"Retry-After-Ms", "1e300", 24 * time.Hour, true},
		{"Retry-After-Ms", "-1", 0, false},
		{"Retry-After-Ms", "NaN", 0, false},
		{"X-Ratelimit-Reset-Requests", "6m0s", 6 * time.Minute, true},
		{"X-Ratelimit-Reset-Requests", "-1s", 0, false},
		{"X-Ratelimit-Reset-Requests", "9999999h", 0, false}, // overflows: ignored
		{"X-Ratelimit-Reset-Requests", "48h", 24 * time.Hour, true},
	} {
		h := http.Header{}
		h.Set(tc.header, tc.value)
		got, ok := parseRetryAfter(h, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: %s = %v %t, want %v %t", tc.header, tc.value, got, ok, tc.want, tc.ok)
		}
	}
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "1e300", "NaN", "-1", "Tue, 24 Nov 2026 12:01:00 GMT", "6m0s"} {
		f.Add(s, s, s)
	}
	now := time.Now()
	f.Fuzz(func(t *testing.T, ra, ms, reset string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", ms)
		h.Set("X-Ratelimit-Reset-Requests", reset)
		if d, _ := parseRetryAfter(h, now); d < 0 || d > maxRetryAfterHeader {
			t.Fatalf("%q %q %q → %v", ra, ms, reset, d)
		}
	})
}
