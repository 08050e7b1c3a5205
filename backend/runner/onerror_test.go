package runner

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestOnErrorContinue(t *testing.T) {
	e := newEnv(t)
	ans := &answers{}
	e.opts.Escalation = ans
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"probe","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo nope >&2; exit 4"}},"on_error":"continue"},
 {"id":"b","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"ok={{probe.success}} code={{probe.exit_code}} cat={{probe.error_record.category}}"}}}],
 "edges":[{"from":"a","to":"b"}]`))
	wantOutcome(t, res, OutcomePartial)
	if len(ans.asked) != 0 {
		t.Errorf("on_error continue must not escalate: %+v", ans.asked)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"ok=false code=4 cat=unknown"}) {
		t.Errorf("logs %q", got)
	}
	if res.Summary.Handled != 1 || res.Summary.Failed != 0 || res.Error != "completed with 1 failure handled by on_error" {
		t.Errorf("summary %+v error %q", res.Summary, res.Error)
	}
	if d := res.Summary.Details; len(d) != 2 || d[0].Result != "handled" {
		t.Errorf("details %+v", d)
	}
	fins := e.rec.of(EvNodeFinished)
	if len(fins) != 2 || fins[0].Status != StatusFailed || !strings.Contains(fins[0].Message, "on_error continue") {
		t.Errorf("node_finished %+v", fins)
	}
	if fin := e.rec.of(EvRunFinished); len(fin) != 1 || fin[0].Outcome != OutcomePartial {
		t.Errorf("run_finished %+v", fin)
	}
}

func TestOnErrorBranch(t *testing.T) {
	wf := `"nodes":[
 {"id":"a","key":"fetch","type":"Tool","params":{"tool":"run_command","arguments":{"command":"%s"}},"on_error":"branch"},
 {"id":"ok","key":"ok","type":"Tool","params":{"tool":"log","arguments":{"message":"fetched {{fetch.stdout}}"}}},
 {"id":"bad","key":"bad","type":"Tool","params":{"tool":"log","arguments":{"message":"failed: {{fetch.error_record.type}} {{fetch.exit_code}}"}}}],
 "edges":[{"from":"a","to":"ok"},{"from":"a","to":"bad","output":{"type":"Error"}}]`
	t.Run("failure takes the Error edge", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, strings.Replace(wf, "%s", "exit 7", 1)))
		wantOutcome(t, res, OutcomePartial)
		if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"failed: execution_error 7"}) {
			t.Errorf("logs %q", got)
		}
	})
	t.Run("success takes the normal edge", func(t *testing.T) {
		e := newEnv(t)
		res := e.run(parse(t, strings.Replace(wf, "%s", "echo hi", 1)))
		wantOutcome(t, res, OutcomeSucceeded)
		if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"fetched hi\n"}) {
			t.Errorf("logs %q", got)
		}
	})
	t.Run("retries come first", func(t *testing.T) {
		e := newEnv(t)
		e.write("flaky.sh", flakyScript)
		var sl sleeps
		e.opts.Sleep = sl.sleep
		w := strings.Replace(wf, "%s", "sh flaky.sh", 1)
		w = strings.Replace(w, `"on_error":"branch"`, `"on_error":"branch","retry":{"max_attempts":3}`, 1)
		res := e.run(parse(t, w))
		wantOutcome(t, res, OutcomeSucceeded)
		if len(sl.d) != 2 {
			t.Errorf("waits %v", sl.d)
		}
	})
	t.Run("canceled is canceled", func(t *testing.T) {
		e := newEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res := e.runCtx(ctx, parse(t, strings.Replace(wf, "%s", "sleep 5", 1)))
		wantOutcome(t, res, OutcomeCanceled)
	})
}

func TestAbortCountsTheFailedStep(t *testing.T) {
	e := newEnv(t)
	e.opts.Escalation = &answers{resps: []Response{{Action: ActAbort}}}
	res := e.run(parse(t, `"nodes":[{"id":"a","key":"x","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeAborted)
	if res.Summary.Failed != 1 || res.Summary.Details[0].Result != "aborted" {
		t.Errorf("summary %+v", res.Summary)
	}
}

func TestMissingFieldFailsTheReader(t *testing.T) {
	echo := ToolFunc(func(ctx context.Context, c ToolCall) (map[string]any, error) {
		return map[string]any{"text": "hello", "data": map[string]any{"n": 1}}, nil
	})
	t.Run("template", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Tools = map[string]Tool{"echo": echo}
		res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"echo","type":"Tool","params":{"tool":"echo","arguments":{}}},
 {"id":"b","key":"say","name":"Say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{echo.contents}}"}}}],
 "edges":[{"from":"a","to":"b"}]`))
		wantOutcome(t, res, OutcomeFailed)
		if res.StoppedAt == nil || res.StoppedAt.Key != "say" || !strings.Contains(res.Error, `echo has no field "contents" (it has the fields data, text)`) {
			t.Errorf("stopped at %+v: %q", res.StoppedAt, res.Error)
		}
	})
	t.Run("condition", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Tools = map[string]Tool{"echo": echo}
		res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"echo","type":"Tool","params":{"tool":"echo","arguments":{}}},
 {"id":"i","key":"check","type":"If","params":{"condition":"echo.contents == 'hello'"}},
 {"id":"t","key":"t","type":"Tool","params":{"tool":"log","arguments":{"message":"yes"}}},
 {"id":"f","key":"f","type":"Tool","params":{"tool":"log","arguments":{"message":"no"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"t","output":{"type":"IfTrue"}},{"from":"i","to":"f","output":{"type":"IfFalse"}}]`))
		wantOutcome(t, res, OutcomeFailed)
		if !strings.Contains(res.Error, `echo has no field "contents"`) || len(e.rec.logs()) != 0 {
			t.Errorf("%q, logs %q", res.Error, e.rec.logs())
		}
	})
	// MCP's names of a result's parts read Weft's fields (expression.Field).
	t.Run("alias", func(t *testing.T) {
		e := newEnv(t)
		e.opts.Tools = map[string]Tool{"echo": echo}
		res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"echo","type":"Tool","params":{"tool":"echo","arguments":{}}},
 {"id":"i","key":"check","type":"If","params":{"condition":"echo.content == 'hello' && echo.structuredContent.n == 1"}},
 {"id":"t","key":"t","type":"Tool","params":{"tool":"log","arguments":{"message":"{{echo.content}} {{echo.structuredContent.n}}"}}},
 {"id":"f","key":"f","type":"Tool","params":{"tool":"log","arguments":{"message":"no"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"t","output":{"type":"IfTrue"}},{"from":"i","to":"f","output":{"type":"IfFalse"}}]`))
		wantOutcome(t, res, OutcomeSucceeded)
		if logs := e.rec.logs(); len(logs) != 1 || logs[0] != "hello 1" {
			t.Errorf("logs %q", logs)
		}
	})
}
