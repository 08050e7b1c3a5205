package devserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/server/temporaltest"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	wtemporal "github.com/weft-dev/weft/backend/temporal"
)

// engine is a client of the test server on queue, with key (nil: none);
// identity names it (and its workers) in the run histories.
func engine(ts *temporaltest.TestServer, queue string, key []byte, identity string) *wtemporal.Engine {
	dc, err := wtemporal.DataConverter(key)
	if err != nil {
		panic(err)
	}
	c := ts.NewClientWithOptions(client.Options{DataConverter: dc, Identity: identity})
	return &wtemporal.Engine{Client: c, Config: wtemporal.Config{TaskQueue: queue, Key: key, Namespace: ts.GetDefaultNamespace()}}
}

// keyPair is a fresh server with a client with a key on queue and one
// without (identities "keyed", "keyless").
func keyPair(t *testing.T, queue string) (ts *temporaltest.TestServer, key []byte, keyed, keyless *wtemporal.Engine) {
	ts = temporaltest.NewServer(temporaltest.WithT(t))
	key = bytes.Repeat([]byte{byte(len(queue))}, 32)
	return ts, key, engine(ts, queue, key, "keyed"), engine(ts, queue, nil, "keyless")
}

// listEnded lists eng's runs with their outcomes once the listing (which
// lags behind the runs) has every run in ids ended.
func listEnded(ctx context.Context, t *testing.T, eng *wtemporal.Engine, ids ...string) map[string]wtemporal.RunInfo {
	t.Helper()
	for {
		runs, err := eng.List(ctx, 20)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]wtemporal.RunInfo{}
		for _, r := range runs {
			out[r.RunID] = r
		}
		ended := true
		for _, id := range ids {
			ended = ended && out[id].Status != "" && out[id].Status != "running"
		}
		if ended {
			eng.Outcomes(ctx, runs)
			for _, r := range runs {
				out[r.RunID] = r
			}
			return out
		}
		if ctx.Err() != nil {
			t.Fatalf("the listing never showed %v ended: %+v", ids, runs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// taskIdentities are the workers that took run id's workflow tasks, and
// how many of those tasks failed.
func taskIdentities(t *testing.T, ts *temporaltest.TestServer, id string) (map[string]bool, int) {
	t.Helper()
	who, failed := map[string]bool{}, 0
	for _, e := range history(t, ts, id).Events {
		switch e.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED:
			who[e.GetWorkflowTaskStartedEventAttributes().GetIdentity()] = true
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED:
			failed++
		}
	}
	return who, failed
}

// A worker without the key joins the pool of a task queue: sealed runs go
// to the queue of their key, so it never takes one (it could only fail
// it); it runs the unsealed ones. The listing says each run's outcome in
// Weft's words, or that it is sealed to a process without the key.
func TestSealedRunsBesideKeylessWorker(t *testing.T) {
	ts, key, keyed, keyless := keyPair(t, "weft-pool")
	dir := t.TempDir()
	startWorker(t, keyless, dir) // first: it would take the sealed runs if it could
	startWorker(t, keyed, dir)
	doc := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ok"}}}],"edges":[]`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	submit := func(eng *wtemporal.Engine, n int) []string {
		var ids []string
		for range n {
			id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		return ids
	}
	sealed, plain := submit(keyed, 4), submit(keyless, 2)
	for _, c := range []struct {
		eng  *wtemporal.Engine
		ids  []string
		by   string
		kind string
	}{{keyed, sealed, "keyed", "sealed"}, {keyless, plain, "keyless", "unsealed"}} {
		for _, id := range c.ids {
			if res, err := c.eng.Result(ctx, id); err != nil || res.Outcome != runner.OutcomeSucceeded {
				t.Fatalf("%s run %s: %v %+v", c.kind, id, err, res)
			}
			who, failed := taskIdentities(t, ts, id)
			if failed != 0 || len(who) != 1 || !who[c.by] {
				t.Errorf("%s run %s: workflow tasks taken by %v, %d failed", c.kind, id, who, failed)
			}
		}
	}
	// Weft's outcome, from the result each process can read.
	all := append(append([]string{}, sealed...), plain...)
	byKeyed, byKeyless := listEnded(ctx, t, keyed, all...), listEnded(ctx, t, keyless, all...)
	for _, id := range sealed {
		if r := byKeyed[id]; r.Outcome != "succeeded" {
			t.Errorf("keyed process lists sealed run %s as %+v", id, r)
		}
		if r := byKeyless[id]; r.Outcome != "sealed" || !strings.Contains(r.Note, wtemporal.KeyID(key)) {
			t.Errorf("keyless process lists sealed run %s as %+v", id, r)
		}
	}
	// Logging the ended runs nobody followed: the sealed ones cannot be
	// read here, said once for them all.
	for _, v := range []string{"XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		t.Setenv(v, t.TempDir())
	}
	st := settings.Defaults()
	lg, err := newService(&st).LogTemporalRuns(ctx, keyless)
	if err != nil || len(lg.Warnings) != 1 || !strings.HasPrefix(lg.Warnings[0], "4 ended runs are not logged here") || !strings.Contains(lg.Warnings[0], wtemporal.KeyID(key)) {
		t.Errorf("logging the keyless side's runs: %v %q", err, lg.Warnings)
	}
	for _, id := range plain {
		if r := byKeyless[id]; r.Outcome != "succeeded" {
			t.Errorf("keyless process lists plain run %s as %+v", id, r)
		}
		if r := byKeyed[id]; r.Outcome != "unsealed" {
			t.Errorf("keyed process lists plain run %s as %+v", id, r)
		}
	}
}

// An escalation's answer from a process without the key is refused: its
// own client says so, and sent anyway (unsealed) the worker drops it and
// the run waits on, until the sealed answer comes. The run aborted by it
// lists as aborted, not as Temporal's "completed".
func TestSealedEscalationRefusesUnsealedAnswer(t *testing.T) {
	ts, key, keyed, keyless := keyPair(t, "weft-esc")
	dir := t.TempDir()
	startWorker(t, keyed, dir)
	doc := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 3"}},"retry":{"max_attempts":1}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo b > b.txt"}}}],"edges":[{"from":"a","to":"b"}]`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id, err := keyed.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	waiting := func() wtemporal.State {
		t.Helper()
		for {
			st, err := keyed.State(ctx, id, 0)
			if err == nil && st.Phase == wtemporal.PhaseWaiting {
				return st
			}
			if err == nil && st.Phase == wtemporal.PhaseFinished {
				t.Fatalf("the run went on without a sealed answer: %+v", st.Result)
			}
			if ctx.Err() != nil {
				t.Fatalf("the run does not wait for an answer: %v %+v", err, st)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	before := waiting()
	var se *wtemporal.SealError
	if err := keyless.Respond(ctx, id, runner.Response{Action: runner.ActSkip}); !errors.As(err, &se) || !strings.Contains(err.Error(), wtemporal.KeyID(key)) {
		t.Fatalf("the keyless client answered a sealed run: %v", err)
	}
	if _, err := keyless.Follow(ctx, id, wtemporal.Handler{}); !errors.As(err, &se) {
		t.Fatalf("the keyless client follows a sealed run: %v", err)
	}
	// Sent anyway, unsealed (an older client, the temporal CLI).
	if err := keyless.Client.SignalWorkflow(ctx, id, "", wtemporal.SignalRespond, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	// The worker has seen it once a workflow task completed after it.
	for seen := false; !seen; {
		signalled := false
		for _, e := range history(t, ts, id).Events {
			signalled = signalled || e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED
			seen = seen || (signalled && e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
		}
		if ctx.Err() != nil {
			t.Fatal("the worker never took the signal")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if after := waiting(); after.LastSeq != before.LastSeq || after.Escalation == nil {
		t.Fatalf("the unsealed answer was acted on: %+v", after)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); err == nil {
		t.Fatal("the step after the escalation ran on an unsealed skip")
	}
	if err := keyed.Respond(ctx, id, runner.Response{Action: runner.ActAbort}); err != nil {
		t.Fatal(err)
	}
	if res, err := keyed.Result(ctx, id); err != nil || res.Outcome != runner.OutcomeAborted {
		t.Fatalf("%v %+v", err, res)
	}
	if r := listEnded(ctx, t, keyed, id)[id]; r.Status != "completed" || r.Outcome != "aborted" {
		t.Fatalf("listed %+v", r)
	}
}

// With no worker on a run's task queue a follower says so within seconds
// (naming the queue, and the key a sealed run needs), waits, and goes on
// when one comes; an ended run is not asked of a worker that is not
// there: its end is read from the history.
func TestNoWorkerSaid(t *testing.T) {
	ts := temporaltest.NewServer(temporaltest.WithT(t))
	key := bytes.Repeat([]byte{13}, 32)
	eng := engine(ts, "weft-idle", key, "")
	dir := t.TempDir()
	doc := parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ok"}}}],"edges":[]`)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id, err := eng.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// The command line says it too.
	home := t.TempDir()
	t.Setenv(wtemporal.EnvKey, base64.StdEncoding.EncodeToString(key))
	_, lines := proc(t, home, "runs", "show", id, "--temporal-address", ts.GetFrontendHostPort(), "--namespace", ts.GetDefaultNamespace(), "--task-queue", "weft-idle")
	queue := wtemporal.TaskQueue("weft-idle", key)
	said := time.After(20 * time.Second)
	for shown := false; !shown; {
		select {
		case l := <-lines:
			shown = strings.Contains(l, "no worker polls task queue "+queue) && strings.Contains(l, wtemporal.KeyID(key))
		case <-said:
			t.Fatal("weft runs show did not say that no worker polls the queue")
		}
	}
	notices := make(chan string, 10)
	type end struct {
		res *runner.Result
		err error
	}
	ended := make(chan end, 1)
	go func() {
		res, err := eng.Follow(ctx, id, wtemporal.Handler{Notice: func(m string) { notices <- m }})
		ended <- end{res, err}
	}()
	select {
	case m := <-notices:
		if !strings.Contains(m, "no worker polls task queue "+queue) || !strings.Contains(m, wtemporal.KeyID(key)) {
			t.Fatalf("notice %q", m)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the follower said nothing about the missing worker")
	}
	startWorker(t, eng, dir)
	if e := <-ended; e.err != nil || e.res.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("after a worker came: %v %+v", e.err, e.res)
	}
	// Ended while no worker is up: the end comes from the history.
	idle := engine(ts, "weft-idle-2", key, "")
	id2, err := idle.Submit(ctx, doc, wtemporal.RunInput{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := idle.Client.TerminateWorkflow(ctx, id2, "", "test"); err != nil {
		t.Fatal(err)
	}
	fctx, fcancel := context.WithTimeout(ctx, 20*time.Second)
	defer fcancel()
	if _, err := idle.Follow(fctx, id2, wtemporal.Handler{}); err == nil || fctx.Err() != nil || !strings.Contains(err.Error(), "terminated") {
		t.Fatalf("following an ended run with no worker: %v", err)
	}
	if r := listEnded(ctx, t, idle, id2)[id2]; r.Outcome != string(runner.OutcomeCanceled) {
		t.Fatalf("the terminated run lists as %+v", r)
	}
}
