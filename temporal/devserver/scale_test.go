package devserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	wtemporal "github.com/weft-dev/weft/backend/temporal"
)

// TestScale measures N runs of a 10-step workflow on the local engine
// and on the embedded Temporal server with 1, 2 and 4 workers (each a
// `weft worker` process), for docs/benchmarks.md. It runs only with
// WEFT_SCALE_RUNS=N (for example 1000): it takes minutes.
func TestScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("WEFT_SCALE_RUNS"))
	if n <= 0 {
		t.Skip("set WEFT_SCALE_RUNS=N to measure")
	}
	var nodes, edges []string
	for i := 0; i < 10; i++ {
		nodes = append(nodes, fmt.Sprintf(`{"id":"s%d","key":"s%d","type":"Tool","params":{"tool":"log","arguments":{"message":"step %d of {{s0.success}}"}}}`, i, i, i))
		if i > 0 {
			edges = append(edges, fmt.Sprintf(`{"from":"s%d","to":"s%d"}`, i-1, i))
		}
	}
	doc := parse(t, `"nodes":[`+strings.Join(nodes, ",")+`],"edges":[`+strings.Join(edges, ",")+`]`)
	dir := t.TempDir()
	fmt.Printf("\n%d runs of a 10-step workflow (log steps), on %d CPUs\n", n, cpus())
	fmt.Printf("%-22s %10s %10s %10s %14s\n", "engine", "runs/s", "p50", "p95", "worker CPU/step")

	// Local: the runner in this process, one run after another (as the
	// app and weft run do).
	rn := runner.New(runner.Options{Settings: settings.Defaults(), RunsDir: filepath.Join(dir, "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "p.jsonl")}, Dir: dir})
	var lat []time.Duration
	cpu0 := selfCPU()
	start := time.Now()
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if res, err := rn.Run(context.Background(), doc); err != nil || res.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("local run: %v %+v", err, res)
		}
		lat = append(lat, time.Since(t0))
	}
	report("local (sequential)", n, time.Since(start), lat, (selfCPU()-cpu0)/time.Duration(n*10))

	for _, workers := range []int{1, 2, 4} {
		ts := temporaltest.NewServer(temporaltest.WithT(t))
		addr, ns, q := ts.GetFrontendHostPort(), ts.GetDefaultNamespace(), fmt.Sprintf("weft-scale-%d", workers)
		var pids []int
		for w := 0; w < workers; w++ {
			cmd, _ := proc(t, t.TempDir(), "worker", "--temporal-address", addr, "--namespace", ns, "--task-queue", q)
			pids = append(pids, cmd.Process.Pid)
		}
		c := ts.NewClientWithOptions(client.Options{})
		eng := &wtemporal.Engine{Client: c, Config: wtemporal.Config{TaskQueue: q}}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		// Warm up: every worker polls before the clock starts.
		if id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir}); err != nil {
			t.Fatal(err)
		} else if _, err := eng.Result(ctx, id); err != nil {
			t.Fatal(err)
		}
		cpuBefore := procCPU(pids)
		lat = make([]time.Duration, n)
		var wg sync.WaitGroup
		start := time.Now()
		for i := 0; i < n; i++ {
			t0 := time.Now()
			id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func(i int, id string, t0 time.Time) {
				defer wg.Done()
				res, err := eng.Result(ctx, id)
				if err != nil || res.Outcome != runner.OutcomeSucceeded {
					t.Errorf("run %s: %v", id, err)
				}
				lat[i] = time.Since(t0)
			}(i, id, t0)
		}
		wg.Wait()
		report(fmt.Sprintf("temporal, %d worker(s)", workers), n, time.Since(start), lat, (procCPU(pids)-cpuBefore)/time.Duration(n*10))
		cancel()
		ts.Stop()
	}
}

func report(name string, n int, total time.Duration, lat []time.Duration, perStep time.Duration) {
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	fmt.Printf("%-22s %10.1f %10s %10s %14s\n", name, float64(n)/total.Seconds(), q(0.5).Round(time.Millisecond), q(0.95).Round(time.Millisecond), perStep.Round(time.Microsecond))
}

func cpus() int {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return strings.Count(string(b), "processor\t:")
}

// procCPU is the user+system CPU time the processes used so far.
func procCPU(pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		total += time.Duration(ut+st) * time.Second / 100 // USER_HZ
	}
	return total
}

func selfCPU() time.Duration { return procCPU([]int{os.Getpid()}) }
