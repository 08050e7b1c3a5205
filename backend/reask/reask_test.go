package reask_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/assistant"
	"github.com/weft-dev/weft/backend/critic"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/planner"
	"github.com/weft-dev/weft/backend/reask"
	"github.com/weft-dev/weft/backend/workflow"
)

// unusable answers every call with a reply no judge can use, and keeps
// what it was sent.
type unusable struct {
	mu    sync.Mutex
	calls int
	last  []llm.Message
}

func (u *unusable) Chat(_ context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.calls++
	u.last = msgs
	return llm.Reply{Text: "I would rather not say."}, nil
}

// Each judge, in the one loop, honours max_repair_attempts the same way:
// N is up to N calls in all (0 and 1 are one call), capped at the
// setting's limit; every re-ask is worded the same way.
func TestEveryJudgeHonoursTheSetting(t *testing.T) {
	judges := map[string]func(c llm.Client, n int) error{
		"planner": func(c llm.Client, n int) error {
			_, err := planner.PlanWorkflow(context.Background(), c, "back up my notes", planner.Config{MaxRepairAttempts: n})
			return err
		},
		"assistant": func(c llm.Client, n int) error {
			w := workflow.New("notes")
			w.Nodes = append(w.Nodes, workflow.Node{ID: "a", Key: "a", Type: workflow.TypeTool, Params: workflow.Params{Tool: "log", Arguments: map[string]any{"message": "hi"}}})
			// A change that stays invalid: the assistant asks again.
			_, err := assistant.Chat(context.Background(), &patchThenProse{c: c}, assistant.Request{Workflow: w, Message: "add a step"}, assistant.Config{MaxRepairAttempts: n})
			return err
		},
		"critic": func(c llm.Client, n int) error {
			_, err := critic.Check(context.Background(), c, critic.Input{Criteria: "done"}, n)
			if errors.Is(err, critic.ErrNoVerdict) {
				return nil
			}
			return err
		},
	}
	for name, ask := range judges {
		for _, n := range []int{0, 1, 2, 3, 5, 10, 11, 99} {
			u := &unusable{}
			if err := ask(u, n); err != nil {
				t.Fatalf("%s, max_repair_attempts %d: %v", name, n, err)
			}
			if want := reask.Calls(n); u.calls != want {
				t.Errorf("%s, max_repair_attempts %d: %d calls, want %d", name, n, u.calls, want)
			}
			if u.calls > 1 {
				if re := u.last[len(u.last)-1].Content; !strings.HasPrefix(re, "Your reply (attempt ") {
					t.Errorf("%s re-asks in its own words: %q", name, re)
				}
			}
		}
	}
}

// patchThenProse answers with an invalid patch (an edge to a node that
// does not exist), so the assistant's judge has something to re-ask about.
type patchThenProse struct{ c llm.Client }

func (p *patchThenProse) Chat(ctx context.Context, msgs []llm.Message, o llm.Options) (llm.Reply, error) {
	if _, err := p.c.Chat(ctx, msgs, o); err != nil {
		return llm.Reply{}, err
	}
	return llm.Reply{Text: `{"kind":"patch","message":"done","patch":{"added_edges":[{"from":"a","to":"nowhere"}]}}`}, nil
}

func TestCallsAndValidates(t *testing.T) {
	for n, want := range map[int]int{-3: 1, 0: 1, 1: 1, 2: 2, 10: 10, 11: 10} {
		if got := reask.Calls(n); got != want {
			t.Errorf("Calls(%d) = %d, want %d", n, got, want)
		}
	}
	if reask.Validates(0) || !reask.Validates(1) {
		t.Error("only 0 skips validation")
	}
}

func TestTransportErrorIsNotAnAttempt(t *testing.T) {
	run, err := reask.Ask(context.Background(), failing{}, nil, reask.Config{MaxRepairAttempts: 3}, func(int, llm.Reply, []llm.Message) reask.Verdict {
		t.Fatal("a failed call was judged")
		return reask.Verdict{}
	})
	if err == nil || run.Calls != 0 {
		t.Fatalf("run %+v err %v", run, err)
	}
}

type failing struct{}

func (failing) Chat(context.Context, []llm.Message, llm.Options) (llm.Reply, error) {
	return llm.Reply{}, errors.New("connection refused")
}

// bigReplies answers every call with a long unusable reply and keeps every
// request.
type bigReplies struct {
	mu   sync.Mutex
	reqs [][]llm.Message
}

func (b *bigReplies) Chat(_ context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.reqs = append(b.reqs, append([]llm.Message(nil), msgs...))
	return llm.Reply{Text: `{"steps": [` + strings.Repeat(`{"id": "x", "tool_name": "nope"}, `, 300) + `{"id": "y"`}, nil
}

// TestReaskAddsOnlyTheFeedback: whatever the replies held and however many
// came before, a re-ask is the first request plus one message, the
// feedback on the last reply, for each judge.
func TestReaskAddsOnlyTheFeedback(t *testing.T) {
	size := func(msgs []llm.Message) int {
		n := 0
		for _, m := range msgs {
			n += len(m.Content)
		}
		return n
	}
	judges := map[string]func(c llm.Client){
		"planner": func(c llm.Client) {
			_, _ = planner.PlanWorkflow(context.Background(), c, "back up my notes", planner.Config{MaxRepairAttempts: 4})
		},
		"critic": func(c llm.Client) { _, _ = critic.Check(context.Background(), c, critic.Input{Criteria: "done"}, 4) },
	}
	for name, ask := range judges {
		b := &bigReplies{}
		ask(b)
		if len(b.reqs) < 3 {
			t.Fatalf("%s: %d calls, want re-asks", name, len(b.reqs))
		}
		first := b.reqs[0]
		for i, req := range b.reqs[1:] {
			if len(req) != len(first)+1 || req[len(req)-1].Role != llm.RoleUser {
				t.Errorf("%s: re-ask %d has %d messages, want the first %d and the feedback", name, i+1, len(req), len(first))
				continue
			}
			for k := range first {
				if req[k].Role != first[k].Role || req[k].Content != first[k].Content {
					t.Errorf("%s: re-ask %d changed message %d of the first request", name, i+1, k)
				}
			}
			if fb := len(req[len(req)-1].Content); size(req)-size(first) != fb || fb > 8<<10 {
				t.Errorf("%s: re-ask %d adds %d bytes, its feedback is %d", name, i+1, size(req)-size(first), fb)
			}
		}
	}
}
