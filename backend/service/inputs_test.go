package service

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// inputsFile is a saved workflow whose one step writes {{inputs.name}}
// and {{inputs.n}} to out.txt beside it.
func inputsFile(t *testing.T, id string) (*workflow.Workflow, string) {
	t.Helper()
	w, path := runFile(t, id, [2]string{"say", "printf '%s %s' {{inputs.name}} {{inputs.n}} > out.txt"})
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":1}},"required":["name"]}`)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	return w, path
}

// One check for both engines: inputs that do not fit refuse the run before
// anything is asked or runs, input by input; texts are parsed per type
// over the values; the run gets them.
func TestStartChecksInputs(t *testing.T) {
	svc := testService(t, nil)
	w, path := inputsFile(t, "wf-inputs")
	out := filepath.Join(filepath.Dir(path), "out.txt")
	for _, req := range []StartRequest{
		{},
		{InputTexts: map[string]string{"name": "x", "n": "many"}},
		{Inputs: map[string]any{"name": "x", "other": 1}},
	} {
		req.Workflow, req.Path = w, path
		res, fin, err := svc.Run(context.Background(), req)
		if err != nil || res.Started || fin != nil || len(res.InputProblems) == 0 || !strings.Contains(res.Error, "input") {
			t.Fatalf("%+v: %+v %v", req, res, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatal("a step ran")
		}
		eng := &fakeRemote{}
		sres, id, err := svc.Submit(context.Background(), req, eng)
		if err != nil || sres.Started || id != "" || len(eng.got) != 0 || len(sres.InputProblems) == 0 {
			t.Fatalf("remote %+v: %+v %v", req, sres, err)
		}
	}
	res, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path,
		Inputs: map[string]any{"name": "from json", "n": 5}, InputTexts: map[string]string{"name": "Ada $(x)"}})
	if err != nil || !res.Started || fin == nil {
		t.Fatalf("%+v %v", res, err)
	}
	if b, _ := os.ReadFile(out); string(b) != "Ada $(x) 5" {
		t.Fatalf("out.txt = %q", b)
	}
	eng := &fakeRemote{}
	if res, _, err := svc.Submit(context.Background(), StartRequest{Workflow: w, Path: path, InputTexts: map[string]string{"name": "Ada"}}, eng); err != nil || !res.Started {
		t.Fatalf("remote: %+v %v", res, err)
	}
	if got := eng.got[0].Inputs; got["name"] != "Ada" || got["n"] != 1.0 {
		t.Fatalf("submitted inputs %v", got)
	}
}

// A schedule runs with the defaults only: a workflow with a required
// input and no default installs nothing, the input named; with defaults
// for all it is scheduled.
func TestScheduleNeedsInputDefaults(t *testing.T) {
	svc := testService(t, nil)
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	w, path := inputsFile(t, "wf-sched-inputs")
	res, err := svc.AddSchedule(context.Background(), m, ScheduleRequest{Path: path, Cron: "0 7 * * *"})
	if err != nil || res.Started || len(f.installed) != 0 || len(res.InputProblems) != 1 || res.InputProblems[0].Input != "name" {
		t.Fatalf("required input: %v %+v", err, res)
	}
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","default":"Ada"},"n":{"type":"integer","default":1}}}`)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	if res, err := svc.AddSchedule(context.Background(), m, ScheduleRequest{Path: path, Cron: "0 7 * * *"}); err != nil || !res.Started || len(f.installed) != 1 {
		t.Fatalf("defaults: %v %+v", err, res)
	}
}
