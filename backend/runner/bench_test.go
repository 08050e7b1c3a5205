package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/settings"
)

// BenchmarkLoopOverhead runs a Loop of 10,000 iterations whose body is one
// log node, with events written to events.jsonl as in a real run. The
// per-node figure is the executor's own cost: walking, templating,
// events, statistics.
func BenchmarkLoopOverhead(b *testing.B) {
	const iterations = 10000
	w := parse(b, `"nodes":[
 {"id":"l","key":"loop","type":"Loop","params":{"max_iterations":10000}},
 {"id":"g","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"iteration {{loop.iteration}}"}}},
 {"id":"e","key":"loop_end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"l","to":"g","output":"LoopBody"},{"from":"g","to":"e"},{"from":"e","to":"l"}]`)
	dir := b.TempDir()
	rn := New(Options{Settings: settings.Defaults(), Dir: dir, RunsDir: filepath.Join(dir, "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}})
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := rn.Run(context.Background(), w)
		if err != nil || res.Outcome != OutcomeSucceeded || res.Summary.Nodes != iterations {
			b.Fatalf("%v %+v", err, res)
		}
	}
	nodes := float64(b.N * iterations)
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/nodes, "ns/node")
	// CPU time of the process per node: steadier than wall time on a
	// shared machine (it includes the GC and the event writer).
	if c := cpuTime(); c > 0 {
		b.ReportMetric(float64((c-cpu0).Nanoseconds())/nodes, "cpu-ns/node")
	}
}

// BenchmarkRunFixedCost is one run of a one-node workflow: validation, the
// run folder (events, workflow copy and summary, only the summary synced)
// and pruning old runs.
func BenchmarkRunFixedCost(b *testing.B) {
	w := parse(b, `"nodes":[{"id":"g","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"hi"}}}],"edges":[]`)
	dir := b.TempDir()
	rn := New(Options{Settings: settings.Defaults(), Dir: dir, RunsDir: filepath.Join(dir, "runs"),
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if res, err := rn.Run(context.Background(), w); err != nil || res.Outcome != OutcomeSucceeded {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// BenchmarkRunThreeLogSteps is one whole run of a workflow of three log
// steps as weft serve's trigger starts it (the attempts record kept, the
// default retention of runs, so pruning runs each time): what the run
// folder costs per run, which decides how many webhook runs a second a
// machine holds (docs/benchmarks.md):
//
//	go test -run '^$' -bench RunThreeLogSteps -benchtime 2000x ./backend/runner
func BenchmarkRunThreeLogSteps(b *testing.B) {
	w := parse(b, `"nodes":[`+
		`{"id":"a","key":"one","type":"Tool","params":{"tool":"log","arguments":{"message":"one"}}},`+
		`{"id":"b","key":"two","type":"Tool","params":{"tool":"log","arguments":{"message":"two"}}},`+
		`{"id":"c","key":"three","type":"Tool","params":{"tool":"log","arguments":{"message":"three"}}}],`+
		`"edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`)
	dir := b.TempDir()
	rn := New(Options{Settings: settings.Defaults(), Dir: dir, RunsDir: filepath.Join(dir, "runs"), KeepAttempts: true, Source: RunByTrigger,
		Patterns: &failure.PatternStore{Path: filepath.Join(dir, "patterns.jsonl")}})
	b.ReportAllocs()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		if res, err := rn.Run(context.Background(), w); err != nil || res.Outcome != OutcomeSucceeded {
			b.Fatalf("%v %+v", err, res)
		}
	}
	// The process's user + system time: the wall time is mostly waiting
	// on the disk, which a shared machine makes vary tenfold.
	if c := cpuTime(); c > 0 {
		b.ReportMetric(float64((c-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/run")
	}
}
