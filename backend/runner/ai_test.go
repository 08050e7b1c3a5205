package runner

import (
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/llm/llmtest"
	"github.com/weft-dev/weft/backend/redact/redacttest"
)

func withModel(t *testing.T, e *env, steps ...llmtest.Step) *llmtest.Server {
	t.Helper()
	srv := llmtest.Start(t, llmtest.WithSteps(steps...))
	c, err := llm.New(llm.Config{BaseURL: srv.URL, Model: "fake-model"}, llm.WithBreakerRegistry(llm.NewBreakerRegistry()))
	if err != nil {
		t.Fatal(err)
	}
	e.opts.LLM = c
	return srv
}

func TestAiStepToolCalling(t *testing.T) {
	e := newEnv(t)
	withGoServer(e)
	e.write("a.txt", "1")
	e.write("b.txt", "2")
	srv := withModel(t, e,
		llmtest.ToolCallReply(
			llmtest.ToolCall{ID: "c1", Name: "list_files", Arguments: `{"path":"."}`},
			llmtest.ToolCall{ID: "c2", Name: "go__echo", Arguments: `{"text":"checked"}`}),
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c3", Name: "run_command", Arguments: `{"command":"rm -rf /"}`}),
		llmtest.Reply("There are 2 text files."),
	)
	res := e.run(parse(t, `"nodes":[
 {"id":"w","key":"where","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo the workflow folder"}}},
 {"id":"a","key":"ask","type":"AiStep","params":{"prompt":"How many files are in {{where.stdout}}?","allowed_tools":["list_files","go.echo"],"max_tool_calls":5}},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{ask.text}} ({{ask.tool_calls}} calls)"}}}],
 "edges":[{"from":"w","to":"a"},{"from":"a","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"There are 2 text files. (3 calls)"}) {
		t.Fatalf("logs %q", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	var offered []string
	for _, tl := range reqs[0].Tools {
		offered = append(offered, tl.Name)
	}
	if !reflect.DeepEqual(offered, []string{"list_files", "go__echo"}) {
		t.Errorf("offered tools %v", offered)
	}
	if !strings.Contains(reqs[0].LastUser(), "How many files are in the workflow folder") {
		t.Errorf("prompt %q", reqs[0].LastUser())
	}
	// The second request replays the calls and carries their results.
	var results []string
	for _, m := range reqs[1].Messages {
		if m.Role == "tool" {
			results = append(results, m.ToolCallID+"="+m.Content)
		}
	}
	if len(results) != 2 || !strings.Contains(results[0], `c1=`) || !strings.Contains(results[0], `"a.txt"`) || !strings.Contains(results[1], `"checked"`) {
		t.Fatalf("tool results %q", results)
	}
	// A tool that was not allowed is refused to the model, not run.
	last := reqs[2].Messages[len(reqs[2].Messages)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "not allowed") {
		t.Fatalf("refusal %+v", last)
	}
	var calls []string
	for _, ev := range e.rec.of(EvToolCall) {
		calls = append(calls, ev.Tool+":"+string(ev.Status))
	}
	if !reflect.DeepEqual(calls, []string{"list_files:ok", "go.echo:ok", "run_command:failed"}) {
		t.Errorf("tool_call events %v", calls)
	}
}

func TestAiStepMaxToolCalls(t *testing.T) {
	e := newEnv(t)
	srv := withModel(t, e,
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c1", Name: "log", Arguments: `{"message":"one"}`}),
		llmtest.ToolCallReply(llmtest.ToolCall{ID: "c2", Name: "log", Arguments: `{"message":"two"}`}),
	)
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"ask","type":"AiStep","params":{"prompt":"log things","allowed_tools":["log"],"max_tool_calls":1}}],"edges":[]`))
	wantOutcome(t, res, OutcomeFailed)
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"one"}) {
		t.Errorf("logs %q", got)
	}
	if tc := string(srv.Requests()[1].ToolChoice); !strings.Contains(tc, "none") {
		t.Errorf("after the budget the model is asked to answer: tool_choice %s", tc)
	}
	f := e.rec.of(EvFailure)
	if len(f) != 1 || f[0].Failure.FailureType != failure.FailRejected || !strings.Contains(f[0].Failure.Error, "max_tool_calls") {
		t.Fatalf("failures %+v", f)
	}
}

// An AI step that fails verification is retried with a retry context: the
// failure, a suggested fix and the order to try a different approach,
// placed before the task. A fix response becomes priority guidance.
func TestAiStepAdaptiveRetryAndFix(t *testing.T) {
	e := newEnv(t)
	e.opts.Sleep = (&sleeps{}).sleep
	ans := &answers{resps: []Response{{Action: ActFix, Instruction: "End your answer with the word DONE."}}}
	e.opts.Escalation = ans
	srv := withModel(t, e, llmtest.Reply("working on it"), llmtest.Reply("still working"), llmtest.Reply("All good. DONE"))
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"ask","type":"AiStep","retry":{"max_attempts":2},"params":{"prompt":"Finish the task."},"verify":"ask.text contains 'DONE'"}],"edges":[]`))
	wantOutcome(t, res, OutcomeSucceeded)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls", len(reqs))
	}
	if strings.Contains(reqs[0].LastUser(), "retry_context") {
		t.Error("the first attempt has no retry context")
	}
	second := reqs[1].LastUser()
	for _, want := range []string{`<retry_context attempt="2" max_attempts="2">`, "verification_failed", "verify `ask.text contains 'DONE'` is false", "working on it", "try a different one", "</retry_context>\n\nFinish the task."} {
		if !strings.Contains(second, want) {
			t.Errorf("retry prompt lacks %q:\n%s", want, second)
		}
	}
	third := reqs[2].LastUser()
	if !strings.Contains(third, `<instruction priority="high">End your answer with the word DONE.</instruction>`) || !strings.Contains(third, `attempt="3" max_attempts="4"`) {
		t.Errorf("fix prompt:\n%s", third)
	}
	if len(ans.asked) != 1 || ans.asked[0].Attempts != 2 {
		t.Errorf("asked %+v", ans.asked)
	}
	if ps, _ := e.opts.Patterns.Relevant("AiStep", 0); len(ps) != 1 || ps[0].Resolution != "fix" {
		t.Errorf("patterns %+v", ps)
	}
}

func TestAiTransforms(t *testing.T) {
	e := newEnv(t)
	e.opts.Settings.Run.DefaultRetries = 1
	e.opts.Sleep = (&sleeps{}).sleep
	srv := withModel(t, e,
		llmtest.Reply("Sure! Here it is."), // extract, attempt 1: not JSON, rejected and retried
		llmtest.Reply("```json\n{\"name\": \"Ada\", \"age\": 36}\n```"),
		llmtest.Reply("Urgent."),
		llmtest.Reply("Ada, 36, needs help now."),
	)
	res := e.run(parse(t, `"nodes":[
 {"id":"src","key":"mail","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 'From Ada (36): the server is down!'"}}},
 {"id":"x","key":"who","type":"AiTransform","params":{"kind":"extract","input":"{{mail.stdout}}","prompt":"name and age"}},
 {"id":"c","key":"prio","type":"AiTransform","params":{"kind":"classify","input":"{{mail.stdout}}","labels":["urgent","later"]}},
 {"id":"s","key":"gist","type":"AiTransform","params":{"kind":"summarize","input":"{{mail.stdout}}"}},
 {"id":"i","key":"route","type":"If","params":{"condition":"prio.label == 'urgent' && who.data.age > 30"}},
 {"id":"y","key":"page","type":"Tool","params":{"tool":"log","arguments":{"message":"page {{who.data.name}}: {{gist.text}}"}}},
 {"id":"n","key":"later","type":"Tool","params":{"tool":"log","arguments":{"message":"later"}}}],
 "edges":[{"from":"src","to":"x"},{"from":"x","to":"c"},{"from":"c","to":"s"},{"from":"s","to":"i"},{"from":"i","to":"y","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"page Ada: Ada, 36, needs help now."}) {
		t.Fatalf("logs %q", got)
	}
	reqs := srv.Requests()
	if !strings.Contains(reqs[0].System(), "JSON object") || !strings.Contains(reqs[0].LastUser(), "From Ada (36)") {
		t.Errorf("extract request %+v", reqs[0])
	}
	if !strings.Contains(reqs[1].LastUser(), "<retry_context") || !strings.Contains(reqs[1].LastUser(), "not a JSON object") {
		t.Errorf("extract retry:\n%s", reqs[1].LastUser())
	}
	if !strings.Contains(reqs[2].LastUser(), "Allowed labels: urgent, later") {
		t.Errorf("classify request:\n%s", reqs[2].LastUser())
	}
	f := e.rec.of(EvFailure)
	if len(f) != 1 || f[0].Failure.FailureType != failure.FailRejected || !f[0].Failure.Retryable {
		t.Errorf("failures %+v", f)
	}
}

func TestAiWithoutModel(t *testing.T) {
	e := newEnv(t)
	e.opts.Settings.Run.DefaultRetries = 3
	res := e.run(parse(t, `"nodes":[{"id":"s","key":"gist","type":"AiTransform","params":{"kind":"summarize","input":"x"}}],"edges":[]`))
	wantOutcome(t, res, OutcomeFailed)
	f := e.rec.of(EvFailure)
	if len(f) != 1 || f[0].Failure.Category != failure.CatEnvironment || f[0].Failure.Severity != failure.SevCritical || !strings.Contains(res.Error, "no model is configured") {
		t.Fatalf("failures %+v, error %q", f, res.Error)
	}
}

func TestMatchLabelAndParseJSON(t *testing.T) {
	labels := []string{"bug", "feature", "question"}
	for in, want := range map[string]string{"bug": "bug", " Feature. ": "feature", "I think this is a question.": "question", "**bug**": "bug"} {
		if got, err := matchLabel(in, labels); err != nil || got != want {
			t.Errorf("matchLabel(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := matchLabel("bug or feature", labels); err == nil {
		t.Error("two labels accepted")
	}
	for in, ok := range map[string]bool{`{"a":1}`: true, "```json\n{\"a\":1}\n```": true, `Here: {"a": {"b": 2}} hope it helps`: true, `[1,2]`: false, `nope`: false} {
		if _, err := parseJSONObject(in); (err == nil) != ok {
			t.Errorf("parseJSONObject(%q): %v", in, err)
		}
	}
}

// TestAiSendsNoSecretTheRunKnows: a credential the run has learned (a
// literal Authorization header of the workflow) that a step printed, as
// it is and encoded, reaches an AiTransform's and an AiStep's model
// request as [REDACTED].
func TestAiSendsNoSecretTheRunKnows(t *testing.T) {
	const token = "run-token-5f6e7d8c9b"
	e := newEnv(t)
	srv := withModel(t, e, llmtest.Reply("a summary"), llmtest.Reply("an answer"))
	encs := redacttest.Encodings(token)
	printed := encs["plain"] + " " + encs["hex"] + " " + encs["reversed"] + " " + encs["base64"]
	res := e.run(parse(t, `"nodes":[
 {"id":"src","key":"mail","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo '`+printed+`'"}}},
 {"id":"s","key":"gist","type":"AiTransform","params":{"kind":"summarize","input":"{{mail.stdout}}"}},
 {"id":"a","key":"ask","type":"AiStep","params":{"prompt":"What does {{mail.stdout}} mean?"}},
 {"id":"h","key":"call","type":"Tool","enabled":false,"params":{"tool":"http_request","arguments":{"url":"https://api.example.com/","method":"GET","headers":{"Authorization":"Bearer `+token+`"}}}}],
 "edges":[{"from":"src","to":"s"},{"from":"s","to":"a"},{"from":"a","to":"h"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if srv.Calls() != 2 {
		t.Fatalf("%d model calls", srv.Calls())
	}
	if leaks := srv.Leaks(token); len(leaks) > 0 {
		t.Errorf("sent to the model:\n%s", strings.Join(leaks, "\n"))
	}
}
