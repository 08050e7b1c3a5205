package devserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// With engine.kind "temporal", the application layer the app and the CLI
// share submits the run and follows it: the same events, an escalation
// answered with Respond (a signal to the run), the end, and the run
// logged beside the workflow.
func TestServiceOnTemporal(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-svc")
	// A secret this machine knows and the worker does not: what the app
	// shows hides it all the same.
	st.LLM.APIKey = "sk-desk-5e3f9a1b7c2d"
	svc := newService(&st)
	path := filepath.Join(dir, "flow.json")
	doc, _, err := wf.Parse([]byte(`{"format":"weft/v1","id":"svc","name":"svc","nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo b > b.txt; echo sk-desk-5e3f9a1b7c2d"}}}],"edges":[{"from":"a","to":"b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := wf.Save(path, doc); err != nil {
		t.Fatal(err)
	}
	// What this machine learned is offered at the escalation, as for a
	// local run, though the worker has no pattern store of its own.
	pats, err := failure.DefaultPatternStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := pats.Record(failure.Pattern{Time: time.Now(), Tool: "run_command", Category: failure.CatUnknown, FailureType: failure.FailExecution,
		Signature: "other", Error: "an earlier failure", Resolution: "skip", Attempts: 1}); err != nil {
		t.Fatal(err)
	}
	events := make(chan service.Event, 1000)
	res, err := svc.Start(context.Background(), service.StartRequest{Workflow: doc, Path: path, Sink: service.SinkFunc(func(e service.Event) { events <- e })})
	if err != nil || !res.Started {
		t.Fatalf("Start: %+v %v", res, err)
	}
	var runEvents []runner.Event
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-events:
			switch e.Kind {
			case service.KindRun:
				runEvents = append(runEvents, *e.Run)
				if b, _ := json.Marshal(e.Run); strings.Contains(string(b), "sk-desk") {
					t.Fatalf("an event shows the secret: %s", b)
				}
			case service.KindEscalation:
				if e.Escalation.Escalation.NodeKey != "a" {
					t.Fatalf("escalation %+v", e.Escalation)
				}
				if kf := e.Escalation.Escalation.KnownFixes; len(kf) != 1 || kf[0].Resolution != "skip" {
					t.Errorf("known fixes %+v", kf)
				}
				if st := svc.Status(res.RunID); !st.Running || st.Escalation == nil {
					t.Errorf("status while waiting %+v", st)
				}
				if err := svc.Respond(e.Escalation.ID, runner.Response{Action: runner.ActSkip}); err != nil {
					t.Fatal(err)
				}
			case service.KindFinished:
				f := e.Finished
				if f.Outcome != runner.OutcomePartial || f.Summary == nil || f.Summary.Skipped != 1 {
					t.Fatalf("finished %+v", f)
				}
				if b, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(b) != "b\n" {
					t.Fatalf("b.txt %q", b)
				}
				if runEvents[0].Type != runner.EvRunStarted || runEvents[len(runEvents)-1].Type != runner.EvRunFinished {
					t.Errorf("events %v", runEvents)
				}
				h, err := svc.RunHistory(path, "svc")
				if err != nil || len(h.Runs) != 1 || h.Runs[0].Outcome != runner.OutcomePartial {
					t.Fatalf("history %+v %v", h, err)
				}
				return
			}
		case <-timeout:
			t.Fatal("the run did not finish")
		}
	}
}

type fixedReplanner struct{ nw *wf.Workflow }

func (f fixedReplanner) Replan(context.Context, failure.ReplanRequest) (*wf.Workflow, error) {
	return f.nw.Clone(), nil
}

// Replan on a Temporal run: the planner runs where the app is, the
// Temporal run is aborted, and the new plan is proposed for review with
// its model-written steps marked for approval.
func TestServiceReplanOnTemporal(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-replan")
	st.LLM.Model = "fake-model"
	doc, _, err := wf.Parse([]byte(`{"format":"weft/v1","id":"rp","name":"rp","nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}},"retry":{"max_attempts":1}}],"edges":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	nw := doc.Clone()
	nw.Nodes[0].Params.Arguments["command"] = "true"
	svc := service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return st, nil, nil },
		NewLLM: func(s settings.Settings) (llm.Client, error) {
			return llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: s.LLM.Model})
		},
		Replanner: func(settings.Settings, llm.Client, func(context.Context) *tools.Catalog) runner.Replanner {
			return fixedReplanner{nw}
		},
		Getenv: func(string) string { return "" },
	})
	path := filepath.Join(dir, "rp.json")
	if err := wf.Save(path, doc); err != nil {
		t.Fatal(err)
	}
	events := make(chan service.Event, 1000)
	if res, err := svc.Start(context.Background(), service.StartRequest{Workflow: doc, Path: path, Sink: service.SinkFunc(func(e service.Event) { events <- e })}); err != nil || !res.Started {
		t.Fatalf("Start: %+v %v", res, err)
	}
	var proposal *service.Replan
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-events:
			switch e.Kind {
			case service.KindEscalation:
				if !e.Escalation.Escalation.CanReplan {
					t.Fatalf("replan not offered: %+v", e.Escalation.Escalation)
				}
				if err := svc.Respond(e.Escalation.ID, runner.Response{Action: runner.ActReplan}); err != nil {
					t.Fatal(err)
				}
			case service.KindReplanned:
				proposal = e.Replan
			case service.KindFinished:
				if e.Finished.Outcome != runner.OutcomeReplanned || proposal == nil || proposal.Workflow == nil {
					t.Fatalf("finished %+v, proposal %+v", e.Finished, proposal)
				}
				if len(proposal.SideEffects) != 1 || proposal.SideEffects[0].Key != "a" {
					t.Fatalf("the changed step is not waiting for approval: %+v", proposal.SideEffects)
				}
				return
			}
		case <-timeout:
			t.Fatal("the run did not finish")
		}
	}
}
