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
// sets to null; "" may be meant: write_file with empty content), and an
// MCP step's literal arguments its tool's input schema does not allow
// (checkArgs: the one place arguments meet a schema). A disabled node is
// passed through at run time, so it is not held to its tool's schema.
//
// Built-in tools are held to their required arguments only: the runner
// reads their values leniently (ms as "500"), and their limits are
// checked where they have their own words (bad_duration).
func (v *validator) checkArguments() {
	if v.cat == nil {
		return
	}
	type toolSchema struct {
		required []string
		mcp      *argSchema // nil for built-ins and unparsable schemas
	}
	schemas := map[string]toolSchema{}
	for i := range v.nodes {
		nd := &v.nodes[i]
		if nd.Type != workflow.TypeTool || !nd.IsEnabled() || nd.Params.Tool == "" {
			continue
		}
		ts, seen := schemas[nd.Params.Tool]
		if !seen {
			if t, ok := v.cat.Lookup(nd.Params.Tool); ok {
				var s struct {
					Required []string `json:"required"`
				}
				if json.Unmarshal(t.InputSchema, &s) == nil {
					ts.required = s.Required
				}
				if t.Server != "" {
					ts.mcp = parseArgSchema(t.InputSchema)
				}
			}
			schemas[nd.Params.Tool] = ts
		}
		var missing []string
		for _, name := range ts.required {
			if nd.Params.Arguments[name] == nil {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			what := "the argument " + q(missing[0])
			if len(missing) > 1 {
				what = "the arguments " + quoteJoin(missing)
			}
			v.add(CodeMissingArgument, SeverityError, fmt.Sprintf("%s (tool %s) needs %s", v.label(int32(i)), nd.Params.Tool, what), []int32{int32(i)})
		}
		if ts.mcp == nil {
			continue
		}
		for _, p := range ts.mcp.checkArgs(nd.Params.Arguments) {
			what := "its arguments object" // a schema of another type, anyOf at its root
			if len(p.path) > 0 {
				what = "the argument " + q(p.path.String())
			}
			v.add(p.code, SeverityError, fmt.Sprintf("%s (tool %s): %s %s", v.label(int32(i)), nd.Params.Tool, what, p.msg), []int32{int32(i)})
			v.probs[len(v.probs)-1].Path = p.path.Pointer()
		}
	}
}

func quoteJoin(ss []string) string {
	qs := make([]string, len(ss))
	for i, s := range ss {
		qs[i] = q(s)
	}
	return strings.Join(qs, ", ")
}
