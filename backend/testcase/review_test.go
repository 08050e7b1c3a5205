package testcase

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/workflow"
)

// Every kind of failure a case reports is either an error of the
// proposal (asked again) or a difference (shown): the whole class, each
// kind once, and a case erring by one error among differences.
func TestReviewTellsErrorsFromDifferences(t *testing.T) {
	w := &workflow.Workflow{Nodes: []workflow.Node{{ID: "id1", Key: "say"}}}
	for _, tc := range []struct {
		f     Failure
		error bool
	}{
		{Failure{Step: "id1", What: "unmocked", Message: `would run run_command "x": no mock`}, true},
		{Failure{What: "run", Message: "the run did not start: bad"}, true},
		{Failure{Step: "id1", What: "outcome", Expected: flow.OutcomeSucceeded, Actual: flow.OutcomeFailed, Message: "the run failed"}, true},
		{Failure{What: "outcome", Expected: flow.OutcomeSucceeded, Actual: flow.OutcomeAborted, Message: "the run aborted"}, true},
		{Failure{What: "outcome", Expected: flow.OutcomeFailed, Actual: flow.OutcomeSucceeded, Message: "the run succeeded"}, false},
		{Failure{What: "path", Message: "the steps ran in another order"}, false},
		{Failure{Step: "id1", What: "output", Message: "say.stdout: expected 1, got 2"}, false},
		{Failure{What: "file", Message: "out.txt was not written"}, false},
		{Failure{What: "mock", Message: "mocks.commands[0] was never called"}, false},
		{Failure{Step: "gone", What: "case", Message: `expect.path names the step "gone"`}, false},
	} {
		rep := &Report{Passed: 2, Failed: 1, Cases: []CaseResult{{Name: "ok", Passed: true}, {Name: "bad", Failures: []Failure{tc.f}}, {Name: "fine", Passed: true}}}
		got := Review(w, rep, nil)
		if got.Tests.Total != 3 || got.Tests.Passed != 2 || len(got.Tests.Cases) != 1 || got.Tests.Cases[0].Name != "bad" {
			t.Fatalf("%s: tests %+v", tc.f.What, got.Tests)
		}
		if got.Tests.Cases[0].Errored != tc.error || (got.Feedback != nil) != tc.error {
			t.Errorf("%s %v: errored %v, feedback %v; want error %v", tc.f.What, tc.f.Actual, got.Tests.Cases[0].Errored, got.Feedback != nil, tc.error)
		}
		if d := got.Tests.Cases[0].Differences; len(d) != 1 || (tc.f.Step == "id1" && !strings.Contains(d[0], "say")) {
			t.Errorf("%s: differences %q; want the step named by key", tc.f.What, d)
		}
		want := "tests: 2 of 3 pass"
		if tc.error {
			want += " (1 error)"
		}
		if got.Tests.Line != want {
			t.Errorf("%s: line %q, want %q", tc.f.What, got.Tests.Line, want)
		}
	}
	// A difference beside an error: the case errs, and the re-ask names
	// only the error.
	rep := &Report{Failed: 1, Cases: []CaseResult{{Name: "both", Failures: []Failure{
		{What: "path", Message: "the steps ran in another order"},
		{Step: "id1", What: "unmocked", Message: `would run run_command "x": no mock`}}}}}
	got := Review(w, rep, nil)
	if !got.Tests.Cases[0].Errored || got.Feedback == nil || strings.Contains(got.Feedback.Problems, "another order") ||
		!strings.Contains(got.Feedback.Problems, `Test case "both":`+"\n"+`- step "say": would run`) {
		t.Errorf("feedback %+v", got.Feedback)
	}
	// Two erring cases: the line counts them.
	rep2 := &Report{Failed: 2, Cases: []CaseResult{rep.Cases[0], {Name: "again", Failures: rep.Cases[0].Failures}}}
	if got := Review(w, rep2, nil); got.Tests.Line != "tests: 0 of 2 pass (2 errors)" || !strings.Contains(got.Feedback.Problems, `Test cases "both", "again":`) {
		t.Errorf("feedback %+v", got.Feedback)
	}
	// A case that errs before the change too is shown, not asked about.
	got = Review(w, rep, &Report{Cases: []CaseResult{{Name: "both", Failures: []Failure{{What: "run", Message: "x"}}}}})
	if !got.Tests.Cases[0].Errored || got.Feedback != nil || !strings.Contains(strings.Join(got.Tests.Cases[0].Differences, "\n"), "before the change too") {
		t.Errorf("erring before too: tests %+v, feedback %+v", got.Tests, got.Feedback)
	}
	// A path names its steps by key, an added step's fresh id too.
	w.Nodes = append(w.Nodes, workflow.Node{ID: "3fa8e1c2", Key: "pause"})
	got = Review(w, &Report{Failed: 1, Cases: []CaseResult{{Name: "p", Failures: []Failure{
		{What: "path", Expected: []string{"id1"}, Actual: []string{"3fa8e1c2", "id1"}, Message: "…"}}}}}, nil)
	if d := got.Tests.Cases[0].Differences[0]; d != "the steps ran in another order: expected say, ran pause → say" {
		t.Errorf("path difference %q", d)
	}
}
