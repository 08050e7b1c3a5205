package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/validate"
)

// scripted is a fake llm.Client: it answers from a script and records the
// conversation of every call.
type scripted struct {
	t       *testing.T
	replies []scriptedReply
	mu      sync.Mutex
	calls   [][]llm.Message
	// before runs at the start of call n (1-based), e.g. to cancel ctx.
	before func(n int)
}

type scriptedReply struct {
	text   string
	finish string // "" means "stop"
	usage  llm.Usage
	err    error
}

func (s *scripted) Chat(ctx context.Context, msgs []llm.Message, _ llm.Options) (llm.Reply, error) {
	s.mu.Lock()
	s.calls = append(s.calls, append([]llm.Message(nil), msgs...))
	n := len(s.calls)
	s.mu.Unlock()
	if s.before != nil {
		s.before(n)
	}
	if err := ctx.Err(); err != nil {
		return llm.Reply{}, err
	}
	if n > len(s.replies) {
		s.t.Errorf("unexpected call %d: the script has %d replies", n, len(s.replies))
		return llm.Reply{}, errors.New("script exhausted")
	}
	r := s.replies[n-1]
	if r.err != nil {
		return llm.Reply{}, r.err
	}
	finish := r.finish
	if finish == "" {
		finish = "stop"
	}
	return llm.Reply{Text: r.text, FinishReason: finish, Usage: r.usage}, nil
}

// lastUser returns the last user message of call n (1-based).
func (s *scripted) lastUser(n int) string {
	msgs := s.calls[n-1]
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == llm.RoleUser {
			return msgs[i].Content
		}
	}
	return ""
}

func answer(text string) scriptedReply { return scriptedReply{text: text} }

const (
	replyValidFlat = `{"steps": [
  {"id": "list", "step_type": "Tool", "name": "List notes", "tool_name": "list_files", "arguments": {"path": ".", "pattern": "*.txt"}},
  {"id": "report", "step_type": "Tool", "name": "Report count", "tool_name": "log", "arguments": {"message": "{{list.count}} notes"}}
]}`
	// replyTrailingComma needs the local repair stage and nothing else.
	replyTrailingComma = `{"steps": [
  {"id": "list", "step_type": "Tool", "name": "List notes", "tool_name": "list_files", "arguments": {"path": ".", "pattern": "*.txt"}},
  {"id": "report", "step_type": "Tool", "name": "Report count", "tool_name": "log", "arguments": {"message": "{{list.count}} notes"}},
]}`
	// replyIfOneBranch has an If with only its IfTrue edge.
	replyIfOneBranch = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt"}},
  {"id": "exists", "step_type": "If", "name": "File exists", "condition": "check.exit_code == 0"},
  {"id": "read", "step_type": "Tool", "name": "Read notes", "tool_name": "read_file", "arguments": {"path": "notes.txt"}}
],
"edges": [
  {"from": "check", "to": "exists"},
  {"from": "exists", "to": "read", "output": {"type": "IfTrue"}}
]}`
	// replyTwoIfs has two Ifs, each with only its IfTrue edge.
	replyTwoIfs = `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt"}},
  {"id": "exists", "step_type": "If", "name": "File exists", "condition": "check.exit_code == 0"},
  {"id": "read", "step_type": "Tool", "name": "Read notes", "tool_name": "read_file", "arguments": {"path": "notes.txt"}},
  {"id": "full", "step_type": "If", "name": "File has text", "condition": "read.content != \"\""},
  {"id": "show", "step_type": "Tool", "name": "Show notes", "tool_name": "log", "arguments": {"message": "{{read.content}}"}}
],
"edges": [
  {"from": "check", "to": "exists"},
  {"from": "exists", "to": "read", "output": {"type": "IfTrue"}},
  {"from": "read", "to": "full"},
  {"from": "full", "to": "show", "output": {"type": "IfTrue"}}
]}`
	replyProse = "I would first check whether the file exists and then read it."
)

func planWith(t *testing.T, cfg Config, replies ...scriptedReply) (*scripted, Result, error) {
	t.Helper()
	fake := &scripted{t: t, replies: replies}
	res, err := PlanWorkflow(context.Background(), fake, "read notes.txt if it exists", cfg)
	return fake, res, err
}

func TestPlanValidFirstTime(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || !res.Validated || res.LLMCalls != 1 || len(fake.calls) != 1 {
		t.Fatalf("valid=%v validated=%v calls=%d/%d, want a valid plan in 1 call", res.Valid, res.Validated, res.LLMCalls, len(fake.calls))
	}
	if len(res.Workflow.Nodes) != 2 || len(res.Attempts) != 1 || res.Attempts[0].Error != "" {
		t.Fatalf("nodes=%d attempts=%+v", len(res.Workflow.Nodes), res.Attempts)
	}
	msgs := fake.calls[0]
	if len(msgs) != 2 || msgs[0].Role != llm.RoleSystem || msgs[1].Role != llm.RoleUser ||
		!strings.Contains(msgs[1].Content, "read notes.txt if it exists") {
		t.Fatalf("first call should be system prompt + goal, got %+v", msgs)
	}
	if res.Workflow.Name != "read notes.txt if it exists" {
		t.Errorf("an unnamed plan is named after the goal, got %q", res.Workflow.Name)
	}
	if got := nameFromGoal("  " + strings.Repeat("long goal ", 20) + "\nsecond line"); len([]rune(got)) != maxNameRunes || !strings.HasSuffix(got, "…") {
		t.Errorf("nameFromGoal = %q", got)
	}
	if !strings.Contains(res.Summary, "first call") {
		t.Errorf("summary %q", res.Summary)
	}
}

func TestPlanBrokenJSONRepairedLocally(t *testing.T) {
	_, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(replyTrailingComma))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 1 {
		t.Fatalf("valid=%v calls=%d, want the local repair to save a call; attempts %+v", res.Valid, res.LLMCalls, res.Attempts)
	}
	if len(WarningsOf(res.Warnings, StageRepair)) == 0 {
		t.Fatalf("want a repair warning, got %+v", res.Warnings)
	}
}

func TestPlanTruncatedReplyIsReasked(t *testing.T) {
	cut := replyValidFlat[:len(replyValidFlat)/2]
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3},
		scriptedReply{text: cut, finish: "length"}, answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 2 || len(res.Attempts) != 2 {
		t.Fatalf("valid=%v calls=%d attempts=%+v, want valid on call 2", res.Valid, res.LLMCalls, res.Attempts)
	}
	if !strings.Contains(res.Attempts[0].Error, "cut off") {
		t.Errorf("attempt 1 error %q should say the reply was cut off", res.Attempts[0].Error)
	}
	reask := fake.lastUser(2)
	for _, want := range []string{"cut off at the length limit", "shorter plan", "fewer steps", "no prose"} {
		if !strings.Contains(reask, want) {
			t.Errorf("re-ask lacks %q:\n%s", want, reask)
		}
	}
	// The cut-off text does not go back: the re-ask is the first
	// request plus its feedback.
	msgs := fake.calls[1]
	if len(msgs) != len(fake.calls[0])+1 || strings.Contains(msgs[len(msgs)-1].Content, cut) {
		t.Errorf("the re-ask should be the first request plus its feedback, got %d messages", len(msgs))
	}
}

func TestPlanTruncatedReplyNeverUsedEvenIfItParses(t *testing.T) {
	// A complete-looking reply with finish_reason "length" is not trusted.
	_, res, err := planWith(t, Config{MaxRepairAttempts: 1}, scriptedReply{text: replyValidFlat, finish: "length"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || res.Workflow != nil || res.LLMCalls != 1 {
		t.Fatalf("valid=%v workflow=%v calls=%d: a truncated reply must not be used", res.Valid, res.Workflow != nil, res.LLMCalls)
	}
}

func TestPlanIfMissingBranchFixedOnSecondCall(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(replyIfOneBranch), answer(exampleIf))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 2 {
		t.Fatalf("valid=%v calls=%d attempts=%+v", res.Valid, res.LLMCalls, res.Attempts)
	}
	if !strings.Contains(res.Attempts[0].Error, validate.CodeIfMissingBranch) {
		t.Errorf("attempt 1 error %q should name the problem", res.Attempts[0].Error)
	}
	reask := fake.lastUser(2)
	for _, want := range []string{validate.CodeIfMissingBranch, "'File exists'", `step "exists"`} {
		if !strings.Contains(reask, want) {
			t.Errorf("re-ask lacks %q:\n%s", want, reask)
		}
	}
	if strings.Contains(reask, "A correct example") || strings.Contains(reask, "last attempt") {
		t.Errorf("the first re-ask of 3 carries neither an example nor the simplified request:\n%s", reask)
	}
	msgs := fake.calls[1]
	if len(msgs) != 3 || msgs[2].Role != llm.RoleUser || msgs[1].Content != fake.calls[0][1].Content {
		t.Errorf("call 2 should be the first request plus its feedback, got %d messages", len(msgs))
	}
}

func TestPlanAlwaysInvalidGivesBestDraft(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 3},
		answer(replyTwoIfs), answer(replyIfOneBranch), answer(replyTwoIfs))
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || res.LLMCalls != 3 || len(fake.calls) != 3 || len(res.Attempts) != 3 {
		t.Fatalf("valid=%v calls=%d/%d attempts=%d, want 3 failed attempts", res.Valid, res.LLMCalls, len(fake.calls), len(res.Attempts))
	}
	// The best draft is attempt 2 (one error, not two), marked invalid.
	if res.Workflow == nil || len(res.Workflow.Nodes) != 3 {
		t.Fatalf("want attempt 2's draft, got %+v", res.Workflow)
	}
	if n := countErrors(res.Problems); n != 1 {
		t.Errorf("best draft has %d errors, want 1: %+v", n, res.Problems)
	}
	if !strings.Contains(res.Summary, "INVALID") || !strings.Contains(res.Summary, "attempt 2") {
		t.Errorf("summary %q should say the best draft (attempt 2) is invalid", res.Summary)
	}
	// Re-ask 1 lists every problem; re-ask 2 (the final one) adds an example
	// and asks for the simplest linear plan.
	first := fake.lastUser(2)
	if strings.Count(first, validate.CodeIfMissingBranch) != 2 || !strings.Contains(first, "'File has text'") {
		t.Errorf("re-ask 1 should list both problems:\n%s", first)
	}
	final := fake.lastUser(3)
	for _, want := range []string{"A correct example of an If", `"type": "IfFalse"`, "last attempt", "simplest linear plan"} {
		if !strings.Contains(final, want) {
			t.Errorf("final re-ask lacks %q:\n%s", want, final)
		}
	}
	if len(fake.calls[2]) != 3 {
		t.Errorf("call 3 should carry 3 messages (system, goal, the last feedback), got %d", len(fake.calls[2]))
	}
}

func TestPlanSecondReaskHasExampleBeforeFinal(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 4},
		answer(replyProse), answer(replyIfOneBranch), answer(replyIfOneBranch), answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Valid || res.LLMCalls != 4 {
		t.Fatalf("valid=%v calls=%d", res.Valid, res.LLMCalls)
	}
	if r := fake.lastUser(2); strings.Contains(r, "A correct example") || !strings.Contains(r, StageExtract) {
		t.Errorf("re-ask 1 should quote the extract failure, without an example:\n%s", r)
	}
	if r := fake.lastUser(3); !strings.Contains(r, "A correct example of an If") || strings.Contains(r, "last attempt") {
		t.Errorf("re-ask 2 of 3 should carry the If example and not yet the simplified request:\n%s", r)
	}
	if r := fake.lastUser(4); !strings.Contains(r, "simplest linear plan") {
		t.Errorf("the final re-ask should ask for the simplest linear plan:\n%s", r)
	}
}

func TestPlanMaxZeroSkipsValidation(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 0}, answer(replyIfOneBranch))
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) != 1 || res.LLMCalls != 1 {
		t.Fatalf("calls=%d, want 1", len(fake.calls))
	}
	if !res.Valid || res.Validated || len(res.Problems) != 0 || res.Workflow == nil {
		t.Fatalf("valid=%v validated=%v problems=%v: max 0 parses but does not validate", res.Valid, res.Validated, res.Problems)
	}
	if !strings.Contains(res.Summary, "not validated") {
		t.Errorf("summary %q should say the plan was not validated", res.Summary)
	}
}

func TestPlanMaxZeroStillParses(t *testing.T) {
	_, res, err := planWith(t, Config{MaxRepairAttempts: 0}, answer(replyProse))
	if err != nil {
		t.Fatal(err)
	}
	if res.Valid || res.Workflow != nil || res.LLMCalls != 1 || res.Attempts[0].Error == "" {
		t.Fatalf("valid=%v workflow=%v attempts=%+v: unparsable reply must be reported", res.Valid, res.Workflow != nil, res.Attempts)
	}
}

func TestPlanMaxOneValidatesWithoutRetry(t *testing.T) {
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 1}, answer(replyIfOneBranch))
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) != 1 || res.Valid || !res.Validated || res.Workflow == nil || countErrors(res.Problems) == 0 {
		t.Fatalf("calls=%d valid=%v validated=%v problems=%+v", len(fake.calls), res.Valid, res.Validated, res.Problems)
	}
}

func TestPlanClampsMaxAttempts(t *testing.T) {
	replies := make([]scriptedReply, 10)
	for i := range replies {
		replies[i] = answer(replyIfOneBranch)
	}
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 99, TokenBudget: 1 << 30}, replies...)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) != MaxRepairAttemptsLimit || res.Valid {
		t.Fatalf("calls=%d, want the cap of %d", len(fake.calls), MaxRepairAttemptsLimit)
	}
}

func TestPlanTokenBudgetStopsEarly(t *testing.T) {
	big := llm.Usage{PromptTokens: 24_000, CompletionTokens: 1_000, TotalTokens: 25_000}
	for _, tc := range []struct {
		budget, wantCalls int
	}{
		{40_000, 1}, // a second call would overrun
		{60_000, 2},
	} {
		t.Run(fmt.Sprint(tc.budget), func(t *testing.T) {
			replies := []scriptedReply{{text: replyIfOneBranch, usage: big}, {text: replyIfOneBranch, usage: big}, {text: replyIfOneBranch, usage: big}}
			fake, res, err := planWith(t, Config{MaxRepairAttempts: 5, TokenBudget: tc.budget}, replies...)
			if err != nil {
				t.Fatal(err)
			}
			if len(fake.calls) != tc.wantCalls || res.Valid {
				t.Fatalf("calls=%d, want %d", len(fake.calls), tc.wantCalls)
			}
			if !strings.Contains(res.Summary, "token budget") || res.Workflow == nil {
				t.Errorf("summary %q should name the token budget, with the draft kept", res.Summary)
			}
			if res.Usage.TotalTokens != 25_000*tc.wantCalls {
				t.Errorf("usage %+v", res.Usage)
			}
		})
	}
}

func TestPlanTokenBudgetCountsUnreportedUsage(t *testing.T) {
	// A server that reports no usage is charged an estimate.
	long := answer(replyIfOneBranch + strings.Repeat(" ", 40_000))
	fake, res, err := planWith(t, Config{MaxRepairAttempts: 5, TokenBudget: 15_000}, long, long, long)
	if err != nil {
		t.Fatal(err)
	}
	if len(fake.calls) >= 3 || !strings.Contains(res.Summary, "token budget") {
		t.Fatalf("calls=%d summary=%q", len(fake.calls), res.Summary)
	}
}

func TestPlanCancelledMidLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fake := &scripted{t: t, replies: []scriptedReply{answer(replyIfOneBranch), answer(replyValidFlat)}}
	fake.before = func(n int) {
		if n == 2 {
			cancel()
		}
	}
	res, err := PlanWorkflow(ctx, fake, "goal", Config{MaxRepairAttempts: 3})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.LLMCalls != 1 || len(res.Attempts) != 1 || res.Valid {
		t.Fatalf("calls=%d attempts=%+v valid=%v", res.LLMCalls, res.Attempts, res.Valid)
	}
}

func TestPlanCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fake := &scripted{t: t}
	_, err := PlanWorkflow(ctx, fake, "goal", Config{MaxRepairAttempts: 3})
	if !errors.Is(err, context.Canceled) || len(fake.calls) != 0 {
		t.Fatalf("err=%v calls=%d", err, len(fake.calls))
	}
}

func TestPlanTransportErrorIsNotAnAttempt(t *testing.T) {
	down := &llm.Error{Kind: llm.ErrUnreachable, Endpoint: "http://127.0.0.1:1", Reason: "connection refused"}
	t.Run("first call", func(t *testing.T) {
		fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, scriptedReply{err: down})
		if !errors.Is(err, llm.ErrUnreachable) {
			t.Fatalf("err = %v, want ErrUnreachable", err)
		}
		if len(fake.calls) != 1 || res.LLMCalls != 0 || len(res.Attempts) != 0 {
			t.Fatalf("calls=%d llm_calls=%d attempts=%+v: a transport error is not retried nor counted", len(fake.calls), res.LLMCalls, res.Attempts)
		}
	})
	t.Run("during a re-ask", func(t *testing.T) {
		fake, res, err := planWith(t, Config{MaxRepairAttempts: 3}, answer(replyIfOneBranch), scriptedReply{err: down})
		if !errors.Is(err, llm.ErrUnreachable) {
			t.Fatalf("err = %v", err)
		}
		if len(fake.calls) != 2 || res.LLMCalls != 1 || len(res.Attempts) != 1 {
			t.Fatalf("calls=%d llm_calls=%d attempts=%+v", len(fake.calls), res.LLMCalls, res.Attempts)
		}
	})
}

func TestPlanConfigErrors(t *testing.T) {
	if _, err := PlanWorkflow(context.Background(), nil, "goal", Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("nil client: %v", err)
	}
	if _, err := PlanWorkflow(context.Background(), &scripted{t: t}, "  ", Config{}); !errors.Is(err, ErrConfig) {
		t.Errorf("empty goal: %v", err)
	}
}

func TestPlanProgressEvents(t *testing.T) {
	var got []string
	cfg := Config{MaxRepairAttempts: 3, OnProgress: func(e Event) {
		got = append(got, fmt.Sprintf("%s %d/%d", e.Kind, e.Attempt, e.Max))
	}}
	_, _, err := planWith(t, cfg, answer(replyIfOneBranch), answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	want := "calling 1/3, repairing 2/3, calling 2/3, done 2/3"
	if strings.Join(got, ", ") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, ", "), want)
	}
}

func TestPlanFeedbackListsDroppedParts(t *testing.T) {
	// An AiStep while agent steps are off is dropped by the features stage;
	// the re-ask must say so, so the model can restore the intent.
	withAgent := `{"nodes": [
  {"id": "check", "step_type": "Tool", "name": "Check file", "tool_name": "run_command", "arguments": {"command": "test -f notes.txt"}},
  {"id": "exists", "step_type": "If", "name": "File exists", "condition": "check.exit_code == 0"},
  {"id": "agent", "step_type": "AiStep", "name": "Tidy notes", "prompt": "tidy notes.txt", "allowed_tools": ["read_file"], "max_tool_calls": 3}
],
"edges": [
  {"from": "check", "to": "exists"},
  {"from": "exists", "to": "agent", "output": {"type": "IfTrue"}}
]}`
	fake, _, err := planWith(t, Config{MaxRepairAttempts: 2}, answer(withAgent), answer(replyValidFlat))
	if err != nil {
		t.Fatal(err)
	}
	reask := fake.lastUser(2)
	if !strings.Contains(reask, "["+StageFeatures+"]") || !strings.Contains(reask, "put it back") {
		t.Errorf("re-ask should list what the features stage dropped:\n%s", reask)
	}
}

func countErrors(ps []validate.Problem) int {
	n := 0
	for _, p := range ps {
		if p.Severity == validate.SeverityError {
			n++
		}
	}
	return n
}
