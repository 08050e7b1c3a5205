package planner

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/tools"
)

func TestPlanSchemaFromTheCatalog(t *testing.T) {
	s := PlanSchema(testCatalog(), Features{AllowAITransforms: true})
	var doc map[string]any
	if err := json.Unmarshal(s.JSON, &doc); err != nil || s.Name != "weft_plan" {
		t.Fatalf("%v %s", err, s.JSON)
	}
	text := string(s.JSON)
	for _, want := range []string{`"const":"run_command"`, `"const":"github.create_issue"`, `"ok_exit_codes"`, `"const":"AiTransform"`, `"Error"`, `"on_error"`} {
		if !strings.Contains(text, want) {
			t.Errorf("schema lacks %s", want)
		}
	}
	if strings.Contains(text, `"const":"AiStep"`) {
		t.Error("a disabled step type is in the schema")
	}
}

// With a server that enforces the schema, a model that would have
// rambled answers in shape: one call. With one that ignores it, the
// local layers and the re-ask do the work as before.
func TestPlanWithEnforcedSchema(t *testing.T) {
	broken := "You could run a command that counts the files, then log the count."
	for _, tc := range []struct {
		mode  string
		calls int
	}{{llmtest.StructuredEnforce, 1}, {llmtest.StructuredIgnore, 2}} {
		srv := llmtest.Start(t, llmtest.WithStructuredOutput(tc.mode), llmtest.WithSteps(
			llmtest.Step{Text: broken, Enforced: replyValidFlat},
			llmtest.Reply(replyValidFlat)))
		c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "m"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
		if err != nil {
			t.Fatal(err)
		}
		res, err := PlanWorkflow(context.Background(), c, "count my notes", Config{MaxRepairAttempts: 3, Catalog: tools.Builtin()})
		if err != nil || !res.Valid || srv.Calls() != tc.calls {
			t.Fatalf("%s: valid %v calls %d err %v", tc.mode, res.Valid, srv.Calls(), err)
		}
		if req, _ := srv.LastRequest(); req.ResponseFormat != "json_schema" || req.SchemaName != "weft_plan" {
			t.Errorf("%s: request format %q %q", tc.mode, req.ResponseFormat, req.SchemaName)
		}
	}
}
