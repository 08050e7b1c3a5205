package validate

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// genWorkflowOpt builds a valid workflow of at least n nodes from repeated
// blocks: a chain of tool steps, an If diamond, a Switch with three cases
// and a default, and a loop with an If inside a nested loop. Every step
// reads the previous one through a template, and every condition reads an
// earlier step, so the reference checks do real work. With distinct set,
// every condition also checks a constant of its own (`… && 100001 > 0`), so
// no two conditions share a shape (see shapeKey) and each is compiled on its own.
func genWorkflowOpt(n int, distinct bool) *workflow.Workflow {
	g := &gen{w: &workflow.Workflow{Format: workflow.Format, ID: "bench", Name: fmt.Sprintf("Generated %d", n)}}
	if distinct {
		defer func() {
			k := 0
			for i := range g.w.Nodes {
				p := &g.w.Nodes[i].Params
				uniq := func(c string) string {
					k++
					return c + " && " + strconv.Itoa(100000+k) + " > 0"
				}
				if p.Condition != "" {
					p.Condition = uniq(p.Condition)
				}
				if p.ExitCondition != "" {
					p.ExitCondition = uniq("(" + p.ExitCondition + ")")
				}
				for c := range p.Cases {
					p.Cases[c].Condition = uniq(p.Cases[c].Condition)
				}
			}
		}()
	}
	g.prev = g.tool("start", "echo start")
	for b := 0; len(g.w.Nodes) < n; b++ {
		switch b % 4 {
		case 0:
			for k := 0; k < 3; k++ {
				g.link(g.tool(fmt.Sprintf("step_%d_%d", b, k), ""))
			}
		case 1:
			c := g.add(fmt.Sprintf("check_%d", b), workflow.TypeIf, workflow.Params{Condition: g.prevKey() + ".exit_code == 0"})
			g.link(c)
			t, f := g.tool(fmt.Sprintf("yes_%d", b), ""), g.tool(fmt.Sprintf("no_%d", b), "")
			g.edge(c, t, workflow.OutIfTrue, "")
			g.edge(c, f, workflow.OutIfFalse, "")
			m := g.tool(fmt.Sprintf("merge_%d", b), "echo {{"+g.key(t)+".stdout}}")
			g.edge(t, m, "", "")
			g.edge(f, m, "", "")
			g.prev = m
		case 2:
			k := g.prevKey()
			s := g.add(fmt.Sprintf("route_%d", b), workflow.TypeSwitch, workflow.Params{Cases: []workflow.SwitchCase{
				{Name: "ok", Condition: k + ".exit_code == 0"},
				{Name: "retry", Condition: k + ".exit_code == 75"},
				{Name: "usage", Condition: k + ".exit_code == 64 && len(" + k + ".stderr) > 0"},
			}})
			g.link(s)
			m := g.tool(fmt.Sprintf("after_%d", b), "echo {{"+k+".stdout}}")
			for _, c := range []string{"ok", "retry", "usage", ""} {
				x := g.tool(fmt.Sprintf("case_%s_%d", c, b), "")
				if c == "" {
					g.edge(s, x, workflow.OutSwitchDefault, "")
				} else {
					g.edge(s, x, workflow.OutSwitchCase, c)
				}
				g.edge(x, m, "", "")
			}
			g.prev = m
		case 3:
			outer := g.add(fmt.Sprintf("outer_%d", b), workflow.TypeLoop, workflow.Params{MaxIterations: ptr(10)})
			g.link(outer)
			a := g.tool(fmt.Sprintf("fetch_%d", b), "")
			g.edge(outer, a, workflow.OutLoopBody, "")
			g.prev = a
			inner := g.add(fmt.Sprintf("inner_%d", b), workflow.TypeLoop, workflow.Params{MaxIterations: ptr(3)})
			g.link(inner)
			body := g.tool(fmt.Sprintf("try_%d", b), "")
			g.edge(inner, body, workflow.OutLoopBody, "")
			c := g.add(fmt.Sprintf("ok_%d", b), workflow.TypeIf, workflow.Params{Condition: g.key(body) + ".exit_code == 0"})
			g.edge(body, c, "", "")
			t, f := g.tool(fmt.Sprintf("record_%d", b), ""), g.tool(fmt.Sprintf("backoff_%d", b), "")
			g.edge(c, t, workflow.OutIfTrue, "")
			g.edge(c, f, workflow.OutIfFalse, "")
			ie := g.add(fmt.Sprintf("inner_end_%d", b), workflow.TypeEndLoop, workflow.Params{LoopID: g.w.Nodes[inner].ID})
			g.edge(t, ie, "", "")
			g.edge(f, ie, "", "")
			g.edge(ie, inner, "", "")
			g.w.Nodes[inner].Params.ExitCondition = g.key(body) + ".exit_code == 0 || " + g.key(inner) + ".iteration >= 3"
			done := g.tool(fmt.Sprintf("tidy_%d", b), "echo {{"+g.key(body)+".stdout}}")
			g.edge(inner, done, workflow.OutLoopDone, "")
			oe := g.add(fmt.Sprintf("outer_end_%d", b), workflow.TypeEndLoop, workflow.Params{LoopID: g.w.Nodes[outer].ID})
			g.edge(done, oe, "", "")
			g.edge(oe, outer, "", "")
			g.w.Nodes[outer].Params.ExitCondition = g.key(a) + ".exit_code != 0"
			g.prev = g.tool(fmt.Sprintf("next_%d", b), "echo {{"+g.key(done)+".stdout}}")
			g.edge(outer, g.prev, workflow.OutLoopDone, "")
		}
	}
	return g.w
}

func ptr(i int) *int { return &i }

type gen struct {
	w    *workflow.Workflow
	prev int
}

func (g *gen) add(key string, t workflow.NodeType, p workflow.Params) int {
	g.w.Nodes = append(g.w.Nodes, workflow.Node{ID: "id-" + key, Key: key, Name: key, Type: t, Params: p})
	return len(g.w.Nodes) - 1
}

func (g *gen) key(i int) string { return g.w.Nodes[i].Key }
func (g *gen) prevKey() string  { return g.key(g.prev) }
func (g *gen) link(i int)       { g.edge(g.prev, i, "", ""); g.prev = i }
func (g *gen) tool(key, command string) int {
	if command == "" && len(g.w.Nodes) > 0 {
		command = "echo {{" + g.prevKey() + ".stdout}}"
		if g.w.Nodes[g.prev].Type != workflow.TypeTool {
			command = "echo {{" + g.prevKey() + "}}" // control nodes have no outputs
		}
	}
	// The statuses the conditions branch on are answers, not failures.
	return g.add(key, workflow.TypeTool, workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": command, "ok_exit_codes": []any{0.0, 64.0, 75.0}}})
}

func (g *gen) edge(from, to int, out workflow.OutputType, name string) {
	e := workflow.Edge{From: g.w.Nodes[from].ID, To: g.w.Nodes[to].ID}
	if out != "" {
		e.Output = &workflow.EdgeOutput{Type: out, Name: name}
	}
	g.w.Edges = append(g.w.Edges, e)
}

func TestGeneratedValid(t *testing.T) {
	for _, n := range []int{50, 1000, 10000, -1000} {
		r := Validate(genWorkflowOpt(max(n, -n), n < 0), catalog)
		if len(r.Problems) != 0 {
			t.Errorf("%d nodes: %v", n, codes(r)[:min(5, len(r.Problems))])
			r.Problems = r.Problems[:min(5, len(r.Problems))]
			dump(t, r)
		}
	}
}

// BenchmarkValidate measures Validate on generated valid workflows; see
// docs/benchmarks.md, section validate_workflow.
func BenchmarkValidate(b *testing.B) {
	type size struct {
		n        int
		distinct bool
	}
	for _, sz := range []size{{1_000, false}, {10_000, false}, {100_000, false}, {100_000, true}} {
		w := genWorkflowOpt(sz.n, sz.distinct)
		name := fmt.Sprintf("%dk", sz.n/1000)
		if sz.distinct {
			name += "-distinct-conditions"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			c0 := cpuTime()
			for b.Loop() {
				if r := Validate(w, catalog); !r.Valid {
					b.Fatal("generated workflow is not valid")
				}
			}
			if c := cpuTime() - c0; c > 0 {
				b.ReportMetric(float64(c.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			}
			b.ReportMetric(float64(len(w.Nodes)), "nodes")
			b.ReportMetric(float64(len(w.Edges)), "edges")
		})
	}
}
