package planner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// StrictTools makes unknown_tool an error for the nodes a model wrote
// (all when touched is nil): validation keeps it a warning, since in the
// editor a hand-placed MCP tool whose server is not running is not wrong,
// but a model must use the tools it was shown. The message lists the
// catalog's tools, nearest first, so a re-ask can pick one.
func StrictTools(problems []validate.Problem, w *workflow.Workflow, cat *tools.Catalog, touched func(nodeID string) bool) []validate.Problem {
	if cat == nil {
		return problems
	}
	out := make([]validate.Problem, len(problems))
	copy(out, problems)
	for i := range out {
		p := &out[i]
		if p.Code != validate.CodeUnknownTool || p.Severity == validate.SeverityError || len(p.NodeIDs) == 0 {
			continue
		}
		if touched != nil && !touched(p.NodeIDs[0]) {
			continue
		}
		n := w.NodeByID(p.NodeIDs[0])
		if n == nil {
			continue
		}
		name := n.Params.Tool
		if n.Type == workflow.TypeAiStep {
			for _, t := range n.Params.AllowedTools {
				if !cat.Has(t) {
					name = t
					break
				}
			}
		}
		p.Severity = validate.SeverityError
		p.Message = fmt.Sprintf("%s; use one of the catalog's tools: %s", p.Message, strings.Join(NearestTools(name, cat, 12), ", "))
	}
	return out
}

// NearestTools lists up to max catalog tools, the ones whose names are
// closest to name first.
func NearestTools(name string, cat *tools.Catalog, max int) []string {
	names := cat.Names()
	want := norm(name)
	if alias, ok := toolAliases[want]; ok {
		want = norm(alias)
	}
	type scored struct {
		name string
		d    int
	}
	all := make([]scored, 0, len(names))
	for _, n := range names {
		short := n
		if i := strings.LastIndexByte(n, '.'); i >= 0 {
			short = n[i+1:]
		}
		d := min(distance(want, norm(n)), distance(want, norm(short)))
		if strings.Contains(norm(n), want) || strings.Contains(want, norm(short)) {
			d = min(d, 1)
		}
		all = append(all, scored{n, d})
	}
	slices.SortStableFunc(all, func(a, b scored) int { return a.d - b.d })
	var out []string
	for i := 0; i < len(all) && i < max; i++ {
		out = append(out, all[i].name)
	}
	if len(all) > max {
		out = append(out, fmt.Sprintf("… (%d more)", len(all)-max))
	}
	return out
}

// distance is the Levenshtein distance of two short names.
func distance(a, b string) int {
	if len(a) > 64 {
		a = a[:64]
	}
	if len(b) > 64 {
		b = b[:64]
	}
	var pb, cb [65]int // names are cut at 64 bytes: no allocation
	prev, cur := pb[:len(b)+1], cb[:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
