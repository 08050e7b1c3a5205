package validate

import (
	"strings"
	"testing"
)

// Conditions that cannot fit the run's bounds whatever the data are
// refused before they run; bounded ones of the same shape pass.
func TestUnboundedConditions(t *testing.T) {
	for _, c := range []struct {
		cond, want string // want "": valid
	}{
		{`repeat(repeat("a", 999999), 1000000) == ""`, "an expression may build at most"},
		{`repeat("ab", 100000000) == ""`, "repeat(…, 100000000)"},
		{`len(1..100000000) > 0`, "the range 1..100000000 has 100000000 elements"},
		{`repeat("ab", 3) == "ababab"`, ""},
		{`len(1..1000) > 0`, ""},
		{`repeat(check.stdout, 2) != ""`, ""}, // unknown until it runs: bounded then
	} {
		r := Validate(ifWF(c.cond), catalog)
		var msg string
		for _, p := range r.Problems {
			if p.Code == CodeBadCondition {
				msg = p.Message
			}
		}
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%s: refused: %s", c.cond, msg)
		case c.want != "" && !strings.Contains(msg, c.want):
			t.Errorf("%s: problem %q, want %q", c.cond, msg, c.want)
		}
	}
}
