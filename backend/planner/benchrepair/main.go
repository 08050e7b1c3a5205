// Command benchrepair prints the planning-and-repair figures of
// docs/benchmarks.md (`make bench-repair`): the local recovery rate over
// the reply corpus, a simulated flaky model against the reference design
// that re-asks on any parse error, and the pipeline's CPU time.
//
//	go run ./backend/planner/benchrepair [-corpus DIR] [-plans 1000] [-seed 1] [-broken 0.3]
//
// It exits 1 when the corpus targets are missed (recovery below 95%, or a
// valid reply altered).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

const recoveryTarget = 0.95

func main() {
	corpus := flag.String("corpus", defaultCorpus(), "directory of the reply corpus (NAME.txt + NAME.expect.json)")
	plans := flag.Int("plans", 1000, "plans in the flaky-model simulation")
	seed := flag.Uint64("seed", 1, "random seed of the simulation")
	broken := flag.Float64("broken", 0.3, "share of broken replies in the simulation")
	attempts := flag.Int("max-repair-attempts", 3, "Weft's max_repair_attempts in the simulation")
	flag.Parse()

	cases, err := planner.LoadBenchCorpus(*corpus)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrepair:", err)
		os.Exit(2)
	}
	ok := true

	fmt.Printf("Planning and repair benchmark (%s/%s, %d CPU)\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
	fmt.Printf("corpus: %s (%d replies)\n\n", *corpus, len(cases))

	r := planner.BenchRecovery(cases)
	fmt.Println("Local recovery (replies expected to parse, answered once):")
	fmt.Printf("  recoverable replies:              %d\n", r.Recoverable)
	fmt.Printf("  valid plan without a second call: %d (%.1f%%, target ≥ %.0f%%)\n", r.Recovered, 100*r.Rate(), 100*recoveryTarget)
	if len(r.NeedReask) > 0 {
		fmt.Printf("  needed a second call:             %s\n", strings.Join(r.NeedReask, ", "))
	}
	fmt.Printf("  valid replies checked:            %d\n", r.ValidInputs)
	fmt.Printf("  valid replies altered:            %d (must be 0)\n", len(r.Altered))
	for _, a := range r.Altered {
		fmt.Printf("    %s\n", a)
	}
	if r.Rate() < recoveryTarget || len(r.Altered) > 0 {
		ok = false
	}

	fmt.Printf("\nSimulated flaky model (%d plans, seed %d, %.0f%% of replies broken with defects drawn from the corpus):\n", *plans, *seed, 100**broken)
	fmt.Printf("  %-80s %8s %12s %15s\n", "mode", "success", "first call", "mean LLM calls")
	for _, enforced := range []bool{false, true} {
		weft, base, err := planner.BenchSimulate(cases, planner.SimConfig{Plans: *plans, BrokenRate: *broken, Seed: *seed, MaxAttempts: *attempts, Enforced: enforced})
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchrepair:", err)
			os.Exit(2)
		}
		for _, s := range []planner.SimResult{weft, base} {
			fmt.Printf("  %-80s %7.1f%% %11.1f%% %15.3f\n", s.Mode, 100*s.SuccessRate(), 100*s.FirstCallRate(), s.MeanCalls())
		}
	}

	fmt.Println("\nPipeline time per plan (ParseOutput + Validate of a valid reply):")
	cat := tools.Builtin()
	opts := planner.ParseOptions{Features: planner.Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: cat}
	for _, n := range []int{20, 200, 2000} {
		wall, cpu, allocs := measure(planner.BenchSyntheticPlan(n), opts)
		note := ""
		if n == 200 {
			note = "  (target < 2ms CPU)"
		}
		fmt.Printf("  %5d steps: %9s CPU, %9s wall, %6d allocs%s\n", n, cpu, wall, allocs, note)
	}

	if !ok {
		fmt.Println("\nFAIL: a corpus target is missed")
		os.Exit(1)
	}
}

// defaultCorpus finds testdata/llm from the repository root (where make
// runs) or, failing that, from this source file's place in the tree.
func defaultCorpus() string {
	const rel = "testdata/llm"
	if st, err := os.Stat(rel); err == nil && st.IsDir() {
		return rel
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		return filepath.Join(filepath.Dir(file), "..", "..", "..", rel)
	}
	return rel
}

// measure runs the pipeline on text for about a second and returns the
// wall and CPU time per plan (CPU includes the garbage collector's share).
func measure(text string, opts planner.ParseOptions) (wall, cpu time.Duration, allocs int64) {
	var cpuPer time.Duration
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		c0, ok := cpuTime()
		for b.Loop() {
			w, _, err := planner.ParseOutput(text, opts)
			if err != nil {
				b.Fatal(err)
			}
			if !validate.Validate(w, opts.Catalog).Valid {
				b.Fatal("the synthetic plan is invalid")
			}
		}
		if c1, ok1 := cpuTime(); ok && ok1 {
			cpuPer = (c1 - c0) / time.Duration(b.N)
		}
	})
	wall = time.Duration(res.NsPerOp())
	if cpuPer == 0 {
		cpuPer = wall
	}
	r := func(d time.Duration) time.Duration {
		if d < time.Millisecond {
			return d.Round(time.Microsecond)
		}
		return d.Round(10 * time.Microsecond)
	}
	return r(wall), r(cpuPer), res.AllocsPerOp()
}
