package cli

// weft trust: the folders whose workflow files are trusted as they are
// (CI checkouts, workflows reviewed in a pull request). What trust means
// is decided by backend/service and package approval; this file
// translates.

import (
	"context"
	"flag"
	"fmt"
)

const trustUsage = "usage: weft trust DIR | --list | --remove DIR"

func (c *cli) trust(_ context.Context, args []string) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	list := fs.Bool("list", false, "list the trusted folders")
	remove := fs.Bool("remove", false, "stop trusting DIR")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(interspersed(args, nil)); err != nil || (*list && fs.NArg() != 0) || (!*list && fs.NArg() != 1) {
		fmt.Fprintln(c.stderr, trustUsage)
		return exitUnusable
	}
	s, err := c.effective()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	svc := c.runService(s, false)
	fail := func(err error) int {
		if *asJSON {
			c.writeJSONLine(map[string]any{"type": "error", "error": err.Error()})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	switch {
	case *list:
		folders, err := svc.TrustedFolders()
		if err != nil {
			c.printWarnings([]string{err.Error()})
		}
		if *asJSON {
			c.writeJSONLine(map[string]any{"folders": folders})
			return exitOK
		}
		if len(folders) == 0 {
			fmt.Fprintln(c.stdout, "no trusted folders: every workflow file Weft did not write is reviewed before it runs")
		}
		for _, f := range folders {
			fmt.Fprintf(c.stdout, "%s\t(since %s)\n", f.Path, f.Time.Local().Format("2006-01-02 15:04"))
		}
		return exitOK
	case *remove:
		ok, err := svc.UntrustFolder(fs.Arg(0))
		if err != nil {
			return fail(err)
		}
		if !ok {
			return fail(fmt.Errorf("%s is not a trusted folder (weft trust --list)", fs.Arg(0)))
		}
		if *asJSON {
			c.writeJSONLine(map[string]any{"removed": fs.Arg(0)})
		} else {
			fmt.Fprintf(c.stdout, "no longer trusted: %s\n", fs.Arg(0))
		}
		return exitOK
	}
	dir, err := svc.TrustFolder(fs.Arg(0), "weft trust")
	if err != nil {
		return fail(err)
	}
	if *asJSON {
		c.writeJSONLine(map[string]any{"trusted": dir})
	} else {
		fmt.Fprintf(c.stdout, "trusted: the workflow files beneath %s run without a file review (steps a model wrote still need their own approval)\n", dir)
	}
	return exitOK
}
