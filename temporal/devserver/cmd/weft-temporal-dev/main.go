// weft-temporal-dev runs a real Temporal server on localhost, for trying
// the Temporal engine (and scale-out: many `weft worker` processes) on one
// machine and for Weft's end-to-end tests. With --db FILE it keeps its
// state in that SQLite file, so runs survive a restart (even a crash);
// without, in memory. It prints "ADDRESS NAMESPACE" on its first line and
// runs until interrupted (SIGINT, SIGTERM). Its own log goes to stderr.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/common/log"

	"github.com/weft-dev/weft/temporal/devserver"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("weft-temporal-dev", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "the frontend's port on 127.0.0.1 (0: a free one)")
	db := fs.String("db", "", "the SQLite file that keeps the server's state across restarts, made on the first start (none: in memory)")
	level := fs.String("log-level", "error", "the server's log level on stderr: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "weft-temporal-dev: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch *level {
	case "debug", "info", "warn", "error":
	default:
		fmt.Fprintf(stderr, "weft-temporal-dev: --log-level %q: use debug, info, warn or error\n", *level)
		return 2
	}
	// Stop on a signal that arrives while the server starts, too.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	logger := log.NewZapLogger(log.BuildZapLogger(log.Config{Level: *level, Format: "console"}))
	srv, err := devserver.Start(devserver.Options{Port: *port, DB: *db, Logger: logger})
	if err != nil {
		fmt.Fprintf(stderr, "weft-temporal-dev: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s %s\n", srv.Address(), devserver.Namespace)
	<-sig
	if err := srv.Stop(); err != nil {
		fmt.Fprintf(stderr, "weft-temporal-dev: stop: %v\n", err)
		return 1
	}
	return 0
}
