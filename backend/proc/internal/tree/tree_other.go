//go:build !linux

package tree

// Proc identifies a process.
type Proc struct{ Pid int }

// Descendants is only known on Linux; elsewhere the process group kill is
// what ends a tree.
func Descendants(pid int) []Proc { return nil }

// Kill is a no-op where Descendants finds nothing.
func Kill(ps []Proc) {}

// Running is only known on Linux; elsewhere it reports false.
func Running(pid int) bool { return false }
