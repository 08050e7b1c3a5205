package cli

// weft secrets: the named secrets workflows refer to as {{secrets.NAME}}.
// Where values live and what a name or host may be is decided by
// backend/credentials; this file translates. A value is read from the
// terminal without echo or from standard input, never from an argument
// (it would stay in the shell's history and in the process list).

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/weft-dev/weft/backend/credentials"
)

const secretsUsage = "usage: weft secrets set NAME [--host HOST]... [--tool TOOL]... (the value is read from the terminal or standard input) | bind NAME [--host HOST]... [--tool TOOL]... (keeps the value) | list [--in DIR] [--json] | remove NAME | import FILE [--yes] (moves the literal credentials written in a workflow file into the store)"

// repeated is a flag given any number of times.
type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// readSecretValue reads a value without echo from a terminal (prompting on
// stderr) and otherwise all of stdin but a final newline.
func readSecretValue(c *cli, name string) (string, error) {
	if f, ok := c.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(c.stderr, "value of %s (not shown): ", name)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(c.stderr)
		return string(b), err
	}
	// All of stdin (a PEM key has many lines), bounded: the store refuses
	// what is over its limit.
	b, err := io.ReadAll(io.LimitReader(c.stdin, 1<<20))
	if err != nil {
		return "", err
	}
	v := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(v, "\r"), nil
}

func (c *cli) secrets(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(c.stderr, secretsUsage)
		return exitUnusable
	}
	store, err := credentials.Default(c.getenv)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	switch args[0] {
	case "set":
		return c.secretsSet(store, args[1:], true)
	case "bind":
		return c.secretsSet(store, args[1:], false)
	case "list":
		return c.secretsList(store, args[1:])
	case "import":
		return c.secretsImport(ctx, store, args[1:])
	case "remove":
		if len(args) != 2 {
			fmt.Fprintln(c.stderr, secretsUsage)
			return exitUnusable
		}
		if err := store.Remove(args[1]); err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitInvalid
		}
		fmt.Fprintf(c.stdout, "removed secret %s\n", args[1])
		return exitOK
	}
	fmt.Fprintln(c.stderr, secretsUsage)
	return exitUnusable
}

// secretsSet stores NAME with the hosts and tools given (they replace
// the earlier ones): with its value read from the terminal or stdin
// (set), or keeping the value stored (bind).
func (c *cli) secretsSet(store *credentials.Store, args []string, withValue bool) int {
	fs := flag.NewFlagSet("secrets set", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	var hosts, tools repeated
	fs.Var(&hosts, "host", "a host the secret may be sent to (api.example.com, api.example.com:8443, *.example.com); repeat for more")
	fs.Var(&tools, "tool", "a tool the secret may be passed to (run_command, an MCP tool); repeat for more")
	if err := fs.Parse(interspersed(args, map[string]bool{"host": true, "tool": true})); err != nil {
		fmt.Fprintln(c.stderr, secretsUsage)
		return exitUnusable
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(c.stderr, "weft: a secret's value is never taken from an argument (it would stay in the shell's history and the process list): type it when asked, or pipe it on standard input")
		return exitUnusable
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, secretsUsage)
		return exitUnusable
	}
	name := fs.Arg(0)
	if err := credentials.ValidName(name); err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	value := ""
	if withValue {
		v, err := readSecretValue(c, name)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: read the value of %s: %v\n", name, err)
			return exitUnusable
		}
		if v == "" {
			fmt.Fprintf(c.stderr, "weft: no value given for %s (type it when asked, or pipe it on standard input)\n", name)
			return exitUnusable
		}
		c.red.Add(v)
		value = v
	}
	if err := store.Set(credentials.Secret{Name: name, Hosts: hosts, Tools: tools, Value: value}); err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitInvalid
	}
	sec, err := store.Get(name)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitInvalid
	}
	if withValue {
		fmt.Fprintf(c.stdout, "stored secret %s in the %s; %s\n", name, storedWhere(sec.Stored), bindings(sec))
	} else {
		fmt.Fprintf(c.stdout, "secret %s (value kept) %s\n", name, bindings(sec))
	}
	return exitOK
}

func storedWhere(s string) string {
	if s == credentials.StoredKeyring {
		return "OS keyring"
	}
	return "secrets file (no keyring answered)"
}

func bindings(sec credentials.Secret) string {
	if len(sec.Hosts)+len(sec.Tools) == 0 {
		return "bound to no host or tool yet: no step can use it"
	}
	var parts []string
	if len(sec.Hosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(sec.Hosts, ", "))
	}
	if len(sec.Tools) > 0 {
		parts = append(parts, "tools "+strings.Join(sec.Tools, ", "))
	}
	return "may go to " + strings.Join(parts, "; ")
}

func (c *cli) secretsList(store *credentials.Store, args []string) int {
	fs := flag.NewFlagSet("secrets list", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	in := fs.String("in", "", "count the workflow files (*.json) beneath DIR that use each secret")
	asJSON := fs.Bool("json", false, "print the list as JSON")
	if err := fs.Parse(interspersed(args, map[string]bool{"in": true})); err != nil || fs.NArg() != 0 {
		fmt.Fprintln(c.stderr, secretsUsage)
		return exitUnusable
	}
	list, err := store.List()
	if err != nil {
		c.printWarnings([]string{err.Error()})
	}
	var uses map[string][]string
	if *in != "" {
		var truncated bool
		if uses, truncated, err = credentials.Uses(*in); err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		if truncated {
			c.printWarnings([]string{"stopped counting uses after the first files beneath " + *in})
		}
	}
	if *asJSON {
		type entry struct {
			credentials.Secret
			UsedIn []string `json:"used_in,omitempty"`
		}
		out := make([]entry, 0, len(list))
		for _, s := range list {
			out = append(out, entry{s, uses[s.Name]})
		}
		c.writeJSONLine(map[string]any{"secrets": out})
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintln(c.stdout, "no secrets stored: add one with weft secrets set NAME")
	}
	for _, s := range list {
		line := fmt.Sprintf("%s\t%s\t%s", s.Name, s.Stored, bindings(s))
		if uses != nil {
			line += fmt.Sprintf("\tused in %d file(s)", len(uses[s.Name]))
		}
		fmt.Fprintln(c.stdout, line)
	}
	return exitOK
}
