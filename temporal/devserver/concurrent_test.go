package devserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// Two runs at once on Temporal through one service: each its own id,
// events and escalation; an answer reaches only its run, and stopping one
// (canceled on the service) leaves the other to finish.
func TestServiceRunsAtOnceOnTemporal(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-two")
	svc := newService(&st)
	type going struct {
		id     string
		events chan service.Event
		out    string
	}
	var runs [2]going
	for i := range runs {
		out := filepath.Join(dir, fmt.Sprintf("after%d.txt", i))
		doc, _, err := wf.Parse(fmt.Appendf(nil, `{"format":"weft/v1","id":"two%d","name":"two","nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo b > %s"}}}],"edges":[{"from":"a","to":"b"}]}`, i, out))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("two%d.json", i))
		if err := wf.Save(path, doc); err != nil {
			t.Fatal(err)
		}
		events := make(chan service.Event, 1000)
		res, err := svc.Start(context.Background(), service.StartRequest{Workflow: doc, Path: path, Sink: service.SinkFunc(func(e service.Event) { events <- e })})
		if err != nil || !res.Started || res.RunID == "" {
			t.Fatalf("Start %d: %+v %v", i, res, err)
		}
		runs[i] = going{id: res.RunID, events: events, out: out}
	}
	next := func(g going, kind service.EventKind) service.Event {
		t.Helper()
		timeout := time.After(60 * time.Second)
		for {
			select {
			case e := <-g.events:
				if e.Kind == service.KindRun && e.Run.RunID != g.id {
					t.Fatalf("run %s's sink got run %s's event", g.id, e.Run.RunID)
				}
				if e.Kind == kind {
					return e
				}
			case <-timeout:
				t.Fatalf("run %s: no %s", g.id, kind)
			}
		}
	}
	escA, escB := next(runs[0], service.KindEscalation).Escalation, next(runs[1], service.KindEscalation).Escalation
	if escA.ID == escB.ID || escA.Escalation.RunID != runs[0].id || escB.Escalation.RunID != runs[1].id {
		t.Fatalf("escalations %+v and %+v", escA, escB)
	}
	if err := svc.Respond(escA.ID, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	if fin := next(runs[0], service.KindFinished).Finished; fin.Outcome != runner.OutcomePartial || fin.RunID != runs[0].id {
		t.Fatalf("run a finished %+v", fin)
	}
	if s := svc.Status(runs[1].id); !s.Running || s.Escalation == nil || s.Escalation.ID != escB.ID {
		t.Fatalf("run b after a's answer: %+v", s)
	}
	if !svc.Stop(runs[1].id) {
		t.Fatal("Stop(b) found no run")
	}
	if fin := next(runs[1], service.KindFinished).Finished; fin.Outcome != runner.OutcomeCanceled {
		t.Fatalf("run b finished %+v", fin)
	}
	if !svc.Wait(30 * time.Second) {
		t.Fatal("the runs did not end")
	}
	if _, err := os.Stat(runs[0].out); err != nil {
		t.Errorf("run a did not go on: %v", err)
	}
	if _, err := os.Stat(runs[1].out); err == nil {
		t.Error("run b went on after Stop")
	}
}
