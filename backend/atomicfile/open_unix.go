//go:build unix

package atomicfile

import "syscall"

const nonBlock = syscall.O_NONBLOCK
