package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/temporal"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Runs on the Temporal engine (settings engine.kind "temporal"): checked
// and approved here as a local run, submitted, and followed so the caller
// sees the same events, escalations and end as for a local run; answers go
// back by signal. Stop cancels the run on the service.

// temporalRemote submits to a Temporal engine.
type temporalRemote struct{ eng *temporal.Engine }

func (r temporalRemote) Submit(ctx context.Context, w *workflow.Workflow, sub Submission) (string, error) {
	return r.eng.Submit(ctx, w, runInput(sub))
}

// runInput is a submission as a Temporal run's input; a run the person
// starts says so (manual) rather than nothing.
func runInput(sub Submission) temporal.RunInput {
	src := sub.Source
	if src == "" {
		src = runner.RunByPerson
	}
	values, refs := inputs.Split(sub.Inputs) // JSON would carry a reference as the text it shows
	return temporal.RunInput{Approved: sub.Approved, ReviewFile: sub.ReviewFile, Dir: sub.Dir, Path: sub.Path, UsePinned: sub.UsePinned,
		DefaultRetries: sub.DefaultRetries, Source: src, Warnings: sub.Warnings, CanReplan: sub.CanReplan, Inputs: values, SecretInputs: refs, Subflows: sub.Subflows}
}

func (s *Service) getenv(k string) string {
	if s.deps.Getenv != nil {
		return s.deps.Getenv(k)
	}
	return os.Getenv(k)
}

// credential is a Temporal credential: the environment's, else the
// keyring's (Deps.Secret). A keyring that does not answer is a warning,
// not a refusal: the run may need no stored credential.
func (s *Service) credential(env, secret string, warnings *[]string) string {
	if v := s.getenv(env); v != "" {
		return v
	}
	if s.deps.Secret == nil {
		return ""
	}
	v, err := s.deps.Secret(secret)
	if err != nil {
		if len(*warnings) == 0 { // once: the keyring, not each credential
			*warnings = append(*warnings, fmt.Sprintf("the OS keyring could not be read (%v): the Temporal credentials come from the environment only (%s, %s)", err, settings.EnvTemporalAPIKey, temporal.EnvKey))
		}
		return ""
	}
	return v
}

// temporalConfig is how to reach the Temporal service t, with its
// credentials, and what could not be read.
func (s *Service) temporalConfig(t settings.TemporalEngine) (temporal.Config, []string, error) {
	cfg := temporal.Config{Address: t.Address, Namespace: t.Namespace, TaskQueue: t.TaskQueue, TLS: t.TLS, Logger: s.deps.Logger}
	var warnings []string
	cfg.APIKey = s.credential(settings.EnvTemporalAPIKey, settings.SecretTemporalAPIKey, &warnings)
	if k := s.credential(temporal.EnvKey, settings.SecretTemporalPayloadKey, &warnings); k != "" {
		key, err := temporal.ParseKey(k)
		if err != nil {
			return cfg, warnings, err
		}
		cfg.Key = key
	} else {
		warnings = append(warnings, "step outputs go through the Temporal history as they are: set a payload key (Preferences → Engine, or "+temporal.EnvKey+"; the same on every worker and client) to seal them")
	}
	return cfg, warnings, nil
}

// TemporalEngine connects to the Temporal service t with the credentials
// of the environment or the keyring (the one way the app and every weft
// command reach it); the warnings say what is missing.
func (s *Service) TemporalEngine(t settings.TemporalEngine) (*temporal.Engine, []string, error) {
	cfg, warnings, err := s.temporalConfig(t)
	if err != nil {
		return nil, warnings, err
	}
	c, err := temporal.Dial(cfg)
	if err != nil {
		return nil, warnings, err
	}
	return &temporal.Engine{Client: c, Config: cfg}, warnings, nil
}

// startTemporal is Start on the Temporal engine.
func (s *Service) startTemporal(ctx context.Context, req StartRequest, st settings.Settings) (*activeRun, StartResult, error) {
	res := StartResult{Problems: []validate.Problem{}, Approval: []approval.Step{}, Warnings: []string{}}
	run, ctx, ok := s.reserve(ctx, req.Sink, req.Workflow.ID)
	if !ok {
		return nil, res, ErrRunActive
	}
	started := false
	defer func() {
		if !started {
			s.release(run)
		}
	}()
	eng, warnings, err := s.TemporalEngine(st.Engine.Temporal)
	if err != nil {
		return nil, res, err
	}
	res, id, err := s.Submit(ctx, req, temporalRemote{eng})
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil || !res.Started {
		eng.Client.Close()
		return nil, res, err
	}
	run.path, _ = absPath(req.Path) // Submit took it already
	res.RunID = id
	run.mu.Lock()
	run.runID = id
	run.mu.Unlock()
	started = true
	forwarded := make(chan struct{})
	go run.forward(forwarded)
	go s.followInBackground(ctx, run, eng, id, req, st, forwarded)
	return run, res, nil
}

// followInBackground follows the Temporal run id until it ends, as
// runInBackground runs a local one.
func (s *Service) followInBackground(ctx context.Context, run *activeRun, eng *temporal.Engine, id string, req StartRequest, st settings.Settings, forwarded chan struct{}) {
	defer func() {
		eng.Client.Close()
		s.ended(run, forwarded)
	}()
	fin := Finished{Warnings: []string{}, Problems: []validate.Problem{}, RunID: id}
	// What the app shows is hidden by this machine's secrets and the
	// workflow's credentials too (the worker hid its own).
	red := runner.WorkflowRedactor(st, req.Workflow)
	var rp runner.Replanner
	if client, err := s.client(st); err == nil && client != nil {
		rp = s.replanner(st, client)
	}
	run.canReplan = rp != nil
	// The runs of its sub-workflows are followed too: their escalations
	// reach whoever answers this run's (as a local child's do), and each
	// is logged beside its file when it ends.
	kids := &childFollows{s: s, eng: eng, st: st, run: run}
	res, err := eng.Follow(ctx, id, temporal.Handler{
		Event: func(e runner.Event) {
			if e.SubRun != nil {
				kids.follow(ctx, *e.SubRun)
			}
			seq := e.Seq
			e = runner.RedactEvent(red, e)
			e.Seq, e.RunID = seq, id
			run.lastSeq.Store(seq)
			c := e
			run.send(Event{Kind: KindRun, Run: &c})
		},
		Escalation: func(ctx context.Context, e runner.Escalation) (runner.Response, bool) {
			resp, ok := s.escalateTemporal(ctx, run, req.Workflow, e)
			if !ok || resp.Action != runner.ActReplan || rp == nil {
				return resp, ok
			}
			// A worker has no planner; the plan is made here, where the
			// model is, and sent before the answer: the run's walk ends it
			// replanned, or refuses the answer and asks again (as a local
			// run does).
			var a temporal.ReplanAnswer
			if nw, err := s.replanTemporal(ctx, rp, req.Workflow, id, e, st); err != nil {
				a.Error = err.Error()
			} else if a.Workflow, err = workflow.Marshal(nw); err != nil {
				a.Error = err.Error()
			}
			if err := eng.Replanned(ctx, id, a); err != nil {
				return resp, false
			}
			return resp, true
		},
		Notice: func(msg string) { run.send(Event{Kind: KindNotice, Notice: &msg}) },
		SubRun: func(l flow.RunLink) { kids.follow(ctx, l) },
	})
	if err != nil {
		switch {
		case ctx.Err() != nil && (req.Detach || run.leave.Load()): // the CLI's Ctrl+C, the app closing: the run goes on
			fin.Outcome, fin.Error = runner.OutcomeCanceled, fmt.Sprintf("detached; run %s goes on. Follow it: weft runs show %s; answer it: weft runs respond %s ANSWER", id, id, id)
		case ctx.Err() != nil: // Stop: cancel the run on the service too
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if cerr := eng.Cancel(cctx, id); cerr != nil {
				fin.Warnings = append(fin.Warnings, cerr.Error())
			}
			cancel()
			fin.Outcome, fin.Error = runner.OutcomeCanceled, "stopped; the run was canceled on the Temporal service"
		default:
			fin.Outcome, fin.Error, fin.Err = runner.OutcomeFailed, fmt.Sprintf("following Temporal run %s: %v", id, err), err
		}
	} else {
		// Logged beside the workflow like a local run (history, weft
		// stats), from the service, with its events whole.
		if req.Path != "" {
			ask := true
			lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			dir, err := s.logTemporalRun(lctx, eng, st, temporal.RunInfo{RunID: id, Status: "completed", Started: res.Started, Closed: res.Finished}, req.Workflow, run.path, res, runInput(Submission{Source: req.Source}).Source, &ask)
			cancel()
			if err != nil {
				fin.Warnings = append(fin.Warnings, "the run is not logged beside the workflow: "+err.Error())
			}
			fin.Dir, res.Dir = dir, dir // the result names its folder, as a local run's does
		}
		runner.RedactResult(red, res)
		fin.Outcome, fin.Error, fin.StoppedAt, fin.Summary, fin.Verdict = res.Outcome, res.Error, res.StoppedAt, &res.Summary, res.Verdict
		fin.Warnings = append(fin.Warnings, nonNil(res.Warnings)...)
		fin.Started, fin.Finished, fin.Result = res.Started, res.Finished, res
		fin.Replanned = res.Replanned != nil
		if res.Replanned != nil {
			prop := s.proposal(ctx, req.Workflow, res, run.path)
			prop.AfterSeq = run.lastSeq.Load()
			run.send(Event{Kind: KindReplanned, Replan: &prop})
		}
	}
	fin.Warnings = append(fin.Warnings, kids.wait()...)
	fin.AfterSeq = run.lastSeq.Load()
	run.mu.Lock()
	run.finished = &fin
	run.mu.Unlock()
	c := fin
	run.send(Event{Kind: KindFinished, Finished: &c})
}

// escalateTemporal asks whoever answers run about the escalation e of a
// Temporal run of w (or of one of its sub-workflows'), offering the
// fixes that worked before on this machine, as a local run offers them
// (a worker has none).
func (s *Service) escalateTemporal(ctx context.Context, run *activeRun, w *workflow.Workflow, e runner.Escalation) (runner.Response, bool) {
	if len(e.Failures) > 0 && len(e.KnownFixes) == 0 {
		if pats, err := failure.DefaultPatternStore(); err == nil {
			tool := string(e.NodeType)
			if n := w.NodeByID(e.NodeID); n != nil {
				tool = flow.ToolName(n)
			}
			e.KnownFixes = runner.KnownFixes(pats, tool, e.Failures[len(e.Failures)-1])
		}
	}
	resp, err := run.Escalate(ctx, e)
	return resp, err == nil
}

// childFollows follows the Temporal runs of a followed run's
// sub-workflows (and theirs).
type childFollows struct {
	s    *Service
	eng  *temporal.Engine
	st   settings.Settings
	run  *activeRun
	wg   sync.WaitGroup
	mu   sync.Mutex
	seen map[string]bool
	errs []string
}

// follow follows the child run link until it ends, then logs it beside
// its file with its link to its caller. A child the follower leaves
// (Stop, detach) is logged later, by LogTemporalRuns.
func (k *childFollows) follow(ctx context.Context, link flow.RunLink) {
	k.mu.Lock()
	if k.seen == nil {
		k.seen = map[string]bool{}
	}
	if k.seen[link.RunID] {
		k.mu.Unlock()
		return
	}
	k.seen[link.RunID] = true
	k.mu.Unlock()
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		in, err := k.eng.Input(ctx, link.RunID)
		var w *workflow.Workflow
		if err == nil {
			w, err = inputWorkflow(in)
		}
		if err != nil {
			k.warn(fmt.Sprintf("the sub-workflow's run %s is not followed: %v", link.RunID, err))
			return
		}
		res, err := k.eng.Follow(ctx, link.RunID, temporal.Handler{
			Event: func(e runner.Event) {
				if e.SubRun != nil {
					k.follow(ctx, *e.SubRun)
				}
			},
			Escalation: func(ctx context.Context, e runner.Escalation) (runner.Response, bool) {
				return k.s.escalateTemporal(ctx, k.run, w, e) // no replan: a child's plan is made in its own file
			},
			SubRun: func(l flow.RunLink) { k.follow(ctx, l) },
		})
		if err != nil || in.Path == "" {
			return
		}
		ask := true
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if _, err := k.s.logTemporalRun(lctx, k.eng, k.st, temporal.RunInfo{RunID: link.RunID, Status: "completed", Started: res.Started, Closed: res.Finished},
			w, in.Path, res, in.Source, &ask); err != nil {
			k.warn(fmt.Sprintf("the sub-workflow's run %s is not logged beside %s: %v", link.RunID, filepath.Base(in.Path), err))
		}
	}()
}

func (k *childFollows) warn(msg string) {
	k.mu.Lock()
	k.errs = append(k.errs, msg)
	k.mu.Unlock()
}

// childLogWait bounds how long a run's end waits for its children's logs
// (a child ends before the step that ran it does).
const childLogWait = 30 * time.Second

// wait waits for the children followed to be logged, and says what was
// not.
func (k *childFollows) wait() []string {
	done := make(chan struct{})
	go func() { k.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(childLogWait):
		k.warn("the runs of the sub-workflows are still being followed; they are logged when they end (or by the next read of the Temporal runs)")
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.errs...)
}

// canReplan says whether runs started here can be replanned: a model is
// set up, so a planner can be made (as a local run's Replanner is).
func (s *Service) canReplan(st settings.Settings) bool {
	client, err := s.client(st)
	return err == nil && client != nil && s.replanner(st, client) != nil
}

// replanTemporal asks the planner for a new version after the failure the
// escalation e reports (the outputs so far are not asked for: the run's
// events told what ran), and marks its model-written steps for approval.
func (s *Service) replanTemporal(ctx context.Context, rp runner.Replanner, w *workflow.Workflow, runID string, e runner.Escalation, st settings.Settings) (*workflow.Workflow, error) {
	var failed workflow.Node
	if n := w.NodeByID(e.NodeID); n != nil {
		failed = *n
	} else {
		failed = workflow.Node{Key: e.NodeKey, Name: e.NodeName, Type: e.NodeType}
	}
	nw, err := rp.Replan(ctx, failure.ReplanRequest{Workflow: w.Clone(), FailedNode: failed, Failures: e.Failures, Outputs: map[string]any{}})
	if err != nil {
		return nil, err
	}
	if nw == nil {
		return nil, errors.New("the planner returned no workflow")
	}
	runner.MarkReplan(w, nw, runID, e.NodeKey, st.LLM.Model, time.Now())
	return nw, nil
}

// GoingRun is a run going on the Temporal service.
type GoingRun struct {
	RunID   string    `json:"run_id"`
	Started time.Time `json:"started"`
}

// maxGoingLookup bounds the runs TemporalRunsGoing reads (newest first).
const maxGoingLookup = 100

// TemporalRunsGoing lists the runs going on the settings' Temporal service
// of the workflow saved at path that nobody here follows: one the app
// followed before it was closed, or one started elsewhere (a CLI run that
// was detached, a Temporal Schedule's). Follow follows one. None when
// runs go on the local engine.
func (s *Service) TemporalRunsGoing(ctx context.Context, path string) ([]GoingRun, error) {
	out := []GoingRun{}
	st, _, err := s.settings()
	if err != nil {
		return out, err
	}
	abs, err := absPath(path)
	if err != nil || abs == "" || st.Engine.Kind != settings.EngineTemporal || st.Engine.Temporal.Address == "" {
		return out, err
	}
	eng, _, err := s.TemporalEngine(st.Engine.Temporal)
	if err != nil {
		return out, err
	}
	defer eng.Client.Close()
	runs, err := eng.List(ctx, maxGoingLookup)
	if err != nil {
		return out, err
	}
	for _, r := range runs {
		if r.Status != "running" || s.goingRun(r.RunID) != nil {
			continue
		}
		if in, err := eng.Input(ctx, r.RunID); err == nil && in.Path == abs {
			out = append(out, GoingRun{RunID: r.RunID, Started: r.Started})
		}
	}
	return out, nil
}

// Follow follows a run going on the settings' Temporal service as Start
// follows one it submitted: its events so far and to come, its
// escalations (answered with Respond), its end (logged beside its
// workflow). Stop cancels it on the service. The run keeps the workflow
// it was started with, whatever the file holds now.
func (s *Service) Follow(ctx context.Context, runID string, sink Sink) (StartResult, error) {
	res := StartResult{Problems: []validate.Problem{}, Approval: []approval.Step{}, Warnings: []string{}}
	st, warnings, err := s.settings()
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		return res, err
	}
	if st.Engine.Kind != settings.EngineTemporal {
		return res, errors.New("runs go on this computer (Preferences → Engine): there is no Temporal run to follow")
	}
	eng, warnings, err := s.TemporalEngine(st.Engine.Temporal)
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		return res, err
	}
	in, err := eng.Input(ctx, runID)
	if err != nil {
		eng.Client.Close()
		return res, err
	}
	w, err := inputWorkflow(in)
	if err != nil {
		eng.Client.Close()
		return res, fmt.Errorf("run %s: its workflow: %w", runID, err)
	}
	run, ctx, ok := s.reserve(ctx, sink, w.ID)
	if !ok {
		eng.Client.Close()
		return res, ErrRunActive
	}
	run.path = in.Path
	run.mu.Lock()
	run.runID = runID
	run.mu.Unlock()
	forwarded := make(chan struct{})
	go run.forward(forwarded)
	go s.followInBackground(ctx, run, eng, runID, StartRequest{Workflow: w, Path: in.Path, Sink: sink}, st, forwarded)
	res.Started, res.RunID = true, runID
	return res, nil
}
