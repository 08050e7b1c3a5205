package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestStartEscalationRespond(t *testing.T) {
	svc := testService(t, nil)
	ev := newEvents()
	out := filepath.Join(t.TempDir(), "out")
	w, path := runFile(t, "wf-esc",
		[2]string{"first", "echo one > " + out + ".1"},
		[2]string{"broken", "!sh -c 'exit 3'"},
		[2]string{"last", "echo three > " + out + ".3"})
	st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev})
	if err != nil || !st.Started {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	esc := ev.next(t, KindEscalation).Escalation
	if evs := ev.runnerEvents(); esc.AfterSeq == 0 || evs[len(evs)-1].Seq != esc.AfterSeq || evs[len(evs)-1].Type != runner.EvEscalated {
		t.Fatalf("escalation after seq %d; events so far end with %+v", esc.AfterSeq, evs[len(evs)-1])
	}
	if esc.Escalation.NodeKey != "broken" || esc.Escalation.CanReplan {
		t.Fatalf("escalation = %+v", esc.Escalation)
	}
	if s := svc.Status(st.RunID); !s.Running || s.Escalation == nil || s.Escalation.ID != esc.ID || s.WorkflowID != "wf-esc" {
		t.Fatalf("Status = %+v", s)
	}
	// Hostile answers: unknown ids and actions, answering twice.
	for _, bad := range []struct {
		id   string
		resp runner.Response
	}{
		{"nope#1", runner.Response{Action: runner.ActSkip}},
		{"", runner.Response{Action: runner.ActSkip}},
		{esc.ID + "x", runner.Response{Action: runner.ActSkip}},
		{esc.ID, runner.Response{Action: "dance"}},
		{esc.ID, runner.Response{Action: ""}},
		{esc.ID, runner.Response{Action: "SKIP"}},
	} {
		if err := svc.Respond(bad.id, bad.resp); err == nil {
			t.Fatalf("Respond(%q, %q) was accepted", bad.id, bad.resp.Action)
		}
	}
	if err := svc.Respond(esc.ID, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Respond(esc.ID, runner.Response{Action: runner.ActSkip}); err == nil {
		t.Fatal("the same escalation was answered twice")
	}
	fin := ev.next(t, KindFinished).Finished
	if fin.Outcome != runner.OutcomePartial || fin.Summary.Skipped != 1 || fin.Result == nil || fin.Err != nil { // a skipped step is not a success
		t.Fatalf("finished = %+v", fin)
	}
	if evs := ev.runnerEvents(); fin.AfterSeq != evs[len(evs)-1].Seq {
		t.Fatalf("finished after seq %d, last event %d", fin.AfterSeq, evs[len(evs)-1].Seq)
	}
	for i, e := range ev.runnerEvents() {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if !svc.Wait(5e9) || svc.Status(st.RunID).Running {
		t.Fatal("the run is still marked active")
	}
	for _, f := range []string{out + ".1", out + ".3"} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("step output: %v", err)
		}
	}
}

// Run (the CLI's way) returns only once every event reached the sink, and
// a sink may answer the escalation itself, as a terminal prompt does.
func TestRunWaitsAndSinkAnswers(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-run", [2]string{"bad", "!false"}, [2]string{"after", "true"})
	var seen []EventKind
	var sink SinkFunc = func(e Event) {
		seen = append(seen, e.Kind)
		if e.Escalation != nil {
			if err := svc.Respond(e.Escalation.ID, runner.Response{Action: runner.ActAbort}); err != nil {
				t.Error(err)
			}
		}
	}
	st, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, Sink: sink})
	if err != nil || !st.Started || fin == nil {
		t.Fatalf("Run = %+v, %+v, %v", st, fin, err)
	}
	if fin.Outcome != runner.OutcomeAborted || fin.Result == nil || fin.Result.StoppedAt == nil || fin.Result.StoppedAt.Key != "bad" {
		t.Fatalf("finished = %+v", fin)
	}
	if len(seen) == 0 || seen[len(seen)-1] != KindFinished {
		t.Fatalf("events %v: the finish must come last, before Run returns", seen)
	}
	if fin.RunID != st.RunID || svc.Status(st.RunID).Running {
		t.Fatalf("Run returned while the run %s is marked active (finished %s)", st.RunID, fin.RunID)
	}
}

func TestStopEndsTheWait(t *testing.T) {
	svc := testService(t, nil)
	if svc.Stop("20260101-000000.000-abcdef") || svc.Stop("") {
		t.Fatal("Stop with no run reported one")
	}
	ev := newEvents()
	w, path := runFile(t, "wf-stop", [2]string{"bad", "!false"})
	st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev})
	if err != nil || !st.Started {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	esc := ev.next(t, KindEscalation).Escalation
	if !svc.Stop(st.RunID) {
		t.Fatal("Stop found no run")
	}
	if fin := ev.next(t, KindFinished).Finished; fin.Outcome != runner.OutcomeCanceled {
		t.Fatalf("finished = %+v", fin)
	}
	svc.Wait(5e9)
	if err := svc.Respond(esc.ID, runner.Response{Action: runner.ActSkip}); err == nil {
		t.Fatal("an answer after the run ended was accepted")
	}
}

func TestStartDoesNotStart(t *testing.T) {
	bad := workflow.New("Bad")
	bad.Nodes = []workflow.Node{{ID: "a", Key: "a", Type: workflow.TypeIf, Params: workflow.Params{Condition: "((("}}}
	good := workflow.New("Good")
	good.Nodes = []workflow.Node{{ID: "a", Key: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}}}
	cases := []struct {
		name    string
		deps    func(*Deps)
		w       *workflow.Workflow
		wantErr string
		check   func(t *testing.T, st StartResult)
	}{
		{name: "no workflow", wantErr: "no workflow"},
		{name: "invalid", w: bad, check: func(t *testing.T, st StartResult) {
			if len(st.Problems) == 0 || st.Error == "" {
				t.Fatalf("%+v", st)
			}
		}},
		{name: "settings fail", w: good, deps: func(d *Deps) {
			d.Settings = func() (settings.Settings, []string, error) {
				return settings.Settings{}, []string{"a warning"}, errors.New("settings: broken file")
			}
		}, wantErr: "broken file", check: func(t *testing.T, st StartResult) {
			if len(st.Warnings) != 1 {
				t.Fatalf("the warnings were lost: %+v", st)
			}
		}},
		{name: "no settings source", w: good, deps: func(d *Deps) { d.Settings = nil }, wantErr: "no settings source"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			svc := testService(t, c.deps)
			st, err := svc.Start(context.Background(), StartRequest{Workflow: c.w})
			if c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err = %v, want %q", err, c.wantErr)
			}
			if c.wantErr == "" && err != nil {
				t.Fatal(err)
			}
			if st.Started || svc.Status(st.RunID).Running || svc.Leave() {
				t.Fatalf("started: %+v", st)
			}
			if c.check != nil {
				c.check(t, st)
			}
			// The slot is free again.
			ok, path := runFile(t, "wf-ok", [2]string{"one", "true"})
			if c.deps == nil {
				if st, _, err := svc.Run(context.Background(), StartRequest{Workflow: ok, Path: path}); err != nil || !st.Started {
					t.Fatalf("Run after a refused start = %+v, %v", st, err)
				}
			}
		})
	}
}

func TestCanReplan(t *testing.T) {
	if testService(t, nil).CanReplan() {
		t.Fatal("CanReplan without a replanner")
	}
	if !testService(t, withFakeReplanner).CanReplan() {
		t.Fatal("CanReplan is false with a replanner")
	}
	// The planner's replanner needs a model.
	if testService(t, func(d *Deps) { d.Replanner = PlannerReplanner(nil, nil) }).CanReplan() {
		t.Fatal("CanReplan with the planner but no model")
	}
	withModel := func(d *Deps) {
		d.Replanner = PlannerReplanner(nil, nil)
		s := settings.Defaults()
		s.LLM.BaseURL, s.LLM.Model = "http://127.0.0.1:1", "m"
		d.Settings = func() (settings.Settings, []string, error) { return s, nil, nil }
	}
	if !testService(t, withModel).CanReplan() {
		t.Fatal("CanReplan is false with the planner and a model")
	}
}

func TestEventPayload(t *testing.T) {
	re := runner.Event{Seq: 3}
	cases := []struct {
		e    Event
		want any
	}{
		{Event{Kind: KindRun, Run: &re}, re},
		{Event{Kind: KindEscalation, Escalation: &Escalation{ID: "x"}}, Escalation{ID: "x"}},
		{Event{Kind: KindReplanned, Replan: &Replan{RunID: "r"}}, Replan{RunID: "r"}},
		{Event{Kind: KindFinished, Finished: &Finished{RunID: "r"}}, Finished{RunID: "r"}},
		{Event{}, nil},
	}
	for i, c := range cases {
		if got := c.e.Payload(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%d: Payload = %#v, want %#v", i, got, c.want)
		}
	}
}
