package testcase

// A dry run (weft run FILE --dry-run) is a play of the walk on the same
// stand-in a case plays on (runner.Options.Effects, so nothing acts): a
// step is answered by a case's mock, or, with no case named, by the
// workflow's pinned data. It shows each step in the order the walk takes
// it, its arguments with their templates filled in, and the branch each
// condition takes. A step with neither a mock nor pinned data is shown as
// what would run, with its arguments, and the walk goes on as if it gave
// empty outputs: the person sees the whole walk in one go, and a later
// step that reads one of those outputs fails saying which.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// How a dry run's step was answered (DryStep.Answer).
const (
	// AnswerMock is a case's mock.
	AnswerMock = "mock"
	// AnswerPinned is the workflow's pinned data: the step did not run.
	AnswerPinned = "pinned"
	// AnswerStandIn is a file tool, wait or log answered without acting:
	// reads see the real folder, writes are kept in memory.
	AnswerStandIn = "stand-in"
	// AnswerNone is a step nothing answers: it would run; the walk goes
	// on with empty outputs.
	AnswerNone = "would run"
)

// DryStep is one thing the walk did: a step (Tool, AI), a condition's
// branch (If, Switch, Loop) or a disabled node passed through.
type DryStep struct {
	Step string `json:"step"`
	Key  string `json:"key,omitempty"`
	Name string `json:"name,omitempty"`
	// Tool is the tool a Tool step calls.
	Tool string `json:"tool,omitempty"`
	// Answer says how the step was answered (AnswerMock, …); "" for a
	// condition.
	Answer string `json:"answer,omitempty"`
	// Arguments are the step's arguments with their templates filled in,
	// as a case writes them: a secret stays its reference
	// {{secrets.NAME}}, never read.
	Arguments map[string]any `json:"arguments,omitempty"`
	// Attempts counts the stand-in's answers to the step (retries).
	Attempts int `json:"attempts,omitempty"`
	// Branch is the edge a condition took, Condition its expression.
	Branch    string `json:"branch,omitempty"`
	Condition string `json:"condition,omitempty"`
	Iteration int    `json:"iteration,omitempty"`
	// Status is the step's end (ok, failed, skipped); Message why.
	Status  flow.NodeStatus `json:"status,omitempty"`
	Message string          `json:"message,omitempty"`
	// Outputs are what later steps read (values cut at 2,000 characters).
	Outputs map[string]any `json:"outputs,omitempty"`
}

// DryReport is a dry run's walk.
type DryReport struct {
	Workflow string `json:"workflow"`
	// Case is the case whose mocks answered; "" when pinned data did.
	Case    string       `json:"case,omitempty"`
	Steps   []DryStep    `json:"steps"`
	Outcome flow.Outcome `json:"outcome"`
	Error   string       `json:"error,omitempty"`
	// WouldRun are the steps nothing answered, in walk order, each once.
	WouldRun []string `json:"would_run"`
	// Writes are the files the walk wrote, in memory only (relative to
	// the workflow's folder when inside it).
	Writes []string `json:"writes"`
}

// DryOptions tune DryRun.
type DryOptions struct {
	// Case answers the steps with its mocks, and gives the run its
	// inputs; nil answers them with the workflow's pinned data.
	Case *Case
	// Inputs are the run's inputs (nil: the case's own).
	Inputs map[string]any
	Now    func() time.Time
}

// DryRun walks w (the workflow at path) with nothing acting and reports
// each step as the walk takes it. An error is a run that could not start
// (inputs that do not fit, no folder for its log).
func DryRun(ctx context.Context, w *workflow.Workflow, path string, o DryOptions) (*DryReport, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	mocks, inputs := &Mocks{}, o.Inputs
	rep := &DryReport{Workflow: abs, Steps: []DryStep{}, WouldRun: []string{}, Writes: []string{}}
	if o.Case != nil {
		mocks, rep.Case = &o.Case.Mocks, o.Case.Name
		if inputs == nil {
			inputs = o.Case.Inputs
		}
	}
	tmp, err := os.MkdirTemp("", "weft-dry-*")
	if err != nil {
		return nil, fmt.Errorf("dry run: no folder for its run log: %w", err)
	}
	defer os.RemoveAll(tmp)
	d := &dryEffects{si: newStandIn(filepath.Dir(abs), mocks, o.Now), rep: rep, at: map[string]int{}}
	opts := standInOptions(abs, tmp, d, inputs)
	opts.UsePinned = o.Case == nil
	opts.OnEvent = d.event
	res, err := runner.New(opts).Run(ctx, w)
	if err != nil {
		return nil, err
	}
	rep.Outcome, rep.Error = res.Outcome, res.Error
	for _, p := range d.si.written {
		rep.Writes = append(rep.Writes, d.si.shownPath(p))
	}
	return rep, nil
}

// dryEffects is the case's stand-in, with a call it has no answer for
// shown (AnswerNone) and given empty outputs instead of failing its step.
type dryEffects struct {
	si  *standIn
	mu  sync.Mutex
	rep *DryReport
	// at is the index in rep.Steps of each step's latest start.
	at map[string]int
}

// Tool implements runner.Effects.
func (d *dryEffects) Tool(ctx context.Context, c runner.EffectCall) (map[string]any, error) {
	before := d.unmocked()
	out, err := d.si.Tool(ctx, c)
	answer := AnswerMock
	switch c.Name {
	case "read_file", "write_file", "list_files", "wait", "log":
		answer = AnswerStandIn
	}
	args, _ := AsWritten(c.Args).(map[string]any)
	return d.answered(c.Node, before, answer, args, out, err)
}

// AI implements runner.Effects.
func (d *dryEffects) AI(ctx context.Context, n *workflow.Node, attempt int) (map[string]any, error) {
	before := d.unmocked()
	out, err := d.si.AI(ctx, n, attempt)
	return d.answered(n, before, AnswerMock, nil, out, err)
}

func (d *dryEffects) unmocked() int {
	d.si.mu.Lock()
	defer d.si.mu.Unlock()
	return len(d.si.unmocked)
}

// answered notes how the stand-in answered n; a call it had no answer
// for (it noted one more unmocked call than before) goes on with empty
// outputs.
func (d *dryEffects) answered(n *workflow.Node, before int, answer string, args, out map[string]any, err error) (map[string]any, error) {
	unmocked := d.unmocked() > before
	d.mu.Lock()
	defer d.mu.Unlock()
	if unmocked {
		answer, out, err = AnswerNone, map[string]any{}, nil
		if !slices.Contains(d.rep.WouldRun, n.ID) {
			d.rep.WouldRun = append(d.rep.WouldRun, n.ID)
		}
	}
	if i, ok := d.at[n.ID]; ok {
		s := &d.rep.Steps[i]
		s.Answer, s.Attempts = answer, s.Attempts+1
		if args != nil {
			s.Arguments = args
		}
	}
	return out, err
}

// event follows the walk: a step started, a branch taken, pinned data
// used, a step's end and outputs.
func (d *dryEffects) event(e runner.Event) {
	d.mu.Lock()
	defer d.mu.Unlock()
	steps := &d.rep.Steps
	add := func(s DryStep) {
		s.Step, s.Key, s.Name = e.NodeID, e.NodeKey, e.NodeName
		*steps = append(*steps, s)
		d.at[e.NodeID] = len(*steps) - 1
	}
	cur := func() *DryStep {
		if i, ok := d.at[e.NodeID]; ok {
			return &(*steps)[i]
		}
		return nil
	}
	switch e.Type {
	case runner.EvNodeStarted:
		add(DryStep{Tool: e.Tool})
	case runner.EvBranchEvaluated, runner.EvLoopIteration: // a loop's body starting is its branch too
		if e.Type == runner.EvLoopIteration && e.Message != "" {
			return // the run log's note that it thins from here: the iteration's own event follows
		}
		add(DryStep{Branch: e.Branch, Condition: e.Condition, Iteration: e.Iteration, Message: e.Message})
	case runner.EvNodeSkipped:
		add(DryStep{Status: e.Status, Message: e.Message})
	case runner.EvNodeFinished:
		if e.Source == flow.SourcePinned {
			add(DryStep{Answer: AnswerPinned, Status: e.Status, Message: e.Message, Outputs: e.Outputs})
			return
		}
		if s := cur(); s != nil {
			s.Status = e.Status
			if e.Status != flow.StatusOK {
				s.Message = e.Message
			}
		}
	case runner.EvVariableSet:
		if s := cur(); s != nil {
			s.Outputs = e.Outputs
		}
	}
}
