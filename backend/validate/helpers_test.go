package validate

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// Small builders for test workflows. Node keys equal their ids.

func title(id string) string {
	s := strings.ReplaceAll(id, "_", " ")
	return strings.ToUpper(s[:1]) + s[1:]
}

func node(id string, t workflow.NodeType, p workflow.Params) workflow.Node {
	return workflow.Node{ID: id, Key: id, Name: title(id), Type: t, Params: p}
}

// cmd is a run_command step whose status is an answer (ok_exit_codes
// [0, 1]), as the fixtures branch on it; failOnNonZero makes one that
// fails on any status but 0.
func cmd(id, command string) workflow.Node {
	return node(id, workflow.TypeTool, workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": command, "ok_exit_codes": []any{0.0, 1.0}}})
}

func failOnNonZero(id, command string) workflow.Node {
	return node(id, workflow.TypeTool, workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": command}})
}

func httpGet(id, url string) workflow.Node {
	return node(id, workflow.TypeTool, workflow.Params{Tool: "http_request", Arguments: map[string]any{"method": "GET", "url": url}})
}

func logn(id, msg string) workflow.Node {
	return node(id, workflow.TypeTool, workflow.Params{Tool: "log", Arguments: map[string]any{"message": msg}})
}

func ifn(id, cond string) workflow.Node {
	return node(id, workflow.TypeIf, workflow.Params{Condition: cond})
}

// sw builds a Switch from "name=condition" pairs.
func sw(id string, cases ...string) workflow.Node {
	var cs []workflow.SwitchCase
	for _, c := range cases {
		name, cond, _ := strings.Cut(c, "=")
		cs = append(cs, workflow.SwitchCase{Name: name, Condition: cond})
	}
	return node(id, workflow.TypeSwitch, workflow.Params{Cases: cs})
}

func loop(id, exit string) workflow.Node {
	return node(id, workflow.TypeLoop, workflow.Params{ExitCondition: exit})
}

func loopMax(id, exit string, max int) workflow.Node {
	n := loop(id, exit)
	n.Params.MaxIterations = &max
	return n
}

func endl(id, loopID string) workflow.Node {
	return node(id, workflow.TypeEndLoop, workflow.Params{LoopID: loopID})
}

func e(from, to string) workflow.Edge { return workflow.Edge{From: from, To: to} }

func eo(from, to string, out workflow.OutputType) workflow.Edge {
	return workflow.Edge{From: from, To: to, Output: &workflow.EdgeOutput{Type: out}}
}

func ec(from, to, name string) workflow.Edge {
	return workflow.Edge{From: from, To: to, Output: &workflow.EdgeOutput{Type: workflow.OutSwitchCase, Name: name}}
}

func wf(nodes []workflow.Node, edges ...workflow.Edge) *workflow.Workflow {
	if nodes == nil {
		nodes = []workflow.Node{}
	}
	if edges == nil {
		edges = []workflow.Edge{}
	}
	return &workflow.Workflow{Format: workflow.Format, ID: "wf", Name: "Test", Nodes: nodes, Edges: edges}
}

func ns(n ...workflow.Node) []workflow.Node { return n }

const (
	ifT = workflow.OutIfTrue
	ifF = workflow.OutIfFalse
	lb  = workflow.OutLoopBody
	ld  = workflow.OutLoopDone
	sd  = workflow.OutSwitchDefault
)

func codes(r Result) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Code)
	}
	return out
}

func hasCode(r Result, code string) bool {
	for _, p := range r.Problems {
		if p.Code == code {
			return true
		}
	}
	return false
}

func dump(t *testing.T, r Result) {
	t.Helper()
	for _, p := range r.Problems {
		t.Logf("  %s %s: %s nodes=%v edges=%d", p.Severity, p.Code, p.Message, p.NodeIDs, len(p.Edges))
	}
}

var catalog = tools.Builtin()
