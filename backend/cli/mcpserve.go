package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/weft-dev/weft/backend/mcpserve"
)

const mcpUsage = "usage: weft mcp serve DIR [--http 127.0.0.1:PORT] [--poll DURATION]"

// mcpCmd serves the trusted workflows of DIR as MCP tools (backend/mcpserve
// decides what is listed, what runs and how): over stdio by default (an
// agent starts `weft mcp serve DIR`), or Streamable HTTP on a loopback
// address. Logs go to stderr. Exit: 0 when the client or Ctrl+C ends it,
// 2 bad usage or an address that is not loopback.
func (c *cli) mcpCmd(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] != "serve" {
		fmt.Fprintln(c.stderr, mcpUsage)
		return exitUnusable
	}
	fs := flag.NewFlagSet("mcp serve", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	addr := fs.String("http", "", "serve Streamable HTTP on `ADDR` (127.0.0.1:PORT; loopback only) instead of stdio")
	poll := fs.Duration("poll", mcpserve.DefaultPoll, "how often DIR is read again for added, changed and removed workflows (`DURATION`)")
	if err := fs.Parse(interspersed(args[1:], map[string]bool{"http": true, "poll": true})); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, mcpUsage)
		return exitUnusable
	}
	if *poll < 10*time.Millisecond {
		fmt.Fprintln(c.stderr, "weft mcp serve: --poll is at least 10ms")
		return exitUnusable
	}
	s, err := c.effective()
	if err != nil {
		fmt.Fprintln(c.stderr, "weft mcp serve:", err)
		return exitUnusable
	}
	svc := c.runService(s, true)
	srv, err := mcpserve.New(mcpserve.Config{Dir: fs.Arg(0), Poll: *poll, Logger: c.log, Version: Version}, svc)
	if err != nil {
		fmt.Fprintln(c.stderr, "weft mcp serve:", err)
		return exitUnusable
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The client gone or Ctrl+C: the calls' runs stop (logged canceled; a
	// Temporal run goes on there) before the process ends.
	defer func() {
		if svc.Leave() && !svc.Wait(30*time.Second) {
			c.log.Warn("mcp serve: runs still going at exit")
		}
	}()
	srv.Refresh()
	go srv.Watch(ctx)
	if *addr != "" {
		ln, err := mcpserve.Listen(*addr)
		if err != nil {
			fmt.Fprintln(c.stderr, "weft mcp serve:", err)
			return exitUnusable
		}
		fmt.Fprintf(c.stderr, "weft mcp serve: %d workflows of %s at http://%s/\n", len(srv.Tools()), fs.Arg(0), ln.Addr())
		if err := srv.ServeHTTP(ctx, ln); err != nil {
			fmt.Fprintln(c.stderr, "weft mcp serve:", err)
			return exitUnusable
		}
		return exitOK
	}
	t := &sdk.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopCloser{c.stdout}}
	if err := srv.MCP().Run(ctx, t); err != nil && ctx.Err() == nil {
		c.log.Info("mcp serve: the session ended", "error", err)
	}
	return exitOK
}

// nopCloser is a writer that the transport may close: stdout stays open.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
