package cli

import (
	"fmt"
	"io"

	"github.com/weft-dev/weft/backend/reask"
)

// printTests is the workflow's test cases played against a proposal, as
// `weft chat` and `weft plan --out` show it in their review: the line,
// then each case that does not pass and how it differs.
func printTests(w io.Writer, t *reask.Tests) {
	if t == nil {
		return
	}
	fmt.Fprintln(w, visible(t.Line))
	for _, c := range t.Cases {
		how := "differs"
		if c.Errored {
			how = "ERRORS"
		}
		fmt.Fprintf(w, "  case %q %s:\n", visible(c.Name), how)
		for _, d := range c.Differences {
			fmt.Fprintf(w, "    %s\n", visible(d))
		}
	}
}
