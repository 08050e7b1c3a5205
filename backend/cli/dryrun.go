package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/testcase"
	"github.com/weft-dev/weft/backend/validate"
)

// dryRun prints the walk of a dry run (service.DryRun): nothing acts.
// Exit: 0 printed (whatever the walk's outcome), 2 the workflow, the case
// or the inputs cannot be used.
func (c *cli) dryRun(ctx context.Context, req service.DryRunRequest, asJSON bool) int {
	rep, err := c.testService().DryRun(ctx, req)
	if err != nil {
		var ue *service.TestUnusableError
		problems := []validate.Problem{}
		if errors.As(err, &ue) && ue.Problems != nil {
			problems = ue.Problems
		}
		if asJSON {
			c.writeJSON(map[string]any{"error": err.Error(), "problems": problems})
		}
		fmt.Fprintf(c.stderr, "weft: %v\n", err)
		return exitUnusable
	}
	if asJSON {
		c.writeJSON(rep)
		return exitOK
	}
	by := "the pinned data"
	if rep.Case != "" {
		by = fmt.Sprintf("the mocks of case %q", rep.Case)
	}
	fmt.Fprintf(c.stdout, "dry run of %s, answered by %s: nothing ran\n", rep.Workflow, by)
	for i, s := range rep.Steps {
		c.printDryStep(i+1, s)
	}
	if len(rep.WouldRun) > 0 {
		fmt.Fprintf(c.stdout, "nothing answered %s: in a real run they would run; here they gave empty outputs\n", strings.Join(rep.WouldRun, ", "))
	}
	if len(rep.Writes) > 0 {
		fmt.Fprintf(c.stdout, "would write (kept in memory, not written): %s\n", strings.Join(rep.Writes, ", "))
	}
	line := fmt.Sprintf("outcome: %s", rep.Outcome)
	if rep.Error != "" {
		line += ": " + rep.Error
	}
	fmt.Fprintln(c.stdout, line)
	return exitOK
}

// printDryStep shows one step of the walk: what, how it was answered, its
// arguments and outputs; a condition's branch.
func (c *cli) printDryStep(n int, s testcase.DryStep) {
	name := s.Step
	if s.Name != "" && s.Name != s.Step {
		name += fmt.Sprintf(" (%s)", s.Name)
	}
	switch {
	case s.Branch != "":
		line := fmt.Sprintf("%3d. %s → %s", n, name, s.Branch)
		if s.Iteration > 0 {
			line += fmt.Sprintf(" (iteration %d)", s.Iteration)
		}
		if s.Condition != "" {
			line += fmt.Sprintf("  [%s]", s.Condition)
		}
		if s.Message != "" {
			line += "  (" + s.Message + ")"
		}
		fmt.Fprintln(c.stdout, line)
		return
	case s.Status == flow.StatusSkipped:
		fmt.Fprintf(c.stdout, "%3d. %s: %s\n", n, name, s.Message)
		return
	}
	line := fmt.Sprintf("%3d. %s", n, name)
	if s.Tool != "" {
		line += " " + s.Tool
	}
	if s.Answer != "" {
		line += "  [" + s.Answer + "]"
	}
	fmt.Fprintln(c.stdout, line)
	for _, k := range slices.Sorted(maps.Keys(s.Arguments)) {
		fmt.Fprintf(c.stdout, "       %s: %s\n", k, dryValue(s.Arguments[k]))
	}
	if len(s.Outputs) > 0 {
		fmt.Fprintf(c.stdout, "       → %s\n", dryValue(s.Outputs))
	}
	if s.Status != "" && s.Status != flow.StatusOK {
		fmt.Fprintf(c.stdout, "       %s: %s\n", s.Status, s.Message)
	}
}

// dryValue is an argument or outputs as shown: text as it is, anything
// else as JSON; cut when long.
func dryValue(v any) string {
	if s, ok := v.(string); ok { // further lines under the first
		return strings.ReplaceAll(clipText(s), "\n", "\n         ")
	}
	return shownJSON(v)
}

// clipText cuts a text shown past 500 bytes.
func clipText(s string) string {
	const most = 500
	if len(s) > most {
		return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:most], ""), len(s))
	}
	return s
}
