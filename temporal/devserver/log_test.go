package devserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/server/temporaltest"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	wtemporal "github.com/weft-dev/weft/backend/temporal"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// submitted starts a run of w as the service submits one (the file's path
// travels with it) and nobody follows it.
type submitted struct{ eng *wtemporal.Engine }

func (s submitted) Submit(ctx context.Context, w *wf.Workflow, sub service.Submission) (string, error) {
	return s.eng.Submit(ctx, w, wtemporal.RunInput{Approved: sub.Approved, Dir: sub.Dir, Path: sub.Path})
}

// temporalSetup gives a test a fresh XDG home, a real server, a worker on
// queue whose steps run in dir, and settings whose runs go there.
func temporalSetup(t *testing.T, queue string) (*temporaltest.TestServer, settings.Settings, string) {
	t.Helper()
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	dir := t.TempDir()
	trustTestFolders(t, dir)
	startWorker(t, &wtemporal.Engine{Client: ts.GetDefaultClient(), Config: wtemporal.Config{TaskQueue: queue}}, dir)
	st := settings.Defaults()
	st.Engine = settings.Engine{Kind: settings.EngineTemporal, Temporal: settings.TemporalEngine{Address: ts.GetFrontendHostPort(), Namespace: ts.GetDefaultNamespace(), TaskQueue: queue}}
	return ts, st, dir
}

// trustTestFolders trusts the folder holding the test's temp folders (its
// workflow files stand for checked-in workflows a CI run trusts with
// `weft trust DIR`), in the test's own XDG data dir.
func trustTestFolders(t *testing.T, dir string) {
	t.Helper()
	tr, err := approval.DefaultTrust()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.TrustFolder(filepath.Dir(dir), "test"); err != nil {
		t.Fatal(err)
	}
}

// newService is the application layer over st, without a model.
func newService(st *settings.Settings) *service.Service {
	return service.New(service.Deps{
		Settings: func() (settings.Settings, []string, error) { return *st, nil, nil },
		NewLLM:   func(settings.Settings) (llm.Client, error) { return nil, nil },
		Getenv:   func(string) string { return "" },
	})
}

// A run nobody followed (detached, started by a Temporal Schedule) is
// logged beside its workflow when the service's runs are read, with its
// events and end, once: not again, not even after its folder was pruned;
// a run whose file is on another machine is not logged here.
func TestUnfollowedRunsLogged(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-log")
	svc := newService(&st)
	eng, _, err := svc.TemporalEngine(st.Engine.Temporal)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Client.Close()
	ctx := context.Background()
	doc := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo logged"}}}],"edges":[]`)
	path := filepath.Join(dir, "flow.json")
	if err := wf.Save(path, doc); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(t.TempDir(), "gone", "flow.json") // another machine's folder
	// Its folder is not on the worker either: the step fails, and the run
	// goes on to its end.
	other := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo there"}},"retry":{"max_attempts":1},"on_error":"continue"}],"edges":[]`)
	var ids []string
	for i, p := range []string{path, elsewhere} {
		w := doc
		if i == 1 {
			w = other
		}
		res, id, err := svc.Submit(ctx, service.StartRequest{Workflow: w, Path: p}, submitted{eng})
		if err != nil || !res.Started {
			t.Fatalf("submit %s: %+v %v", p, res, err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		rctx, cancel := context.WithTimeout(ctx, time.Minute)
		if _, err := eng.Result(rctx, id); err != nil {
			t.Fatal(err)
		}
		cancel()
	}

	lg, err := svc.LogTemporalRuns(ctx, eng)
	if err != nil || len(lg.Logged) != 1 {
		t.Fatalf("logged %+v %v", lg, err)
	}
	h, err := svc.RunHistory(path, doc.ID)
	if err != nil || len(h.Runs) != 1 || !h.Runs[0].Complete || h.Runs[0].Outcome != runner.OutcomeSucceeded || h.Runs[0].EngineRunID != ids[0] {
		t.Fatalf("history %+v %v", h, err)
	}
	log, err := svc.RunEvents(h.Runs[0].Dir)
	if err != nil || len(log.Events) == 0 || log.Events[0].Type != runner.EvRunStarted || !strings.Contains(read(h.Runs[0].Dir, "events.jsonl"), "logged") {
		t.Fatalf("events %+v %v", log, err)
	}
	if lg, err := svc.LogTemporalRuns(ctx, eng); err != nil || len(lg.Logged) != 0 {
		t.Fatalf("logged again: %+v %v", lg, err)
	}
	// Pruned (run.retention_runs), and read by a machine that has not seen
	// the run (its state is not this one's; the folder is shared): not
	// logged again.
	if err := os.RemoveAll(h.Runs[0].Dir); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(os.Getenv("XDG_STATE_HOME")); err != nil {
		t.Fatal(err)
	}
	if lg, err := svc.LogTemporalRuns(ctx, eng); err != nil || len(lg.Logged) != 0 {
		t.Fatalf("a pruned run was logged again: %+v %v", lg, err)
	}
	if _, err := os.Stat(filepath.Dir(elsewhere)); err == nil {
		t.Fatal("a folder was made for another machine's run")
	}
}

// The app closed while its run waited at an escalation: started again (a
// new Service), it lists the run as going, follows it (the events so far,
// the escalation, answered by Respond) to its end, and logs it once.
func TestFollowAfterRestart(t *testing.T) {
	_, st, dir := temporalSetup(t, "weft-follow")
	doc := parse(t, `"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 5"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo b > b.txt"}}}],"edges":[{"from":"a","to":"b"}]`)
	path := filepath.Join(dir, "flow.json")
	if err := wf.Save(path, doc); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	// The first app: its run waits at a's escalation when the app closes.
	first := newService(&st)
	events := make(chan service.Event, 1000)
	res, err := first.Start(ctx, service.StartRequest{Workflow: doc, Path: path, Sink: service.SinkFunc(func(e service.Event) { events <- e })})
	if err != nil || !res.Started {
		t.Fatalf("Start: %+v %v", res, err)
	}
	runID := res.RunID
	waitFor(t, events, service.KindEscalation)
	first.Leave() // the app's window closes: the run goes on
	if !first.Wait(20 * time.Second) {
		t.Fatal("the first app did not let go")
	}

	app := newService(&st)
	going, err := app.TemporalRunsGoing(ctx, path)
	if err != nil || len(going) != 1 || going[0].RunID != runID {
		t.Fatalf("going: %+v %v", going, err)
	}
	if other, err := app.TemporalRunsGoing(ctx, filepath.Join(dir, "other.json")); err != nil || len(other) != 0 {
		t.Fatalf("another file's runs: %+v %v", other, err)
	}
	events = make(chan service.Event, 1000)
	res, err = app.Follow(ctx, runID, service.SinkFunc(func(e service.Event) { events <- e }))
	if err != nil || !res.Started {
		t.Fatalf("Follow: %+v %v", res, err)
	}
	if going, _ := app.TemporalRunsGoing(ctx, path); len(going) != 0 {
		t.Fatalf("the run followed is still offered: %+v", going)
	}
	first1 := waitFor(t, events, service.KindRun)
	if first1.Run.Type != runner.EvRunStarted || first1.Run.Seq != 1 {
		t.Fatalf("the events so far do not start at the beginning: %+v", first1.Run)
	}
	esc := waitFor(t, events, service.KindEscalation)
	if esc.Escalation.Escalation.NodeKey != "a" {
		t.Fatalf("escalation %+v", esc.Escalation)
	}
	if err := app.Respond(esc.Escalation.ID, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	fin := waitFor(t, events, service.KindFinished).Finished
	if fin.Outcome != runner.OutcomePartial || fin.Dir == "" || read(dir, "b.txt") != "b\n" {
		t.Fatalf("finished %+v", fin)
	}
	h, err := app.RunHistory(path, doc.ID)
	if err != nil || len(h.Runs) != 1 || h.Runs[0].EngineRunID != runID || h.Runs[0].Outcome != runner.OutcomePartial {
		t.Fatalf("history %+v %v", h, err)
	}
}

// waitFor returns the next event of kind, skipping others.
func waitFor(t *testing.T, events <-chan service.Event, kind service.EventKind) service.Event {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case e := <-events:
			if e.Kind == kind {
				return e
			}
		case <-timeout:
			t.Fatalf("no %s within 60s", kind)
		}
	}
}
