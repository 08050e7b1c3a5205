package temporal

import (
	"context"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	wf "github.com/weft-dev/weft/backend/workflow"
)

// Temporal Schedules: the service starts a run of the workflow on a cron
// expression; a run still going when the next is due is skipped, and runs
// missed while the service was down are taken within a day. The workflow's
// content (as checked and approved when the schedule was made) is in the
// schedule: editing the file does not change it.

// scheduleID names a schedule on the service.
func scheduleID(id string) string { return "weft-schedule-" + id }

// Schedule creates the schedule id that runs w on cron.
func (e *Engine) Schedule(ctx context.Context, id, cron string, w *wf.Workflow, in RunInput) error {
	b, err := wf.Marshal(w.WithoutAnnotations()) // no run reads them
	if err != nil {
		return err
	}
	in.Workflow = b
	_, err = e.Client.ScheduleClient().Create(ctx, client.ScheduleOptions{
		ID:   scheduleID(id),
		Spec: client.ScheduleSpec{CronExpressions: []string{cron}},
		Action: &client.ScheduleWorkflowAction{ID: "weft-" + w.ID + "-scheduled", Workflow: WorkflowType,
			TaskQueue: e.Config.Queue(), Args: []any{in}},
		Overlap:       enumspb.SCHEDULE_OVERLAP_POLICY_SKIP,
		CatchupWindow: 24 * time.Hour,
	})
	if err != nil {
		return fmt.Errorf("temporal: create the schedule: %w", err)
	}
	return nil
}

// SetSchedulePaused pauses or resumes the schedule id.
func (e *Engine) SetSchedulePaused(ctx context.Context, id string, paused bool) error {
	h := e.Client.ScheduleClient().GetHandle(ctx, scheduleID(id))
	var err error
	if paused {
		err = h.Pause(ctx, client.SchedulePauseOptions{Note: "paused with weft schedule pause"})
	} else {
		err = h.Unpause(ctx, client.ScheduleUnpauseOptions{Note: "resumed with weft schedule resume"})
	}
	if err != nil {
		return fmt.Errorf("temporal: schedule %s: %w", id, err)
	}
	return nil
}

// RemoveSchedule deletes the schedule id (runs it started go on).
func (e *Engine) RemoveSchedule(ctx context.Context, id string) error {
	if err := e.Client.ScheduleClient().GetHandle(ctx, scheduleID(id)).Delete(ctx); err != nil {
		return fmt.Errorf("temporal: remove schedule %s: %w", id, err)
	}
	return nil
}

// TriggerSchedule starts the schedule's run now.
func (e *Engine) TriggerSchedule(ctx context.Context, id string) error {
	if err := e.Client.ScheduleClient().GetHandle(ctx, scheduleID(id)).Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enumspb.SCHEDULE_OVERLAP_POLICY_SKIP}); err != nil {
		return fmt.Errorf("temporal: trigger schedule %s: %w", id, err)
	}
	return nil
}

// ScheduleRuns are the ids of the runs the schedule id started, newest
// first, as the service describes it.
func (e *Engine) ScheduleRuns(ctx context.Context, id string) ([]string, error) {
	d, err := e.Client.ScheduleClient().GetHandle(ctx, scheduleID(id)).Describe(ctx)
	if err != nil {
		return nil, fmt.Errorf("temporal: schedule %s: %w", id, err)
	}
	var out []string
	for i := len(d.Info.RecentActions) - 1; i >= 0; i-- {
		if r := d.Info.RecentActions[i].StartWorkflowResult; r != nil {
			out = append(out, r.WorkflowID)
		}
	}
	return out, nil
}
