package service

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/workflow"
)

// A schedule's run runs the content pinned when the schedule was made:
// the file's bytes, read once (not the workflow the caller passed); other
// bytes run nothing and are logged as needs_review, with the schedule's
// source, and listed as such.
func TestScheduledRunRunsOnlyThePinnedContent(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-pin", [2]string{"one", "touch ran-one"})
	sum, _, _, err := readPinned(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	sc := schedule.Schedule{ID: "p-1", File: path, Cron: "0 7 * * *", Backend: "fake", Created: time.Now().Add(-time.Minute), SHA256: sum}

	// The bytes pinned run, whatever workflow the caller holds.
	other := w.Clone()
	other.Nodes[0].Params.Arguments = map[string]any{"command": "touch ran-other"}
	res, fin, err := svc.Run(ctx, StartRequest{Workflow: other, Path: path, Source: runner.RunBySchedule, RequireSHA256: strings.ToUpper(sum)})
	if err != nil || !res.Started || fin.Outcome != runner.OutcomeSucceeded {
		t.Fatalf("pinned run: %v %+v %+v", err, res, fin)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-one")); err != nil {
		t.Fatal("the pinned content did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "ran-other")); err == nil {
		t.Fatal("the caller's workflow ran instead of the file's bytes")
	}
	if rows := svc.ScheduleStates([]schedule.Schedule{sc}, time.Now()); rows[0].Outcome != "succeeded" || rows[0].Changed || rows[0].Attention {
		t.Fatalf("after the run: %+v", rows[0])
	}

	// Edited by hand: refused before anything runs, logged, listed.
	w.Nodes[0].Params.Arguments = map[string]any{"command": "touch ran-edit"}
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(){
		func() {}, // a valid edit
		func() { os.WriteFile(path, []byte(`{"format":"weft/v1", broken`), 0o644) }, // one that does not parse
	} {
		edit()
		res, fin, err = svc.Run(ctx, StartRequest{Workflow: w, Path: path, Source: runner.RunBySchedule, RequireSHA256: sum})
		if err != nil || res.Started || fin != nil || res.Refused == nil {
			t.Fatalf("edited: %v %+v %+v", err, res, fin)
		}
		r := res.Refused
		if r.Outcome != runner.OutcomeNeedsReview || r.Source != runner.RunBySchedule || !r.Complete || !strings.Contains(r.Error, "changed since its schedule was made") || !strings.Contains(r.Error, "weft schedule update") {
			t.Fatalf("refused: %+v", r)
		}
		if _, err := os.Stat(filepath.Join(dir, "ran-edit")); err == nil {
			t.Fatal("the edited command ran")
		}
	}
	workflow.Save(path, w) // valid again, for the state
	rows := svc.ScheduleStates([]schedule.Schedule{sc}, time.Now())
	if rows[0].Outcome != string(runner.OutcomeNeedsReview) || !rows[0].Changed || !rows[0].Attention || !strings.Contains(rows[0].State, "changed since it was scheduled") {
		t.Fatalf("after the refusal: %+v", rows[0])
	}
	// (The refusal of content that does not parse is logged without a
	// workflow id: it is not this workflow's.)
	if runs := svc.ScheduledRuns([]schedule.Schedule{sc}, 10); len(runs) != 2 || runs[0].Outcome != runner.OutcomeNeedsReview {
		t.Fatalf("scheduled runs: %+v", runs)
	}
	if got := SummarizeRuns(mustHistory(t, svc, path).Runs).Outcomes[runner.OutcomeNeedsReview]; got != 1 {
		t.Fatalf("stats count %d needs_review runs, want 1", got)
	}
}

func mustHistory(t *testing.T, svc *Service, path string) History {
	t.Helper()
	h, err := svc.RunHistory(path, "wf-pin")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A schedule's run that does not start for another reason (steps waiting
// for approval, an invalid workflow) is logged too, as what it is: the
// schedule's last run is never an older success. A person's is not: they
// see why at once.
func TestScheduledRefusalsAreLogged(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	w, path := runFile(t, "wf-refused", [2]string{"one", "true"})
	byModel(w)
	if err := workflow.Save(path, w); err != nil {
		t.Fatal(err)
	}
	sum, _, _, _ := readPinned(path)
	res, _, err := svc.Run(ctx, StartRequest{Workflow: w, Path: path, RequireSHA256: sum})
	if err != nil || res.Started || res.Refused != nil {
		t.Fatalf("a person's refused run: %v %+v", err, res)
	}
	res, _, err = svc.Run(ctx, StartRequest{Workflow: w, Path: path, Source: runner.RunBySchedule, RequireSHA256: sum})
	if err != nil || res.Started || res.Refused == nil || res.Refused.Outcome != runner.OutcomeNeedsReview || len(res.Approval) == 0 {
		t.Fatalf("a schedule's unapproved run: %v %+v", err, res)
	}
	bad := w.Clone()
	bad.Edges = append(bad.Edges, workflow.Edge{From: "id_one", To: "nowhere"})
	res, _, err = svc.Run(ctx, StartRequest{Workflow: bad, Path: path, Source: runner.RunBySchedule})
	if err != nil || res.Refused == nil || res.Refused.Outcome != runner.OutcomeFailed || !strings.Contains(res.Refused.Error, "nowhere") {
		t.Fatalf("a schedule's invalid run: %v %+v", err, res)
	}
	h, _ := svc.RunHistory(path, "wf-refused")
	if len(h.Runs) != 2 || h.Runs[0].Outcome != runner.OutcomeFailed || h.Runs[1].Outcome != runner.OutcomeNeedsReview {
		t.Fatalf("history %+v", h.Runs)
	}
	sc := schedule.Schedule{ID: "r-1", File: path, Cron: "0 7 * * *", Backend: "fake", Created: time.Now().Add(-time.Minute), SHA256: sum}
	if rows := svc.ScheduleStates([]schedule.Schedule{sc}, time.Now()); rows[0].Outcome != "failed" || !rows[0].Attention {
		t.Fatalf("state %+v", rows[0])
	}
}

// Updating a file's schedules re-pins them to the file as it is now, after
// the checks a new schedule gets: what the gate lists waits for approval
// and nothing is re-pinned until it is given.
func TestUpdateSchedules(t *testing.T) {
	svc := testService(t, nil)
	ctx := context.Background()
	f := &fakeScheduler{installed: map[string][]string{}, paused: map[string]bool{}}
	m := &schedule.Manager{Path: filepath.Join(t.TempDir(), "schedules.json"), Backend: f, Weft: "/opt/weft/weft"}
	w, path := runFile(t, "wf-up", [2]string{"one", "true"})
	added, err := svc.AddSchedule(ctx, m, ScheduleRequest{Path: path, Cron: "0 7 * * *"})
	if err != nil || !added.Started {
		t.Fatalf("add: %v %+v", err, added)
	}
	all, _ := m.List()
	if st := svc.StaleSchedules(all, path); len(st) != 0 {
		t.Fatalf("stale before any edit: %+v", st)
	}
	if res, err := svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: filepath.Join(t.TempDir(), "none.json")}); err != nil || res.Started || res.Error == "" {
		t.Fatalf("a file without schedules: %v %+v", err, res)
	}

	// update is the one call; what it lists waits for approval.
	update := func(t *testing.T) ScheduleUpdateResult {
		t.Helper()
		res, err := svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Started && len(res.Approval) > 0 {
			if all, _ := m.List(); all[0].SHA256 == mustSum(t, path) {
				t.Fatal("re-pinned before the approval")
			}
			res, err = svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: path, Approver: Preapproved(Fingerprints(res.Approval)), ApprovedBy: "test"})
			if err != nil {
				t.Fatal(err)
			}
		}
		if !res.Started || len(res.Updated) != 1 {
			t.Fatalf("update: %+v", res)
		}
		return res
	}
	for _, tc := range []struct {
		name   string
		edit   func()
		review bool // a model wrote it: approval is always asked
	}{
		{"a hand-written edit", func() { w.Nodes[0].Params.Arguments["command"] = "echo hand" }, false},
		{"a model-written step", func() { byModel(w); w.Nodes[0].Params.Arguments["command"] = "echo model" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.edit()
			if err := workflow.Save(path, w); err != nil {
				t.Fatal(err)
			}
			all, _ := m.List()
			if st := svc.StaleSchedules(all, path); len(st) != 1 {
				t.Fatalf("stale: %+v", st)
			}
			if tc.review {
				res, err := svc.UpdateSchedules(ctx, m, ScheduleUpdate{Path: path})
				if err != nil || res.Started || len(res.Approval) == 0 {
					t.Fatalf("a model's step was re-pinned without approval: %v %+v", err, res)
				}
			}
			res := update(t)
			sum := mustSum(t, path)
			if res.Updated[0].SHA256 != sum || !strings.Contains(strings.Join(f.installed[res.Updated[0].ID], " "), "--require-sha256 "+sum) {
				t.Fatalf("re-pinned %+v, installed %q", res.Updated, f.installed)
			}
			all, _ = m.List()
			if st := svc.StaleSchedules(all, path); len(st) != 0 {
				t.Fatalf("stale after the update: %+v", st)
			}
		})
	}
}

func mustSum(t *testing.T, path string) string {
	t.Helper()
	sum, _, _, err := readPinned(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}
