package planner

import (
	"encoding/json"
	"testing"

	"github.com/weft-dev/weft/backend/mcp"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// A plan that reads an MCP step's result by the specification's names
// (content, structuredContent) is valid on the first call: validation
// warns (output_alias) and the run reads text and data; no re-ask.
func TestPlanReadsMCPContentInOneCall(t *testing.T) {
	cat := tools.Builtin().With("gh", []tools.Tool{{Name: "issue", Description: "Get an issue.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`), Outputs: mcp.Outputs}})
	reply := `{"steps": [
  {"id": "get", "step_type": "Tool", "tool_name": "gh.issue", "arguments": {"n": 1}},
  {"id": "say", "step_type": "Tool", "tool_name": "log", "arguments": {"message": "{{get.content}} {{get.structuredContent.title}}"}}
]}`
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3, Catalog: cat}, answer(reply))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || len(fake.calls) != 1 {
		t.Fatalf("valid=%v after %d calls; problems %+v", res.Valid, len(fake.calls), res.Problems)
	}
	aliases := 0
	for _, p := range res.Problems {
		if p.Code == validate.CodeOutputAlias {
			aliases++
		}
	}
	if aliases != 2 {
		t.Errorf("want two output_alias warnings, got %+v", res.Problems)
	}
}
