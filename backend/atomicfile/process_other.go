//go:build !unix

package atomicfile

// processGone cannot tell here; stale temp files are then recognised by
// age alone (StaleAge).
func processGone(pid int) bool { return false }
