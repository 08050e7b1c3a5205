// Package cli is Weft's headless command line: validate, plan, chat, run,
// schedule and follow workflows without the desktop window. The `weft`
// command (backend/cmd/weft, no GTK or CGO) is only this; the desktop
// binary runs it too when started with a command (Handles), so a
// schedule made in the app runs the binary the person has.
package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/weft-dev/weft/backend/redact"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
)

// Version is set at build time with
// -ldflags "-X github.com/weft-dev/weft/backend/cli.Version=…".
var Version = "0.1.0-dev"

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitInvalid  = 1 // the input was understood but is invalid / the job failed
	exitUnusable = 2 // unreadable input, bad usage, configuration or transport error
)

// cli carries the process's I/O so tests can run commands in-process.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	log    *slog.Logger
	// red hides secrets in everything the command prints: stdout and
	// stderr pass through it (newCLI), and it learns the settings'
	// secrets whenever a command loads them (store).
	red *redact.Redactor
	// temporalAPIKeyEnv names the variable holding the Temporal API key
	// (weft run --api-key-env).
	temporalAPIKeyEnv string
	// services are the Services the command made (runService); their MCP
	// servers stop when the command ends.
	services []*service.Service
}

type command struct {
	summary string
	run     func(c *cli, ctx context.Context, args []string) int
}

func (c *cli) commands() map[string]command {
	return map[string]command{
		"validate": {"check a workflow file: weft validate FILE [--json]", (*cli).validate},
		"settings": {"show or change settings: weft settings path | get [KEY] | set KEY VALUE", (*cli).settings},
		"version":  {"print the version", (*cli).version},
		"plan":     {"ask the model for a workflow: weft plan --goal TEXT [--out FILE [--force]] [--allow-dropped] [--json]", (*cli).plan},
		"chat":     {"ask the assistant about or change a workflow: weft chat FILE --message TEXT [--apply] [--json] | FILE --apply ID", (*cli).chat},
		"stats":    {"repair and retry rates by model: weft stats [--model MODEL] [--json]", (*cli).stats},
		"run":      {"run a workflow with real tools: weft run FILE [--json] [--on-escalate prompt|abort|skip] [--approve] [--pinned] [--engine local|temporal …]", (*cli).run},
		"worker":   {"run the steps of Temporal runs on this machine: weft worker --temporal-address HOST:PORT [--namespace NS] [--task-queue Q]", (*cli).worker},
		"schedule": {"run a workflow on a schedule with the OS's scheduler: weft schedule add FILE --cron \"0 7 * * *\" [--approve] | list | pause ID | resume ID | remove ID", (*cli).schedule},
		"runs":     {"Temporal runs: weft runs list | show RUN | respond RUN ANSWER | cancel RUN --temporal-address HOST:PORT", (*cli).runs},
		"versions": {"list or compare saved versions of a workflow: weft versions FILE [--json] [--diff A B]", (*cli).versions},
		"approve":  {"review and approve what waits (a file Weft did not write, steps a model wrote), without running: weft approve FILE [--list] [--json]", (*cli).approve},
		"secrets":  {"named secrets workflows refer to as {{secrets.NAME}}: weft secrets set NAME [--host H]... [--tool T]... | bind NAME [--host H]... [--tool T]... | list [--in DIR] [--json] | remove NAME", (*cli).secrets},
		"test":     {"play the test cases beside a workflow, with nothing acting: weft test FILE [--json] [--junit PATH] [--case NAME] | FILE --record [--case NAME]", (*cli).test},
		"serve":    {"run the triggers (signed webhooks, watched folders) of the trusted, approved workflows beneath a folder: weft serve DIR [--listen ADDR] [--rate N] [--rate-minute N] [--max-runs N]", (*cli).serveCmd},
		"trust":    {"trust the workflow files beneath a folder as they are (CI, checked-in workflows): weft trust DIR | --list | --remove DIR", (*cli).trust},
		"mcp":      {"serve the trusted workflows of a folder as MCP tools to agents: weft mcp serve DIR [--http 127.0.0.1:PORT] [--poll DURATION]", (*cli).mcpCmd},
	}
}

// Main runs the command in args (without the program name) with the
// process's streams and environment, and returns the exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, os.Stdin, os.Stdout, os.Stderr, os.Getenv)
}

// Run is Main with these streams and environment and no signal handling:
// the desktop's tests drive the command line beside its bindings with it.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	c, flush := newCLI(stdin, stdout, stderr, getenv)
	code := c.main(ctx, args)
	for _, svc := range c.services {
		if err := svc.Close(); err != nil {
			c.log.Warn("stopping the MCP servers", "error", err)
		}
	}
	flush()
	return code
}

// Handles says whether args (without the program name) are a command
// line rather than the desktop window's start: a known command or help.
func Handles(args []string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "help", "-h", "--help":
		return true
	}
	_, ok := (&cli{}).commands()[args[0]]
	return ok
}

// newCLI returns the command line over these streams with its output
// redacted: the API key from the environment is known at once, the
// settings' secrets once a command loads them. flush writes what the
// redacting writers hold back (the possible start of a secret) and must
// be called before exiting.
func newCLI(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) (c *cli, flush func()) {
	red := redact.New(getenv(settings.EnvAPIKey))
	out, errw := red.NewWriter(stdout), red.NewWriter(stderr)
	c = &cli{stdin: stdin, stdout: out, stderr: errw, getenv: getenv, red: red,
		log: slog.New(red.Handler(slog.NewTextHandler(errw, &slog.HandlerOptions{Level: logLevel(getenv("WEFT_LOG"))})))}
	return c, func() {
		out.Flush()
		errw.Flush()
	}
}

func logLevel(s string) slog.Level {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug
	case "info":
		return slog.LevelInfo
	}
	return slog.LevelWarn
}

func (c *cli) main(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		c.usage(c.stdout)
		if len(args) == 0 {
			return exitUnusable
		}
		return exitOK
	}
	cmd, ok := c.commands()[args[0]]
	if !ok {
		fmt.Fprintf(c.stderr, "weft: unknown command %q\n\n", args[0])
		c.usage(c.stderr)
		return exitUnusable
	}
	return cmd.run(c, ctx, args[1:])
}

func (c *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: weft COMMAND [ARGS]\n\ncommands:")
	cmds := c.commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
}

func (c *cli) version(_ context.Context, args []string) int {
	fmt.Fprintf(c.stdout, "weft %s\n", Version)
	return exitOK
}

// interspersed moves flags before positional arguments so that
// "weft validate FILE --json" works with the standard flag package.
// valueFlags names the flags that take a separate value.
func interspersed(args []string, valueFlags map[string]bool) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && valueFlags[name] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		pos = append(pos, a)
	}
	return append(append(flags, "--"), pos...)
}
