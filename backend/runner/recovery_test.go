package runner

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// flakyScript fails until it has been run `n` times, counting in a file.
const flakyScript = `#!/bin/sh
c=$(cat count 2>/dev/null || echo 0); c=$((c+1)); echo $c > count
if [ $c -lt 3 ]; then echo "connection reset by peer (try $c)" >&2; exit 1; fi
echo "ok on try $c"
`

const flakyWF = `"nodes":[
 {"id":"f","key":"flaky","type":"Tool","params":{"tool":"run_command","arguments":{"command":"sh flaky.sh"}},
  "retry":{"max_attempts":4,"backoff":{"initial_ms":100,"multiplier":3,"max_ms":250}},"verify":"flaky.exit_code == 0"},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{flaky.stdout}}"}}}],
 "edges":[{"from":"f","to":"l"}]`

func TestFlakyCommandSucceedsOnThirdAttempt(t *testing.T) {
	e := newEnv(t)
	e.write("flaky.sh", flakyScript)
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, flakyWF))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); len(got) != 1 || !strings.Contains(got[0], "ok on try 3") {
		t.Fatalf("logs %q", got)
	}
	// Backoff: 100ms, then ×3 capped at 250ms, each ±20% jitter.
	if len(sl.d) != 2 {
		t.Fatalf("waits %v", sl.d)
	}
	for i, want := range []time.Duration{100 * time.Millisecond, 250 * time.Millisecond} {
		if d := sl.d[i]; d < want*8/10 || d > want*12/10 {
			t.Errorf("wait %d = %v, want %v ±20%%", i+1, d, want)
		}
	}
	fails := e.rec.of(EvFailure)
	if len(fails) != 2 {
		t.Fatalf("failures %+v", fails)
	}
	f := fails[0].Failure
	if f.FailureType != failure.FailVerification || f.Category != failure.CatNetwork || !f.Retryable || f.Attempt != 1 || !strings.Contains(f.OutputSummary, "exit_code=1") {
		t.Errorf("failure record %+v", f)
	}
	retries := e.rec.of(EvRetry)
	if len(retries) != 2 || retries[0].Status != StatusRetrying || retries[0].Attempt != 2 || retries[0].MaxAttempts != 4 {
		t.Errorf("retry events %+v", retries)
	}
	s := res.Summary
	if s.Nodes != 2 || s.FirstAttemptSuccesses != 1 || s.Retried != 1 || s.RetrySuccesses != 1 || s.Escalations != 0 || s.FailureTypes[failure.FailVerification] != 2 {
		t.Errorf("summary %+v", s)
	}
	if d := s.Details[0]; d.Key != "flaky" || d.Attempts != 3 || d.Result != "ok_after_retry" {
		t.Errorf("details %+v", s.Details)
	}

	// The run folder: events, the readable retry log, the summary.
	evs := readEvents(t, res.Dir)
	if evs[0].Type != EvRunStarted || evs[len(evs)-1].Type != EvRunFinished || evs[len(evs)-1].Outcome != OutcomeSucceeded {
		t.Fatalf("events.jsonl: %v", types(evs))
	}
	for i, ev := range evs {
		// The folder is the run: lines leave the run id out.
		if ev.Seq != int64(i+1) || ev.RunID != "" {
			t.Fatalf("event %d: seq %d run %q", i, ev.Seq, ev.RunID)
		}
	}
	log, _ := os.ReadFile(filepath.Join(res.Dir, retryLogFile))
	for _, want := range []string{"[RETRY] [flaky] attempt=1 status=failed type=verification_failed", "retrying attempt=2 of 4", "resolved status=success total_attempts=3"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("retry.log lacks %q:\n%s", want, log)
		}
	}
	var doc struct {
		Outcome Outcome `json:"outcome"`
		Summary Summary `json:"summary"`
	}
	b, _ := os.ReadFile(filepath.Join(res.Dir, summaryFile))
	if err := json.Unmarshal(b, &doc); err != nil || doc.Outcome != OutcomeSucceeded || doc.Summary.RetrySuccesses != 1 {
		t.Errorf("summary.json %s (%v)", b, err)
	}
	// Learned: this failure was resolved by retrying.
	ps, _ := e.opts.Patterns.Relevant("run_command", 0)
	if len(ps) != 1 || ps[0].Resolution != "retry" || ps[0].Category != failure.CatNetwork {
		t.Errorf("patterns %+v", ps)
	}
}

func TestVerificationFailureWithoutHandlerFails(t *testing.T) {
	e := newEnv(t)
	e.opts.Settings.Run.DefaultRetries = 1 // two attempts by default
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"first","type":"Tool","params":{"tool":"log","arguments":{"message":"first"}}},
 {"id":"c","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo 41"}},"verify":"trim(check.stdout) == '42'"},
 {"id":"z","key":"never","type":"Tool","params":{"tool":"log","arguments":{"message":"never"}}}],
 "edges":[{"from":"a","to":"c"},{"from":"c","to":"z"}]`))
	wantOutcome(t, res, OutcomeFailed)
	if res.StoppedAt == nil || res.StoppedAt.Key != "check" || !strings.Contains(res.Error, "after 2 attempt(s)") || !strings.Contains(res.Error, "verify") {
		t.Fatalf("result %+v", res)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"first"}) {
		t.Errorf("logs %q", got)
	}
	if res.Summary.FailureTypes[failure.FailVerification] != 2 || res.Summary.Failed != 1 || res.Summary.Escalations != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
	if out, _ := res.Outputs["check"].(map[string]any); out["success"] != false || out["stdout"] != "41\n" {
		t.Errorf("partial outputs %+v", res.Outputs)
	}
	if !reflect.DeepEqual(res.Completed, []string{"a"}) {
		t.Errorf("completed %v", res.Completed)
	}
}

func TestTimeoutIsRetried(t *testing.T) {
	e := newEnv(t)
	var sl sleeps
	e.opts.Sleep = sl.sleep
	res := e.run(parse(t, `"nodes":[
 {"id":"s","key":"slow","type":"Tool","timeout_ms":150,"retry":{"max_attempts":2},"params":{"tool":"run_command","arguments":{"command":"sleep 5"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeFailed)
	fs := e.rec.of(EvFailure)
	if len(fs) != 2 || fs[0].Failure.FailureType != failure.FailTimeout || fs[0].Failure.Category != failure.CatTimeout || !strings.Contains(fs[0].Failure.Error, "timeout_ms of 150ms") {
		t.Fatalf("failures %+v", fs)
	}
	if fs[0].Failure.DurationMs > 2000 {
		t.Errorf("the command was not killed at the timeout: %dms", fs[0].Failure.DurationMs)
	}
}

// A script without its execute bit: exit 126, "Permission denied" even for
// root. Not retryable: it escalates after one attempt, though five are
// allowed.
func TestPermissionDeniedEscalatesAtOnce(t *testing.T) {
	e := newEnv(t)
	e.write("deploy.sh", "#!/bin/sh\necho deployed\n")
	ans := &answers{resps: []Response{{Action: ActAbort}}}
	e.opts.Escalation = ans
	res := e.run(parse(t, `"nodes":[
 {"id":"d","key":"deploy","type":"Tool","retry":{"max_attempts":5},"params":{"tool":"run_command","arguments":{"command":"./deploy.sh"}},"verify":"deploy.exit_code == 0"}],"edges":[]`))
	wantOutcome(t, res, OutcomeAborted)
	if len(ans.asked) != 1 {
		t.Fatalf("asked %d times", len(ans.asked))
	}
	esc := ans.asked[0]
	if esc.Reason != "not_retryable" || esc.Attempts != 1 || esc.Category != failure.CatPermission || esc.Retryable || esc.Severity != failure.SevHigh || esc.SuggestedFix == "" {
		t.Fatalf("escalation %+v", esc)
	}
	if len(e.rec.of(EvRetry)) != 0 {
		t.Error("a permission failure was retried")
	}
	if !reflect.DeepEqual(esc.Choices, []Action{ActRetry, ActSkip, ActAbort, ActFix}) || esc.CanReplan {
		t.Errorf("choices %v can_replan %v", esc.Choices, esc.CanReplan)
	}
}

// A Go tool returning fs.ErrPermission is classified by the error itself.
func TestPermissionErrorFromTool(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	e.opts.Tools = map[string]Tool{"guarded": ToolFunc(func(ctx context.Context, c ToolCall) (map[string]any, error) {
		calls.Add(1)
		return nil, &fs.PathError{Op: "open", Path: "/secret", Err: fs.ErrPermission}
	})}
	e.opts.Settings.Run.DefaultRetries = 3
	res := e.run(parse(t, `"nodes":[{"id":"g","key":"g","type":"Tool","params":{"tool":"guarded","arguments":{}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeFailed)
	if calls.Load() != 1 || !strings.Contains(res.Error, "permission error that retrying cannot fix") {
		t.Fatalf("calls %d, error %q", calls.Load(), res.Error)
	}
}

// failN is a tool that fails its first n calls with a retryable error.
func failN(n int32, calls *atomic.Int32) Tool {
	return ToolFunc(func(ctx context.Context, c ToolCall) (map[string]any, error) {
		k := calls.Add(1)
		if k <= n {
			return map[string]any{"call": int(k)}, errors.New("service unavailable")
		}
		return map[string]any{"call": int(k), "arg": c.Args["x"]}, nil
	})
}

const readerWF = `"nodes":[
 {"id":"u","key":"upstream","type":"Tool","params":{"tool":"unstable","arguments":{"x":1}}},
 {"id":"d","key":"downstream","name":"Use it","type":"Tool","params":{"tool":"log","arguments":{"message":"got {{upstream.call}} skipped={{upstream.skipped}}"}}}],
 "edges":[{"from":"u","to":"d"}]`

func TestEscalationRetryResetsCounter(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	e.opts.Tools = map[string]Tool{"unstable": failN(3, &calls)}
	e.opts.Settings.Run.DefaultRetries = 1 // 2 attempts a round
	e.opts.Sleep = (&sleeps{}).sleep
	ans := &answers{resps: []Response{{Action: ActRetry}}}
	e.opts.Escalation = ans
	res := e.run(parse(t, readerWF))
	wantOutcome(t, res, OutcomeSucceeded)
	if calls.Load() != 4 || len(ans.asked) != 1 {
		t.Fatalf("calls %d asked %d", calls.Load(), len(ans.asked))
	}
	if a := ans.asked[0]; a.Reason != "max_attempts" || a.Attempts != 2 || a.MaxAttempts != 2 || len(a.Failures) != 2 || a.LastError != "service unavailable" {
		t.Fatalf("escalation %+v", a)
	}
	// After the retry: a fresh round of two, numbered on (3 of 4, 4 of 4).
	var last Event
	for _, ev := range e.rec.of(EvAttempt) {
		if ev.NodeKey == "upstream" {
			last = ev
		}
	}
	if last.Attempt != 4 || last.MaxAttempts != 4 {
		t.Errorf("last attempt event %+v", last)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"got 4 skipped="}) {
		t.Errorf("logs %q", got)
	}
	resp := e.rec.of(EvUserResponse)
	if len(resp) != 1 || resp[0].Response.Action != ActRetry {
		t.Errorf("user_response events %+v", resp)
	}
	if ps, _ := e.opts.Patterns.Relevant("unstable", 0); len(ps) != 1 || ps[0].Resolution != "user_retry" {
		t.Errorf("patterns %+v", ps)
	}
}

func TestEscalationSkipWarnsDependents(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	e.opts.Tools = map[string]Tool{"unstable": failN(100, &calls)}
	e.opts.Escalation = &answers{resps: []Response{{Action: ActSkip}}}
	res := e.run(parse(t, readerWF))
	wantOutcome(t, res, OutcomePartial) // a skipped step is not a success
	if res.Error != "completed with 1 step skipped" || res.Summary.Skipped != 1 {
		t.Errorf("error %q summary %+v", res.Error, res.Summary)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"got 1 skipped=true"}) {
		t.Errorf("logs %q", got)
	}
	w := e.rec.of(EvWarning)
	if len(w) != 1 || !strings.Contains(w[0].Message, `"Use it"`) || !strings.Contains(w[0].Message, "skipped") {
		t.Fatalf("warnings %+v", w)
	}
	if sk := e.rec.of(EvNodeSkipped); len(sk) != 1 || sk[0].Status != StatusSkipped {
		t.Errorf("node_skipped %+v", sk)
	}
	if res.Summary.Skipped != 1 || res.Summary.Escalations != 1 || res.Summary.Details[0].Result != "skipped" {
		t.Errorf("summary %+v", res.Summary)
	}
}

func TestEscalationAbortKeepsPartialState(t *testing.T) {
	e := newEnv(t)
	var calls atomic.Int32
	e.opts.Tools = map[string]Tool{"unstable": failN(100, &calls)}
	e.opts.Escalation = &answers{resps: []Response{{Action: ActAbort}}}
	w := parse(t, `"nodes":[
 {"id":"a","key":"before","type":"Tool","params":{"tool":"write_file","arguments":{"path":"partial.txt","content":"kept"}}},
 {"id":"u","key":"upstream","type":"Tool","params":{"tool":"unstable","arguments":{}}},
 {"id":"z","key":"after","type":"Tool","params":{"tool":"write_file","arguments":{"path":"after.txt","content":"no"}}}],
 "edges":[{"from":"a","to":"u"},{"from":"u","to":"z"}]`)
	res := e.run(w)
	wantOutcome(t, res, OutcomeAborted)
	if e.read("partial.txt") != "kept" {
		t.Error("partial work lost")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "after.txt")); err == nil {
		t.Error("ran past the abort")
	}
	if res.StoppedAt.Key != "upstream" || res.Outputs["before"].(map[string]any)["bytes"] != 4 {
		t.Errorf("result %+v", res)
	}
	evs := readEvents(t, res.Dir)
	last := evs[len(evs)-1]
	if last.Type != EvRunFinished || last.Outcome != OutcomeAborted || last.NodeKey != "upstream" {
		t.Errorf("last event %+v", last)
	}
}

func TestEscalationFixEditsToolArguments(t *testing.T) {
	e := newEnv(t)
	e.write("right.txt", "the content")
	ans := &answers{resps: []Response{
		{Action: ActFix, Instruction: "use right.txt"}, // refused: a Tool fix is a JSON object
		{Action: ActFix, Instruction: `{"path": "right.txt"}`},
	}}
	e.opts.Escalation = ans
	res := e.run(parse(t, `"nodes":[
 {"id":"r","key":"read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"wrong.txt"}}},
 {"id":"l","key":"say","type":"Tool","params":{"tool":"log","arguments":{"message":"{{read.content}}"}}}],
 "edges":[{"from":"r","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if len(ans.asked) != 2 || ans.asked[0].Category != failure.CatNotFound || ans.asked[0].Reason != "not_retryable" {
		t.Fatalf("asked %+v", ans.asked)
	}
	if !strings.Contains(ans.asked[1].Notice, "JSON object") {
		t.Errorf("second ask should say why the first answer was refused: %q", ans.asked[1].Notice)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"the content"}) {
		t.Errorf("logs %q", got)
	}
	// The run's copy of the workflow carries the fix; the caller's does not.
	var ran workflow.Workflow
	b, _ := os.ReadFile(filepath.Join(res.Dir, workflowFile))
	json.Unmarshal(b, &ran)
	if ran.Nodes[0].Params.Arguments["path"] != "right.txt" {
		t.Errorf("workflow.json args %v", ran.Nodes[0].Params.Arguments)
	}
	ps, _ := e.opts.Patterns.Relevant("read_file", 0)
	if len(ps) != 1 || ps[0].Resolution != "fix" || !strings.Contains(ps[0].Fix, "right.txt") {
		t.Errorf("patterns %+v", ps)
	}
	// The next escalation for the same failure offers the fix that worked.
	e2 := newEnv(t)
	e2.opts.Patterns = e.opts.Patterns
	ans2 := &answers{}
	e2.opts.Escalation = ans2
	e2.run(parse(t, `"nodes":[{"id":"r","key":"read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"other/missing.txt"}}}],"edges":[]`))
	if len(ans2.asked) != 1 || len(ans2.asked[0].KnownFixes) != 1 || ans2.asked[0].KnownFixes[0].Resolution != "fix" {
		t.Errorf("known fixes %+v", ans2.asked)
	}
}

type fakePlanner struct {
	got []failure.ReplanRequest
	err error
}

func (p *fakePlanner) Replan(ctx context.Context, req failure.ReplanRequest) (*workflow.Workflow, error) {
	p.got = append(p.got, req)
	if p.err != nil {
		return nil, p.err
	}
	w := workflow.New("replanned")
	return w, nil
}

func TestReplan(t *testing.T) {
	wf := `"nodes":[
 {"id":"a","key":"first","type":"Tool","params":{"tool":"log","arguments":{"message":"first"}}},
 {"id":"r","key":"read","type":"Tool","params":{"tool":"read_file","arguments":{"path":"missing.txt"}}}],
 "edges":[{"from":"a","to":"r"}]`
	t.Run("refused without a planner", func(t *testing.T) {
		e := newEnv(t)
		ans := &answers{resps: []Response{{Action: ActReplan}, {Action: ActAbort}}}
		e.opts.Escalation = ans
		res := e.run(parse(t, wf))
		wantOutcome(t, res, OutcomeAborted)
		if len(ans.asked) != 2 || !strings.Contains(ans.asked[1].Notice, "no planner is configured") {
			t.Fatalf("asked %+v", ans.asked)
		}
	})
	t.Run("replanner", func(t *testing.T) {
		e := newEnv(t)
		p := &fakePlanner{}
		e.opts.Replanner = p
		ans := &answers{resps: []Response{{Action: ActReplan}}}
		e.opts.Escalation = ans
		res := e.run(parse(t, wf))
		wantOutcome(t, res, OutcomeReplanned)
		if !ans.asked[0].CanReplan || res.Replanned == nil || res.Replanned.Name != "replanned" || res.StoppedAt.Key != "read" {
			t.Fatalf("result %+v", res)
		}
		req := p.got[0]
		if req.FailedNode.Key != "read" || len(req.Failures) != 1 || !reflect.DeepEqual(req.Completed, []string{"a"}) || req.Outputs["first"] == nil || req.Auto {
			t.Errorf("request %+v", req)
		}
	})
	t.Run("auto replan on HIGH severity", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		p := &fakePlanner{}
		e.opts.Replanner, e.opts.AutoReplan = p, true
		ans := &answers{}
		e.opts.Escalation = ans
		res := e.run(parse(t, `"nodes":[{"id":"d","key":"d","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./x.sh"}},"verify":"d.exit_code == 0"}],"edges":[]`))
		wantOutcome(t, res, OutcomeReplanned)
		if len(ans.asked) != 0 || len(p.got) != 1 || !p.got[0].Auto {
			t.Fatalf("asked %d, planner %+v", len(ans.asked), p.got)
		}
	})
	t.Run("auto replan failure falls back to escalation", func(t *testing.T) {
		e := newEnv(t)
		e.write("x.sh", "echo hi")
		e.opts.Replanner, e.opts.AutoReplan = &fakePlanner{err: errors.New("model offline")}, true
		ans := &answers{resps: []Response{{Action: ActSkip}}}
		e.opts.Escalation = ans
		res := e.run(parse(t, `"nodes":[{"id":"d","key":"d","type":"Tool","params":{"tool":"run_command","arguments":{"command":"./x.sh"}},"verify":"d.exit_code == 0"}],"edges":[]`))
		wantOutcome(t, res, OutcomePartial)
		if len(ans.asked) != 1 || !strings.Contains(ans.asked[0].Notice, "model offline") {
			t.Fatalf("asked %+v", ans.asked)
		}
	})
}

func TestParseResponse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Response
		err  bool
	}{
		{"retry", Response{Action: ActRetry}, false},
		{" s ", Response{Action: ActSkip}, false},
		{"abort", Response{Action: ActAbort}, false},
		{"replan", Response{Action: ActReplan}, false},
		{"fix: use list_files first", Response{Action: ActFix, Instruction: "use list_files first"}, false},
		{`fix {"path":"a.txt","mode":null}`, Response{Action: ActFix, Instruction: `{"path":"a.txt","mode":null}`, Arguments: map[string]any{"path": "a.txt", "mode": nil}}, false},
		{"fix", Response{}, true},
		{`fix {bad`, Response{}, true},
		{"maybe", Response{}, true},
	} {
		got, err := ParseResponse(tc.in)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseResponse(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

func TestMergePatch(t *testing.T) {
	got := MergePatch(map[string]any{"a": 1, "b": map[string]any{"c": 1, "d": 2}, "e": 3},
		map[string]any{"b": map[string]any{"c": nil, "x": 9}, "e": nil, "f": "new"})
	want := map[string]any{"a": 1, "b": map[string]any{"d": 2, "x": 9}, "f": "new"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ft        failure.Type
		err       error
		outputs   map[string]any
		ai        bool
		cat       failure.Category
		retryable bool
	}{
		{"permission", failure.FailExecution, &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrPermission}, nil, false, failure.CatPermission, false},
		{"permission for AI too", failure.FailExecution, errors.New("EACCES: permission denied"), nil, true, failure.CatPermission, false},
		{"invalid args", failure.FailExecution, argErrorf("bad"), nil, false, failure.CatValidation, false},
		{"missing file", failure.FailExecution, &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}, nil, false, failure.CatNotFound, false},
		{"missing file, AI can look elsewhere", failure.FailExecution, &fs.PathError{Op: "open", Path: "/x", Err: fs.ErrNotExist}, nil, true, failure.CatNotFound, true},
		{"command not found", failure.FailVerification, errors.New("verify false"), map[string]any{"exit_code": 127}, false, failure.CatDependency, false},
		{"HTTP 503", failure.FailVerification, errors.New("verify false"), map[string]any{"status": 503}, false, failure.CatNetwork, true},
		{"HTTP 403", failure.FailVerification, errors.New("verify false"), map[string]any{"status": 403}, false, failure.CatPermission, false},
		{"stderr says", failure.FailVerification, errors.New("verify false"), map[string]any{"exit_code": 1, "stderr": "ModuleNotFoundError: No module named 'yaml'"}, false, failure.CatDependency, false},
		{"timeout", failure.FailTimeout, context.DeadlineExceeded, nil, false, failure.CatTimeout, true},
		{"disk full", failure.FailExecution, errors.New("write: no space left on device"), nil, false, failure.CatResource, false},
		{"rate limit", failure.FailExecution, errors.New("429 Too Many Requests"), nil, false, failure.CatResource, true},
		{"logic", failure.FailVerification, errors.New("verify false"), map[string]any{"exit_code": 1}, false, failure.CatLogic, true},
		{"rejected model answer", failure.FailRejected, errors.New("not JSON"), nil, true, failure.CatLogic, true},
		{"no model", failure.FailExecution, &configError{"no model"}, nil, true, failure.CatEnvironment, false},
	} {
		c := Classify(tc.ft, tc.err, tc.outputs, tc.ai)
		if c.Category != tc.cat || c.Retryable != tc.retryable || c.Severity == "" || c.SuggestedFix == "" {
			t.Errorf("%s: %+v", tc.name, c)
		}
	}
}
