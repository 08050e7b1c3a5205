package cli

// The Temporal engine on the command line (issue 13): `weft worker` hosts
// the runs of a task queue; `weft run FILE --engine temporal` submits a
// run (checked and approved here, as a local one) and follows it;
// `weft runs` lists, shows, answers and cancels runs.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/temporal"
)

// temporalOpts are the flags that say where the Temporal service is.
type temporalOpts struct {
	address, namespace, queue, apiKeyEnv *string
	tls                                  *bool
}

// EnvTemporalAddress is the default of --temporal-address.
const EnvTemporalAddress = "WEFT_TEMPORAL_ADDRESS"

func addTemporalFlags(fs *flag.FlagSet, getenv func(string) string) *temporalOpts {
	return &temporalOpts{
		address:   fs.String("temporal-address", getenv(EnvTemporalAddress), "the Temporal frontend as `HOST:PORT` (default $"+EnvTemporalAddress+")"),
		namespace: fs.String("namespace", "default", "the Temporal `NAMESPACE`"),
		queue:     fs.String("task-queue", temporal.DefaultTaskQueue, "the task `QUEUE` the workers poll"),
		tls:       fs.Bool("tls", false, "connect with TLS"),
		apiKeyEnv: fs.String("api-key-env", settings.EnvTemporalAPIKey, "the environment `VARIABLE` holding a Temporal API key (Temporal Cloud); never given on the command line, where other users can read it"),
	}
}

// temporalValueFlags are the flags that take a value, for interspersed.
var temporalValueFlags = map[string]bool{"temporal-address": true, "namespace": true, "task-queue": true, "api-key-env": true}

// engine connects to the service the flags name, with the credentials
// of the environment (the API key under --api-key-env) or the keyring, as
// the app does (service.TemporalEngine).
func (o *temporalOpts) engine(c *cli) (*temporal.Engine, error) {
	if *o.address == "" {
		return nil, errors.New("no Temporal service given: use --temporal-address HOST:PORT or set " + EnvTemporalAddress)
	}
	c.temporalAPIKeyEnv = *o.apiKeyEnv
	eng, warnings, err := c.runService(settings.Defaults(), true).TemporalEngine(
		settings.TemporalEngine{Address: *o.address, Namespace: *o.namespace, TaskQueue: *o.queue, TLS: *o.tls})
	for _, w := range warnings {
		fmt.Fprintf(c.stderr, "weft: warning: %s\n", w)
	}
	if err != nil {
		return nil, err
	}
	c.red.Add(eng.Config.APIKey)
	return eng, nil
}

// worker is `weft worker`: it runs the steps of the runs on a task queue
// with this machine's tools, settings and model, until interrupted.
func (c *cli) worker(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	o := addTemporalFlags(fs, c.getenv)
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(c.stderr, "usage: weft worker --temporal-address HOST:PORT [--namespace NS] [--task-queue Q] [--tls] [--api-key-env VAR]")
		return exitUnusable
	}
	s, err := c.effective()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	eng, err := o.engine(c)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	defer eng.Client.Close()
	svc := c.runService(s, true)
	acts := &temporal.Activities{Options: func() runner.Options { return c.workerOptions(svc, s) }}
	w := temporal.NewWorker(eng, acts)
	fmt.Fprintf(c.stdout, "weft worker: polling task queue %s on %s (namespace %s)%s; Ctrl+C stops\n", eng.Config.Queue(), *o.address, *o.namespace, sealedNote(eng.Config))
	if err := w.Run(interruptOf(ctx)); err != nil {
		fmt.Fprintf(c.stderr, "weft: worker: %v\n", err)
		return exitUnusable
	}
	return exitOK
}

// sealedNote says which runs a worker takes: with a key, only runs sealed
// with it (their own queue); without, only unsealed ones.
func sealedNote(cfg temporal.Config) string {
	if cfg.Key == nil {
		return " (runs submitted without a payload key)"
	}
	return " (runs sealed with payload key " + temporal.KeyID(cfg.Key) + ")"
}

// workerOptions are the runner options of this machine's steps: its
// settings, its model for AI steps and its credentials store (a step
// reads a secret inside the activity, so no value enters the history).
func (c *cli) workerOptions(svc *service.Service, s settings.Settings) runner.Options {
	o := runner.Options{Logger: c.log}
	if store, err := credentials.Default(c.getenv); err == nil {
		o.Secrets = store
	} else {
		c.log.Warn("worker: steps that refer to secrets cannot run", "err", err)
	}
	client, err := svc.Client(s)
	if err != nil {
		c.log.Warn("worker: AI steps cannot run", "err", err)
	}
	svc.AI(s).Engine(client, &o) // the same model side as a local run's
	return o
}

// interruptOf stops a worker when ctx ends.
func interruptOf(ctx context.Context) <-chan any {
	ch := make(chan any)
	go func() {
		<-ctx.Done()
		close(ch)
	}()
	return ch
}

// runs is `weft runs list|show|respond|cancel`.
func (c *cli) runs(ctx context.Context, args []string) int {
	usage := "usage: weft runs list [--limit N] | show RUN | respond RUN ANSWER | cancel RUN   (with --temporal-address HOST:PORT …)\n  list also logs the ended runs nobody followed beside their workflow files;\n  without a Temporal service it lists the runs of the scheduled workflows on this computer"
	if len(args) == 0 {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	sub := args[0]
	fs := flag.NewFlagSet("runs "+sub, flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	o := addTemporalFlags(fs, c.getenv)
	limit := fs.Int("limit", 20, "how many runs to list")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(interspersed(args[1:], temporalValueFlags)); err != nil {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	need := map[string]int{"list": 0, "show": 1, "cancel": 1, "respond": 2}
	n, ok := need[sub]
	if !ok || (sub == "respond" && fs.NArg() < 2) || (sub != "respond" && fs.NArg() != n) {
		fmt.Fprintln(c.stderr, usage)
		return exitUnusable
	}
	if sub == "list" && *o.address == "" {
		return c.scheduledRuns(*limit, *asJSON)
	}
	eng, err := o.engine(c)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	defer eng.Client.Close()
	switch sub {
	case "list":
		runs, err := eng.List(ctx, *limit)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		// The ended runs nobody followed are logged beside their
		// workflows here (history, weft stats), as followed ones are.
		if st, err := c.effective(); err == nil {
			lg, err := c.runService(st, true).LogTemporalRuns(ctx, eng)
			if err != nil {
				lg.Warnings = append(lg.Warnings, "the ended runs are not logged: "+err.Error())
			}
			c.printWarnings(lg.Warnings)
			for _, d := range lg.Logged {
				fmt.Fprintf(c.stderr, "weft: logged a run nobody followed: %s\n", d)
			}
		}
		eng.Outcomes(ctx, runs)
		if *asJSON {
			c.writeJSONLine(runs)
			return exitOK
		}
		notes := map[string]bool{}
		for _, r := range runs {
			fmt.Fprintf(c.stdout, "%-60s %-10s %s\n", r.RunID, r.Outcome, r.Started.Local().Format("2006-01-02 15:04:05"))
			if r.Outcome == "sealed" || r.Outcome == "unsealed" || r.Outcome == "unknown" {
				notes[r.Note] = true
			}
		}
		for n := range notes {
			fmt.Fprintf(c.stderr, "weft: %s\n", n)
		}
	case "show":
		p := &runPrinter{c: c, json: *asJSON}
		// A run answers through a worker: while none polls its queue,
		// say so rather than wait without a word.
		st, err := eng.AskState(ctx, fs.Arg(0), 0, func(msg string) { fmt.Fprintf(c.stderr, "weft: %s\n", msg) })
		if err != nil {
			// Why it did not answer: a key this process lacks, or a run
			// still going (its end is not there yet); else its end.
			if sv, serr := eng.Serving(ctx, fs.Arg(0)); serr == nil && (sv.Unreadable != nil || sv.Running) {
				if sv.Unreadable != nil {
					err = sv.Unreadable
				}
				fmt.Fprintf(c.stderr, "weft: %v\n", err)
				return exitUnusable
			}
			res, rerr := eng.Result(ctx, fs.Arg(0))
			if rerr != nil {
				fmt.Fprintf(c.stderr, "weft: %v\n", err)
				return exitUnusable
			}
			if errors.Is(err, temporal.ErrEndedUnanswered) {
				fmt.Fprintln(c.stderr, "weft: the run has ended; no worker is up to replay its events, so only its end is shown")
			}
			p.summary(res)
			return exitOK
		}
		for _, e := range st.Events {
			p.event(e)
		}
		if st.Result != nil {
			p.summary(st.Result)
		} else if st.Escalation != nil {
			fmt.Fprintf(c.stdout, "\nwaiting for an answer at %s: %s\nanswer: weft runs respond %s retry|skip|abort|fix {json arguments}\n", st.Escalation.NodeKey, st.Escalation.LastError, fs.Arg(0))
		}
	case "respond":
		resp, err := runner.ParseResponse(strings.Join(fs.Args()[1:], " "))
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		if err := eng.Respond(ctx, fs.Arg(0), resp); err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		fmt.Fprintf(c.stdout, "answered run %s: %s\n", fs.Arg(0), resp.Action)
	case "cancel":
		if err := eng.Cancel(ctx, fs.Arg(0)); err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		fmt.Fprintf(c.stdout, "canceled run %s\n", fs.Arg(0))
	}
	return exitOK
}

// scheduledRuns is `weft runs list` without a Temporal service: the past
// runs of the scheduled workflows, from their logs, newest first.
func (c *cli) scheduledRuns(limit int, asJSON bool) int {
	st, err := c.effective()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	svc := c.runService(st, true)
	all, err := svc.Schedules()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	rows := svc.ScheduledRuns(all, limit)
	if asJSON {
		c.writeJSONLine(rows)
		return exitOK
	}
	if len(rows) == 0 {
		fmt.Fprintln(c.stdout, "no runs of scheduled workflows yet (weft schedule list shows the schedules; --temporal-address lists a Temporal service's runs)")
	}
	for _, r := range rows {
		outcome := string(r.Outcome)
		if !r.Complete {
			outcome = "running or killed"
		}
		fmt.Fprintf(c.stdout, "%s  %-17s %s (schedule %s)\n", r.Started.Local().Format("2006-01-02 15:04:05"), outcome, r.File, r.Schedule)
		if r.Error != "" {
			fmt.Fprintf(c.stdout, "    %s\n", r.Error)
		}
	}
	return exitOK
}
