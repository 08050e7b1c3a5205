package cli

// weft secrets import FILE: the literal credentials written in a workflow
// file become stored secrets and the file holds {{secrets.NAME}} in their
// place. What is a literal and how it moves is backend/literals' and the
// service's; this file asks and reports.

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/credentials"
	"github.com/weft-dev/weft/backend/literals"
	"github.com/weft-dev/weft/backend/service"
)

func (c *cli) secretsImport(ctx context.Context, store *credentials.Store, args []string) int {
	fs := flag.NewFlagSet("secrets import", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	yes := fs.Bool("yes", false, "move every literal under its suggested name without asking")
	if err := fs.Parse(interspersed(args, nil)); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, "usage: weft secrets import FILE [--yes]")
		return exitUnusable
	}
	path := fs.Arg(0)
	in := bufio.NewReader(c.stdin)
	choose := func(l literals.Literal) (service.ImportChoice, error) {
		fmt.Fprintf(c.stdout, "%s %s: %s (%s)\n", l.NodeID, l.Path, l.Masked, l.Why)
		if *yes {
			return service.ImportChoice{}, nil
		}
		fmt.Fprintf(c.stderr, "store it as the secret [%s] (Enter takes it, another name, or - to leave it): ", l.Suggested)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			return service.ImportChoice{}, fmt.Errorf("no answer for %s %s (answer on the terminal, or use --yes)", l.NodeID, l.Path)
		}
		switch a := strings.TrimSpace(line); a {
		case "":
			return service.ImportChoice{}, nil
		case "-":
			return service.ImportChoice{Skip: true}, nil
		default:
			return service.ImportChoice{Name: a}, nil
		}
	}
	svc := service.New(service.Deps{Logger: c.log, Secrets: store, Getenv: c.getenv})
	moved, err := svc.ImportLiterals(ctx, path, choose)
	for _, sec := range moved {
		fmt.Fprintf(c.stdout, "stored secret %s; %s\n", sec.Name, bindings(sec))
	}
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		if len(moved) > 0 {
			fmt.Fprintln(c.stderr, "weft: the secrets above are stored")
		}
		return exitInvalid
	}
	if len(moved) == 0 {
		fmt.Fprintf(c.stdout, "%s: nothing moved\n", path)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s: rewritten with %d reference(s) to secrets\n", path, len(moved))
	return exitOK
}
