package service

import (
	"context"
	"errors"
	"io/fs"
	"sync"

	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// proposalCheck is how every proposal for the workflow at path (a plan,
// a replan, an assistant's patch) is judged beyond validation: the
// workflow's test cases are played against the proposed workflow, in
// memory, with nothing acting (testcase.Run), and testcase.Review says
// what the review shows and whether the model is asked again. current is
// the workflow the proposal changes (nil for a new plan): a case that errs
// under it too is not asked about, and it is played only when a proposal
// errs, once. nil when the workflow has no file or no case file: nothing
// is shown then.
func (s *Service) proposalCheck(path string, current *workflow.Workflow) reask.Check {
	if path == "" {
		return nil
	}
	if testcase.IsCaseFile(path) {
		path = testcase.WorkflowFor(path)
	}
	abs, err := absPath(path)
	if err != nil {
		return nil
	}
	cases, err := testcase.Load(testcase.PathFor(abs))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	secrets := s.secretValues()
	var once sync.Once
	var before *testcase.Report
	return func(ctx context.Context, w *workflow.Workflow) reask.Checked {
		// An unusable case file is shown, never asked about: the model
		// did not write it.
		unusable := func(err error) reask.Checked {
			return reask.Checked{Tests: &reask.Tests{Line: "tests: not played: " + err.Error(), Cases: []reask.TestCase{}, Error: err.Error()}}
		}
		if err != nil {
			return unusable(err)
		}
		if vr := validate.ValidateWith(w, s.deps.Builtin, validate.Options{Secrets: s.secretNames()}); !vr.Valid {
			msg := "the proposed workflow is invalid"
			if errs := vr.Errors(); len(errs) > 0 {
				msg += ": " + errs[0].Message
			}
			return unusable(errors.New(msg))
		}
		rep, err := playAll(ctx, w, abs, cases, secrets)
		if err != nil {
			return unusable(err)
		}
		c := testcase.Review(w, rep, nil)
		if c.Feedback != nil && current != nil && len(current.Nodes) > 0 {
			once.Do(func() { before, _ = playAll(ctx, current, abs, cases, secrets) })
			c = testcase.Review(w, rep, before)
		}
		return c
	}
}

// players bounds the cases played at once: a case spends most of its
// time writing its run log, not computing.
const players = 8

// playAll plays every case of f against w, several at once (each case
// has its own stand-in and run folder), and gathers one report in the
// file's order: what a review waits for is the slowest case, not their sum.
func playAll(ctx context.Context, w *workflow.Workflow, path string, f *testcase.File, secrets *redact.Redactor) (*testcase.Report, error) {
	if len(f.Cases) == 0 {
		return nil, testcase.ErrNoCases
	}
	if err := testcase.RefuseSecrets(f, secrets); err != nil {
		return nil, err
	}
	reps := make([]*testcase.Report, len(f.Cases))
	errs := make([]error, len(f.Cases))
	sem := make(chan struct{}, players)
	var wg sync.WaitGroup
	for i := range f.Cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			one := &testcase.File{Cases: f.Cases[i : i+1]}
			reps[i], errs[i] = testcase.Run(ctx, w, path, one, testcase.Options{})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	rep := reps[0]
	for _, r := range reps[1:] {
		rep.Passed += r.Passed
		rep.Failed += r.Failed
		rep.Cases = append(rep.Cases, r.Cases...)
	}
	return rep, nil
}

// testsOf are the test cases of the workflow at path played against w,
// for a review made outside a model's loop; nil without cases.
func (s *Service) testsOf(ctx context.Context, path string, current, w *workflow.Workflow) *reask.Tests {
	check := s.proposalCheck(path, current)
	if check == nil || w == nil {
		return nil
	}
	return check(ctx, w).Tests
}
