// weft-temporal-dev runs a real Temporal server (in memory) on a free
// localhost port, for trying the Temporal engine on one machine and for
// Weft's end-to-end tests. It prints "ADDRESS NAMESPACE" on its first line
// and runs until interrupted.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"go.temporal.io/server/temporaltest"
)

func main() {
	ts := temporaltest.NewServer()
	fmt.Printf("%s %s\n", ts.GetFrontendHostPort(), ts.GetDefaultNamespace())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	ts.Stop()
}
