package validate

import (
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// codeCase is one problem code with a workflow that must report it and a
// close variant that must validate with no problems at all.
type codeCase struct {
	code      string
	bad, good *workflow.Workflow
}

// ifElse is a small valid If diamond, reused by several cases.
func ifElse(cond string) ([]workflow.Node, []workflow.Edge) {
	return ns(
			cmd("check", "test -f notes.md"),
			ifn("exists", cond),
			cmd("copy", "cp notes.md backup/"),
			cmd("create", "touch notes.md"),
			logn("done", "finished"),
		), []workflow.Edge{
			e("check", "exists"), eo("exists", "copy", ifT), eo("exists", "create", ifF),
			e("copy", "done"), e("create", "done"),
		}
}

func ifWF(cond string) *workflow.Workflow {
	n, e := ifElse(cond)
	return wf(n, e...)
}

// retryLoop is a small valid loop: start → retry{ attempt } → report.
func retryLoop(exit string, extra ...workflow.Node) []workflow.Node {
	return append(ns(
		cmd("start", "echo start"),
		loopMax("retry", exit, 5),
		cmd("attempt", "curl -fsS https://example.com/health"),
		endl("retry_end", "retry"),
		logn("report", "done after {{attempt.exit_code}}"),
	), extra...)
}

var retryEdges = []workflow.Edge{
	e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "retry_end"), e("retry_end", "retry"), eo("retry", "report", ld),
}

func with(edges []workflow.Edge, more ...workflow.Edge) []workflow.Edge {
	return append(append([]workflow.Edge(nil), edges...), more...)
}

func codeCases() []codeCase {
	ifNodes, ifEdges := ifElse("check.exit_code == 0")
	chain := func(n ...workflow.Node) []workflow.Node { return n }
	abc := chain(cmd("a", "echo a"), cmd("b", "echo b"), cmd("c", "echo c"))
	swNodes := ns(
		node("ping", workflow.TypeTool, workflow.Params{Tool: "http_request", Arguments: map[string]any{"method": "GET", "url": "https://example.com"}}),
		sw("status", "ok=ping.status == 200", "missing=ping.status == 404"),
		logn("up", "up"), logn("gone", "gone"), logn("other", "status {{ping.status}}"),
	)
	swEdges := []workflow.Edge{e("ping", "status"), ec("status", "up", "ok"), ec("status", "gone", "missing"), eo("status", "other", sd)}
	max := func(n int) *workflow.Workflow {
		ns := retryLoop("attempt.exit_code == 0")
		ns[1].Params.MaxIterations = &n
		return wf(ns, retryEdges...)
	}
	dupKey := func(k string) *workflow.Workflow {
		w := wf(abc, e("a", "b"), e("b", "c"))
		w.Nodes = append([]workflow.Node(nil), w.Nodes...)
		w.Nodes[2].Key = k
		return w
	}
	withNode := func(nodes []workflow.Node, i int, f func(*workflow.Node)) []workflow.Node {
		out := append([]workflow.Node(nil), nodes...)
		f(&out[i])
		return out
	}
	return []codeCase{
		{CodeNoNodes, wf(nil), wf(ns(cmd("a", "echo a")))},
		{CodeDuplicateNodeID,
			wf(ns(cmd("a", "echo a"), withNode(ns(cmd("b", "echo b")), 0, func(n *workflow.Node) { n.ID = "a" })[0]), e("a", "b")),
			wf(ns(cmd("a", "echo a"), cmd("b", "echo b")), e("a", "b"))},
		{CodeDanglingEdge, wf(abc, e("a", "b"), e("b", "c"), e("c", "gone")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeDuplicateEdge, wf(abc, e("a", "b"), e("b", "c"), e("b", "c")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeSelfLoop, wf(abc, e("a", "b"), e("b", "c"), e("c", "c")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeNoEntry, wf(abc, e("a", "b"), e("b", "c"), e("c", "a")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeMultipleEntries, wf(abc, e("a", "c"), e("b", "c")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeUnreachable,
			wf(append(abc, cmd("d", "echo d")), e("a", "b"), e("c", "d"), e("d", "c")),
			wf(append(abc, cmd("d", "echo d")), e("a", "b"), e("b", "c"), e("c", "d"))},
		{CodeMultipleOutgoing, wf(abc, e("a", "b"), e("a", "c")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeBadOutputLabel, wf(abc, eo("a", "b", ifT), e("b", "c")), wf(abc, e("a", "b"), e("b", "c"))},
		{CodeIfMissingBranch,
			wf(ifNodes, ifEdges[0], ifEdges[1], ifEdges[3], ifEdges[4]),
			wf(ifNodes, ifEdges...)},
		{CodeIfExtraEdges,
			wf(append(ifNodes, logn("extra", "x")), with(ifEdges, e("exists", "extra"))...),
			wf(ifNodes, ifEdges...)},
		{CodeSwitchDuplicateCase,
			wf(withNode(swNodes, 1, func(n *workflow.Node) {
				n.Params.Cases = append([]workflow.SwitchCase(nil), n.Params.Cases...)
				n.Params.Cases[1].Name = "ok"
			}), e("ping", "status"), ec("status", "up", "ok"), eo("status", "other", sd), e("gone", "other")),
			wf(swNodes, swEdges...)},
		{CodeSwitchMissingCase,
			wf(swNodes, e("ping", "status"), ec("status", "up", "ok"), eo("status", "other", sd), e("gone", "other")),
			wf(swNodes, swEdges...)},
		{CodeSwitchDuplicateEdge,
			wf(swNodes, with(swEdges, ec("status", "other", "ok"))...),
			wf(swNodes, swEdges...)},
		{CodeSwitchUnknownOutput,
			wf(append(swNodes, logn("teapot", "418")), with(swEdges, ec("status", "teapot", "teapot"))...),
			wf(swNodes, swEdges...)},
		{CodeLoopMissingBody,
			wf(retryLoop("attempt.exit_code == 0"), e("start", "retry"), eo("retry", "report", ld), e("attempt", "retry_end"), e("retry_end", "retry")),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeLoopExtraEdges,
			wf(retryLoop("attempt.exit_code == 0", logn("also", "x")), with(retryEdges, eo("retry", "also", ld))...),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeLoopUnpaired,
			wf(retryLoop("attempt.exit_code == 0")[:3], e("start", "retry"), eo("retry", "attempt", lb)),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeLoopMultipleEndloops,
			wf(append(retryLoop("attempt.exit_code == 0"), ifn("ok", "attempt.exit_code == 0"), endl("retry_end2", "retry")),
				e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "ok"), eo("ok", "retry_end", ifT), eo("ok", "retry_end2", ifF),
				e("retry_end", "retry"), e("retry_end2", "retry"), eo("retry", "report", ld)),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeEndloopBadTarget,
			wf(withNode(retryLoop("attempt.exit_code == 0"), 3, func(n *workflow.Node) { n.Params.LoopID = "attempt" }), retryEdges...),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeEndloopEdgeMismatch,
			wf(retryLoop("attempt.exit_code == 0"), e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "retry_end"), e("retry_end", "attempt"), eo("retry", "report", ld)),
			wf(retryLoop("attempt.exit_code == 0"), retryEdges...)},
		{CodeEdgeLeavesLoop,
			wf(append(retryLoop("attempt.exit_code == 0"), ifn("ok", "attempt.exit_code == 0")),
				e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "ok"), eo("ok", "retry_end", ifF), eo("ok", "report", ifT),
				e("retry_end", "retry"), eo("retry", "report", ld)),
			wf(append(retryLoop("attempt.exit_code == 0"), ifn("ok", "attempt.exit_code == 0")),
				e("start", "retry"), eo("retry", "attempt", lb), e("attempt", "ok"), eo("ok", "retry_end", ifF), eo("ok", "retry_end", ifT),
				e("retry_end", "retry"), eo("retry", "report", ld))},
		{CodeEdgeEntersLoop,
			wf(append(retryLoop("attempt.exit_code == 0"), ifn("first", "start.exit_code == 0")),
				e("start", "first"), eo("first", "retry", ifT), eo("first", "attempt", ifF), eo("retry", "attempt", lb), e("attempt", "retry_end"), e("retry_end", "retry"), eo("retry", "report", ld)),
			wf(append(retryLoop("attempt.exit_code == 0"), ifn("first", "start.exit_code == 0")),
				e("start", "first"), eo("first", "retry", ifT), eo("first", "report", ifF), eo("retry", "attempt", lb), e("attempt", "retry_end"), e("retry_end", "retry"), eo("retry", "report", ld))},
		{CodeCycle,
			wf(append(abc, cmd("d", "echo d")), e("a", "b"), e("b", "c"), e("c", "d"), e("d", "b")),
			wf(append(abc, cmd("d", "echo d")), e("a", "b"), e("b", "c"), e("c", "d"))},
		{CodeBadMaxIterations, max(0), max(10)},
		{CodeBadKey, dupKey("Bad Key"), dupKey("bad_key")},
		{CodeDuplicateKey, dupKey("a"), dupKey("z")},
		{CodeBadCondition, ifWF("check.exit_code =="), ifWF("check.exit_code == 0")},
		{CodeUnknownVariable, ifWF("chek.exit_code == 0"), ifWF("check.exit_code == 0")},
		{CodeUnknownTool,
			wf(withNode(abc, 1, func(n *workflow.Node) { n.Params.Tool = "teleport" }), e("a", "b"), e("b", "c")),
			wf(abc, e("a", "b"), e("b", "c"))},
		{CodeRawExternalValue,
			wf(ns(cmd("fetch", "curl -fsS https://example.com/script"), cmd("run", "sh -c {{raw fetch.stdout}}")), e("fetch", "run")),
			wf(ns(cmd("fetch", "curl -fsS https://example.com/script"), cmd("run", "printf %s {{fetch.stdout}}")), e("fetch", "run"))},
		{CodeUnsafePlaceholder,
			wf(ns(cmd("fetch", "cat host.txt"), httpGet("ping", "https://{{fetch.stdout}}/health")), e("fetch", "ping")),
			wf(ns(cmd("fetch", "cat host.txt"), httpGet("ping", "https://example.com/health/{{fetch.stdout}}")), e("fetch", "ping"))},
		{CodeBadTemplate,
			wf(ns(cmd("count", "wc -l < notes.txt"), logn("report", "{{count.stdout + "+strings.Repeat("(", 101)+`"!"`+strings.Repeat(")", 101)+"}}")), e("count", "report")),
			wf(ns(cmd("count", "wc -l < notes.txt"), logn("report", "{{count.stdout + "+strings.Repeat("(", 100)+`"!"`+strings.Repeat(")", 100)+"}}")), e("count", "report"))},
		{CodeBadDuration,
			withDuration(func(n *workflow.Node) { n.TimeoutMs = 10_000_000_000_000 }),
			withDuration(func(n *workflow.Node) { n.TimeoutMs = 60000 })},
		{CodeUnknownNodeType,
			wf(withNode(abc, 1, func(n *workflow.Node) { n.Type = "Teleport" }), e("a", "b"), e("b", "c")),
			wf(abc, e("a", "b"), e("b", "c"))},
	}
}

// withDuration is a two-step workflow whose first node has been changed by
// set: the bad_duration cases.
func withDuration(set func(n *workflow.Node)) *workflow.Workflow {
	a := cmd("a", "echo a")
	set(&a)
	return wf(ns(a, cmd("b", "echo b")), e("a", "b"))
}
