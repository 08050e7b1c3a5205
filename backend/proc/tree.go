package proc

import "github.com/weft-dev/weft/backend/proc/internal/tree"

// Proc identifies a process across pid reuse (on Linux: its pid and start
// time).
type Proc = tree.Proc

// Descendants lists the live descendants of pid (children, grandchildren…)
// by their parent links. Browsers put their helpers in process groups of
// their own, which a group kill does not reach; these links do, while the
// parents live. Only Linux knows them; elsewhere the list is empty and the
// process group kill is what ends a tree.
func Descendants(pid int) []Proc { return tree.Descendants(pid) }

// Kill sends SIGKILL to each process that is still the same process (same
// start time) and still running.
func Kill(ps []Proc) { tree.Kill(ps) }

// Running reports whether pid is a live process (not a zombie). Only Linux
// knows; elsewhere it reports false.
func Running(pid int) bool { return tree.Running(pid) }
