package service

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/workflow"
)

// Two runs at once: each has its own id, folder, events and escalation;
// an answer reaches only the run it names, and stopping one leaves the
// other going.
func TestRunsAtOnce(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	type going struct {
		ev  *events
		st  StartResult
		esc *Escalation
		out string
	}
	var runs [2]going
	for i, id := range []string{"wf-a", "wf-b"} {
		out := filepath.Join(t.TempDir(), "after")
		w, path := runFile(t, id, [2]string{"bad", "!false"}, [2]string{"after", "echo " + id + " > " + out})
		ev := newEvents()
		st, err := svc.Start(ctx, StartRequest{Workflow: w, Path: path, Sink: ev})
		if err != nil || !st.Started || st.RunID == "" {
			t.Fatalf("Start %s = %+v, %v", id, st, err)
		}
		runs[i] = going{ev: ev, st: st, out: out}
	}
	a, b := &runs[0], &runs[1]
	if a.st.RunID == b.st.RunID {
		t.Fatalf("both runs are %s", a.st.RunID)
	}
	for i := range runs {
		r := &runs[i]
		r.esc = r.ev.next(t, KindEscalation).Escalation
		if r.esc.Escalation.RunID != r.st.RunID || !strings.HasPrefix(r.esc.ID, r.st.RunID+"#") {
			t.Fatalf("run %s escalated as %+v", r.st.RunID, r.esc)
		}
		if s := svc.Status(r.st.RunID); !s.Running || s.Escalation == nil || s.Escalation.ID != r.esc.ID {
			t.Fatalf("Status(%s) = %+v", r.st.RunID, s)
		}
	}
	if err := svc.Respond(a.esc.ID, runner.Response{Action: runner.ActSkip}); err != nil {
		t.Fatal(err)
	}
	finA := a.ev.next(t, KindFinished).Finished
	if finA.RunID != a.st.RunID || finA.Outcome != runner.OutcomePartial {
		t.Fatalf("run a finished %+v", finA)
	}
	if s := svc.Status(b.st.RunID); !s.Running || s.Escalation == nil || s.Escalation.ID != b.esc.ID {
		t.Fatalf("answering a moved b: Status(b) = %+v", s)
	}
	if !svc.Stop(b.st.RunID) {
		t.Fatal("Stop(b) found no run")
	}
	finB := b.ev.next(t, KindFinished).Finished
	if finB.RunID != b.st.RunID || finB.Outcome != runner.OutcomeCanceled {
		t.Fatalf("run b finished %+v", finB)
	}
	if !svc.Wait(5e9) {
		t.Fatal("the runs did not end")
	}
	if _, err := os.Stat(a.out); err != nil {
		t.Errorf("run a did not go on after its answer: %v", err)
	}
	if _, err := os.Stat(b.out); err == nil {
		t.Error("run b went on after Stop")
	}
	if finA.Dir == finB.Dir || filepath.Base(finA.Dir) != a.st.RunID || filepath.Base(finB.Dir) != b.st.RunID {
		t.Fatalf("run folders %s and %s", finA.Dir, finB.Dir)
	}
	for i, r := range runs {
		dir := []string{finA.Dir, finB.Dir}[i]
		evs := r.ev.runnerEvents()
		for i, e := range evs {
			if e.RunID != r.st.RunID || e.Seq != int64(i+1) {
				t.Fatalf("run %s's sink got event %d %+v", r.st.RunID, i, e)
			}
		}
		log, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
		if err != nil || strings.Count(string(log), "\n") != len(evs) {
			t.Fatalf("run %s logged %d lines for %d events (%v)", r.st.RunID, strings.Count(string(log), "\n"), len(evs), err)
		}
	}
}

// MaxRuns 1 (a desktop window) keeps one run at a time.
func TestMaxRunsBoundsTheRunsGoing(t *testing.T) {
	svc := testService(t, func(d *Deps) { d.MaxRuns = 1 })
	ev := newEvents()
	w, path := runFile(t, "wf-one", [2]string{"bad", "!false"})
	st, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path, Sink: ev})
	if err != nil || !st.Started {
		t.Fatalf("Start = %+v, %v", st, err)
	}
	if _, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path}); !errors.Is(err, ErrRunActive) {
		t.Fatalf("second Start: %v, want ErrRunActive", err)
	}
	ev.next(t, KindEscalation)
	svc.Stop(st.RunID)
	if !svc.Wait(5e9) {
		t.Fatal("the run did not end")
	}
	if st, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, Sink: SinkFunc(func(e Event) {
		if e.Escalation != nil {
			_ = svc.Respond(e.Escalation.ID, runner.Response{Action: runner.ActAbort})
		}
	})}); err != nil || !st.Started || fin.Outcome != runner.OutcomeAborted {
		t.Fatalf("a run after the first ended: %+v %+v %v", st, fin, err)
	}
}

// A run that starts while another uses the folder's MCP sessions gets
// sessions of its own (a stateful server never mixes two runs), closed
// when it ends; a run alone uses the shared ones.
func TestConcurrentRunsGetTheirOwnMCPSession(t *testing.T) {
	svc, st := mcpService(t)
	ctx := context.Background()
	dir := t.TempDir()
	w := workflow.New("pid")
	w.Nodes = []workflow.Node{{ID: "n1", Key: "work", Name: "Work", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.slow", Arguments: map[string]any{"ms": 300}}},
		{ID: "n2", Key: "who", Name: "Who", Type: workflow.TypeTool, Params: workflow.Params{Tool: "go.pid"}}}
	w.Edges = []workflow.Edge{{From: "n1", To: "n2"}}
	path := filepath.Join(dir, "pid.json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	pidOf := func(fin *Finished) int {
		t.Helper()
		if fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("run %s: %s %s", fin.RunID, fin.Outcome, fin.Error)
		}
		who, _ := fin.Result.Live["who"].(map[string]any)
		pid, _ := strconv.Atoi(who["text"].(string))
		return pid
	}
	var evs [2]*events
	for i := range evs {
		evs[i] = newEvents()
		if res, err := svc.Start(ctx, StartRequest{Workflow: w, Path: path, Sink: evs[i]}); err != nil || !res.Started {
			t.Fatalf("start %d: %v %+v", i, err, res)
		}
	}
	first, second := pidOf(evs[0].next(t, KindFinished).Finished), pidOf(evs[1].next(t, KindFinished).Finished)
	if !svc.Wait(10e9) {
		t.Fatal("the runs did not end")
	}
	shared := svc.mcpFor(st, dir)
	now, err := shared.Call(ctx, "go", "pid", nil)
	if err != nil || now.Text != strconv.Itoa(first) || second == first || second == 0 {
		t.Fatalf("first run's server %d, second's %d, the folder's session %s (%v)", first, second, now.Text, err)
	}
	for deadline := time.Now().Add(5 * time.Second); processAlive(second); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the second run's own server %d still runs after it ended", second)
		}
	}
	_, fin, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path})
	if err != nil || pidOf(fin) != first {
		t.Fatalf("a run alone did not use the shared session: %v", err)
	}
}

// processAlive says whether the process pid still runs (signal 0).
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}

// A run told finished frees its place at once: the next Start, made the
// moment the Finished event arrives (a person pressing Run again), is not
// refused as if the run still went.
func TestMaxRunsFreesAPlaceWhenTheEndIsTold(t *testing.T) {
	svc := testService(t, func(d *Deps) { d.MaxRuns = 1 })
	w, path := runFile(t, "wf-again", [2]string{"say", "true"})
	again := make(chan error, 1)
	st, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, Sink: SinkFunc(func(e Event) {
		if e.Finished != nil {
			_, err := svc.Start(context.Background(), StartRequest{Workflow: w, Path: path})
			again <- err
		}
	})})
	if err != nil || !st.Started || fin.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("first run: %+v %+v %v", st, fin, err)
	}
	if err := <-again; err != nil {
		t.Fatalf("Start when the first run was told finished: %v", err)
	}
	if !svc.Wait(5e9) {
		t.Fatal("the second run did not end")
	}
}
