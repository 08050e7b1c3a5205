package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/weft-dev/weft/backend/versions"
	"github.com/weft-dev/weft/backend/workflow"
)

const versionsUsage = "usage: weft versions FILE [--json] [--diff A B]  (A and B are version numbers, or \"file\" for FILE itself)"

// versionsListJSON is what `weft versions FILE --json` prints.
type versionsListJSON struct {
	WorkflowID string             `json:"workflow_id"`
	Name       string             `json:"name"`
	Versions   []versions.Version `json:"versions"`
}

// versionsDiffJSON is what `weft versions FILE --diff A B --json` prints.
type versionsDiffJSON struct {
	WorkflowID string        `json:"workflow_id"`
	From       string        `json:"from"`
	To         string        `json:"to"`
	Summary    string        `json:"summary"`
	Diff       versions.Diff `json:"diff"`
}

// versions lists the saved versions of FILE's workflow (by its id), or
// compares two of them. Exit: 0 listed or compared, 1 a version is
// missing or unreadable, 2 bad usage or unreadable FILE.
func (c *cli) versions(_ context.Context, args []string) int {
	fs := flag.NewFlagSet("versions", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	diff := fs.Bool("diff", false, "compare two versions: --diff A B")
	if err := fs.Parse(interspersed(args, nil)); err != nil {
		fmt.Fprintln(c.stderr, versionsUsage)
		return exitUnusable
	}
	if (!*diff && fs.NArg() != 1) || (*diff && fs.NArg() != 3) {
		fmt.Fprintln(c.stderr, versionsUsage)
		return exitUnusable
	}
	path := fs.Arg(0)
	w, _, err := workflow.Load(path)
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	store, err := versions.DefaultStore()
	if err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	store.Log = c.log

	if !*diff {
		list, err := store.List(w.ID)
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: %v\n", err)
			return exitUnusable
		}
		if *asJSON {
			c.writeJSON(versionsListJSON{WorkflowID: w.ID, Name: w.Name, Versions: list})
			return exitOK
		}
		if len(list) == 0 {
			fmt.Fprintf(c.stdout, "no versions of %q (id %s) are saved yet; `weft run` saves them when a run is replanned\n", w.Name, w.ID)
			return exitOK
		}
		fmt.Fprintf(c.stdout, "versions of %q (id %s):\n", w.Name, w.ID)
		for _, v := range list {
			fmt.Fprintf(c.stdout, "  v%-3d %s  %-15s %s\n", v.N, v.Time.Local().Format("2006-01-02 15:04:05"), v.Reason, v.Summary)
		}
		return exitOK
	}

	load := func(ref string) (*workflow.Workflow, error) {
		if strings.EqualFold(ref, "file") || strings.EqualFold(ref, "current") {
			return w, nil
		}
		n, err := strconv.Atoi(strings.TrimPrefix(strings.ToLower(ref), "v"))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a version number (or \"file\")", ref)
		}
		return store.Load(w.ID, n)
	}
	a, errA := load(fs.Arg(1))
	b, errB := load(fs.Arg(2))
	if err := errors.Join(errA, errB); err != nil {
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		if list, lerr := store.List(w.ID); lerr == nil && len(list) > 0 {
			fmt.Fprintf(c.stderr, "weft: saved versions: v%d–v%d (weft versions %s)\n", list[0].N, list[len(list)-1].N, path)
		}
		return exitInvalid
	}
	d := versions.Compare(a, b)
	if *asJSON {
		c.writeJSON(versionsDiffJSON{WorkflowID: w.ID, From: fs.Arg(1), To: fs.Arg(2), Summary: d.Summary(), Diff: d})
		return exitOK
	}
	fmt.Fprintf(c.stdout, "%s → %s: %s\n", fs.Arg(1), fs.Arg(2), d.Summary())
	for _, l := range d.Lines() {
		fmt.Fprintf(c.stdout, "  %s\n", l)
	}
	return exitOK
}
