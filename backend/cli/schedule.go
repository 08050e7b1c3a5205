package cli

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/weft-dev/weft/backend/inputs"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
)

const scheduleUsage = `usage: weft schedule add FILE --cron "MIN HOUR DAY MONTH WEEKDAY" [--input NAME=VALUE]... [--input-secret NAME=SECRET]... [--inputs JSON] [--approve] [--pinned]
       weft schedule update FILE [--approve]   (its schedules run the file as it is now)
       weft schedule list [--json] | pause ID | resume ID | remove ID`

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
	texts := addInputFlag(fs, "give each scheduled run the workflow's input")
	refs := addSecretInputFlag(fs, "give each scheduled run the workflow's secret input")
	inputsJSON := fs.String("inputs", "", "give each scheduled run the workflow's inputs as one JSON object (`JSON`); --input NAME=VALUE overrides its members")
	valueFlags := map[string]bool{"cron": true, "engine": true, "input": true, "input-secret": true, "inputs": true}
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
	want := map[string]int{"add": 1, "update": 1, "list": 0, "pause": 1, "resume": 1, "remove": 1}
	if n, ok := want[sub]; !ok || fs.NArg() != n || (sub == "add" && *cron == "") {
		fmt.Fprintln(c.stderr, scheduleUsage)
		return exitUnusable
	}
	st, err := c.effective()
	if err != nil {
		return fail(err)
	}
	svc := c.runService(st, true)
	m, err := svc.ScheduleManager(ctx)
	if err != nil {
		return fail(err)
	}
	switch sub {
	case "add":
		values, err := inputsObject(*inputsJSON)
		if err != nil {
			return fail(err)
		}
		req := service.ScheduleRequest{Path: fs.Arg(0), Cron: *cron, Engine: *engine, UsePinned: *pinned, ApprovedBy: "weft schedule add --approve",
			Inputs: inputs.WithRefs(values, refs), InputTexts: texts}
		if *approve {
			req.Approver = &cliApprover{c: c, all: true}
		}
		if *engine == settings.EngineTemporal {
			c.temporalAPIKeyEnv = *topts.apiKeyEnv
			req.Temporal = &settings.TemporalEngine{Address: *topts.address, Namespace: *topts.namespace, TaskQueue: *topts.queue, TLS: *topts.tls}
		}
		res, err := svc.AddSchedule(ctx, m, req)
		if code, ok := c.checked("the schedule was not made", res.StartResult, err); !ok {
			return code
		}
		sc := res.Schedule
		if sc.Temporal != nil {
			fmt.Fprintf(c.stdout, "scheduled %s as %s (%s) on Temporal at %s; the schedule holds the workflow as it is now: add it again to take later changes\n", sc.File, sc.ID, sc.Cron, sc.Temporal.Address)
		} else {
			fmt.Fprintf(c.stdout, "scheduled %s as %s (%s, with %s); its runs are logged beside it and shown by weft schedule list\n", sc.File, sc.ID, sc.Cron, sc.Backend)
			fmt.Fprintf(c.stdout, "the %s entry:\n%s\n", sc.Backend, strings.TrimRight(res.Entry, "\n"))
		}
	case "update":
		// A schedule runs the content approved when it was made; this
		// approves the file as it is now, with the same checks.
		req := service.ScheduleUpdate{Path: fs.Arg(0), ApprovedBy: "weft schedule update --approve"}
		if *approve {
			req.Approver = &cliApprover{c: c, all: true}
		}
		res, err := svc.UpdateSchedules(ctx, m, req)
		if code, ok := c.checked("the schedules were not updated", res.StartResult, err); !ok {
			return code
		}
		for _, sc := range res.Updated {
			fmt.Fprintf(c.stdout, "updated %s: it runs %s as it is now\n", sc.ID, sc.File)
		}
	case "list":
		all, err := m.List()
		if err != nil {
			return fail(err)
		}
		rows := svc.ScheduleStates(all, time.Now())
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

// checked reports the checks of a schedule made or updated (what stopped
// it: an error, problems, steps waiting for approval); ok is false with
// the exit status when it did not go ahead.
func (c *cli) checked(what string, res service.StartResult, err error) (int, bool) {
	c.printWarnings(res.Warnings)
	switch {
	case err != nil:
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable, false
	case len(res.Problems) > 0:
		fmt.Fprintf(c.stderr, "weft: %s: %v\n", what, &runner.InvalidError{Problems: res.Problems})
		return exitInvalid, false
	case !res.Started && len(res.Approval) > 0:
		return c.notApproved(what, res.Approval, res.Denied, false), false
	case !res.Started:
		fmt.Fprintf(c.stderr, "weft: %s\n", res.Error)
		return exitUnusable, false
	}
	return exitOK, true
}
