package service

import (
	"context"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
)

// PlanRequest is a workflow to plan from a goal.
type PlanRequest struct {
	Goal string
	// Path, when set, is the workflow's file: when it has test cases,
	// they are played against the plan (proposalCheck), which is asked
	// again when it errors under them.
	Path string
	// OnProgress, when set, hears when each call starts and why a reply
	// is asked again.
	OnProgress func(planner.Event)
	// LLMOptions are this call's client options (a door's account of a
	// long wait); ChatOptions go with every model call (streamed deltas).
	LLMOptions  []llm.Option
	ChatOptions llm.Options
}

// Plan asks the configured model for a workflow that reaches req.Goal,
// with the planner's prompt and loop: the catalog with the MCP servers'
// tools, the repair memory, the failure patterns seen at run time, the
// token budget and the repair bound of the settings. The desktop (a chat
// on an empty workflow) and `weft plan` both plan here. A plan that stays
// invalid is not an error (planner.PlanWorkflow).
func (s *Service) Plan(ctx context.Context, req PlanRequest) (planner.Result, error) {
	st, _, err := s.settings()
	if err != nil {
		return planner.Result{}, err
	}
	ai := s.AI(st)
	if !ai.HasModel() {
		return planner.Result{}, ErrNoModel
	}
	return s.plan(ctx, ai, req)
}

func (s *Service) plan(ctx context.Context, ai AI, req PlanRequest) (planner.Result, error) {
	client, err := s.client(ai.Settings, req.LLMOptions...)
	if err != nil {
		return planner.Result{}, err
	}
	cfg := ai.Planner(ai.Catalog(ctx), req.OnProgress)
	cfg.ChatOptions = req.ChatOptions
	cfg.Check = s.proposalCheck(req.Path, nil)
	return planner.PlanWorkflow(ctx, client, req.Goal, cfg)
}
