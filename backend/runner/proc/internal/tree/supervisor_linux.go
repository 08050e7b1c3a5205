//go:build linux

package proc

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

// The supervisor's side of supervise_linux.go. It runs in any executable
// that imports this package (the app, the weft CLI, a worker, a test
// binary) without a hook in its main.
func init() {
	parent, marked := os.LookupEnv(supervisorEnv)
	if !marked && (len(os.Args) == 0 || os.Args[0] != supervisorName) {
		return
	}
	os.Exit(supervisor(parent, marked, os.Args))
}

const prSetChildSubreaper = 36 // PR_SET_CHILD_SUBREAPER, linux/prctl.h

// supervisor runs args[1] with argv args[2:] in this process's group and
// passes its exit status or signal death on as its own. It returns only an
// exit code; a signal death or a stop ends the process from within.
func supervisor(parent string, marked bool, args []string) int {
	ppid, err := strconv.Atoi(parent)
	if !marked || err != nil || len(args) < 3 {
		// Started as a supervisor without the marker (an Env set after
		// proc.Prepare): refuse rather than run this program as itself.
		fmt.Fprintf(os.Stderr, "weft: %s started without a valid %s (%q): the command did not run\n", supervisorName, supervisorEnv, parent)
		return 127
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD, stopSignal, parentGone}, forwarded...)...)
	if syscall.Getppid() != ppid {
		return 1 // Weft died before the line above heard its death signal
	}
	// Orphans of the command's tree come to this process, not to init,
	// and stay reachable. (A kernel before 3.4 refuses: the tree is then
	// still killed as far as its parent links reach.)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{
		Env:   withoutMarker(os.Environ()),
		Files: []uintptr{0, 1, 2}, // and, being inherited, any other file Weft passed
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "weft: start %s: %v\n", args[1], err)
		if errors.Is(err, syscall.ENOENT) {
			return 127
		}
		return 126
	}
	for sig := range sigs {
		switch sig {
		case syscall.SIGCHLD:
			if ws, ok := reap(pid); ok {
				if ws.Signaled() {
					die(ws.Signal())
				}
				return ws.ExitStatus()
			}
		case stopSignal:
			killTree(killTimeout)
			die(syscall.SIGKILL)
		case parentGone:
			if syscall.Getppid() != ppid {
				killTree(killTimeout)
				die(syscall.SIGKILL)
			}
		default:
			// Only this loop reaps: the command's pid is still its own.
			syscall.Kill(pid, sig.(syscall.Signal))
		}
	}
	return 1 // not reached: sigs is never closed
}

// reap collects every child that ended (adopted orphans too, so none stays
// a zombie) and reports the command's status once it ended.
func reap(cmd int) (syscall.WaitStatus, bool) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil || pid <= 0:
			return 0, false
		case pid == cmd:
			return ws, true
		}
	}
}

// killTree kills every descendant of this process: the command's group and
// whatever left it (setsid, a double fork), which as orphans came to this
// subreaper. It repeats until none is left and every child is reaped,
// since a process may fork between a pass's listing and its kill; timeout
// bounds it for a process that cannot die.
func killTree(timeout time.Duration) {
	self := os.Getpid()
	deadline := time.Now().Add(timeout)
	for {
		live := Descendants(self)
		Kill(live)
		if len(live) == 0 && reapedAll() || time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// reapedAll reaps the children that ended and reports whether none is left.
func reapedAll() bool {
	for {
		pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.ECHILD):
			return true
		case err != nil || pid == 0:
			return false
		}
	}
}

// die ends this process by sig, as the command ended: its parent reads the
// same status it read before there was a supervisor. The Go runtime
// handles or ignores most signals, so the default action is restored first.
func die(sig syscall.Signal) {
	runtime.LockOSThread()
	// A signal that dumps core must not dump the supervisor's: 1 skips
	// both file and piped (systemd-coredump) dumps.
	var core syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_CORE, &core) == nil && core.Max >= 1 {
		syscall.Setrlimit(syscall.RLIMIT_CORE, &syscall.Rlimit{Cur: 1, Max: core.Max})
	}
	var dfl [4]uint64 // a kernel sigaction of any layout: SIG_DFL, no flags, empty mask
	syscall.RawSyscall6(syscall.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&dfl)), 0, 8, 0, 0)
	set := uint64(1) << (sig - 1)
	syscall.RawSyscall6(syscall.SYS_RT_SIGPROCMASK, 1 /* SIG_UNBLOCK */, uintptr(unsafe.Pointer(&set)), 0, 8, 0, 0)
	syscall.Tgkill(syscall.Getpid(), syscall.Gettid(), sig)
	os.Exit(128 + int(sig)) // not reached for a signal that killed a process
}
