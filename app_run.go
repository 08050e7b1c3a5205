package main

// Bindings for the Run panel: start and stop a run of the workflow on the
// canvas, stream its events, answer escalations, read past runs and list the
// tools (built-in and MCP) for the palette. Each is decode → one call of
// backend/service → encode or emit: what may run, who approves, what a
// replan proposes and how the catalog is cached are decided there, for the
// CLI too.

import (
	"context"
	"sync"
	"time"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

// Events sent to the frontend while a run goes, in this order per run:
// "run:event" for every runner.Event; "run:escalation" (a
// service.Escalation) right after the escalated event, when the run waits
// for an answer; "run:replanned" (a service.Replan) when the run ended with
// a new plan; and last "run:finished" (a service.Finished). They are
// emitted in that order, but the transport may deliver them out of order
// (wails dev sends each message from its own goroutine): events carry their
// seq (1, 2, … per run) and the others the seq of the last event before
// them (AfterSeq), for the frontend to put them back in order. "run:notice" (a sentence) may come at
// any time: why a Temporal run does not go on (no worker polls its queue).
const (
	EventRunEvent      = string(service.KindRun)
	EventRunEscalation = string(service.KindEscalation)
	EventRunReplanned  = string(service.KindReplanned)
	EventRunFinished   = string(service.KindFinished)
	EventRunNotice     = string(service.KindNotice)
)

// ErrRunActive is what StartRun returns while another run goes.
var ErrRunActive = service.ErrRunActive

// currentRun is the run a window started or follows, the one its Run
// panel shows, stops and asks about; the service bounds a window to one
// (Deps.MaxRuns).
type currentRun struct {
	mu sync.Mutex
	id string
}

func (c *currentRun) set(id string) {
	c.mu.Lock()
	c.id = id
	c.mu.Unlock()
}

func (c *currentRun) get() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id
}

// service is the App's application layer, made on first use so an App
// literal in tests works too.
func (a *App) service() *service.Service {
	a.stateOnce.Do(a.initState)
	return a.svc
}

// serviceDeps wires the service to the App: its settings store and the
// planner as replanner. Its model clients and MCP sessions are the
// service's own (one circuit-breaker registry and one session per server
// for the window).
func (a *App) serviceDeps() service.Deps {
	return service.Deps{
		Settings: func() (settings.Settings, []string, error) {
			st, err := a.settingsStore()
			if err != nil {
				return settings.Settings{}, nil, err
			}
			return st.Effective()
		},
		Replanner: service.PlannerReplanner(nil, nil),
		Builtin:   a.catalog,
		MaxRuns:   1, // the window's one run (its Run panel)
		Secret: func(name string) (string, error) {
			st, err := a.settingsStore()
			if err != nil {
				return "", err
			}
			return st.Secret(name)
		},
	}
}

// runSink turns the service's run events into frontend events.
func (a *App) runSink() service.Sink {
	return service.SinkFunc(func(e service.Event) {
		a.emit(string(e.Kind), e.Payload())
	})
}

// StartRun runs w (saved at path, or "" when unsaved) in the background.
// Its events reach the frontend as "run:event", escalations as
// "run:escalation" (answer them with RespondEscalation) and its end as
// "run:finished". One run at a time: it fails while one goes. An invalid
// workflow does not start: the result carries the problems.
func (a *App) StartRun(w workflow.Workflow, path string) (service.StartResult, error) {
	return a.startRun(w, path, nil, "", nil, nil)
}

// StartRunWithInputs is StartRun (StartApprovedRun when approved is not
// empty, StartRunFrom when from is set) of a workflow that declares
// inputs, with the values of its Run form by name, as typed (a string
// input's text as it is, the others JSON: the CLI's --input rule). Inputs
// that do not fit do not start it: the result's input_problems say why,
// input by input. secretInputs gives secret inputs stored secrets by
// name (input → secret), never a value (inputs.SecretRef).
func (a *App) StartRunWithInputs(w workflow.Workflow, path string, approved []string, from string, inputTexts map[string]string, secretInputs map[string]string) (service.StartResult, error) {
	return a.startRun(w, path, approved, from, inputTexts, secretInputs)
}

// InputsForm is what the Run form asks for: the workflow's declared
// inputs in the file's order, or why its inputs schema is unusable.
type InputsForm struct {
	Fields   []inputs.Field   `json:"fields"`
	Problems []inputs.Problem `json:"problems"`
	// Secrets are the names of the stored secrets (no value), which a
	// secret input may be given instead of a value.
	Secrets []string `json:"secrets"`
}

// WorkflowInputs returns the inputs w declares, for the Run form.
func (a *App) WorkflowInputs(w workflow.Workflow) InputsForm {
	s, probs := inputs.Parse(w.Inputs)
	f := InputsForm{Fields: []inputs.Field{}, Problems: nonNil(probs), Secrets: []string{}}
	if s != nil {
		f.Fields = s.Fields
	}
	if store, err := a.credentials(); err == nil {
		f.Secrets = append(f.Secrets, service.SecretNames(store)...)
	}
	return f
}

// StartApprovedRun is StartRun after the user approved, in the dialog, the
// steps with these content fingerprints (as the dialog showed them): they
// are recorded as approved, then the run starts if nothing else waits. A
// step whose content changed since is not approved by an old fingerprint.
func (a *App) StartApprovedRun(w workflow.Workflow, path string, approved []string) (service.StartResult, error) {
	return a.startRun(w, path, approved, "", nil, nil)
}

// StartRunFrom runs w from the node (a node in a loop body from its
// outermost Loop), reusing the last run's outputs of the steps before it;
// approved are as StartApprovedRun's (nil when none were just approved).
// It does not start when the workflow has not run since Weft started, or
// a step before the node changed since: Error says which.
func (a *App) StartRunFrom(w workflow.Workflow, path, nodeID string, approved []string) (service.StartResult, error) {
	return a.startRun(w, path, approved, nodeID, nil, nil)
}

// PinSource is a step's outputs in the last run, to pin.
type PinSource struct {
	Outputs map[string]any `json:"outputs"`
	RunID   string         `json:"run_id"`
}

// LastOutputs returns what the step produced in the workflow's last run in
// this window (secrets hidden), for pinning; it fails when the step did
// not complete in it or its outputs are over 1 MB.
func (a *App) LastOutputs(workflowID, nodeID string) (PinSource, error) {
	out, runID, err := a.service().LastOutputs(workflowID, nodeID)
	if err != nil {
		return PinSource{}, err
	}
	return PinSource{Outputs: out, RunID: runID}, nil
}

// TemporalRunsGoing lists the runs of the workflow saved at path going on
// the Temporal service that the app does not follow (one it followed
// before it was closed, or one started elsewhere).
func (a *App) TemporalRunsGoing(path string) ([]service.GoingRun, error) {
	ctx, cancel := context.WithTimeout(a.context(), 20*time.Second)
	defer cancel()
	return a.service().TemporalRunsGoing(ctx, path)
}

// FollowTemporalRun follows a run going on the Temporal service in the
// Run panel, as if it had started here: its events, escalations and end.
func (a *App) FollowTemporalRun(runID string) (service.StartResult, error) {
	res, err := a.service().Follow(a.context(), runID, a.runSink())
	if err != nil {
		return service.StartResult{}, err
	}
	a.run.set(res.RunID)
	return startResult(res), nil
}

// startRun starts a run of the editor: steps with pinned data use it.
func (a *App) startRun(w workflow.Workflow, path string, approved []string, from string, inputTexts, secretInputs map[string]string) (service.StartResult, error) {
	res, err := a.service().Start(a.context(), service.StartRequest{Workflow: &w, Path: path, From: from, UsePinned: true,
		Approver: service.Preapproved(approved), ApprovedBy: "desktop", Sink: a.runSink(), InputTexts: inputTexts, Inputs: inputs.WithRefs(nil, secretInputs)})
	if err != nil {
		return service.StartResult{}, err
	}
	if res.Started {
		a.run.set(res.RunID)
	}
	return startResult(res), nil
}

// startResult is res with its lists empty rather than null, as the
// frontend's types say.
func startResult(res service.StartResult) service.StartResult {
	res.Problems, res.Approval, res.Warnings = nonNil(res.Problems), nonNil(res.Approval), nonNil(res.Warnings)
	return res
}

// KeepFix returns w with the arguments of a fix (as the retry used them)
// merged into the Tool node, for the editor to keep as one undo step.
func (a *App) KeepFix(w workflow.Workflow, nodeID string, args map[string]any) (*workflow.Workflow, error) {
	return service.KeepFix(&w, nodeID, args)
}

// RespondEscalation answers the escalation id with resp (retry, skip, abort,
// fix with an instruction or arguments, replan). It fails when no such
// escalation waits (answered already, or the run ended).
func (a *App) RespondEscalation(id string, resp runner.Response) error {
	return a.service().Respond(id, resp)
}

// StopRun cancels the window's run in progress (an escalation waiting for
// an answer ends with it). It reports whether there was one.
func (a *App) StopRun() bool { return a.service().Stop(a.run.get()) }

// waitRun waits for the run in progress, if any, to end (tests, shutdown).
func (a *App) waitRun(timeout time.Duration) bool { return a.service().Wait(timeout) }

// GetRunStatus says whether the window's run goes and what it waits for.
func (a *App) GetRunStatus() service.Status { return a.service().Status(a.run.get()) }

// CanReplan says whether a run started now could replan (a planner is
// configured), for the Replan button.
func (a *App) CanReplan() bool { return a.service().CanReplan() }

// RunHistory lists the past runs of a workflow, newest first: the run
// folders in .weft/runs beside its file (path) or, unsaved, in the XDG data
// dir. workflowID, when set, keeps only that workflow's runs (a folder's
// runs are shared by its workflows).
func (a *App) RunHistory(path, workflowID string) (service.History, error) {
	h, err := a.service().RunHistory(path, workflowID)
	h.Runs, h.Warnings = nonNil(h.Runs), nonNil(h.Warnings)
	return h, err
}

// RunEvents reads events.jsonl of a past run (a folder RunHistory listed):
// the last 5000 events, with how many there are.
func (a *App) RunEvents(runDir string) (service.Log, error) {
	return a.service().RunEvents(runDir)
}

// ToolCatalogFull lists the built-in tools and those of the configured MCP
// servers (as server.tool). Servers are started to ask (within 20s) and the
// answer is kept for a few minutes; a server that fails is left out with a
// warning, and without settings only the built-ins are listed.
func (a *App) ToolCatalogFull() service.CatalogResult {
	return a.service().ToolCatalog(a.context())
}

// PendingApprovals lists the steps of w (saved at path, "" when unsaved)
// that a model wrote, can act, and wait for the person's approval.
func (a *App) PendingApprovals(w workflow.Workflow, path string) ([]approval.Step, error) {
	st, err := a.service().PendingApprovals(a.context(), &w, path)
	return nonNil(st.Pending), err
}

// ApproveSteps records the person's approval, in the dialog, of the steps
// of w with these content fingerprints (each must be waiting) and returns
// the steps still waiting.
func (a *App) ApproveSteps(w workflow.Workflow, path string, fingerprints []string) ([]approval.Step, error) {
	st, err := a.service().Approve(a.context(), &w, path, fingerprints, "desktop")
	return nonNil(st.Pending), err
}
