package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/trigger"
)

// loadRate is the offered load: signed deliveries a second.
const loadRate = 200

// BenchmarkWebhookLoad offers loadRate signed webhook deliveries a second
// on loopback, each iteration one second's worth, paced evenly, limits
// raised: weft serve for a workflow of three log steps, beside a plain Go
// HTTP handler (the same server, client and pacing; it answers 202 at
// once). Each reports the latency quantiles, the share answered 2xx and
// the rate held; weft serve's run also checks that every 2xx was answered
// by exactly one run and that no run came without one
// (docs/benchmarks.md has the figures):
//
//	go test -run '^$' -bench WebhookLoad -benchtime 5x ./backend/serve
func BenchmarkWebhookLoad(b *testing.B) {
	b.Run("weft-serve", func(b *testing.B) {
		e := newEnv(b, false)
		p := e.write("load.json", logWF(githubHook, ""))
		srv, err := e.load(trigger.Limits{PerSecond: 10 * loadRate, PerMinute: 600 * loadRate})
		if err != nil {
			b.Fatal(err)
		}
		hs := httptest.NewServer(srv.Handler())
		defer hs.Close()
		ok := offer(b, hs.URL+"/hooks/gh", true)
		srv.CloseWithin(time.Minute)
		runs, all := countRuns(b, p)
		if runs != ok || all != ok {
			b.Fatalf("%d deliveries answered 2xx, %d runs logged (%d succeeded, by trigger)", ok, all, runs)
		}
	})
	b.Run("plain-handler", func(b *testing.B) {
		hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusAccepted)
		}))
		defer hs.Close()
		offer(b, hs.URL, false)
	})
}

// offer sends loadRate deliveries a second for b.N seconds and reports
// what came back; it returns how many were answered 2xx.
func offer(b *testing.B, url string, sign bool) int {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 256}}
	total := b.N * loadRate
	lat := make([]time.Duration, total)
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	var sent time.Duration
	for i := range total {
		// Paced by the clock, not a ticker (which drops ticks when the
		// sender falls behind): a late request goes at once.
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / loadRate)))
		sent = time.Since(start)
		body := []byte(fmt.Sprintf(`{"repo":"r%d","n":%d}`, i, i))
		req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if sign {
			req.Header.Set(trigger.HeaderGitHubSignature, trigger.SignGitHub(secret, body))
			req.Header.Set(trigger.HeaderGitHubDelivery, fmt.Sprint("load-", i))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			res, err := client.Do(req)
			lat[i] = time.Since(t0)
			if err != nil {
				failed.Add(1)
				return
			}
			res.Body.Close()
			if res.StatusCode/100 == 2 {
				ok.Add(1)
			} else {
				failed.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	q := func(f float64) float64 { return float64(lat[int(f*float64(total-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.5), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(float64(lat[total-1].Microseconds())/1000, "max-ms")
	b.ReportMetric(float64(ok.Load())/float64(total), "2xx-share")
	b.ReportMetric(float64(total)/sent.Seconds(), "offered-req/s")
	b.ReportMetric(float64(ok.Load())/elapsed.Seconds(), "answered-2xx/s")
	if failed.Load() > 0 {
		b.Logf("%d of %d not answered 2xx", failed.Load(), total)
	}
	return int(ok.Load())
}

// countRuns reads the run folders beside the workflow at p: the runs a
// trigger started that succeeded, and all of them.
func countRuns(b *testing.B, p string) (byTrigger, all int) {
	b.Helper()
	dirs, err := filepath.Glob(filepath.Join(filepath.Dir(p), ".weft", "runs", "*", "summary.json"))
	if err != nil {
		b.Fatal(err)
	}
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			b.Fatal(err)
		}
		var s struct {
			Source  runner.RunSource `json:"source"`
			Outcome runner.Outcome   `json:"outcome"`
		}
		if err := json.Unmarshal(data, &s); err != nil {
			b.Fatal(err)
		}
		all++
		if s.Source == runner.RunByTrigger && s.Outcome == runner.OutcomeSucceeded {
			byTrigger++
		}
	}
	return byTrigger, all
}
