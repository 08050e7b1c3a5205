package validate

import (
	"fmt"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// A condition that branches on the exit_code of a run_command step that
// fails on any status but 0 gets an info (exit_code_fails): the branch for
// another status is never taken. Tried for every kind of condition (If,
// Switch case, Loop exit) against every way a step can let a status
// through, and for what is not such a branch.
func TestExitCodeBranchInfo(t *testing.T) {
	type step struct {
		name string
		n    workflow.Node
		info bool
	}
	withArgs := func(extra map[string]any) workflow.Node {
		n := failOnNonZero("check", "test -f notes.md")
		for k, v := range extra {
			n.Params.Arguments[k] = v
		}
		return n
	}
	withMode := func(m workflow.OnError) workflow.Node {
		n := failOnNonZero("check", "test -f notes.md")
		n.OnError = m
		return n
	}
	steps := []step{
		{"no ok_exit_codes", failOnNonZero("check", "test -f notes.md"), true},
		{"ok_exit_codes [0]", withArgs(map[string]any{"ok_exit_codes": []any{0.0}}), true},
		{"ok_exit_codes [0] as ints", withArgs(map[string]any{"ok_exit_codes": []any{0}}), true},
		{"on_error stop", withMode(workflow.OnErrorStop), true},
		{"ok_exit_codes [0, 1]", withArgs(map[string]any{"ok_exit_codes": []any{0.0, 1.0}}), false},
		{"ok_exit_codes [1]", withArgs(map[string]any{"ok_exit_codes": []any{1.0}}), false},
		{"on_error continue", withMode(workflow.OnErrorContinue), false},
		{"another tool", node("check", workflow.TypeTool, workflow.Params{Tool: "http_request", Arguments: map[string]any{"method": "GET", "url": "https://example.com"}}), false},
	}
	type shape struct {
		name string
		wf   func(check workflow.Node, cond string) *workflow.Workflow
	}
	shapes := []shape{
		{"If", func(c workflow.Node, cond string) *workflow.Workflow {
			return wf(ns(c, ifn("exists", cond), logn("yes", "y"), logn("no", "n")), e("check", "exists"), eo("exists", "yes", ifT), eo("exists", "no", ifF))
		}},
		{"Switch", func(c workflow.Node, cond string) *workflow.Workflow {
			return wf(ns(c, sw("route", "there="+cond), logn("yes", "y"), logn("no", "n")), e("check", "route"), ec("route", "yes", "there"), eo("route", "no", sd))
		}},
		{"Loop", func(c workflow.Node, cond string) *workflow.Workflow {
			return wf(ns(logn("start", "s"), loopMax("retry", cond, 5), c, endl("retry_end", "retry"), logn("done", "d")),
				e("start", "retry"), eo("retry", "check", lb), e("check", "retry_end"), e("retry_end", "retry"), eo("retry", "done", ld))
		}},
	}
	for _, sh := range shapes {
		for _, st := range steps {
			for _, cond := range []string{"check.exit_code == 0", "check.exit_code != 0 && 1 > 0", "check.stdout == \"\""} {
				name := fmt.Sprintf("%s/%s/%s", sh.name, st.name, cond)
				n := st.n
				n.Params.Arguments = map[string]any{}
				for k, v := range st.n.Params.Arguments {
					n.Params.Arguments[k] = v
				}
				r := Validate(sh.wf(n, cond), catalog)
				want := st.info && cond != "check.stdout == \"\""
				if got := hasCode(r, CodeExitCodeFails); got != want {
					t.Errorf("%s: exit_code_fails %v, want %v", name, got, want)
					dump(t, r)
				}
				if st.n.Params.Tool == "run_command" && !r.Valid { // (http_request has no exit_code: an error of its own)
					t.Errorf("%s: not valid", name)
					dump(t, r)
				}
				for _, p := range r.Problems {
					if p.Code == CodeExitCodeFails && (p.Severity != SeverityInfo || len(p.NodeIDs) != 2 || p.NodeIDs[1] != "check") {
						t.Errorf("%s: %+v", name, p)
					}
				}
			}
		}
	}
}
