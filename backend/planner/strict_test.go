package planner

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

func TestStrictTools(t *testing.T) {
	cat := testCatalog()
	w := workflow.New("t")
	w.Nodes = []workflow.Node{
		{ID: "a", Key: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "send_email"}},
		{ID: "b", Key: "b", Type: workflow.TypeTool, Params: workflow.Params{Tool: "github.create_isue"}},
	}
	w.Edges = []workflow.Edge{{From: "a", To: "b"}}
	res := validate.Validate(w, cat)
	if !res.Valid {
		t.Fatalf("validate alone keeps unknown tools warnings: %+v", res.Problems)
	}
	all := StrictTools(res.Problems, w, cat, nil)
	var msgs []string
	for _, p := range all {
		if p.Code == validate.CodeUnknownTool {
			if p.Severity != validate.SeverityError {
				t.Errorf("%s stays a %s", p.Message, p.Severity)
			}
			msgs = append(msgs, p.Message)
		}
	}
	if len(msgs) != 2 || !strings.Contains(msgs[1], "use one of the catalog's tools: github.create_issue") {
		t.Fatalf("messages %q", msgs)
	}
	// Only the touched nodes.
	some := StrictTools(res.Problems, w, cat, func(id string) bool { return id == "b" })
	for _, p := range some {
		if p.Code == validate.CodeUnknownTool && (p.Severity == validate.SeverityError) != (p.NodeIDs[0] == "b") {
			t.Errorf("%s: %s", p.NodeIDs[0], p.Severity)
		}
	}
	if got := NearestTools("shell", tools.Builtin(), 3); got[0] != "run_command" {
		t.Errorf("NearestTools(shell) = %v", got)
	}
}
