package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/atomicfile"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/validate"
)

const testUsage = "usage: weft test FILE [--json] [--junit PATH] [--case NAME] | FILE --record [--case NAME] [--json]"

// test plays the cases beside a workflow (FILE, or its case file) with
// nothing acting (service.Test, package testcase).
// Exit: 0 every case passed, 1 one failed, 2 the workflow or its case
// file cannot be used (or it has no cases).
func (c *cli) test(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(c.stderr)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	junit := fs.String("junit", "", "also write the report as JUnit XML to `PATH` (CI)")
	only := fs.String("case", "", "play only the case named `NAME` (with --record: name the new case)")
	record := fs.Bool("record", false, "add a case made from the last run of FILE to its case file (the steps whose data was cut or hidden are named, to fill in)")
	if err := fs.Parse(interspersed(args, map[string]bool{"junit": true, "case": true})); err != nil || fs.NArg() != 1 {
		fmt.Fprintln(c.stderr, testUsage)
		return exitUnusable
	}
	svc := c.testService()
	if *record {
		return c.recordCase(ctx, svc, fs.Arg(0), *only, *asJSON)
	}
	rep, err := svc.Test(ctx, service.TestRequest{Path: fs.Arg(0), Case: *only})
	if err != nil {
		var ue *service.TestUnusableError
		problems := []validate.Problem{}
		if errors.As(err, &ue) && ue.Problems != nil {
			problems = ue.Problems
		}
		if *asJSON {
			c.writeJSON(map[string]any{"error": err.Error(), "problems": problems})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	if *junit != "" {
		b, err := testcase.JUnit(rep)
		if err == nil {
			err = atomicfile.WriteFile(*junit, b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(c.stderr, "weft: --junit: %v\n", err)
			return exitUnusable
		}
	}
	if *asJSON {
		c.writeJSON(rep)
	} else {
		c.printReport(rep)
	}
	if !rep.OK() {
		return exitInvalid
	}
	return exitOK
}

// testService is the service tests and dry runs are played by (nothing
// acts, so it needs no model, approver or engine).
func (c *cli) testService() *service.Service {
	svc := service.New(service.Deps{Logger: c.log, Getenv: c.getenv, Settings: func() (settings.Settings, []string, error) {
		s, err := c.effective()
		return s, nil, err
	}})
	c.services = append(c.services, svc)
	return svc
}

// printReport shows each case, and for a failed one each way it failed:
// the step, expected against actual.
func (c *cli) printReport(rep *testcase.Report) {
	for _, cr := range rep.Cases {
		if cr.Passed {
			fmt.Fprintf(c.stdout, "PASS  %s (%s)\n", cr.Name, plural(len(cr.Path), "step"))
			continue
		}
		fmt.Fprintf(c.stdout, "FAIL  %s\n", cr.Name)
		for _, f := range cr.Failures {
			fmt.Fprintf(c.stdout, "      %s\n", f.Line())
			if f.Expected != nil || f.Actual != nil {
				fmt.Fprintf(c.stdout, "        expected: %s\n        actual:   %s\n", shownJSON(f.Expected), shownJSON(f.Actual))
			}
		}
	}
	fmt.Fprintf(c.stdout, "%d of %s passed (%s)\n", rep.Passed, plural(len(rep.Cases), "case"), rep.File)
	if n := len(rep.Unapproved); n > 0 {
		var names []string
		for _, s := range rep.Unapproved {
			names = append(names, fmt.Sprintf("%q", s.Key))
		}
		fmt.Fprintf(c.stdout, "note: nothing ran for real, but before a real run %s wait for approval: %s (weft approve %s)\n",
			plural(n, "step"), strings.Join(names, ", "), rep.Workflow)
	}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// shownJSON is a value in a failure, as JSON, cut when long.
func shownJSON(v any) string {
	if v == nil {
		return "(none)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clipText(string(b))
}

// recordCase adds a case made from the last run of path to its case file.
func (c *cli) recordCase(ctx context.Context, svc *service.Service, path, name string, asJSON bool) int {
	res, err := svc.RecordCase(ctx, path, name)
	if err != nil {
		if asJSON {
			c.writeJSON(map[string]any{"error": err.Error()})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	if asJSON {
		c.writeJSON(res)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "recorded the case %q from run %s in %s (%s)\n", res.Case.Name, res.RunID, res.File, plural(len(res.Case.Expect.Path), "step"))
	if len(res.FillIn) > 0 {
		fmt.Fprintf(c.stdout, "fill in before it tells the truth:\n")
		for _, f := range res.FillIn {
			fmt.Fprintf(c.stdout, "  %s\n", f)
		}
	}
	return exitOK
}
