package assistant

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/workflow"
)

// TestPromptTeachesTemplateQuoting: both the planner's prompt (empty
// workflow) and the patcher's say how templates behave in commands and
// URLs and what raw does.
func TestPromptTeachesTemplateQuoting(t *testing.T) {
	w := &workflow.Workflow{Format: workflow.Format, Nodes: []workflow.Node{{ID: "a", Key: "a", Type: workflow.TypeTool,
		Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}}}}
	for name, p := range map[string]string{
		"empty":    SystemPrompt(nil, tools.Builtin(), planner.Features{}, nil, ""),
		"existing": SystemPrompt(w, tools.Builtin(), planner.Features{}, nil, ""),
	} {
		for _, want := range []string{
			"In a command each is one quoted shell word",
			"in a url, one encoded segment or value",
			`"{{raw step.field}}" inserts it unquoted`,
			`"ok_exit_codes"`, `"on_error"`, `"done_when"`,
		} {
			if !strings.Contains(p, want) {
				t.Errorf("%s workflow: the prompt does not say %q", name, want)
			}
		}
	}
}
