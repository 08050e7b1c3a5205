// Package service is Weft's application layer: the one place that decides
// when a run may start (validation, effective settings, the model client,
// the tool catalog, the approval gate, the replanner), routes escalation
// answers to the run that waits for them, turns a replanned workflow into a
// proposal to review, reads past runs and caches the tool catalog. The
// Wails bindings (package main) and the weft CLI (backend/cli) only
// translate: clicks, flags and terminal prompts into calls of a Service,
// its events and results into frontend events and printed lines. Engines
// plug in below it (today backend/runner).
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

// ErrRunActive is what Start returns when Deps.MaxRuns runs go already.
var ErrRunActive = errors.New("a run is already in progress: stop it first")

// Deps are what a Service is built from. Settings is required; the rest
// have defaults.
type Deps struct {
	// Settings gives the effective settings (file, keyring, environment)
	// and the warnings loading them gave.
	Settings func() (settings.Settings, []string, error)
	// NewLLM, when set, replaces the model client the Service makes from
	// the settings (AI.NewClient): tests and fakes.
	NewLLM func(settings.Settings) (llm.Client, error)
	// LLMOptions are added to every model client the Service makes (the
	// CLI: its logger and the lines that say a call takes a while).
	LLMOptions []llm.Option
	// ListTools, when set, lists the built-in and MCP tools (tests);
	// by default the Service's own MCP sessions do, which its runs share
	// (mcp.go).
	ListTools func(ctx context.Context, s settings.Settings) (*tools.Catalog, map[string]error)
	// Replanner makes a run's Replanner; nil leaves replanning unavailable.
	Replanner ReplannerFactory
	// Versions opens the versions store that SaveReplanned records in
	// (default versions.DefaultStore).
	Versions func() (*versions.Store, error)
	// Builtin is the catalog workflows are validated against before a run
	// starts (default tools.Builtin()).
	Builtin *tools.Catalog
	// Logger, when set, is the runner's logger and hears about MCP servers
	// that could not be listed.
	Logger *slog.Logger
	// Approvals opens the approvals store (default approval.DefaultStore,
	// in the XDG data dir).
	Approvals func() (*approval.Store, error)
	// Trust opens the file-trust index (default approval.DefaultTrust).
	Trust func() (*approval.Trust, error)
	// Tune adjusts the runner options of every run (tests: a fast Sleep).
	Tune func(*runner.Options)
	// Getenv reads the environment (the Temporal keys; default os.Getenv).
	Getenv func(string) string
	// Secret reads a credential from the keyring
	// (settings.SecretTemporalAPIKey, …); nil: the environment only.
	Secret func(name string) (string, error)
	// Secrets is the credentials store the {{secrets.NAME}} references of
	// a run are read from (default credentials.Default; when that cannot
	// be opened, a step that refers to a secret fails saying so).
	Secrets runner.SecretSource
	// MaxRuns bounds the runs that go at once: Start fails with
	// ErrRunActive past it (a desktop window: 1, its one current run).
	// 0 is no bound (weft mcp serve: each agent's call its own run).
	MaxRuns int
}

// Service is the application layer of one desktop window or one CLI
// command. It runs several workflows at once (Deps.MaxRuns), each with its
// own run id, folder, events and escalations; Stop, Status and Respond
// name the run (or the escalation, whose id holds its run's).
type Service struct {
	deps Deps

	mu   sync.Mutex
	runs map[*activeRun]struct{}
	last *lastRun // partial.go

	cat catalogCache // catalog.go
	mcp mcpSessions  // mcp.go
	// breakers is the circuit breaker of every model client this Service
	// makes, one per endpoint (ai.go).
	breakers *llm.BreakerRegistry
}

// New returns a Service over deps.
func New(deps Deps) *Service {
	if deps.Versions == nil {
		deps.Versions = versions.DefaultStore
	}
	if deps.Builtin == nil {
		deps.Builtin = tools.Builtin()
	}
	s := &Service{deps: deps, breakers: llm.NewBreakerRegistry()}
	if deps.Secrets == nil {
		if store, err := credentials.Default(s.getenv); err == nil {
			s.deps.Secrets = store
		}
	}
	return s
}

// secretNames are the names the credentials store holds, for validation.
func (s *Service) secretNames() []string { return SecretNames(s.deps.Secrets) }

// SecretNames are the names a credentials store holds (one with a List,
// such as credentials.Store), for validate's unknown_secret; nil, which
// skips that check, when it cannot list them.
func SecretNames(src any) []string {
	l, ok := src.(interface {
		List() ([]credentials.Secret, error)
	})
	if !ok || l == nil {
		return nil
	}
	secs, err := l.List()
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(secs))
	for _, sec := range secs {
		names = append(names, sec.Name)
	}
	return names
}

func (s *Service) settings() (settings.Settings, []string, error) {
	if s.deps.Settings == nil {
		return settings.Settings{}, nil, errors.New("settings: the service has no settings source")
	}
	return s.deps.Settings()
}

// client is the model client of the settings (extra: options of this
// call), nil when no model is set; err says why a configured model has no
// client.
func (s *Service) client(st settings.Settings, extra ...llm.Option) (llm.Client, error) {
	if strings.TrimSpace(st.LLM.Model) == "" {
		return nil, nil
	}
	if s.deps.NewLLM != nil {
		return s.deps.NewLLM(st)
	}
	c, err := s.AI(st).NewClient(extra...)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// EventKind names a run event; the values are the desktop's event names.
type EventKind string

// The events of a run, in this order: KindRun for every runner.Event;
// KindEscalation right after the escalated event, when the run waits for
// an answer (Respond); KindReplanned when the run ended with a new plan;
// last KindFinished.
const (
	KindRun        EventKind = "run:event"
	KindEscalation EventKind = "run:escalation"
	KindReplanned  EventKind = "run:replanned"
	KindFinished   EventKind = "run:finished"
	// KindNotice says, in a sentence, why a run on another engine does not
	// go on (no worker polls its task queue); it may come at any time.
	KindNotice EventKind = "run:notice"
)

// Event is one thing a run tells its caller; the field named by Kind is set.
type Event struct {
	Kind       EventKind
	Run        *runner.Event
	Escalation *Escalation
	Replan     *Replan
	Finished   *Finished
	Notice     *string
}

// Payload is the value the event carries, for an adapter that passes it
// on as JSON.
func (e Event) Payload() any {
	switch {
	case e.Run != nil:
		return *e.Run
	case e.Escalation != nil:
		return *e.Escalation
	case e.Replan != nil:
		return *e.Replan
	case e.Finished != nil:
		return *e.Finished
	case e.Notice != nil:
		return *e.Notice
	}
	return nil
}

// Sink receives a run's events, one at a time and in order, from one
// goroutine per run. It may block (a terminal prompt for an escalation):
// the run waits for the answer anyway.
type Sink interface{ Emit(Event) }

// SinkFunc is a function as a Sink.
type SinkFunc func(Event)

// Emit calls f.
func (f SinkFunc) Emit(e Event) { f(e) }

// StartRequest is a run to start.
type StartRequest struct {
	Workflow *workflow.Workflow
	// Path is the workflow's file; "" when unsaved.
	Path string
	// Approver is asked about the steps a model wrote that wait for
	// approval (approval.go); nil means nobody can be asked, so a workflow
	// with such steps does not start.
	Approver Approver
	// ApprovedBy says how approvals given in this run are made, for the
	// approvals file ("desktop", "cli", "cli --approve").
	ApprovedBy string
	// Sink receives the run's events; nil drops them.
	Sink Sink
	// UsePinned makes steps with pinned data use it instead of running
	// (the editor's runs; the CLI's with --pinned).
	UsePinned bool
	// From runs from this node, reusing the last run's outputs of the
	// steps before it (partial.go); "" runs the whole workflow.
	From string
	// Engine forces an engine ("local" or "temporal"); "" uses the
	// settings' engine.
	Engine string
	// Temporal, with Engine "temporal", replaces the settings' service
	// (the CLI's flags).
	Temporal *settings.TemporalEngine
	// Detach leaves a Temporal run going when ctx ends (the CLI's Ctrl+C);
	// without it the run is canceled on the service (the app's Stop).
	Detach bool
	// Source is who starts the run (runner.RunByPerson when unset).
	Source runner.RunSource
	// Inputs are values for the workflow's declared inputs (the CLI's
	// --inputs JSON, a test case's); InputTexts, by name, are values
	// written as text (--input NAME=VALUE, the desktop's form), parsed
	// per the input's type, over Inputs. inputs.Resolve checks them all
	// (defaults, required, the schema) before anything is asked or runs.
	Inputs     map[string]any
	InputTexts map[string]string
	// RequireSHA256, when set, runs the file at Path only if its bytes
	// have this SHA-256 (hex): the content approved when its schedule was
	// made. The workflow is then the one read from those bytes (Workflow
	// is not used); other bytes run nothing and are logged as refused
	// (pin.go).
	RequireSHA256 string
}

// StartResult says whether the run started. Started is false when the
// workflow is not valid (Error and Problems say why) or when its
// steps a model wrote need approval that was not given (Approval lists
// them, in full).
type StartResult struct {
	Started  bool               `json:"started"`
	Error    string             `json:"error,omitempty"`
	Problems []validate.Problem `json:"problems"`
	Approval []approval.Step    `json:"approval"`
	Warnings []string           `json:"warnings"`
	// Denied is true when an Approver was asked and did not approve every
	// step; false with Approval set means nobody could be asked.
	Denied bool `json:"-"`
	// RunID is set at once for a run on Temporal (its workflow id).
	RunID string `json:"-"`
	// Refused is the run logged without running anything, when the file
	// is not the content RequireSHA256 names (outcome needs_review; Error
	// says why and how to update the schedule).
	Refused *Record `json:"refused,omitempty"`
	// MissingSecrets are the secrets the workflow refers to that this
	// computer's credentials store lacks: a local run does not start
	// without them (Error lists them), so nothing runs half way.
	MissingSecrets []NeededSecret `json:"missing_secrets,omitempty"`
	// InputProblems say, input by input, why the run's inputs were
	// refused (Error says it all in one line): a form shows each at its
	// field.
	InputProblems []inputs.Problem `json:"input_problems,omitempty"`
}

// Escalation is an escalation waiting for Respond(ID, …).
type Escalation struct {
	ID         string            `json:"id"`
	Escalation runner.Escalation `json:"escalation"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`
}

// Finished is the end of a run.
type Finished struct {
	RunID     string          `json:"run_id"`
	Dir       string          `json:"dir"`
	Outcome   runner.Outcome  `json:"outcome"`
	Error     string          `json:"error,omitempty"`
	StoppedAt *runner.NodeRef `json:"stopped_at,omitempty"`
	Summary   *runner.Summary `json:"summary,omitempty"`
	// Verdict is the goal check (done_when), when the workflow has one.
	Verdict   *runner.Verdict `json:"verdict,omitempty"`
	Warnings  []string        `json:"warnings"`
	Replanned bool            `json:"replanned"`
	Started   time.Time       `json:"started"`
	Finished  time.Time       `json:"finished"`
	// Problems are set when the run could not start after all.
	Problems []validate.Problem `json:"problems"`
	// AfterSeq is the seq of the last run event sent before it.
	AfterSeq int64 `json:"after_seq"`

	// Result is the runner's whole result (nil when Err is set).
	Result *runner.Result `json:"-"`
	// Err is why the engine could not run the workflow at all.
	Err error `json:"-"`
}

// Status says whether a run goes and what it waits for.
type Status struct {
	Running    bool        `json:"running"`
	RunID      string      `json:"run_id"`
	WorkflowID string      `json:"workflow_id"`
	Escalation *Escalation `json:"escalation"`
	CanReplan  bool        `json:"can_replan"`
}

// activeRun is a run in progress.
type activeRun struct {
	svc        *Service
	sink       Sink
	cancel     context.CancelFunc
	done       chan struct{}
	workflowID string
	path       string // the workflow's file, "" when unsaved
	canReplan  bool
	// replanTries are what the last replan asked again and why (replan.go).
	replanTries []assistant.Try
	out         chan Event

	// lastSeq is the seq of the last event sent.
	lastSeq atomic.Int64
	// leave (Leave) lets a run on Temporal go on when its follower stops.
	leave atomic.Bool

	mu       sync.Mutex
	runID    string
	seq      int
	waiting  map[string]chan runner.Response
	current  *Escalation
	finished *Finished
}

// send queues an event; the forwarder hands them to the sink in order so
// the runner never waits on the caller for long.
func (r *activeRun) send(e Event) { r.out <- e }

func (r *activeRun) forward(done chan<- struct{}) {
	for e := range r.out {
		if r.sink != nil {
			r.sink.Emit(e)
		}
	}
	close(done)
}

// Escalate implements runner.EscalationHandler: it tells the sink and
// waits for Respond or the end of the run.
func (r *activeRun) Escalate(ctx context.Context, e runner.Escalation) (runner.Response, error) {
	ch := make(chan runner.Response, 1)
	r.mu.Lock()
	r.seq++
	id := fmt.Sprintf("%s#%d", e.RunID, r.seq)
	r.waiting[id] = ch
	esc := &Escalation{ID: id, Escalation: e, AfterSeq: r.lastSeq.Load()}
	if esc.Escalation.Failures == nil {
		esc.Escalation.Failures = []failure.Record{}
	}
	r.current = esc
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiting, id)
		if r.current == esc {
			r.current = nil
		}
		r.mu.Unlock()
	}()
	c := *esc
	r.send(Event{Kind: KindEscalation, Escalation: &c})
	select {
	case resp := <-ch:
		return resp, nil
	case <-ctx.Done():
		return runner.Response{}, ctx.Err()
	}
}

// Start runs req.Workflow in the background; its events go to req.Sink;
// the result's RunID names it (Stop, Status). It fails with ErrRunActive
// when Deps.MaxRuns runs go already. A workflow
// that is invalid, or whose side-effect steps are not approved, does not
// start: the result says why. The run ends with ctx, with Stop, or by
// itself.
func (s *Service) Start(ctx context.Context, req StartRequest) (StartResult, error) {
	_, res, err := s.start(ctx, req)
	return res, err
}

// Run is Start that waits for the run to end and every event to reach the
// sink (the CLI). fin is nil when the run did not start.
func (s *Service) Run(ctx context.Context, req StartRequest) (res StartResult, fin *Finished, err error) {
	run, res, err := s.start(ctx, req)
	if run == nil {
		return res, nil, err
	}
	<-run.done
	run.mu.Lock()
	defer run.mu.Unlock()
	return res, run.finished, nil
}

func (s *Service) start(ctx context.Context, req StartRequest) (*activeRun, StartResult, error) {
	if req.RequireSHA256 != "" { // a schedule's run: only the content approved
		w, refused, err := s.pinned(req.Path, req.RequireSHA256, req.Source)
		if err != nil || refused != nil {
			res := StartResult{Problems: []validate.Problem{}, Approval: []approval.Step{}, Warnings: []string{}, Refused: refused}
			if refused != nil {
				res.Error = refused.Error
			}
			return nil, res, err
		}
		req.Workflow = w
	}
	run, res, err := s.startChecked(ctx, req)
	if run == nil {
		s.logScheduledRefusal(req, &res, err)
	}
	return run, res, err
}

func (s *Service) startChecked(ctx context.Context, req StartRequest) (*activeRun, StartResult, error) {
	res := StartResult{Problems: []validate.Problem{}, Approval: []approval.Step{}, Warnings: []string{}}
	if req.Workflow == nil {
		return nil, res, errors.New("run: no workflow given")
	}
	if req.From == "" && req.Engine != settings.EngineLocal { // a run from a node reuses what this process keeps: local only
		if st, _, err := s.settings(); err == nil && (req.Engine == settings.EngineTemporal || st.Engine.Kind == settings.EngineTemporal) {
			if req.Temporal != nil {
				st.Engine.Temporal = *req.Temporal
			}
			return s.startTemporal(ctx, req, st)
		}
	}
	w := req.Workflow.Clone() // the caller may change its copy while the run goes
	run, ctx, ok := s.reserve(ctx, req.Sink, w.ID)
	if !ok {
		return nil, res, ErrRunActive
	}
	started := false
	defer func() {
		if !started {
			s.release(run)
		}
	}()

	path, err := absPath(req.Path)
	if err != nil {
		return nil, res, err
	}
	run.path = path
	vr := validate.ValidateWith(w, s.deps.Builtin, validate.Options{Secrets: s.secretNames()})
	if !vr.Valid {
		res.Problems = nonNil(vr.Errors())
		res.Error = (&runner.InvalidError{Problems: res.Problems}).Error()
		return nil, res, nil
	}
	given, ok, err := runInputs(w, req, &res)
	if !ok {
		return nil, res, err
	}
	if req.From == "" {
		// A step would fail for want of it half way through: ask first.
		// (A run from a node reuses what ran before it; a Temporal
		// worker reads its own store.)
		if miss := MissingSecrets(w, s.secretNames()); len(miss) > 0 {
			res.MissingSecrets = miss
			res.Error = MissingSecretsMessage(miss)
			return nil, res, nil
		}
	}
	for _, p := range vr.Problems {
		if p.Code == validate.CodeUnknownSecret { // the step would fail when it runs: say so now
			res.Warnings = append(res.Warnings, p.Message)
		}
	}
	st, warnings, err := s.settings()
	res.Warnings = append(res.Warnings, warnings...)
	if err != nil {
		return nil, res, err
	}
	client, err := s.client(st)
	if err != nil {
		res.Warnings = append(res.Warnings, "AI steps cannot run: "+err.Error())
	}

	var reuse runner.Options // a run from a node: checked before anyone is asked
	if req.From != "" {
		if err := s.fromOptions(w, req.From, &reuse); err != nil {
			res.Error = err.Error()
			return nil, res, nil
		}
	}

	pass, err := s.checkApproval(ctx, st, w, path, req.Approver, req.ApprovedBy)
	res.Warnings = append(res.Warnings, pass.warnings...)
	if err != nil {
		return nil, res, err
	}
	if !pass.approved {
		res.Approval, res.Denied = pass.pending, pass.denied
		res.Error = approvalMessage(pass.pending)
		return nil, res, nil
	}

	// KeepAttempts: a case can be recorded from the run (RecordCase).
	opts := runner.Options{Escalation: run, WorkflowPath: path, Logger: s.deps.Logger, UsePinned: req.UsePinned, Source: req.Source, Inputs: given, KeepAttempts: true,
		OnEvent: func(e runner.Event) {
			if e.Type == runner.EvRunStarted {
				run.mu.Lock()
				run.runID = e.RunID
				run.mu.Unlock()
			}
			run.lastSeq.Store(e.Seq)
			run.send(Event{Kind: KindRun, Run: &e})
		}}
	s.AI(st).Engine(client, &opts)
	opts.From, opts.Reuse, opts.ReuseOf, opts.ReusedFrom = reuse.From, reuse.Reuse, reuse.ReuseOf, reuse.ReusedFrom
	opts.Secrets = s.deps.Secrets
	// The runner checks again, with the approvals just given.
	opts.Approvals, opts.ApprovalCatalog, opts.ReviewFile = pass.checker, pass.catalog, pass.file
	opts.GateChild = s.gateChild(st) // a sub-workflow is gated as a run of its file (subflow.go)
	if rp := s.replanner(st, client); rp != nil {
		opts.Replanner = rp
		run.canReplan = true
		run.hearReplans(rp, s.proposalCheck(path, w))
	}
	// The servers the approval check listed tools with, in the run's
	// folder; a session of its own when another run uses those (mcp.go).
	mcpDir := ""
	if path != "" {
		mcpDir = filepath.Dir(path)
	}
	var doneMCP func()
	opts.MCP, doneMCP = s.mcpForRun(st, mcpDir)
	if s.deps.Tune != nil {
		s.deps.Tune(&opts)
	}
	if opts.RunID == "" {
		now := time.Now
		if opts.Now != nil {
			now = opts.Now
		}
		opts.RunID = runner.NewRunID(now())
	}
	run.mu.Lock()
	run.runID = opts.RunID
	run.mu.Unlock()
	started = true
	res.Started, res.RunID = true, opts.RunID
	forwarded := make(chan struct{})
	go run.forward(forwarded)
	go func() {
		defer doneMCP()
		s.runInBackground(ctx, run, runner.New(opts), w, forwarded)
	}()
	return run, res, nil
}

// runInputs are the values of w's declared inputs the run gets
// (inputs.Resolve over what req gives); ok false when they are refused,
// res then saying why, input by input.
func runInputs(w *workflow.Workflow, req StartRequest, res *StartResult) (map[string]any, bool, error) {
	given, err := inputs.Resolve(w.Inputs, req.Inputs, req.InputTexts)
	var ie *inputs.Error
	switch {
	case errors.As(err, &ie):
		res.InputProblems = ie.Problems
		res.Error = "the run did not start: " + err.Error()
		return nil, false, nil
	case err != nil:
		return nil, false, err
	}
	return given, true, nil
}

// absPath is the workflow's file as an absolute path ("" when unsaved).
func absPath(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" {
		return "", nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("run: %w", err)
	}
	return abs, nil
}

// reserve counts a new run among those going while it is checked (ok
// false: Deps.MaxRuns go already); release undoes it when the run does not
// start.
func (s *Service) reserve(ctx context.Context, sink Sink, workflowID string) (*activeRun, context.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.deps.MaxRuns > 0 && s.goingLocked() >= s.deps.MaxRuns {
		return nil, ctx, false
	}
	ctx, cancel := context.WithCancel(ctx)
	run := &activeRun{svc: s, sink: sink, cancel: cancel, done: make(chan struct{}), workflowID: workflowID,
		out: make(chan Event, 1024), waiting: map[string]chan runner.Response{}}
	if s.runs == nil {
		s.runs = map[*activeRun]struct{}{}
	}
	s.runs[run] = struct{}{}
	return run, ctx, true
}

// goingLocked counts the runs whose end was not told yet (s.mu held): a
// run that sent its Finished event is over for its caller, who may start
// the next at once, though its last events may still be on their way.
func (s *Service) goingLocked() int {
	n := 0
	for r := range s.runs {
		r.mu.Lock()
		if r.finished == nil {
			n++
		}
		r.mu.Unlock()
	}
	return n
}

func (s *Service) release(run *activeRun) {
	run.cancel()
	s.mu.Lock()
	delete(s.runs, run)
	s.mu.Unlock()
}

// ended closes a run that went: its events all delivered, its place free
// for the next.
func (s *Service) ended(run *activeRun, forwarded chan struct{}) {
	close(run.out)
	<-forwarded
	s.release(run)
	close(run.done)
}

func (s *Service) runInBackground(ctx context.Context, run *activeRun, rn *runner.Runner, w *workflow.Workflow, forwarded chan struct{}) {
	defer s.ended(run, forwarded)
	fin := Finished{Warnings: []string{}, Problems: []validate.Problem{}}
	finish := func() {
		run.mu.Lock()
		run.finished = &fin
		run.mu.Unlock()
		c := fin
		run.send(Event{Kind: KindFinished, Finished: &c})
	}
	res, err := rn.Run(ctx, w)
	s.keepLast(w, res)
	if err != nil {
		fin.Outcome = runner.OutcomeFailed
		fin.Error = err.Error()
		fin.Err = err
		var ie *runner.InvalidError
		if errors.As(err, &ie) {
			fin.Problems = nonNil(ie.Problems)
		}
		finish()
		return
	}
	fin.RunID, fin.Dir, fin.Outcome, fin.Error, fin.StoppedAt = res.RunID, res.Dir, res.Outcome, res.Error, res.StoppedAt
	fin.Summary, fin.Warnings, fin.Replanned, fin.Verdict = &res.Summary, nonNil(res.Warnings), res.Replanned != nil, res.Verdict
	fin.Started, fin.Finished = res.Started, res.Finished
	fin.AfterSeq = run.lastSeq.Load()
	fin.Result = res
	if res.Replanned != nil {
		rp := s.proposal(ctx, w, res, run.path)
		rp.AfterSeq = fin.AfterSeq
		run.mu.Lock()
		rp.Tries = run.replanTries
		run.mu.Unlock()
		run.send(Event{Kind: KindReplanned, Replan: &rp})
	}
	finish()
}

// Respond answers the escalation id with resp (retry, skip, abort, fix
// with an instruction or arguments, replan). It fails when resp is not an
// answer or no such escalation waits (answered already, or the run ended).
func (s *Service) Respond(id string, resp runner.Response) error {
	switch resp.Action {
	case runner.ActRetry, runner.ActSkip, runner.ActAbort, runner.ActFix, runner.ActReplan:
	default:
		return fmt.Errorf("%q is not an answer: use retry, skip, abort, fix or replan", resp.Action)
	}
	for _, run := range s.going() {
		run.mu.Lock()
		ch, ok := run.waiting[id]
		delete(run.waiting, id)
		run.mu.Unlock()
		if ok {
			ch <- resp
			return nil
		}
	}
	return fmt.Errorf("escalation %s is not waiting for an answer (answered already, or its run moved on or ended)", id)
}

// going are the runs in progress.
func (s *Service) going() []*activeRun {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*activeRun, 0, len(s.runs))
	for r := range s.runs {
		out = append(out, r)
	}
	return out
}

// id is the run's id ("" while a Temporal run is being submitted).
func (r *activeRun) id() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.runID
}

// goingRun is the run in progress with this id, or nil.
func (s *Service) goingRun(runID string) *activeRun {
	if runID == "" {
		return nil
	}
	for _, r := range s.going() {
		if r.id() == runID {
			return r
		}
	}
	return nil
}

// Stop cancels the run runID (an escalation waiting for an answer ends
// with it); the other runs go on. It reports whether that run was going.
func (s *Service) Stop(runID string) bool {
	run := s.goingRun(runID)
	if run == nil {
		return false
	}
	run.cancel()
	return true
}

// Leave is Stop of every run for a caller that goes away (the app's window
// closes): a run on Temporal goes on there, unfollowed
// (TemporalRunsGoing offers it again, LogTemporalRuns logs its end); a
// local run is stopped. It reports whether any run was going.
func (s *Service) Leave() bool {
	runs := s.going()
	for _, run := range runs {
		run.leave.Store(true)
		run.cancel()
	}
	return len(runs) > 0
}

// Wait waits for every run in progress to end, at most timeout. It
// reports whether no run goes any more.
func (s *Service) Wait(timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for _, run := range s.going() {
		select {
		case <-run.done:
		case <-t.C:
			return false
		}
	}
	return true
}

// Status says whether the run runID goes and what it waits for.
func (s *Service) Status(runID string) Status {
	run := s.goingRun(runID)
	if run == nil {
		return Status{}
	}
	run.mu.Lock()
	defer run.mu.Unlock()
	var esc *Escalation
	if run.current != nil {
		c := *run.current
		esc = &c
	}
	return Status{Running: true, RunID: run.runID, WorkflowID: run.workflowID, Escalation: esc, CanReplan: run.canReplan}
}

// CanReplan says whether a run started now could replan (a replanner and,
// for the planner's, a model are configured).
func (s *Service) CanReplan() bool {
	st, _, err := s.settings()
	if err != nil {
		return false
	}
	client, _ := s.client(st)
	return s.replanner(st, client) != nil
}

func (s *Service) replanner(st settings.Settings, client llm.Client) runner.Replanner {
	if s.deps.Replanner == nil {
		return nil
	}
	ctxCatalog := func(ctx context.Context) *tools.Catalog { return s.catalogFor(ctx, st, nil, "") }
	return s.deps.Replanner(st, client, ctxCatalog)
}

// nonNil makes empty lists reach JSON as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
