// Package serve runs the triggers of the trusted, approved workflows
// beneath a folder (weft serve): signed webhooks over HTTP and watched
// folders, each delivery or file starting one run through the same
// service call as any other run, logged with source trigger. What a
// trigger means (its checks, signatures, dedupe, limits) is package
// trigger's; this package loads, refuses and serves.
package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/trigger"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// Service is what serve needs of backend/service: the call every run
// starts through, the approval check, and the answer to an escalation
// (nobody is there to answer: a trigger's run that escalates aborts).
type Service interface {
	Start(ctx context.Context, req service.StartRequest) (service.StartResult, error)
	PendingApprovals(ctx context.Context, w *workflow.Workflow, path string) (service.Approvals, error)
	Respond(id string, resp runner.Response) error
}

// Defaults for Config's zero values.
const (
	DefaultMaxBody = 1 << 20
	DefaultWindow  = 72 * time.Hour // Stripe retries an event for three days
	DefaultPoll    = 2 * time.Second
	// maxWorkflowBytes bounds reading a file beneath the folder.
	maxWorkflowBytes = 64 << 20
	// startWait bounds how long a delivery waits for a place to run
	// when the service runs one workflow at a time.
	startWait = 30 * time.Second
)

// Config is what weft serve is told.
type Config struct {
	// Dir is the folder whose workflows' triggers are served.
	Dir string
	// Limits bound each trigger (a zero bound is none; Defaults gives
	// trigger.DefaultLimits).
	Limits trigger.Limits
	// MaxBody bounds a webhook's body (413 past it).
	MaxBody int64
	// Window is how long a delivery is remembered (409 when it comes again).
	Window time.Duration
	// Poll is how often watched folders are looked at.
	Poll time.Duration
	// StateDir holds what each trigger handled ($XDG_STATE_HOME/weft/triggers).
	StateDir string
	// Secrets opens a webhook's secret; its value stays with the trigger's
	// verifier, never logged or shown.
	Secrets runner.SecretSource
	// Tolerance is how far a Stripe timestamp may be from now.
	Tolerance time.Duration
	Now       func() time.Time
	Log       *slog.Logger
}

func (c *Config) fill() {
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.Window <= 0 {
		c.Window = DefaultWindow
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Tolerance <= 0 {
		c.Tolerance = trigger.StripeTolerance
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// entry is one served workflow as it was checked when serve started.
type entry struct {
	path   string // absolute
	dir    string
	sum    string // SHA-256 of the bytes checked and approved
	w      *workflow.Workflow
	schema *inputs.Schema
}

// Server serves the triggers of the workflows Load accepted.
type Server struct {
	cfg     Config
	svc     Service
	hooks   map[string]*hook
	watches []*watch
	runs    sync.WaitGroup
	// runCtx is what runs go on in; cancelled by Close after they had
	// their time.
	runCtx    context.Context
	cancelRun context.CancelFunc
	closeOnce sync.Once
}

// Refused is Load's error: every reason, workflow by workflow, serve
// does not start.
type Refused struct{ Reasons []string }

func (e *Refused) Error() string {
	return "weft serve did not start:\n  " + strings.Join(e.Reasons, "\n  ")
}

// Served describes what a Server serves, for the person who started it.
type Served struct {
	Workflow string `json:"workflow"`
	Trigger  string `json:"trigger"`
}

// Load finds the workflows beneath cfg.Dir that declare triggers and
// checks each: valid, its triggers sound (trigger.Check), every input
// required fillable, trusted and with nothing waiting for approval (its
// triggers included), its webhook's secret in the store, and no two
// webhooks at one path. Any failure refuses the whole start, naming the
// file and what to do: a server that silently left out a trigger would
// drop deliveries.
func Load(ctx context.Context, cfg Config, svc Service) (*Server, error) {
	cfg.fill()
	dir, err := filepath.Abs(cfg.Dir)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("weft serve: %s is not a folder", cfg.Dir)
	}
	if cfg.StateDir == "" {
		return nil, errors.New("weft serve: no state folder")
	}
	s := &Server{cfg: cfg, svc: svc, hooks: map[string]*hook{}}
	s.runCtx, s.cancelRun = context.WithCancel(context.WithoutCancel(ctx))
	var reasons []string
	files, err := workflowFiles(dir)
	if err != nil {
		return nil, err
	}
	for _, p := range files {
		e, why := s.check(ctx, p)
		reasons = append(reasons, why...)
		if e == nil || len(why) > 0 {
			continue
		}
		if err := s.add(e); err != nil {
			reasons = append(reasons, err.Error())
		}
	}
	if len(reasons) > 0 {
		s.Close()
		return nil, &Refused{Reasons: reasons}
	}
	if len(s.hooks) == 0 && len(s.watches) == 0 {
		return nil, fmt.Errorf("weft serve: no workflow beneath %s declares a trigger", dir)
	}
	return s, nil
}

// workflowFiles are the .json files beneath dir, Weft's own folders, test
// case files and hidden folders left out, in order.
func workflowFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable folder holds nothing served
		}
		if d.IsDir() {
			if p != dir && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, ".tests.json") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// check reads the file at p; nil when it is no workflow with triggers,
// else the entry and every reason it cannot be served.
func (s *Server) check(ctx context.Context, p string) (*entry, []string) {
	data, err := atomicfile.ReadBounded(p, maxWorkflowBytes)
	if err != nil {
		return nil, nil
	}
	if !strings.Contains(string(data), `"triggers"`) {
		return nil, nil
	}
	w, _, err := workflow.Parse(data)
	if err != nil || len(w.Triggers) == 0 {
		return nil, nil
	}
	name := p
	if rel, err := filepath.Rel(s.cfg.Dir, p); err == nil {
		name = rel
	}
	var why []string
	for _, pr := range trigger.Check(w) {
		why = append(why, fmt.Sprintf("%s: %s [%s]", name, pr.Message, pr.Code))
	}
	for _, pr := range validate.ValidateWith(w, tools.Builtin(), validate.Options{Dir: filepath.Dir(p)}).Errors() {
		if !strings.HasPrefix(pr.Code, "trigger") && pr.Code != trigger.CodeBadTrigger {
			why = append(why, fmt.Sprintf("%s: %s [%s]", name, pr.Message, pr.Code))
		}
	}
	schema, probs := inputs.Parse(w.Inputs)
	if len(probs) > 0 {
		return nil, append(why, fmt.Sprintf("%s: its inputs schema cannot be used: %s", name, probs[0].Message))
	}
	ap, err := s.svc.PendingApprovals(ctx, w, p)
	switch {
	case err != nil:
		why = append(why, fmt.Sprintf("%s: %v", name, err))
	case len(ap.Pending) > 0:
		var what []string
		for _, st := range ap.Pending {
			what = append(what, st.Key)
		}
		why = append(why, fmt.Sprintf("%s: %d things wait for review or approval (%s); nothing in a workflow runs unseen: review it in Weft, or run `weft approve %s`, then start weft serve again",
			name, len(ap.Pending), strings.Join(what, ", "), p))
	}
	for i := range w.Triggers {
		t := &w.Triggers[i]
		if t.Type != workflow.TriggerWebhook || s.cfg.Secrets == nil {
			continue
		}
		if n := trigger.SecretName(t); n != "" {
			if _, err := s.cfg.Secrets.Get(n); err != nil {
				why = append(why, fmt.Sprintf("%s: %s: its secret cannot be read: %v", name, t.Label(), err))
			}
		}
	}
	return &entry{path: p, dir: filepath.Dir(p), sum: approval.Sum(data), w: w, schema: schema}, why
}

// add serves e's triggers.
func (s *Server) add(e *entry) error {
	for i := range e.w.Triggers {
		t := e.w.Triggers[i]
		seen, err := trigger.OpenSeen(s.statePath(e, &t), s.windowOf(&t), s.cfg.Now())
		if err != nil {
			return err
		}
		base := base{s: s, e: e, t: t, lim: trigger.NewLimiter(s.cfg.Limits), seen: seen}
		switch t.Type {
		case workflow.TriggerWebhook:
			if s.cfg.Secrets == nil {
				seen.Close()
				return errors.New("weft serve: no credentials store to read webhook secrets from")
			}
			if other, dup := s.hooks[t.Path]; dup {
				seen.Close()
				return fmt.Errorf("%s and %s both answer at %s: give each webhook its own path", other.e.path, e.path, t.Path)
			}
			secret, err := s.cfg.Secrets.Get(trigger.SecretName(&t))
			if err != nil {
				seen.Close()
				return fmt.Errorf("%s: %s: %w", e.path, t.Label(), err)
			}
			s.hooks[t.Path] = newHook(base, []byte(secret.Value))
		case workflow.TriggerFile:
			s.watches = append(s.watches, &watch{base: base, self: map[string]int{}, last: map[string]string{}})
		}
	}
	return nil
}

// windowOf is how long a trigger remembers: deliveries for the window,
// files handled for good (their path, size and time name them).
func (s *Server) windowOf(t *workflow.Trigger) time.Duration {
	if t.Type == workflow.TriggerFile {
		return 0
	}
	return s.cfg.Window
}

// statePath names a trigger's log by its workflow's file and where it
// listens, so a restart finds it again.
func (s *Server) statePath(e *entry, t *workflow.Trigger) string {
	key := approval.Canonical(e.path) + "\n" + string(t.Type) + "\n" + t.Path + t.Glob
	return filepath.Join(s.cfg.StateDir, approval.Sum([]byte(key))[:24]+".log")
}

// Served lists what the server serves, webhooks then watched folders.
func (s *Server) Served() []Served {
	var out []Served
	for _, h := range s.hooks {
		out = append(out, Served{Workflow: h.e.path, Trigger: h.t.Label()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Trigger < out[j].Trigger })
	for _, w := range s.watches {
		out = append(out, Served{Workflow: w.e.path, Trigger: w.t.Label()})
	}
	return out
}

// Close waits up to grace for the runs going, then cancels the rest,
// and closes the triggers' logs.
func (s *Server) Close() { s.CloseWithin(0) }

// CloseWithin is Close with a grace period for the runs going.
func (s *Server) CloseWithin(grace time.Duration) {
	s.closeOnce.Do(func() {
		done := make(chan struct{})
		go func() { s.runs.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(grace):
			s.cancelRun()
			<-done
		}
		s.cancelRun()
		for _, h := range s.hooks {
			h.seen.Close()
		}
		for _, w := range s.watches {
			w.seen.Close()
		}
	})
}

// base is what every trigger has.
type base struct {
	s    *Server
	e    *entry
	t    workflow.Trigger
	lim  *trigger.Limiter
	seen *trigger.Seen
}

// errChanged: the file is not the content checked when serve started.
var errChanged = errors.New("changed")

// start starts one run of the trigger's workflow with values, through
// the service; onEvent hears the run's events. It waits for a place when
// the service runs one workflow at a time (ErrRunActive), at most
// startWait. The run holds a place of the trigger's limiter until it
// ends.
func (b *base) start(ctx context.Context, values map[string]any, onEvent func(service.Event)) (service.StartResult, error) {
	data, err := atomicfile.ReadBounded(b.e.path, maxWorkflowBytes)
	if err != nil || approval.Sum(data) != b.e.sum {
		b.lim.Done()
		return service.StartResult{}, fmt.Errorf("%w: %s is not the content weft serve checked when it started (edited, moved or removed since): review it, then start weft serve again", errChanged, b.e.path)
	}
	done := make(chan struct{})
	var once sync.Once
	finish := func() { once.Do(func() { close(done) }) }
	sink := service.SinkFunc(func(ev service.Event) {
		if onEvent != nil {
			onEvent(ev)
		}
		switch ev.Kind {
		case service.KindEscalation:
			// Nobody is there to answer: the run stops, keeping what it did.
			_ = b.s.svc.Respond(ev.Escalation.ID, runner.Response{Action: runner.ActAbort})
		case service.KindFinished:
			finish()
		}
	})
	req := service.StartRequest{Workflow: b.e.w, Path: b.e.path, Source: runner.RunByTrigger, Inputs: values, Sink: sink, Detach: true}
	deadline := time.Now().Add(startWait)
	for {
		res, err := b.s.svc.Start(b.s.runCtx, req)
		if errors.Is(err, service.ErrRunActive) && time.Now().Before(deadline) {
			select {
			case <-ctx.Done():
				b.lim.Done()
				return res, ctx.Err()
			case <-time.After(20 * time.Millisecond):
				continue
			}
		}
		if err == nil && res.Started {
			b.s.runs.Add(1)
			go func() {
				defer b.s.runs.Done()
				defer b.lim.Done()
				select {
				case <-done:
				case <-b.s.runCtx.Done():
				}
			}()
		} else {
			b.lim.Done()
		}
		return res, err
	}
}

// logValue is how a delivery's result is logged.
func logValue(res service.StartResult) string {
	b, _ := json.Marshal(map[string]any{"started": res.Started, "run_id": res.RunID, "error": res.Error})
	return string(b)
}
