// Package devserver runs a real Temporal server in-process
// (go.temporal.io/server/temporaltest) for Weft's Temporal tests and for
// one machine. It is its own Go module: the server's dependency tree
// (about 2 GB) stays out of the app's go.mod and binary.
package devserver
