package runner

import (
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/critic"
	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
)

const coverageWF = `"goal":"tests pass and coverage is at least 80%",
 "done_when":%s,
 "nodes":[
 {"id":"t","key":"tests","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo ok"}}},
 {"id":"c","key":"cov","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 62"}}}],
 "edges":[{"from":"t","to":"c"}]`

func withCritic(t *testing.T, e *env, steps ...llmtest.Step) *llmtest.Server {
	t.Helper()
	srv := llmtest.Start(t, llmtest.WithSteps(steps...))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Critic = &critic.Critic{Client: c, MaxRepairs: 2}
	return srv
}

func TestDoneWhenCondition(t *testing.T) {
	t.Run("holds", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, strings.Replace(coverageWF, "%s", `{"condition":"tests.success && int(trim(cov.stdout)) >= 60"}`, 1)))
		wantOutcome(t, res, OutcomeSucceeded)
		if v := res.Verdict; v == nil || !v.Approved || v.CheckedBy != "condition" {
			t.Fatalf("verdict %+v", v)
		}
		if evs := e.rec.of(EvVerdict); len(evs) != 1 || !strings.Contains(evs[0].Message, "goal check met") {
			t.Errorf("verdict events %+v", evs)
		}
	})
	t.Run("does not hold, nobody to ask", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, strings.Replace(coverageWF, "%s", `{"condition":"int(trim(cov.stdout)) >= 80"}`, 1)))
		wantOutcome(t, res, OutcomeFailed)
		if v := res.Verdict; v == nil || v.Approved || !strings.Contains(res.Error, "done_when") {
			t.Fatalf("verdict %+v error %q", v, res.Error)
		}
		f := e.rec.of(EvFailure)
		if len(f) != 1 || f[0].Failure.FailureType != failure.FailRejected || res.Summary.Failed != 1 {
			t.Fatalf("failures %+v summary %+v", f, res.Summary)
		}
		if fin := readEvents(t, res.Dir); fin[len(fin)-1].Verdict == nil {
			t.Error("run_finished in events.jsonl lacks the verdict")
		}
	})
	t.Run("accepted by the person", func(t *testing.T) {
		e := newEnv(t)
		ans := &answers{resps: []Response{{Action: ActSkip}}}
		e.opts.Escalation = ans
		res := e.run(parse(t, strings.Replace(coverageWF, "%s", `{"condition":"int(trim(cov.stdout)) >= 80"}`, 1)))
		wantOutcome(t, res, OutcomePartial)
		if v := res.Verdict; v == nil || v.Approved || !v.Accepted || !strings.Contains(res.Error, "done_when check not met (accepted)") {
			t.Fatalf("verdict %+v error %q", v, res.Error)
		}
		if len(ans.asked) != 1 || ans.asked[0].NodeKey != "done_when" || contains(actionStrings(ans.asked[0].Choices), "fix") {
			t.Fatalf("asked %+v", ans.asked)
		}
	})
	t.Run("fix is refused", func(t *testing.T) {
		e := newEnv(t)
		ans := &answers{resps: []Response{{Action: ActFix, Instruction: "x"}, {Action: ActAbort}}}
		e.opts.Escalation = ans
		res := e.run(parse(t, strings.Replace(coverageWF, "%s", `{"condition":"false"}`, 1)))
		wantOutcome(t, res, OutcomeAborted)
		if len(ans.asked) != 2 || !strings.Contains(ans.asked[1].Notice, "not one of the answers") {
			t.Fatalf("asked %+v", ans.asked)
		}
	})
}

func actionStrings(as []Action) []string {
	var out []string
	for _, a := range as {
		out = append(out, string(a))
	}
	return out
}

func TestDoneWhenCritic(t *testing.T) {
	wf := strings.Replace(coverageWF, "%s", `{"criteria":"coverage is at least 80%"}`, 1)
	t.Run("approved", func(t *testing.T) {
		e := newEnv(t)
		srv := withCritic(t, e, llmtest.Reply(`{"approved": true, "confidence": 0.9, "feedback": "coverage fine"}`))
		res := e.run(parse(t, wf))
		wantOutcome(t, res, OutcomeSucceeded)
		if v := res.Verdict; v == nil || !v.Approved || v.CheckedBy != "model" || v.Confidence != 0.9 {
			t.Fatalf("verdict %+v", v)
		}
		req, _ := srv.LastRequest()
		for _, want := range []string{"coverage is at least 80%", "tests pass and coverage", "- cov (Tool, tool run_command)", "stdout: 62"} {
			if !strings.Contains(req.LastUser(), want) {
				t.Errorf("critic prompt lacks %q:\n%s", want, req.LastUser())
			}
		}
	})
	t.Run("rejected, then replanned with the feedback", func(t *testing.T) {
		e := newEnv(t)
		withCritic(t, e, llmtest.Reply("Let me look.\n```json\n{\"approved\": false, \"confidence\": 0.8, \"feedback\": \"coverage is 62%, below 80%\", \"suggestions\": [\"add tests for parser.go\"]}\n```"))
		fp := &fakePlanner{}
		e.opts.Replanner = fp
		e.opts.Escalation = &answers{resps: []Response{{Action: ActReplan}}}
		res := e.run(parse(t, wf))
		wantOutcome(t, res, OutcomeReplanned)
		if len(fp.got) != 1 {
			t.Fatalf("replan requests %d", len(fp.got))
		}
		c := fp.got[0].Critique
		if c == nil || c.Feedback != "coverage is 62%, below 80%" || len(c.Suggestions) != 1 || c.Criteria != "coverage is at least 80%" {
			t.Fatalf("critique %+v", c)
		}
		if f := fp.got[0].Failures; len(f) != 1 || f[0].FailureType != failure.FailRejected || f[0].SuggestedFix != "add tests for parser.go" {
			t.Fatalf("failures %+v", f)
		}
	})
	t.Run("no model", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, wf))
		wantOutcome(t, res, OutcomeFailed)
		if !strings.Contains(res.Error, "needs a model") {
			t.Fatalf("error %q", res.Error)
		}
	})
}

func TestStepDoneWhen(t *testing.T) {
	e := newEnv(t)
	e.write("flaky.sh", flakyScript)
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, `"nodes":[
 {"id":"f","key":"flaky","type":"Tool","params":{"tool":"run_command","arguments":{"command":"sh flaky.sh || true"}},
  "retry":{"max_attempts":4},"done_when":{"condition":"flaky.stdout contains 'ok'"}}],"edges":[]`))
	wantOutcome(t, res, OutcomeSucceeded)
	f := e.rec.of(EvFailure)
	if len(f) != 2 || f[0].Failure.FailureType != failure.FailRejected || !strings.Contains(f[0].Failure.Error, "done_when not met") {
		t.Fatalf("failures %+v", f)
	}
	if v := e.rec.of(EvVerdict); len(v) != 3 || v[0].Verdict.NodeKey != "flaky" || v[2].Verdict.Approved != true {
		t.Fatalf("verdicts %+v", v)
	}
}
