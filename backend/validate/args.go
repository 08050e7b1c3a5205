package validate

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/weft-dev/weft/backend/workflow"
)

// CodeMissingArgument (issue 11) is a Tool node without an argument its
// tool's input schema requires: the run would fail on it at once.
const CodeMissingArgument = "missing_argument"

// checkArguments reports required arguments a Tool node leaves out (or
// sets to null; "" may be meant: write_file with empty content). A
// disabled node is passed through at run time, so it is not held to its
// tool's schema.
func (v *validator) checkArguments() {
	if v.cat == nil {
		return
	}
	required := map[string][]string{}
	for i := range v.nodes {
		nd := &v.nodes[i]
		if nd.Type != workflow.TypeTool || !nd.IsEnabled() || nd.Params.Tool == "" {
			continue
		}
		req, seen := required[nd.Params.Tool]
		if !seen {
			if t, ok := v.cat.Lookup(nd.Params.Tool); ok {
				var s struct {
					Required []string `json:"required"`
				}
				if json.Unmarshal(t.InputSchema, &s) == nil {
					req = s.Required
				}
			}
			required[nd.Params.Tool] = req
		}
		var missing []string
		for _, name := range req {
			if nd.Params.Arguments[name] == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) == 0 {
			continue
		}
		what := "the argument " + q(missing[0])
		if len(missing) > 1 {
			what = "the arguments " + quoteJoin(missing)
		}
		v.add(CodeMissingArgument, SeverityError, fmt.Sprintf("%s (tool %s) needs %s", v.label(int32(i)), nd.Params.Tool, what), []int32{int32(i)})
	}
}

func quoteJoin(ss []string) string {
	qs := make([]string, len(ss))
	for i, s := range ss {
		qs[i] = q(s)
	}
	return strings.Join(qs, ", ")
}
