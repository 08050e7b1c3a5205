package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/expression/exprtest"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

// A template nested past the bounds of every expression, in every kind of
// text a step renders: half a million levels killed `weft run` with a
// stack overflow. Run refuses the file (validate's bad_template); a step
// run on its own (as the Temporal engine does, without validating again)
// fails with an argument error that names the bound and is not retried;
// the deepest nesting that fits runs.
func TestTemplateBoundsAtRunTime(t *testing.T) {
	const core = "count.exit_code"
	vars := map[string]any{"count": map[string]any{"exit_code": 0.0}}
	e := newEnv(t)
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Reply("counted")))
	m, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.LLM = m
	for i, c := range exprtest.Nesters {
		n := c.Deepest(core, core)
		tries := []int{n, n + 1}
		if i < 2 { // copying a workflow of megabytes takes time: validate and render try them all
			tries = append(tries, exprtest.Huge)
		}
		for _, pl := range exprtest.Places {
			for _, levels := range tries {
				w := &workflow.Workflow{Format: workflow.Format, ID: "w", Nodes: []workflow.Node{
					{ID: "count", Key: "count", Type: workflow.TypeTool, Params: workflow.Params{Tool: "run_command", Arguments: map[string]any{"command": "true"}}},
					pl.Node("report", "{{"+c.Place(core, core, levels)+"}}"),
				}, Edges: []workflow.Edge{{From: "count", To: "report"}}}
				name := c.Name + " in " + pl.Name
				_, err = New(e.opts).Run(t.Context(), w)
				var ie *InvalidError
				if levels > n && (!errors.As(err, &ie) || !strings.Contains(err.Error(), validate.CodeBadTemplate)) {
					t.Fatalf("%s at %d levels: Run: %.300v", name, levels, err)
				}
				res, err := New(e.opts).Step(t.Context(), w, "report", vars, Attempt{Number: 1})
				if err != nil {
					t.Fatalf("%s at %d levels: Step: %v", name, levels, err)
				}
				fr := res.Failure
				if levels == n {
					if fr != nil && fr.Category == failure.CatValidation {
						t.Errorf("%s at %d levels (the most that fit): %s", name, levels, fr.Error)
					}
					continue
				}
				switch {
				case fr == nil:
					t.Errorf("%s at %d levels: the step ran", name, levels)
				case fr.Retryable || fr.Category != failure.CatValidation || len(fr.Error) > 600 ||
					!strings.Contains(fr.Error, "an expression may") || !strings.Contains(fr.Error, "{{count.exit_code == nil"):
					t.Errorf("%s at %d levels: %s (%s, retryable %v)", name, levels, fr.Error, fr.Category, fr.Retryable)
				}
			}
		}
	}
}
