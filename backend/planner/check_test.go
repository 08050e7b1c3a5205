package planner

import (
	"context"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/workflow"
)

// Config.Check judges a replan as the person will see it (the old ids
// kept, which is what test cases name), and its feedback asks again: the
// first reply's, then the second, used, with its tests kept.
func TestReplanCheckSeesTheAdoptedVersionAndAsksAgain(t *testing.T) {
	fake := &scripted{t: t, replies: []scriptedReply{answer(replanValid), answer(replanValid)}}
	var seen []*workflow.Workflow
	check := func(_ context.Context, w *workflow.Workflow) reask.Checked {
		seen = append(seen, w)
		tests := &reask.Tests{Line: "tests: 1 of 1 pass", Passed: 1, Total: 1}
		if len(seen) == 1 {
			return reask.Checked{Tests: &reask.Tests{Line: "tests: 0 of 1 pass (1 error)", Total: 1},
				Feedback: &reask.Feedback{Problems: "step \"run\" would act with no mock"}, Reason: "1 test case(s) error"}
		}
		return reask.Checked{Tests: tests}
	}
	res, err := ReplanWorkflow(context.Background(), fake, failureRequest(t), Config{MaxRepairAttempts: 3, Check: check})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0].NodeByKey("check") == nil || seen[0].NodeByKey("check").ID != "a" || seen[0].ID != "wf-7" {
		t.Fatalf("the check saw %d workflows, the first %+v; want the adopted version (old ids)", len(seen), seen)
	}
	if fb := fake.lastUser(2); !strings.Contains(fb, "would act with no mock") || !strings.Contains(fb, "complete corrected plan") {
		t.Errorf("re-ask:\n%s", fb)
	}
	if !res.Valid || res.LLMCalls != 2 || res.Tests == nil || res.Tests.Line != "tests: 1 of 1 pass" ||
		!strings.Contains(res.Attempts[0].Error, "test cases") {
		t.Errorf("result valid %v, %d calls, tests %+v, attempts %+v", res.Valid, res.LLMCalls, res.Tests, res.Attempts)
	}
}
