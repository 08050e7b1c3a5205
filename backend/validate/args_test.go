package validate

import (
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

func TestMissingArgument(t *testing.T) {
	noArgs := node("say", workflow.TypeTool, workflow.Params{Tool: "log"})
	r := Validate(wf(ns(noArgs)), catalog)
	if r.Valid || !hasCode(r, CodeMissingArgument) || r.Problems[0].Message != "'Say' (tool log) needs the argument 'message'" {
		dump(t, r)
		t.Fatal("want missing_argument")
	}
	two := node("get", workflow.TypeTool, workflow.Params{Tool: "http_request", Arguments: map[string]any{"url": nil}})
	if r := Validate(wf(ns(two)), catalog); r.Problems[0].Message != "'Get' (tool http_request) needs the arguments 'method', 'url'" {
		dump(t, r)
		t.Fatal("want both arguments named")
	}
	empty := node("w", workflow.TypeTool, workflow.Params{Tool: "write_file", Arguments: map[string]any{"path": "x", "content": ""}})
	if r := Validate(wf(ns(empty)), catalog); !r.Valid {
		dump(t, r)
		t.Fatal("empty content is a value")
	}
	off := noArgs
	off.SetEnabled(false)
	if r := Validate(wf(ns(off)), catalog); hasCode(r, CodeMissingArgument) {
		t.Fatal("a disabled node is passed through")
	}
	unknown := node("u", workflow.TypeTool, workflow.Params{Tool: "nope.tool"})
	if r := Validate(wf(ns(unknown)), catalog); hasCode(r, CodeMissingArgument) {
		t.Fatal("an unknown tool has no schema to check")
	}
}
