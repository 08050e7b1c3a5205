package quote

import (
	"fmt"
	"strings"
)

// Command builds a command line from a template: the template's literal
// text as written, and each value quoted as one word for the shell and for
// the place in the line it lands in. With POSIX sh, a value may sit in a
// bare word (echo {{x}} → echo 'v'), inside the author's double quotes
// (echo "n={{x}}" → echo "n="'v'"") or single quotes; either way it is one
// word (or part of the word the author wrote) and nothing in it is
// syntax. Places where that cannot be guaranteed are refused with an
// error that says so: a comment, backticks, ${…}, $((…)), $[…], a word's
// […] (a bash array subscript is arithmetic), right after $ or \, and
// anything after a here-document, $'…', ((…)) or [[ (bash evaluates
// arithmetic there even in quoted text). With cmd.exe, a value must not sit
// inside the author's quotes.
//
// The zero Command is not usable; call NewCommand.
type Command struct {
	b  strings.Builder
	lx lexer
}

type lexer interface {
	literal(s string)
	value(b *strings.Builder, v string) error
	variable(b *strings.Builder, name string) error
}

// NewCommand starts an empty command line for sh.
func NewCommand(sh Shell) *Command {
	c := &Command{}
	if sh == CmdExe {
		c.lx = &cmdLexer{}
	} else {
		c.lx = newPosixLexer()
	}
	return c
}

// MayRefuse reports whether a Command for sh built from template's text
// could refuse a value for where it sits. When it reports false, Value
// fails only for what no command line can carry (NUL, and line breaks for
// cmd.exe): with sh every refusal needs one of # ` $ \ < ( [ in the
// text, with cmd.exe a " or ^. It lets a validator skip the common case
// cheaply.
func (sh Shell) MayRefuse(template string) bool {
	if sh == CmdExe {
		return strings.ContainsAny(template, `"^`)
	}
	return strings.ContainsAny(template, "#`$\\<([")
}

// Literal appends template text, which is code.
func (c *Command) Literal(s string) {
	c.b.WriteString(s)
	c.lx.literal(s)
}

// Raw appends a value the author chose to insert as code ({{raw …}}): it
// is written unchanged and read as part of the template.
func (c *Command) Raw(s string) { c.Literal(s) }

// Value appends v as data: one quoted word, or part of the quoted word it
// sits in. On error nothing is appended.
func (c *Command) Value(v string) error {
	return c.lx.value(&c.b, v)
}

// Variable appends a reference to the environment variable name (a
// secret the process receives in its environment, never in its command
// line), expanded as one word, or part of the word it sits in, wherever
// Value could put a value. name must be an identifier. On error nothing
// is appended.
func (c *Command) Variable(name string) error {
	return c.lx.variable(&c.b, name)
}

// String returns the command line built so far.
func (c *Command) String() string { return c.b.String() }

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }
