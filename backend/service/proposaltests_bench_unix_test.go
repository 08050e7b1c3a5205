//go:build unix

package service

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/workflow"
)

// BenchmarkProposalCheck20Cases is what checking one proposal adds to its
// review (the budget: under 0.5 s for 20 cases): the sample
// workflow's three recorded cases, cycled to 20, played against it by the
// check the planner's and the assistant's judges call (proposalCheck:
// validation, every case on the local engine with nothing acting, the
// review's summary). It reports wall and CPU time per check.
func BenchmarkProposalCheck20Cases(b *testing.B) {
	src := filepath.Join("..", "..", "testdata", "workflows", "sample.json")
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	cases, err := os.ReadFile(testcase.PathFor(src))
	if err != nil {
		b.Fatal(err)
	}
	var f struct {
		Cases []map[string]any `json:"cases"`
	}
	if err := json.Unmarshal(cases, &f); err != nil {
		b.Fatal(err)
	}
	var twenty []map[string]any
	for i := 0; i < 20; i++ {
		c := map[string]any{}
		for k, v := range f.Cases[i%len(f.Cases)] {
			c[k] = v
		}
		c["name"] = fmt.Sprintf("%s #%d", c["name"], i+1)
		twenty = append(twenty, c)
	}
	out, _ := json.Marshal(map[string]any{"cases": twenty})
	dir := b.TempDir()
	path := filepath.Join(dir, "sample.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(testcase.PathFor(path), out, 0o644); err != nil {
		b.Fatal(err)
	}
	w, _, err := workflow.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	s := New(Deps{Settings: func() (settings.Settings, []string, error) { return settings.Defaults(), nil, nil }})
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0, wall0 := benchCPU(), time.Now()
	for i := 0; i < b.N; i++ {
		check := s.proposalCheck(path, w) // the case file is read once per proposal
		if got := check(ctx, w); got.Tests == nil || got.Tests.Line != "tests: 20 of 20 pass" {
			b.Fatalf("%+v", got.Tests)
		}
	}
	b.ReportMetric(float64(time.Since(wall0).Nanoseconds())/float64(b.N)/1e6, "wall-ms/check")
	b.ReportMetric(float64((benchCPU()-cpu0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/check")
}

func benchCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
