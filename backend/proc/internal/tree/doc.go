// Package tree is a command's process tree on Linux: its walk (Descendants),
// its kill, and the supervisor that holds it together (proc starts every
// command under one: see proc/supervise_linux.go). It is apart from package
// proc and imports only packages that Go initialises first (Go initialises
// packages in the order of their import paths as soon as their imports
// are: bytes, not strings or slices, which come after most of the
// standard library), so that the supervisor's init runs about a
// millisecond into the process, before the rest of a large program (the
// app, the weft CLI) initialises.
package tree
