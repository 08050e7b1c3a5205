package quote

import (
	"errors"
	"strings"
)

// CmdArg returns s as one argument on a cmd.exe command line (run as
// cmd /V:OFF /S /C "…", see run_command), in two layers:
//
//  1. for the program that receives it: wrapped in double quotes, with a
//     backslash before each " and the backslashes before a " or the end
//     doubled, the rules of CommandLineToArgvW and the Microsoft C runtime;
//  2. for cmd.exe itself: a ^ before every character cmd treats as special
//     (( ) % ! ^ " < > & |), the quotes included, so cmd never enters a
//     quoted state and every metacharacter of s stays literal. A % is
//     always preceded by ^, so no %NAME% span can name a variable (a
//     variable name would have to end in ^); delayed !expansion! is off
//     (/V:OFF).
//
// cmd.exe ends a command at a line break and a command line cannot carry
// NUL, so a value with CR, LF or NUL is an error.
func CmdArg(s string) (string, error) {
	if strings.IndexByte(s, 0) >= 0 {
		return "", ErrNUL
	}
	if strings.ContainsAny(s, "\r\n") {
		return "", errCmdLineBreak
	}
	var argv strings.Builder
	argv.Grow(len(s) + 2)
	argv.WriteByte('"')
	for i := 0; ; {
		n := 0
		for i < len(s) && s[i] == '\\' {
			i++
			n++
		}
		switch {
		case i == len(s):
			argv.WriteString(strings.Repeat(`\`, 2*n))
		case s[i] == '"':
			argv.WriteString(strings.Repeat(`\`, 2*n+1))
			argv.WriteByte('"')
			i++
			continue
		default:
			argv.WriteString(strings.Repeat(`\`, n))
			argv.WriteByte(s[i])
			i++
			continue
		}
		break
	}
	argv.WriteByte('"')
	a := argv.String()
	var b strings.Builder
	b.Grow(len(a) + 8)
	for i := 0; i < len(a); i++ {
		if strings.IndexByte(cmdSpecial, a[i]) >= 0 {
			b.WriteByte('^')
		}
		b.WriteByte(a[i])
	}
	return b.String(), nil
}

// cmdSpecial are the characters cmd.exe reads as syntax on a command line.
const cmdSpecial = `()%!^"<>&|`

var errCmdLineBreak = errors.New("the value contains a line break, which ends a cmd.exe command; no quoting can carry it")

// cmdLexer follows cmd.exe's quote state in a command template's literal
// text: a " toggles it, and outside quotes ^ escapes the next character.
// CmdArg's output is only correct outside quotes, where cmd reads its ^.
type cmdLexer struct {
	quoted bool
	esc    bool
}

func (l *cmdLexer) literal(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case l.quoted:
			l.quoted = c != '"'
		case l.esc:
			l.esc = false
		case c == '^':
			l.esc = true
		case c == '"':
			l.quoted = true
		}
	}
}

func (l *cmdLexer) value(b *strings.Builder, v string) error {
	if l.quoted {
		return errorf(`the placeholder sits inside "…", where cmd.exe cannot keep data from being read as syntax; remove the quotes around the placeholder: Weft quotes the value itself`)
	}
	if l.esc {
		return errorf("the placeholder follows a ^, which would escape the value's first character")
	}
	q, err := CmdArg(v)
	if err != nil {
		return err
	}
	b.WriteString(q)
	return nil
}

// variable is refused: cmd.exe expands %name% before it parses the line,
// so a value holding " or & would be read as syntax, and !name! needs
// delayed expansion, which the command does not run with.
func (l *cmdLexer) variable(*strings.Builder, string) error {
	return errorf("a secret cannot be passed to a cmd.exe command safely (cmd.exe reads an expanded variable as syntax); pass it to a program through a file or an MCP tool instead")
}
