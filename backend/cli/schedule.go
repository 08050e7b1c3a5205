package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/appdirs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/temporal"
	"github.com/weft-dev/weft/backend/workflow"
)

const scheduleUsage = `usage: weft schedule add FILE --cron "MIN HOUR DAY MONTH WEEKDAY" [--approve] [--pinned]
       weft schedule list [--json] | pause ID | resume ID | remove ID`

// scheduleManager is this machine's scheduler; WEFT_SCHEDULER
// ("systemd:PATH" or "cron:PATH", the systemctl or crontab command)
// picks one instead of detecting it.
func (c *cli) scheduleManager(ctx context.Context) (*schedule.Manager, error) {
	path, err := appdirs.ConfigFile("schedules.json")
	if err != nil {
		return nil, err
	}
	cfg := filepath.Dir(filepath.Dir(path)) // $XDG_CONFIG_HOME
	locks, err := appdirs.StateFile("schedule-locks")
	if err != nil {
		return nil, err
	}
	var b schedule.Backend
	switch kind, cmd, _ := strings.Cut(c.getenv("WEFT_SCHEDULER"), ":"); kind {
	case "systemd":
		b = schedule.Systemd{Dir: filepath.Join(cfg, "systemd", "user"), Systemctl: cmd}
	case "cron":
		b = schedule.Crontab{Crontab: cmd, LockDir: locks}
	case "":
		// No OS scheduler is fine for Temporal schedules; Add says so for
		// a local one.
		b, _ = schedule.Detect(ctx, cfg, locks)
	default:
		return nil, fmt.Errorf("WEFT_SCHEDULER %q: use systemd:COMMAND or cron:COMMAND", kind)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return &schedule.Manager{Path: path, Backend: b, Weft: self,
		Others: map[string]schedule.Backend{"temporal": temporalSchedules{c}}}, nil
}

// temporalSchedules pauses and removes the schedules a Temporal service
// keeps, reaching it where the schedule was made.
type temporalSchedules struct{ c *cli }

func (temporalSchedules) Name() string { return "temporal" }

func (temporalSchedules) Install(context.Context, schedule.Schedule, []string) error {
	return errors.New("a Temporal schedule is made by the service: weft schedule add --engine temporal")
}

func (t temporalSchedules) engine(s schedule.Schedule) (*temporal.Engine, error) {
	if s.Temporal == nil {
		return nil, fmt.Errorf("schedule %s does not say which Temporal service keeps it", s.ID)
	}
	addr, ns, q, tlsOn, keyEnv := s.Temporal.Address, s.Temporal.Namespace, s.Temporal.TaskQueue, s.Temporal.TLS, "WEFT_TEMPORAL_API_KEY"
	o := &temporalOpts{address: &addr, namespace: &ns, queue: &q, tls: &tlsOn, apiKeyEnv: &keyEnv}
	return o.engine(t.c)
}

func (t temporalSchedules) SetPaused(ctx context.Context, s schedule.Schedule, paused bool) error {
	eng, err := t.engine(s)
	if err != nil {
		return err
	}
	defer eng.Client.Close()
	return eng.SetSchedulePaused(ctx, s.ID, paused)
}

func (t temporalSchedules) Remove(ctx context.Context, s schedule.Schedule) error {
	eng, err := t.engine(s)
	if err != nil {
		return err
	}
	defer eng.Client.Close()
	return eng.RemoveSchedule(ctx, s.ID)
}

// scheduleRemote makes a Temporal schedule of a checked workflow.
type scheduleRemote struct {
	eng      *temporal.Engine
	id, cron string
}

func (r scheduleRemote) Submit(ctx context.Context, w *workflow.Workflow, sub service.Submission) (string, error) {
	return r.id, r.eng.Schedule(ctx, r.id, r.cron, w, temporal.RunInput{Approved: sub.Approved, Dir: sub.Dir, UsePinned: sub.UsePinned, DefaultRetries: sub.DefaultRetries})
}

// schedule is `weft schedule`: workflows run by the operating system's
// scheduler (docs/scale-out.md).
func (c *cli) schedule(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.stderr, scheduleUsage)
		return exitUnusable
	}
	sub := args[0]
	fs := flag.NewFlagSet("schedule "+sub, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	cron := fs.String("cron", "", "when, as a five-field cron expression (\"0 7 * * *\": every day at 7:00)")
	approve := fs.Bool("approve", false, "approve now the steps a model wrote (listed in full): a scheduled run cannot ask")
	pinned := fs.Bool("pinned", false, "the scheduled runs use the workflow's pinned data")
	asJSON := fs.Bool("json", false, "print JSON")
	engine := fs.String("engine", "local", "who runs it: local (this machine's scheduler) or temporal (a Temporal Schedule; see --temporal-address)")
	topts := addTemporalFlags(fs, c.getenv)
	valueFlags := map[string]bool{"cron": true, "engine": true}
	for k := range temporalValueFlags {
		valueFlags[k] = true
	}
	if err := fs.Parse(interspersed(args[1:], valueFlags)); err != nil {
		fmt.Fprintln(c.stderr, scheduleUsage)
		return exitUnusable
	}
	fail := func(err error) int {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	want := map[string]int{"add": 1, "list": 0, "pause": 1, "resume": 1, "remove": 1}
	if n, ok := want[sub]; !ok || fs.NArg() != n || (sub == "add" && *cron == "") {
		fmt.Fprintln(c.stderr, scheduleUsage)
		return exitUnusable
	}
	if sub == "add" {
		if _, err := schedule.ParseCron(*cron); err != nil {
			return fail(err)
		}
	}
	m, err := c.scheduleManager(ctx)
	if err != nil {
		return fail(err)
	}
	switch sub {
	case "add":
		switch *engine {
		case "local":
			if m.Backend == nil {
				_, err := schedule.Detect(ctx, "", "")
				return fail(err)
			}
		case "temporal":
			return c.scheduleOnTemporal(ctx, m, topts, fs.Arg(0), *cron, *approve, *pinned)
		default:
			return fail(fmt.Errorf("--engine %q: use local or temporal", *engine))
		}
		if code := c.approveForSchedule(ctx, fs.Arg(0), *approve); code != exitOK {
			return code
		}
		var extra []string
		if *pinned {
			extra = append(extra, "--pinned")
		}
		s, err := m.Add(ctx, fs.Arg(0), *cron, extra)
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(c.stdout, "scheduled %s as %s (%s, with %s); its runs are logged beside it and shown by weft schedule list\n", s.File, s.ID, s.Cron, s.Backend)
	case "list":
		all, err := m.List()
		if err != nil {
			return fail(err)
		}
		rows := service.New(service.Deps{}).ScheduleStates(all, time.Now())
		if *asJSON {
			c.writeJSONLine(rows)
			return exitOK
		}
		if len(rows) == 0 {
			fmt.Fprintln(c.stdout, "no schedules")
		}
		for _, r := range rows {
			fmt.Fprintf(c.stdout, "%s  %-14s %s  %s\n    %s\n", r.ID, r.Cron, r.Backend, r.State, r.File)
		}
	case "pause", "resume":
		if err := m.SetPaused(ctx, fs.Arg(0), sub == "pause"); err != nil {
			return fail(err)
		}
		fmt.Fprintf(c.stdout, "%sd %s\n", strings.TrimSuffix(sub, "e"), fs.Arg(0))
	case "remove":
		if err := m.Remove(ctx, fs.Arg(0)); err != nil {
			return fail(err)
		}
		fmt.Fprintf(c.stdout, "removed %s\n", fs.Arg(0))
	}
	return exitOK
}

// scheduleOnTemporal is `weft schedule add --engine temporal`: the
// workflow is checked and its model-written steps approved here, as for a
// run, and the service starts its runs.
func (c *cli) scheduleOnTemporal(ctx context.Context, m *schedule.Manager, o *temporalOpts, file, cron string, approve, pinned bool) int {
	fail := func(err error) int {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	w, _, err := workflow.Load(file)
	if err != nil {
		return fail(err)
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return fail(err)
	}
	s, err := c.effective()
	if err != nil {
		return fail(err)
	}
	eng, err := o.engine(c)
	if err != nil {
		return fail(err)
	}
	defer eng.Client.Close()
	c2, _ := schedule.ParseCron(cron)
	id := schedule.NewID(abs)
	req := service.StartRequest{Workflow: w, Path: abs, ApprovedBy: "weft schedule add --approve", UsePinned: pinned}
	if approve {
		req.Approver = service.ApproveAll{}
	}
	res, _, err := c.runService(s, true).Submit(ctx, req, scheduleRemote{eng: eng, id: id, cron: c2.String()})
	if err != nil {
		return fail(err)
	}
	switch {
	case len(res.Problems) > 0:
		return fail(&runner.InvalidError{Problems: res.Problems})
	case !res.Started && len(res.Approval) > 0:
		return c.notApproved(res.Approval, res.Denied, false)
	case !res.Started:
		return fail(errors.New(res.Error))
	}
	rec := schedule.Schedule{ID: id, File: abs, Cron: c2.String(), Backend: "temporal", Created: time.Now().UTC(),
		Temporal: &schedule.Remote{Address: *o.address, Namespace: *o.namespace, TaskQueue: *o.queue, TLS: *o.tls}}
	if err := m.Put(rec); err != nil {
		return fail(err)
	}
	fmt.Fprintf(c.stdout, "scheduled %s as %s (%s) on Temporal at %s; the schedule holds the workflow as it is now: add it again to take later changes\n", abs, id, rec.Cron, *o.address)
	return exitOK
}

// approveForSchedule makes sure the scheduled runs will not stop at the
// approval gate: the model-written steps are approved now (--approve,
// listed in full), or the schedule is refused.
func (c *cli) approveForSchedule(ctx context.Context, path string, approve bool) int {
	w, _, err := workflow.Load(path)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	s, err := c.effective()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	svc := c.runService(s, true)
	state, err := svc.PendingApprovals(ctx, w, path)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	if len(state.Pending) == 0 {
		return exitOK
	}
	if !approve {
		return c.notApproved(state.Pending, false, false)
	}
	writeApprovalSteps(c.stdout, state.Pending)
	if _, err := svc.Approve(ctx, w, path, service.Fingerprints(state.Pending), "weft schedule add --approve"); err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	return exitOK
}
