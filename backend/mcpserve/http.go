package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Listen listens on addr (host:port) for Streamable HTTP, on the loopback
// interface only: a tool call runs a workflow on this machine, so the
// server is never opened to the network (no host, 0.0.0.0, a LAN address
// are refused before anything listens).
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--http %q: give 127.0.0.1:PORT (%v)", addr, err)
	}
	if host != "localhost" {
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return nil, fmt.Errorf("--http %q: only a loopback address is served (127.0.0.1:PORT, [::1]:PORT, localhost:PORT): a call runs a workflow on this machine", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--http: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() { // localhost resolved elsewhere
		ln.Close()
		return nil, fmt.Errorf("--http %q: %s is not a loopback address", addr, ln.Addr())
	}
	return ln, nil
}

// ServeHTTP serves the MCP server over Streamable HTTP on ln until ctx
// ends, then lets the calls going end (at most 10 s).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener) error {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.mcp }, nil)
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		<-done
		return nil
	}
	return err
}
