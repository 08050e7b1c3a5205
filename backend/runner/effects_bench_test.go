package runner

import (
	"context"
	"fmt"
	"github.com/weft-dev/weft/backend/flow"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// benchRun is the state of a run of w in dir, as Run and Step make it
// (the gate's decisions included), without running anything.
func benchRun(b *testing.B, w *workflow.Workflow, dir string, opts Options) *run {
	b.Helper()
	opts.Settings, opts.Dir = settings.Defaults(), dir
	opts.Patterns = &failure.PatternStore{Path: filepath.Join(b.TempDir(), "patterns.jsonl")}
	rn := New(opts)
	g, err := flow.NewGraph(w)
	if err != nil {
		b.Fatal(err)
	}
	red, sources := runRedactor(&rn.opts, w, nil)
	log, err := openRunLog(b.TempDir(), "bench", nil, rn.opts.Now, red)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { log.close() })
	return rn.newRun(w, g, "bench", dir, log, red, sources)
}

// BenchmarkEffectGate is one tool call through callTool, the effect gate:
// a tool that does nothing (the gate's own cost), and a read_file of a
// 4 KiB file inside the folder by a hand-written step (opened as named)
// and by a model-written one (confined: opened through os.Root).
func BenchmarkEffectGate(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.txt"), []byte(strings.Repeat("x", 4096)), 0o644); err != nil {
		b.Fatal(err)
	}
	noop := ToolFunc(func(context.Context, ToolCall) (map[string]any, error) { return map[string]any{}, nil })
	for _, c := range []struct{ name, tool, prov string }{
		{"no-op tool", "noop", ""},
		{"read_file hand-written", "read_file", ""},
		{"read_file confined", "read_file", `"provenance":{"source":"model"},`},
	} {
		b.Run(c.name, func(b *testing.B) {
			w := parse(b, fmt.Sprintf(`"nodes":[{"id":"r","key":"r","type":"Tool",%s"params":{"tool":%q,"arguments":{"path":"data.txt"}}}],"edges":[]`, c.prov, c.tool))
			r := benchRun(b, w, dir, Options{Tools: map[string]Tool{"noop": noop}})
			if want := c.prov != ""; r.confined["r"] != want {
				b.Fatalf("confined %v, want %v", r.confined["r"], want)
			}
			n, args := &w.Nodes[0], map[string]any{"path": "data.txt"}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := r.callTool(ctx, n, c.tool, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkConfinedReads is the gate's once-a-run cost: which read steps
// of a 100-step workflow (a third of them model-written reads) are
// confined, from the approval rule.
func BenchmarkConfinedReads(b *testing.B) {
	var nodes, edges []string
	for i := 0; i < 100; i++ {
		prov, tool := "", "log"
		if i%3 == 0 {
			prov, tool = `"provenance":{"source":"model"},`, "read_file"
		}
		nodes = append(nodes, fmt.Sprintf(`{"id":"n%d","key":"n%d","type":"Tool",%s"params":{"tool":%q,"arguments":{"path":"data/f%d.txt","message":"hi"}}}`, i, i, prov, tool, i))
		if i > 0 {
			edges = append(edges, fmt.Sprintf(`{"from":"n%d","to":"n%d"}`, i-1, i))
		}
	}
	w := parse(b, `"nodes":[`+strings.Join(nodes, ",")+`],"edges":[`+strings.Join(edges, ",")+`]`)
	rn := New(Options{Dir: b.TempDir()})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if got := rn.confinedReads(w); len(got) != 34 {
			b.Fatalf("%d confined", len(got))
		}
	}
}
