package service

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/weft-dev/weft/backend/critic"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
)

// ErrNoModel is what Plan and Chat return when the settings name no
// model; each door says where to set one.
var ErrNoModel = errors.New("no model is configured")

// AI is what the settings make of the model side, in one place: the
// client's configuration and options, the planner's features, the repair
// bound and the tools the model is offered. Planning, chatting, replanning
// and the goal check (both engines) all take theirs from here.
type AI struct {
	Settings settings.Settings
	// LLM is the client's configuration (LLMConfig).
	LLM llm.Config
	// Options go to every client: the Service's circuit-breaker registry
	// (one per Service, so one per window or command), the memory of the
	// server's structured-output form, the secrets it must never send and
	// the door's own (Deps.LLMOptions).
	Options []llm.Option
	// Features gate the AI step types a model may propose.
	Features planner.Features
	// MaxRepairAttempts is the setting, within its range
	// (settings.MinRepairAttempts–settings.MaxRepairAttempts).
	MaxRepairAttempts int
	// Catalog lists the tools the model is offered: the built-ins and
	// the configured MCP servers' (listed, and cached, when first asked).
	Catalog func(context.Context) *tools.Catalog
	// Logger is the door's logger (nil: slog.Default()).
	Logger *slog.Logger
}

// AI turns the settings into the model side's configuration, with this
// Service's breakers, MCP catalog and logger.
func (s *Service) AI(st settings.Settings) AI {
	ai := aiOf(st, s.deps.Logger)
	ai.Options = append([]llm.Option{llm.WithBreakerRegistry(s.breakers)}, ai.Options...)
	ai.Options = append(ai.Options, s.deps.LLMOptions...)
	ai.Catalog = func(ctx context.Context) *tools.Catalog { return s.catalogFor(ctx, st, nil, "") }
	return ai
}

// aiOf is the one place settings become the model side's configuration;
// the Service adds what it owns (AI). The catalog is the built-ins until
// then.
func aiOf(st settings.Settings, log *slog.Logger) AI {
	opts := []llm.Option{llm.WithSecrets(st.Secrets()...)}
	if m := FormatMemory(); m != nil {
		opts = append(opts, llm.WithFormatMemory(m))
	}
	return AI{
		Settings:          st,
		LLM:               LLMConfig(st.LLM),
		Options:           opts,
		Features:          planner.Features{AllowAITransforms: st.Features.AllowAITransforms, AllowAgentSteps: st.Features.AllowAgentSteps},
		MaxRepairAttempts: min(max(st.MaxRepairAttempts, settings.MinRepairAttempts), settings.MaxRepairAttempts),
		Catalog:           func(context.Context) *tools.Catalog { return tools.Builtin() },
		Logger:            log,
	}
}

// Client is the model client of st, extra options after the Service's
// (nil, nil when st names no model): the client of a Temporal worker's
// AI steps and goal checks, as of a local run's.
func (s *Service) Client(st settings.Settings, extra ...llm.Option) (llm.Client, error) {
	return s.client(st, extra...)
}

// HasModel says whether the settings name a model.
func (ai AI) HasModel() bool { return strings.TrimSpace(ai.LLM.Model) != "" }

// NewClient is a model client for ai's endpoint with extra options (a
// door's progress of one call) after ai's.
func (ai AI) NewClient(extra ...llm.Option) (*llm.OpenAI, error) {
	return llm.New(ai.LLM, append(append([]llm.Option{}, ai.Options...), extra...)...)
}

// Planner is the planner's configuration: features, repair bound, the
// model's name for the repair memory, the repair memory and the failure
// patterns learned at run time. onProgress may be nil.
func (ai AI) Planner(catalog *tools.Catalog, onProgress func(planner.Event)) planner.Config {
	cfg := planner.Config{
		MaxRepairAttempts: ai.MaxRepairAttempts,
		Features:          ai.Features,
		Catalog:           catalog,
		Model:             ai.LLM.Model,
		Logger:            ai.Logger,
		OnProgress:        onProgress,
	}
	if mem, err := planner.DefaultMemory(); err == nil {
		if ai.Logger != nil {
			mem.Log = ai.Logger
		}
		cfg.Memory = mem
	} else if ai.Logger != nil {
		ai.Logger.Warn("repair memory unavailable; planning without it", "error", err)
	}
	if pats, err := failure.DefaultPatternStore(); err == nil {
		cfg.Patterns = pats // failures seen at run time: the prompt's "Known failure patterns"
	}
	return cfg
}

// Engine sets the model side of a run's options, for either engine (a
// local run, a Temporal worker's steps): the settings, the client of the
// AI steps and the goal check (done_when criteria) with the same client
// and repair bound. client nil: no AI steps, no goal check by a model.
func (ai AI) Engine(client llm.Client, o *runner.Options) {
	o.Settings = ai.Settings
	o.LLM = client
	o.Critic = nil
	if client != nil {
		o.Critic = &critic.Critic{Client: client, MaxRepairs: ai.MaxRepairAttempts}
	}
}
