package service

import (
	"context"
	"errors"
	"testing"

	"github.com/weft-dev/weft/backend/critic"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/settings"
)

// Settings become the model side's configuration in one place: every
// repair bound is the setting within its range, for the planner and the
// goal check alike, and the features are the settings'.
func TestAIIsTheSettings(t *testing.T) {
	svc := New(Deps{Settings: func() (settings.Settings, []string, error) { return settings.Defaults(), nil, nil }})
	for _, n := range []int{-5, -1, 0, 1, 3, settings.MaxRepairAttempts, settings.MaxRepairAttempts + 1, 1 << 30} {
		for _, ai := range []bool{false, true} {
			st := settings.Defaults()
			st.LLM.Model = "m"
			st.MaxRepairAttempts = n
			st.Features.AllowAITransforms, st.Features.AllowAgentSteps = ai, !ai
			got := svc.AI(st)
			want := min(max(n, settings.MinRepairAttempts), settings.MaxRepairAttempts)
			if got.MaxRepairAttempts != want {
				t.Errorf("max_repair_attempts %d: AI says %d, want %d", n, got.MaxRepairAttempts, want)
			}
			if cfg := got.Planner(nil, nil); cfg.MaxRepairAttempts != want || cfg.Features != got.Features || cfg.Model != "m" {
				t.Errorf("max_repair_attempts %d: planner config %+v", n, cfg)
			}
			if got.Features.AllowAITransforms != ai || got.Features.AllowAgentSteps == ai {
				t.Errorf("features %+v from %+v", got.Features, st.Features)
			}
			var o runner.Options
			got.Engine(nil, &o)
			if o.Critic != nil || o.LLM != nil || o.Settings.MaxRepairAttempts != n {
				t.Errorf("no client: options %+v", o)
			}
			client := llm.Client(&llm.OpenAI{})
			got.Engine(client, &o)
			if c, ok := o.Critic.(*critic.Critic); !ok || c.Client != client || c.MaxRepairs != want || o.LLM != client {
				t.Errorf("max_repair_attempts %d: critic %+v", n, o.Critic)
			}
		}
	}
}

// The clients a Service makes share its circuit breakers: once an
// endpoint failed enough in a row, the next client of the same Service
// fails fast without asking it; another Service's client still asks.
func TestAIClientsShareTheServicesBreaker(t *testing.T) {
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Fault(500, "down")))
	st := settings.Defaults()
	st.LLM.BaseURL, st.LLM.Model = srv.URL, "m"
	newSvc := func() *Service {
		return New(Deps{Settings: func() (settings.Settings, []string, error) { return st, nil, nil },
			LLMOptions: []llm.Option{llm.WithRetry(llm.RetryPolicy{MaxRetries: -1})}})
	}
	svc := newSvc()
	ask := func(s *Service) error {
		c, err := s.Client(st)
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Chat(context.Background(), []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, llm.Options{})
		return err
	}
	for i := 0; i < llm.DefaultBreakerSettings().Failures; i++ {
		if err := ask(svc); err == nil || errors.Is(err, llm.ErrCircuitOpen) {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	calls := srv.Calls()
	if err := ask(svc); !errors.Is(err, llm.ErrCircuitOpen) || srv.Calls() != calls {
		t.Fatalf("a new client of the same Service: %v (%d → %d calls)", err, calls, srv.Calls())
	}
	if err := ask(newSvc()); errors.Is(err, llm.ErrCircuitOpen) || srv.Calls() != calls+1 {
		t.Fatalf("another Service's client: %v (%d → %d calls)", err, calls, srv.Calls())
	}
}
