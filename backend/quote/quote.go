// Package quote turns data into text that a shell, a URL or an HTTP header
// reads as data and never as syntax. Weft's templates ({{key.field}})
// insert step outputs into tool arguments; where an argument is code (a
// run_command command line, an http_request URL or header) the inserted
// value goes through exactly one function of this package, chosen by the
// place it lands in:
//
//   - Command: a shell command template; each value becomes one shell word
//     quoted for the shell that runs it (Sh for POSIX sh, CmdArg for
//     cmd.exe), and placeholders where no quoting is safe are refused.
//   - URL: a URL template; a value in the path is one percent-encoded
//     segment, in the query or fragment one percent-encoded component,
//     and a value in the scheme or host is refused.
//   - Header: a header name and value; line breaks are refused, so data
//     cannot add headers.
//
// A deliberate raw insertion ({{raw key.field}}, see Placeholder) is text
// the author vouches for: Command and URL take it through their Raw
// methods, which insert it unchanged and read it as part of the template.
package quote

import (
	"errors"
	"runtime"
	"strings"
)

// Shell is a command interpreter whose quoting rules a Command follows.
type Shell uint8

const (
	// POSIX is sh -c (Linux, macOS, the BSDs).
	POSIX Shell = iota
	// CmdExe is cmd.exe /C on Windows.
	CmdExe
)

// HostShell is the shell run_command uses on this machine.
func HostShell() Shell { return ShellFor(runtime.GOOS) }

// ShellFor is the shell run_command uses on the operating system goos.
func ShellFor(goos string) Shell {
	if goos == "windows" {
		return CmdExe
	}
	return POSIX
}

func (s Shell) String() string {
	if s == CmdExe {
		return "cmd.exe"
	}
	return "sh"
}

// ErrNUL is the error for a value with a NUL byte in a command: the
// operating system ends every argument at the first NUL, so no quoting can
// carry one.
var ErrNUL = errors.New("the value contains a NUL byte, which no command line can carry")

// Placeholder splits the text between {{ and }} into the expression and
// whether it is a raw insertion: the word raw, whitespace, then the
// expression ({{raw fetch.body}}). {{raw.stdout}} and {{ raw }} read a
// step whose key is raw.
func Placeholder(inner string) (expr string, raw bool) {
	s := strings.TrimSpace(inner)
	if len(s) > 4 && strings.HasPrefix(s, "raw") && isSpace(s[3]) {
		return strings.TrimSpace(s[4:]), true
	}
	return s, false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// TrimLineEnd removes the line breaks at the end of a value inserted into a
// command, a URL or a header, as the shell's $(…) does: a step's stdout and
// a file's content end with one, and it is never part of the word, path
// segment or header meant.
func TrimLineEnd(s string) string { return strings.TrimRight(s, "\r\n") }
