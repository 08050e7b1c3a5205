//go:build unix

package testcase

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkCase50Steps plays one case of 50 mocked command steps, each
// reading the one before it (the budget: under 50 ms of CPU). It
// reports the process's CPU time per case (steadier than wall time on a
// shared machine): the walk, templates, the stand-in, the run log in a
// temporary folder, the expectations.
func BenchmarkCase50Steps(b *testing.B) {
	const steps = 50
	var nodes, edges, mocks, path []string
	for i := 0; i < steps; i++ {
		cmd := "start"
		if i > 0 {
			cmd = fmt.Sprintf("step {{s%d.stdout}}", i-1)
			edges = append(edges, fmt.Sprintf(`{"from":"s%d","to":"s%d"}`, i-1, i))
		}
		nodes = append(nodes, fmt.Sprintf(`{"id":"s%d","key":"s%d","type":"Tool","params":{"tool":"run_command","arguments":{"command":%q}}}`, i, i, cmd))
		rendered := "start"
		if i > 0 {
			rendered = fmt.Sprintf("step '%d'", i-1)
		}
		mocks = append(mocks, fmt.Sprintf(`{"command":%q,"answer":{"exit_code":0,"stdout":"%d"}}`, rendered, i))
		path = append(path, fmt.Sprintf("%q", fmt.Sprintf("s%d", i)))
	}
	f := newFolder(b)
	w := f.workflow(`"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(edges, ",") + `]`)
	cf, err := Decode([]byte(`{"cases":[{"name":"fifty","mocks":{"commands":[` + strings.Join(mocks, ",") + `]},
	  "expect":{"outcome":"succeeded","path":[` + strings.Join(path, ",") + `],"outputs":{"s49.stdout":{"equals":"49"}}}}]}`))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), w, f.path("flow.json"), cf, Options{})
		if err != nil || !rep.OK() {
			b.Fatalf("%v %+v", err, rep)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/case")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
