package proc

import "syscall"

// setDeathSignal kills a command when the process that started it dies
// without a goodbye (kill -9 of a worker): its step is then run again
// elsewhere, and a half-done one must not go on beside it.
func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
