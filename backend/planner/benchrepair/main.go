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

	weft, base, err := planner.BenchSimulate(cases, planner.SimConfig{Plans: *plans, BrokenRate: *broken, Seed: *seed, MaxAttempts: *attempts})
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchrepair:", err)
		os.Exit(2)
	}
	fmt.Printf("\nSimulated flaky model (%d plans, seed %d, %.0f%% of replies broken with defects drawn from the corpus):\n", *plans, *seed, 100**broken)
	fmt.Printf("  %-58s %8s %16s\n", "mode", "success", "mean LLM calls")
	for _, s := range []planner.SimResult{weft, base} {
		fmt.Printf("  %-58s %7.1f%% %16.3f\n", s.Mode, 100*s.SuccessRate(), s.MeanCalls())
	}

	fmt.Println("\nPipeline CPU time per plan (ParseOutput + Validate, one core):")
	cat := tools.Builtin()
	opts := planner.ParseOptions{Features: planner.Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: cat}
	for _, n := range []int{20, 200, 2000} {
		text := planner.BenchSyntheticPlan(n)
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				w, _, err := planner.ParseOutput(text, opts)
				if err != nil {
					b.Fatal(err)
				}
				if !validate.Validate(w, cat).Valid {
					b.Fatal("synthetic plan is invalid")
				}
			}
		})
		per := time.Duration(res.NsPerOp())
		note := ""
		if n == 200 {
			note = " (target < 2ms)"
		}
		fmt.Printf("  %5d steps: %10s  %6d allocs%s\n", n, per.Round(time.Microsecond), res.AllocsPerOp(), note)
	}

	if !ok {
		fmt.Println("\nFAIL: a corpus target is missed")
		os.Exit(1)
	}
}

// defaultCorpus finds testdata/llm from the repository root (where make
// runs) or, failing that, beside this source file.
func defaultCorpus() string {
	const rel = "backend/planner/testdata/llm"
	if st, err := os.Stat(rel); err == nil && st.IsDir() {
		return rel
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		return filepath.Join(filepath.Dir(file), "..", "testdata", "llm")
	}
	return rel
}
