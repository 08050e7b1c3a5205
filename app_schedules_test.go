package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/workflow"
)

// The Schedules dialog's calls, with a fake crontab keeping a file: a
// workflow with a model-written step is refused with the step listed, made
// once the person approved it (the entry runs this binary), paused,
// resumed and removed; a cron expression is previewed as it is typed.
func TestScheduleBindings(t *testing.T) {
	a, _ := runApp(t)
	dir := t.TempDir()
	tab, fake := filepath.Join(dir, "tab"), filepath.Join(dir, "crontab")
	if err := os.WriteFile(fake, []byte("#!/bin/sh\ntab='"+tab+"'\nif [ \"$1\" = -l ]; then [ -f \"$tab\" ] || { echo 'no crontab for tester' >&2; exit 1; }; cat \"$tab\"; exit 0; fi\ncat > \"$tab\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("WEFT_SCHEDULER", "cron:"+fake)

	v, err := a.ListSchedules()
	if err != nil || v.Scheduler != "cron" || len(v.Schedules) != 0 {
		t.Fatalf("empty list: %+v %v", v, err)
	}
	w := workflow.New("Daily")
	w.Nodes = []workflow.Node{{ID: "a", Key: "say", Name: "Say", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "echo hi"}}}}
	approval.MarkAll(w, approval.Provenance{Source: approval.SourceModel, Via: approval.ViaPlan})
	path := filepath.Join(dir, "daily.json")
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	res, err := a.AddSchedule(NewSchedule{Path: path, Cron: "0 7 * * 1-5", Engine: "local"})
	if err != nil || res.Started || len(res.Approval) != 1 || res.Approval[0].Key != "say" {
		t.Fatalf("unapproved: %+v %v", res, err)
	}
	if _, err := os.Stat(tab); err == nil {
		t.Fatal("an unapproved workflow was installed")
	}
	res, err = a.AddSchedule(NewSchedule{Path: path, Cron: "0 7 * * 1-5", Engine: "local", Approved: []string{res.Approval[0].Fingerprint}})
	if err != nil || !res.Started || res.Schedule == nil {
		t.Fatalf("approved: %+v %v", res, err)
	}
	self, _ := os.Executable()
	b, _ := os.ReadFile(tab)
	if !strings.Contains(string(b), "0 7 * * 1-5 ") || !strings.Contains(string(b), "'"+self+"' 'run' '"+path+"'") {
		t.Fatalf("crontab:\n%s", b)
	}
	id := res.Schedule.ID
	v, _ = a.ListSchedules()
	if len(v.Schedules) != 1 || v.Schedules[0].ID != id || v.Schedules[0].Next == nil || v.Schedules[0].State != "not run yet" {
		t.Fatalf("list: %+v", v.Schedules)
	}
	if err := a.SetSchedulePaused(id, true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); !strings.Contains(string(b), "#paused 0 7 * * 1-5 ") {
		t.Fatalf("crontab when paused:\n%s", b)
	}
	if v, _ = a.ListSchedules(); !v.Schedules[0].Paused || v.Schedules[0].Next != nil {
		t.Fatalf("paused: %+v", v.Schedules[0])
	}
	if err := a.SetSchedulePaused(id, false); err != nil {
		t.Fatal(err)
	}
	// Saved again with a change: the schedule is stale until updated, and
	// the update asks what the gate lists first.
	if st, err := a.StaleSchedules(path); err != nil || len(st) != 0 {
		t.Fatalf("stale before a change: %+v %v", st, err)
	}
	w.Nodes[0].Params.Arguments["command"] = "echo changed"
	if err := a.service().SaveWorkflow(a.context(), path, w, path); err != nil {
		t.Fatal(err)
	}
	if st, err := a.StaleSchedules(path); err != nil || len(st) != 1 || st[0].ID != id {
		t.Fatalf("stale after a change: %+v %v", st, err)
	}
	up, err := a.UpdateSchedules(path, nil)
	if err != nil || up.Started || len(up.Approval) == 0 {
		t.Fatalf("updated without approval: %+v %v", up, err)
	}
	if up, err = a.UpdateSchedules(path, []string{up.Approval[0].Fingerprint}); err != nil || !up.Started || len(up.Updated) != 1 {
		t.Fatalf("update: %+v %v", up, err)
	}
	if st, _ := a.StaleSchedules(path); len(st) != 0 {
		t.Fatalf("stale after the update: %+v", st)
	}
	if err := a.RemoveSchedule(id); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(tab); strings.TrimSpace(string(b)) != "" {
		t.Fatalf("crontab after remove:\n%s", b)
	}
	if err := a.RemoveSchedule(id); err == nil {
		t.Fatal("removed twice")
	}

	if p := a.PreviewCron("0 7 * * 1-5"); p.Error != "" || len(p.Next) != 3 {
		t.Fatalf("preview: %+v", p)
	}
	if p := a.PreviewCron("61 * * * *"); p.Error == "" || len(p.Next) != 0 {
		t.Fatalf("bad minute: %+v", p)
	}
	if p := a.PreviewCron("0 7 30 2 *"); !strings.Contains(p.Error, "no time") {
		t.Fatalf("30 February: %+v", p)
	}
}
