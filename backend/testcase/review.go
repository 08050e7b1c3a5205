package testcase

import (
	"fmt"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/workflow"
)

// Review is what the cases played against a proposal (rep, of w) say in
// its review, and whether the model is asked again: only a proposal that
// errors under a case (a step fails where the case expects otherwise, a
// step would act with no mock, the run cannot start) is; a different path,
// output or file is shown and not re-asked, since the person may have
// asked for exactly that change. before, when given, is the same cases
// played against the workflow the proposal changes: a case that errs
// there too is shown as erring, and not asked about, since the proposal
// did not make it err.
func Review(w *workflow.Workflow, rep *Report, before *Report) reask.Checked {
	erredBefore := map[string]bool{}
	if before != nil {
		for i := range before.Cases {
			if erred(&before.Cases[i]) {
				erredBefore[before.Cases[i].Name] = true
			}
		}
	}
	t := &reask.Tests{Passed: rep.Passed, Total: rep.Passed + rep.Failed, Cases: []reask.TestCase{}}
	t.Line = fmt.Sprintf("tests: %d of %d pass", t.Passed, t.Total)
	// Cases that error alike are named together: one re-ask line per
	// error, however many cases meet it.
	type group struct {
		text  string
		names []string
	}
	var groups []*group
	errored := 0
	for _, cr := range rep.Cases {
		if cr.Passed {
			continue
		}
		tc := reask.TestCase{Name: cr.Name, Errored: erred(&cr), Differences: []string{}}
		for _, f := range cr.Failures {
			tc.Differences = append(tc.Differences, describe(w, f))
		}
		if tc.Errored && erredBefore[cr.Name] {
			tc.Differences = append(tc.Differences, "this case errs before the change too")
		}
		t.Cases = append(t.Cases, tc)
		if !tc.Errored {
			continue
		}
		errored++
		if erredBefore[cr.Name] {
			continue
		}
		var b strings.Builder
		for _, f := range cr.Failures {
			if errorFailure(f) {
				fmt.Fprintf(&b, "- %s\n", describe(w, f))
			}
		}
		i := slices.IndexFunc(groups, func(g *group) bool { return g.text == b.String() })
		if i < 0 {
			groups = append(groups, &group{text: b.String()})
			i = len(groups) - 1
		}
		groups[i].names = append(groups[i].names, fmt.Sprintf("%q", cr.Name))
	}
	var errs strings.Builder
	for _, g := range groups {
		if len(g.names) == 1 {
			fmt.Fprintf(&errs, "Test case %s:\n%s", g.names[0], g.text)
		} else {
			fmt.Fprintf(&errs, "Test cases %s:\n%s", strings.Join(g.names, ", "), g.text)
		}
	}
	out := reask.Checked{Tests: t}
	if errored > 0 {
		noun := "error"
		if errored > 1 {
			noun = "errors"
		}
		t.Line += fmt.Sprintf(" (%d %s)", errored, noun)
	}
	if len(groups) > 0 {
		asked := 0
		for _, g := range groups {
			asked += len(g.names)
		}
		out.Reason = fmt.Sprintf("%d test case(s) error", asked)
		out.Feedback = &reask.Feedback{Problems: "Your change is valid, but played against the workflow's test cases (every step mocked, nothing acting) it errors:\n" +
			errs.String() + "Fix the change so that none of these errors happens; a different path or output is fine where the request asks for it."}
	}
	return out
}

// erred says whether a case failed by an error rather than a difference.
func erred(cr *CaseResult) bool {
	for _, f := range cr.Failures {
		if errorFailure(f) {
			return true
		}
	}
	return false
}

// errorFailure: a step that would act with no mock, a run that did not
// start, or a run that failed where the case expects otherwise.
func errorFailure(f Failure) bool {
	switch f.What {
	case "unmocked", "run":
		return true
	case "outcome":
		o, _ := f.Actual.(flow.Outcome)
		return o == flow.OutcomeFailed || o == flow.OutcomeAborted
	}
	return false
}

// describe is a failure with its step named by key, as the model and the
// review name steps.
func describe(w *workflow.Workflow, f Failure) string {
	exp, eok := f.Expected.([]string)
	act, aok := f.Actual.([]string)
	if f.What == "path" && eok && aok {
		// The path names steps by id; a step the proposal added has a
		// fresh one, which says nothing to a person or a model.
		return fmt.Sprintf("the steps ran in another order: expected %s, ran %s", listOr(keys(w, exp)), listOr(keys(w, act)))
	}
	if f.Step == "" {
		return f.Message
	}
	ref := f.Step
	if n := w.NodeByID(f.Step); n != nil && n.Key != "" {
		ref = n.Key
	}
	if strings.Contains(f.Message, ref) {
		return f.Message
	}
	return fmt.Sprintf("step %q: %s", ref, f.Message)
}

// keys names each step of ids by its key in w (its id when it has none).
func keys(w *workflow.Workflow, ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id
		if n := w.NodeByID(id); n != nil && n.Key != "" {
			out[i] = n.Key
		}
	}
	return out
}
