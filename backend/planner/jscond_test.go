package planner

import "testing"

func TestJSCondition(t *testing.T) {
	for in, want := range map[string]string{
		"a.x === 1":                   "a.x == 1",
		"a.x !== 'b === c'":           "a.x != 'b === c'",
		"a.body != null && undefined": "a.body != nil && nil",
		"a.nullable == 1":             "a.nullable == 1",
		"a.null":                      "a.null",
		"x == 1":                      "x == 1",
		`"unterminated === `:          `"unterminated === `,
	} {
		if got, _ := jsCondition(in); got != want {
			t.Errorf("jsCondition(%q) = %q, want %q", in, got, want)
		}
	}
}
