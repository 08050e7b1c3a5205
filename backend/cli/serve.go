package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/weft-dev/weft/backend/schedule"
	"github.com/weft-dev/weft/backend/serve"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/trigger"
)

const serveUsage = "usage: weft serve DIR [--listen ADDR] [--rate N] [--rate-minute N] [--max-runs N] [--max-body BYTES] [--poll DURATION] [--unit | --install]"

// DefaultListen is where weft serve listens unless told: loopback only.
const DefaultListen = "127.0.0.1:8787"

// serveCmd runs the triggers of the trusted, approved workflows beneath
// DIR until interrupted (backend/serve decides; this translates flags and
// prints what it serves). Exit: 0 stopped, 2 refused to start (each
// reason printed) or bad flags.
func (c *cli) serveCmd(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	listen := fs.String("listen", DefaultListen, "listen on `ADDR` (host:port); loopback by default: another address opens the webhooks to the network")
	rate := fs.Int("rate", trigger.DefaultLimits.PerSecond, "deliveries a second each trigger takes (`N`; 0 no bound); past it 429")
	rateMinute := fs.Int("rate-minute", trigger.DefaultLimits.PerMinute, "deliveries a minute each trigger takes (`N`; 0 no bound); past it 429")
	maxRuns := fs.Int("max-runs", trigger.DefaultLimits.Runs, "runs of one trigger going at once (`N`; 0 no bound); past it 429")
	maxBody := fs.Int64("max-body", serve.DefaultMaxBody, "largest webhook body in `BYTES`; past it 413")
	poll := fs.Duration("poll", serve.DefaultPoll, "how often watched folders are looked at (`DURATION`)")
	unitOnly := fs.Bool("unit", false, "print the systemd user service that would keep weft serve running for DIR with these flags, and exit")
	install := fs.Bool("install", false, "print that systemd user service, then install and start it (systemctl --user), and exit")
	valueFlags := map[string]bool{"listen": true, "rate": true, "rate-minute": true, "max-runs": true, "max-body": true, "poll": true}
	if err := fs.Parse(interspersed(args, valueFlags)); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, serveUsage)
		return exitUnusable
	}
	if *rate < 0 || *rateMinute < 0 || *maxRuns < 0 || *maxBody <= 0 || *poll < 10*time.Millisecond {
		fmt.Fprintln(c.stderr, "weft serve: limits are 0 (no bound) or more, --max-body more than 0, --poll at least 10ms")
		return exitUnusable
	}
	s, err := c.effective()
	if err != nil {
		fmt.Fprintln(c.stderr, "weft serve:", err)
		return exitUnusable
	}
	cfg, err := serve.Defaults(fs.Arg(0), c.getenv)
	if err != nil {
		fmt.Fprintln(c.stderr, "weft serve:", err)
		return exitUnusable
	}
	cfg.Limits = trigger.Limits{PerSecond: *rate, PerMinute: *rateMinute, Runs: *maxRuns}
	cfg.MaxBody, cfg.Poll, cfg.Log = *maxBody, *poll, c.log
	svc := c.runService(s, true)
	if *unitOnly || *install {
		return c.serveUnit(ctx, svc, cfg, fs, *install)
	}
	srv, err := serve.Load(ctx, cfg, svc)
	if err != nil {
		fmt.Fprintln(c.stderr, err)
		return exitUnusable
	}
	defer srv.CloseWithin(30 * time.Second)
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(c.stderr, "weft serve:", err)
		return exitUnusable
	}
	if ip := ln.Addr().(*net.TCPAddr).IP; !ip.IsLoopback() {
		fmt.Fprintf(c.stderr, "weft serve: listening on %s, open to the network: only signed deliveries start runs\n", ln.Addr())
	}
	fmt.Fprintf(c.stdout, "weft serve: listening on http://%s\n", ln.Addr())
	for _, sv := range srv.Served() {
		fmt.Fprintf(c.stdout, "  %s  (%s)\n", sv.Trigger, sv.Workflow)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	go srv.Watch(ctx)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
		fmt.Fprintln(c.stdout, "weft serve: stopped")
		return exitOK
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return exitOK
		}
		fmt.Fprintln(c.stderr, "weft serve:", err)
		return exitUnusable
	}
}

// serveUnit prints the systemd user service that runs weft serve with the
// flags given (and, with install, installs exactly that and starts it).
func (c *cli) serveUnit(ctx context.Context, svc *service.Service, cfg serve.Config, fs *flag.FlagSet, install bool) int {
	fail := func(err error) int {
		fmt.Fprintln(c.stderr, "weft serve:", err)
		return exitUnusable
	}
	self, err := serve.Self()
	if err != nil {
		return fail(err)
	}
	var flags []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "unit" && f.Name != "install" {
			flags = append(flags, "--"+f.Name, f.Value.String())
		}
	})
	sd, err := svc.UserSystemd(ctx)
	if err != nil {
		return fail(err)
	}
	entry, command, err := serve.Unit(ctx, cfg, svc, sd, self, flags)
	if err != nil {
		return fail(err)
	}
	fmt.Fprint(c.stdout, entry)
	if !install {
		return exitOK
	}
	if err := sd.InstallServe(ctx, command[2], command, entry); err != nil {
		return fail(fmt.Errorf("installing the service: %w", err))
	}
	name := schedule.ServeUnitName(command[2])
	fmt.Fprintf(c.stdout, "weft serve: installed and started %s (systemctl --user status %s; disable --now to stop it)\n", name, name)
	return exitOK
}
