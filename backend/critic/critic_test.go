package critic

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, reply string
		approved    bool
		confidence  float64
		feedback    string
		suggestions int
		wantErr     string
	}{
		{"plain", `{"approved": true, "confidence": 0.9, "feedback": "all good", "suggestions": []}`, true, 0.9, "all good", 0, ""},
		{"prose and fence", "Sure!\n```json\n{\"approved\": false, \"confidence\": 0.7, \"feedback\": \"coverage is 62%\", \"suggestions\": [\"add tests for parser.go\"]}\n```\nHope this helps", false, 0.7, "coverage is 62%", 1, ""},
		{"think block", `<think>{"approved": true}</think>{"approved": false, "confidence": 0.6, "feedback": "no"}`, false, 0.6, "no", 0, ""},
		{"words and percent", `{"verdict": "Rejected", "confidence": "80%", "reason": "missing file", "suggestions": "write the file first"}`, false, 0.8, "missing file", 1, ""},
		{"yes string and 0-100", `{"approved": "yes", "confidence": 95}`, true, 0.95, "", 0, ""},
		{"repairable", `{approved: false, 'confidence': 0.5, feedback: "cut off`, false, 0.5, "cut off", 0, ""},
		{"no confidence", `{"approved": false}`, false, 0.5, "The model rejected the result without saying why.", 0, ""},
		{"no approved", `{"confidence": 0.5, "feedback": "hmm"}`, false, 0, "", 0, `no "approved"`},
		{"no json", `I think it is fine.`, false, 0, "", 0, "no JSON"},
		{"bad confidence", `{"approved": true, "confidence": "NaN"}`, true, 0.5, "", 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, _, err := Decode(tc.reply)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %+v, %v; want error %q", v, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v.Approved != tc.approved || v.Confidence != tc.confidence || v.Feedback != tc.feedback || len(v.Suggestions) != tc.suggestions {
				t.Errorf("got %+v", v)
			}
		})
	}
}

func client(t *testing.T, steps ...llmtest.Step) (llm.Client, *llmtest.Server) {
	srv := llmtest.Start(t, llmtest.WithSteps(steps...))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestCheckReasksThenGivesUp(t *testing.T) {
	c, srv := client(t, llmtest.Reply("no idea"), llmtest.Reply(`{"approved": true, "confidence": 1}`))
	v, err := Check(context.Background(), c, Input{Goal: "g", Criteria: "c", Plan: "p", Results: "r"}, 3)
	if err != nil || !v.Approved || srv.Calls() != 2 || len(v.Repairs) == 0 {
		t.Fatalf("%+v %v calls=%d", v, err, srv.Calls())
	}
	if last, _ := srv.LastRequest(); !strings.Contains(last.LastUser(), "could not be used") {
		t.Errorf("re-ask %q", last.LastUser())
	}

	// max_repair_attempts N is up to N calls in all, as for plans and
	// patches (0 is still one call: a verdict cannot go unread).
	for n, want := range map[int]int{0: 1, 1: 1, 2: 2, 4: 4} {
		c, srv = client(t, llmtest.Reply("a"), llmtest.Reply("b"), llmtest.Reply("c"), llmtest.Reply("d"), llmtest.Reply("e"))
		_, err = Check(context.Background(), c, Input{Criteria: "c"}, n)
		if !errors.Is(err, ErrNoVerdict) || srv.Calls() != want {
			t.Fatalf("max_repair_attempts %d: %v calls=%d, want %d", n, err, srv.Calls(), want)
		}
	}
	if _, err := Check(context.Background(), nil, Input{}, 1); err == nil || !strings.Contains(err.Error(), "needs a model") {
		t.Errorf("nil client: %v", err)
	}
}

func TestPromptIsBounded(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	p := Prompt(Input{Goal: huge, Criteria: huge, Plan: huge, Results: huge})
	if len(p) > MaxGoal+MaxCriteria+MaxPlan+MaxResults+1000 {
		t.Fatalf("prompt is %d bytes", len(p))
	}
	if !strings.Contains(p, "more bytes not shown") {
		t.Error("cut parts must say so")
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"approved": true}`, `{"verdict":"no","confidence":"1e400%"}`, "```{approved:", `{"suggestions":[1,{"a":2}],"approved":"yes"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, _, err := Decode(s)
		if err == nil && (v.Confidence < 0 || v.Confidence > 1 || len(v.Suggestions) > MaxSuggestions || len(v.Feedback) > MaxFeedback+64) {
			t.Fatalf("%q → %+v", s, v)
		}
	})
}
