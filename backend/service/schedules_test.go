package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// fakeScheduler is an OS scheduler that keeps its entries in memory.
type fakeScheduler struct {
	installed map[string][]string
	paused    map[string]bool
}

func (*fakeScheduler) Name() string { return "fake" }
func (*fakeScheduler) Entry(s schedule.Schedule, cmd []string) (string, error) {
	return s.Cron + " " + strings.Join(cmd, " ") + " #" + s.ID, nil
}
func (f *fakeScheduler) Install(_ context.Context, s schedule.Schedule, cmd []string) error {
	f.installed[s.ID] = cmd
	return nil
}
func (f *fakeScheduler) SetPaused(_ context.Context, s schedule.Schedule, p bool) error {
	f.paused[s.ID] = p
	return nil
}
func (f *fakeScheduler) Remove(_ context.Context, s schedule.Schedule) error {
	delete(f.installed, s.ID)
	return nil
}

// AddSchedule checks the saved file as a run is checked: an invalid
// workflow or unapproved model-written steps install nothing; approved,
// the OS entry runs `weft run FILE --on-escalate abort`.
func TestAddSchedule(t *testing.T) {
	svc := testService(t, nil)
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	ctx := context.Background()

	if _, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: "missing.json", Cron: "0 7 * * *"}); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Fatalf("missing file: %v", err)
	}
	w, path := runFile(t, "wf-sched", [2]string{"one", "true"})
	if _, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * *"}); err == nil || !strings.Contains(err.Error(), "want 5") {
		t.Fatalf("bad cron: %v", err)
	}
	if _, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * * *", Engine: "elsewhere"}); err == nil {
		t.Fatal("an unknown engine was taken")
	}

	broken := w.Clone()
	broken.Edges = append(broken.Edges, workflow.Edge{From: "id_one", To: "nowhere"})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := workflow.Save(bad, broken); err != nil {
		t.Fatal(err)
	}
	res, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: bad, Cron: "0 7 * * *"})
	if err != nil || res.Started || len(res.Problems) == 0 || len(f.installed) != 0 {
		t.Fatalf("invalid workflow: %v %+v %v", err, res, f.installed)
	}

	byModel(w)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	res, err = svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * * *"})
	if err != nil || res.Started || len(res.Approval) != 1 || len(f.installed) != 0 {
		t.Fatalf("unapproved: %v %+v", err, res)
	}
	if all, _ := m.List(); len(all) != 0 {
		t.Fatalf("an unapproved schedule was recorded: %+v", all)
	}
	res, err = svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * * *", UsePinned: true,
		Approver: Preapproved(Fingerprints(res.Approval)), ApprovedBy: "test"})
	if err != nil || !res.Started || res.Schedule == nil {
		t.Fatalf("approved: %v %+v", err, res)
	}
	sum, _, _, _ := readPinned(path)
	want := "/opt/weft/weft run " + path + " --on-escalate abort --source schedule --require-sha256 " + sum + " --pinned"
	if got := strings.Join(f.installed[res.Schedule.ID], " "); got != want {
		t.Fatalf("installed %q, want %q", got, want)
	}
	if state, _ := svc.PendingApprovals(ctx, w, path); len(state.Pending) != 0 {
		t.Fatalf("the approval was not recorded: the scheduled run would stop at the gate: %+v", state.Pending)
	}
	all, _ := m.List()
	rows := svc.ScheduleStates(all, time.Now())
	if len(rows) != 1 || rows[0].ID != res.Schedule.ID || rows[0].Next == nil || !rows[0].Next.After(time.Now()) {
		t.Fatalf("states %+v", rows)
	}
}

// The entry PreviewSchedule shows is the one AddSchedule installs, under
// the name shown; the file changed after it was shown installs nothing.
func TestAddScheduleShown(t *testing.T) {
	svc := testService(t, nil)
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	ctx := context.Background()
	w, path := runFile(t, "wf-shown", [2]string{"one", "true"})
	req := ScheduleRequest{Path: path, Cron: "30 2 * * *", UsePinned: true}
	shown, err := svc.PreviewSchedule(m, req)
	if err != nil || shown.ID == "" || !strings.Contains(shown.Entry, "--pinned") {
		t.Fatalf("preview %+v %v", shown, err)
	}
	w.Nodes[0].Name = "changed after it was shown"
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	req.Shown = &shown
	if res, err := svc.AddSchedule(ctx, m, req); err == nil || res.Started || len(f.installed) != 0 {
		t.Fatalf("the file changed since the entry was shown, yet: %v %+v %v", err, res, f.installed)
	}
	if shown, err = svc.PreviewSchedule(m, req); err != nil {
		t.Fatal(err)
	}
	req.Shown = &shown
	res, err := svc.AddSchedule(ctx, m, req)
	if err != nil || !res.Started || res.Schedule.ID != shown.ID || res.Entry != shown.Entry || len(f.installed) != 1 {
		t.Fatalf("shown %+v, made %v %+v", shown, err, res)
	}
}

// A Temporal schedule's state says its last run once its runs are logged
// beside the file; a failed one needs attention.
func TestTemporalScheduleState(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-tsched", [2]string{"one", "!exit 3"})
	w.Nodes[0].OnError = workflow.OnErrorContinue
	if err := svc.SaveWorkflow(context.Background(), path, w, path); err != nil {
		t.Fatal(err)
	}
	sc := schedule.Schedule{ID: "t-1", File: path, Cron: "0 7 * * *", Backend: "temporal", Created: time.Now().Add(-48 * time.Hour),
		Temporal: &schedule.Remote{Address: "temporal.example:7233"}}
	rows := svc.ScheduleStates([]schedule.Schedule{sc}, time.Now())
	if rows[0].State != "on Temporal at temporal.example:7233 (weft runs list shows its runs)" || rows[0].Attention {
		t.Fatalf("before any run: %+v", rows[0])
	}
	// A run the person starts is not the schedule's.
	if _, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, ApprovedBy: "test"}); err != nil || fin.Outcome == runner.OutcomeSucceeded {
		t.Fatalf("run: %+v %v", fin, err)
	}
	if rows = svc.ScheduleStates([]schedule.Schedule{sc}, time.Now()); rows[0].LastRun != nil {
		t.Fatalf("a manual run is the schedule's: %+v", rows[0])
	}
	if _, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, ApprovedBy: "test", Source: runner.RunBySchedule}); err != nil || fin.Outcome == runner.OutcomeSucceeded {
		t.Fatalf("run: %+v %v", fin, err)
	}
	rows = svc.ScheduleStates([]schedule.Schedule{sc}, time.Now())
	if !strings.Contains(rows[0].State, "; last run ") || !rows[0].Attention || rows[0].Missed != nil {
		t.Fatalf("after a failed run: %+v", rows[0])
	}
}

// A new schedule has no last run: runs from before it was made, even ones
// that say a schedule started them (or say nothing, as old logs do), are
// not its runs.
func TestNewScheduleHasNoLastRun(t *testing.T) {
	svc := testService(t, nil)
	w, path := runFile(t, "wf-newsched", [2]string{"one", "echo one"})
	for _, src := range []runner.RunSource{runner.RunBySchedule, runner.RunByPerson} {
		if _, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, ApprovedBy: "test", Source: src}); err != nil || fin.Outcome != runner.OutcomeSucceeded {
			t.Fatalf("run: %+v %v", fin, err)
		}
	}
	// Made a second later than the runs started (logs may keep their start to the second).
	sc := schedule.Schedule{ID: "n-1", File: path, Cron: "0 7 * * *", Backend: "fake", Created: time.Now().Add(time.Second)}
	rows := svc.ScheduleStates([]schedule.Schedule{sc}, time.Now())
	if rows[0].LastRun != nil || rows[0].Outcome != "" || strings.Contains(rows[0].State, "last run") {
		t.Fatalf("a new schedule shows an earlier run as its last: %+v", rows[0])
	}
	// Its own runs are.
	sc.Created = time.Now()
	if _, fin, err := svc.Run(context.Background(), StartRequest{Workflow: w, Path: path, ApprovedBy: "test", Source: runner.RunBySchedule}); err != nil || fin.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("run: %+v %v", fin, err)
	}
	if rows = svc.ScheduleStates([]schedule.Schedule{sc}, time.Now()); rows[0].LastRun == nil || rows[0].Outcome != "succeeded" {
		t.Fatalf("its own run is not shown: %+v", rows[0])
	}
}
