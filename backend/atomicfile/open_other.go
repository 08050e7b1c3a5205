//go:build !unix

package atomicfile

const nonBlock = 0
