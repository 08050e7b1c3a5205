//go:build linux

package tree

import (
	"errors"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"
)

const (
	// Env marks the supervisor's environment; its value is the pid of the
	// process that started it. The command does not inherit it.
	Env = "WEFT_PROC_SUPERVISOR"
	// Name is the supervisor's argv[0] (what ps shows); its argv goes on
	// with the command's path and the command's own argv.
	Name = "weft-supervisor"
	// Stop asks the supervisor to kill the command's whole tree and then
	// itself. A signal that kills by default, so that one sent before the
	// supervisor listens ends it before it starts the command.
	Stop = syscall.SIGHUP
	// ParentGone is the supervisor's death signal: a real-time signal
	// nobody else sends. Linux also sends it when only the thread that
	// started the supervisor ends, so the supervisor checks its parent
	// before it acts on it.
	ParentGone = syscall.Signal(40)
	// KillTimeout bounds how long the supervisor keeps killing (a process
	// in uninterruptible sleep cannot die); less than proc.WaitDelay,
	// after which exec.Cmd kills the supervisor itself.
	KillTimeout = time.Second
)

// Forwarded are the signals the supervisor passes to the command
// unchanged: a signal sent to the process Weft started (an MCP server's
// SIGTERM at shutdown) reaches the command as before.
func Forwarded() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGALRM, syscall.SIGWINCH}
}

// WithoutMarker is env without Env.
func WithoutMarker(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if len(kv) <= len(Env) || kv[:len(Env)+1] != Env+"=" {
			out = append(out, kv)
		}
	}
	return out
}

// The supervisor's side. It runs in any executable that imports this
// package (through proc: the app, the weft CLI, a worker, a test binary)
// without a hook in its main.
func init() {
	parent, marked := os.LookupEnv(Env)
	if !marked && (len(os.Args) == 0 || os.Args[0] != Name) {
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
		os.Stderr.WriteString("weft: " + Name + " started without a valid " + Env + " (" + strconv.Quote(parent) + "): the command did not run\n")
		return 127
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs, append([]os.Signal{syscall.SIGCHLD, Stop, ParentGone}, Forwarded()...)...)
	if syscall.Getppid() != ppid {
		return 1 // Weft died before the line above heard its death signal
	}
	// Orphans of the command's tree come to this process, not to init,
	// and stay reachable. (A kernel before 3.4 refuses: the tree is then
	// still killed as far as its parent links reach.)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	pid, err := syscall.ForkExec(args[1], args[2:], &syscall.ProcAttr{
		Env:   WithoutMarker(os.Environ()),
		Files: []uintptr{0, 1, 2}, // and, being inherited, any other file Weft passed
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		os.Stderr.WriteString("weft: start " + args[1] + ": " + err.Error() + "\n")
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
		case Stop:
			killTree(KillTimeout)
			die(syscall.SIGKILL)
		case ParentGone:
			if syscall.Getppid() != ppid {
				killTree(KillTimeout)
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
