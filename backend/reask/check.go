package reask

import (
	"context"

	"github.com/weft-dev/weft/backend/workflow"
)

// Check judges a proposal that is already valid against what the person
// expects of it (the workflow's test cases, played by package service
// with nothing acting). The planner's and the assistant's judges both
// call it, so a plan, a replan and a patch are checked the same way.
type Check func(ctx context.Context, w *workflow.Workflow) Checked

// Checked is what a Check found. Tests go with the proposal to the
// review; Feedback, when set, makes the reply unusable and is what the
// re-ask says (its Answer is the judge's to fill in).
type Checked struct {
	Tests    *Tests
	Feedback *Feedback
	// Reason is a short line for progress.
	Reason string
}

// Tests is the outcome of playing a workflow's test cases against a
// proposal, as the review shows it.
type Tests struct {
	// Line sums it up: "tests: 3 of 3 pass".
	Line   string `json:"line"`
	Passed int    `json:"passed"`
	Total  int    `json:"total"`
	// Cases are those that did not pass, each with how it differs.
	Cases []TestCase `json:"cases"`
	// Error says why the cases could not be played (an unusable case
	// file); then Total is 0.
	Error string `json:"error,omitempty"`
}

// Erring is how many cases the proposal errors under (a step failed, or
// would act with no mock): a failure, not a difference to review; 0 for
// none or no cases.
func (t *Tests) Erring() int {
	if t == nil {
		return 0
	}
	n := 0
	for _, c := range t.Cases {
		if c.Errored {
			n++
		}
	}
	return n
}

// TestCase is one case the proposal does not pass.
type TestCase struct {
	Name string `json:"name"`
	// Errored: the proposal errors under the case (a step failed, or a
	// step would act with no mock), rather than taking another path or
	// giving another output.
	Errored     bool     `json:"errored"`
	Differences []string `json:"differences"`
}
