package service

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// A schedule of a workflow with a required input keeps the values it is
// given (by text or as JSON values, as a run takes them) and passes them
// to each run's `weft run` as --inputs JSON, the entry shown being the one
// installed; it is refused, naming the input, when the required one is
// missing or a value does not fit, and for a secret input or a value
// holding a secret reference (neither can be kept).
func TestScheduleKeepsInputs(t *testing.T) {
	svc := testService(t, nil)
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	ctx := context.Background()
	w, path := inputsFile(t, "wf-sched-keep")

	refused := []struct {
		req   ScheduleRequest
		input string
	}{
		{ScheduleRequest{InputTexts: map[string]string{"n": "2"}}, "name"},
		{ScheduleRequest{InputTexts: map[string]string{"name": "Ada", "n": "two"}}, "n"},
		{ScheduleRequest{Inputs: map[string]any{"name": "Ada", "other": 1}}, "other"},
		{ScheduleRequest{Inputs: map[string]any{"name": "{{secrets.TOKEN}}"}}, "name"},
		{ScheduleRequest{Inputs: map[string]any{"name": "a {{ secrets.TOKEN }} b"}}, "name"},
	}
	for _, tc := range refused {
		req := tc.req
		req.Path, req.Cron = path, "0 7 * * *"
		res, err := svc.AddSchedule(ctx, m, req)
		if err != nil || res.Started || len(f.installed) != 0 || len(res.InputProblems) == 0 || res.InputProblems[0].Input != tc.input {
			t.Fatalf("%+v: want refused naming %s: %v %+v", tc.req, tc.input, err, res)
		}
		// The preview says the same, input by input, and shows no entry.
		if sh, err := svc.PreviewSchedule(m, req); err != nil || sh.Entry != "" || len(sh.InputProblems) == 0 || sh.InputProblems[0].Input != tc.input {
			t.Fatalf("%+v: previewed %+v %v", tc.req, sh, err)
		}
	}

	// A value the scheduler must carry exactly, whatever it holds.
	hostile := "Ada'; rm -rf ~ \"$HOME\" %h `id` \\ \n end"
	req := ScheduleRequest{Path: path, Cron: "0 7 * * *", InputTexts: map[string]string{"name": hostile}}
	shown, err := svc.PreviewSchedule(m, req)
	if err != nil {
		t.Fatal(err)
	}
	req.Shown = &shown
	res, err := svc.AddSchedule(ctx, m, req)
	if err != nil || !res.Started || len(f.installed) != 1 {
		t.Fatalf("with the input: %v %+v", err, res)
	}
	cmd := f.installed[res.Schedule.ID]
	i := slices.Index(cmd, "--inputs")
	if i < 0 || i+1 >= len(cmd) {
		t.Fatalf("the command gives no inputs: %q", cmd)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(cmd[i+1]), &got); err != nil || len(got) != 1 || got["name"] != hostile {
		t.Fatalf("the command's inputs %q: %v (want only the one given, not the defaults)", cmd[i+1], err)
	}
	if all, _ := m.List(); len(all) != 1 || !slices.Equal(all[0].Args, []string{"--inputs", cmd[i+1]}) {
		t.Fatalf("the schedule kept %+v", all)
	}

	// Updated to the file as it is now, the schedule keeps its inputs;
	// a version whose inputs they no longer fit is refused, naming it.
	w.Name = "edited"
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	up, err := svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: path})
	if err != nil || !up.Started || len(up.Updated) != 1 || !slices.Equal(up.Updated[0].Args, []string{"--inputs", cmd[i+1]}) {
		t.Fatalf("update: %v %+v", err, up)
	}
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"name":{"type":"integer"}},"required":["name"]}`)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	up, err = svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: path})
	if err != nil || up.Started || len(up.Updated) != 0 || len(up.InputProblems) != 1 || up.InputProblems[0].Input != "name" {
		t.Fatalf("update to inputs the schedule's do not fit: %v %+v", err, up)
	}

	// A secret input cannot be kept, by value or by reference.
	w.Inputs = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"},"n":{"type":"integer","default":1},"key":{"type":"string","writeOnly":true}},"required":["name"]}`)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	trustFile(t, path)
	for _, key := range []string{"s3cr3t", "{{secrets.KEY}}"} {
		res, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 8 * * *", Inputs: map[string]any{"name": "Ada", "key": key}})
		if err != nil || res.Started || len(res.InputProblems) != 1 || res.InputProblems[0].Input != "key" {
			t.Fatalf("secret input %q: %v %+v", key, err, res)
		}
	}
	if all, _ := m.List(); len(all) != 1 {
		t.Fatalf("a refused schedule was recorded: %+v", all)
	}
}
