package devserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/llm"
	"github.com/weft-dev/weft/backend/runner"
	"github.com/weft-dev/weft/backend/service"
	"github.com/weft-dev/weft/backend/settings"
	"github.com/weft-dev/weft/backend/tools"
	wf "github.com/weft-dev/weft/backend/workflow"
)

// The engine contract: the same workflow, started through the same
// service call, walks the same way on the local engine and on a real
// Temporal server. Their normalized event streams (no times, ids,
// durations, waits or folders), outcomes, outputs, summaries and
// `weft stats` figures are identical, and an invalid workflow is refused
// the same way. Both engines drive one walk (package flow), so a
// difference here is an effect done differently.

type contractCase struct {
	name string
	doc  string // the workflow's JSON, whole
	// answers are given to the escalations in order; past them, abort.
	answers []runner.Response
	pinned  bool
	inputs  map[string]any // the run's inputs (inputs.SecretRef for a stored secret)
}

// contractCases are the runnable workflows in testdata (their hosts
// pointed at a local server and their waits cut to 1 ms, so they finish
// in seconds) and cases for each run semantic.
func contractCases(t *testing.T, host string) []contractCase {
	t.Helper()
	step := func(key, cmd, extra string) string {
		return fmt.Sprintf(`{"id":%q,"key":%q,"type":"Tool","params":{"tool":"run_command","arguments":{"command":%q}}%s}`, key, key, cmd, extra)
	}
	doc := func(name, extra string, nodes []string, edges string) string {
		return fmt.Sprintf(`{"format":"weft/v1","id":%q,"name":%q%s,"nodes":[%s],"edges":[%s]}`, name, name, extra, strings.Join(nodes, ","), edges)
	}
	skip, retry, abort := runner.Response{Action: runner.ActSkip}, runner.Response{Action: runner.ActRetry}, runner.Response{Action: runner.ActAbort}
	flaky := step("flaky", "n=$(cat n 2>/dev/null || echo 0); echo $((n+1)) > n; test $n -ge 2", `,"retry":{"max_attempts":2,"backoff":{"initial_ms":5}}`)
	after := step("after", "echo after {{flaky.exit_code}}", "")
	cases := []contractCase{
		{name: "retries-then-skip", doc: doc("retries", "", []string{step("flaky", "exit 3", `,"retry":{"max_attempts":3,"backoff":{"initial_ms":5}}`), after},
			`{"from":"flaky","to":"after"}`), answers: []runner.Response{skip}},
		{name: "retries-then-succeeds-after-retry-answer", doc: doc("retry-answer", "", []string{flaky, after}, `{"from":"flaky","to":"after"}`),
			answers: []runner.Response{retry}},
		{name: "abort-keeps-outputs", doc: doc("abort", "", []string{step("bad", "echo partial; exit 4", `,"retry":{"max_attempts":1}`), after},
			`{"from":"bad","to":"after"}`), answers: []runner.Response{abort}},
		{name: "fix", doc: doc("fix", "", []string{step("bad", "exit 5", `,"retry":{"max_attempts":1}`), step("after", "echo after", "")},
			`{"from":"bad","to":"after"}`), answers: []runner.Response{{Action: runner.ActFix, Arguments: map[string]any{"command": "echo fixed"}}}},
		{name: "refused-answers-then-skip", doc: doc("refusals", "", []string{step("bad", "exit 6", `,"retry":{"max_attempts":1}`), after},
			`{"from":"bad","to":"after"}`), answers: []runner.Response{{Action: runner.ActFix, Instruction: "not json"}, {Action: runner.ActReplan}, skip}},
		{name: "on-error-continue", doc: doc("continue", "", []string{step("bad", "exit 7", `,"retry":{"max_attempts":2,"backoff":{"initial_ms":5}},"on_error":"continue"`), step("after", "echo {{bad.error_record.type}}", "")},
			`{"from":"bad","to":"after"}`)},
		{name: "on-error-branch", doc: doc("branch", "", []string{step("bad", "exit 8", `,"retry":{"max_attempts":1},"on_error":"branch"`), step("ok", "echo ok", ""), step("handle", "echo handled", "")},
			`{"from":"bad","to":"ok"},{"from":"bad","to":"handle","output":{"type":"Error"}}`)},
		{name: "loop-if-exit", doc: doc("loop", "", []string{
			`{"id":"l","key":"rounds","type":"Loop","params":{"exit_condition":"rounds.iteration >= 5","max_iterations":9}}`,
			step("w", "echo {{rounds.iteration}}", ""),
			`{"id":"i","key":"odd","type":"If","params":{"condition":"int(trim(w.stdout)) % 2 == 1"}}`,
			step("o", "echo odd", ""),
			`{"id":"e","key":"rounds_end","type":"EndLoop","params":{"loop_id":"l"}}`,
			step("d", "echo done {{rounds.iteration}}", "")},
			`{"from":"l","to":"w","output":{"type":"LoopBody"}},{"from":"w","to":"i"},{"from":"i","to":"o","output":{"type":"IfTrue"}},{"from":"i","to":"e","output":{"type":"IfFalse"}},{"from":"o","to":"e"},{"from":"e","to":"l"},{"from":"l","to":"d","output":{"type":"LoopDone"}}`)},
		{name: "loop-max-iterations", doc: doc("loopmax", "", []string{
			`{"id":"l","key":"rounds","type":"Loop","params":{"exit_condition":"rounds.iteration > 99","max_iterations":2}}`,
			step("w", "echo {{rounds.iteration}}", ""),
			`{"id":"e","key":"rounds_end","type":"EndLoop","params":{"loop_id":"l"}}`},
			`{"from":"l","to":"w","output":{"type":"LoopBody"}},{"from":"w","to":"e"},{"from":"e","to":"l"}`)},
		{name: "switch-and-disabled", doc: doc("switch", "", []string{
			step("a", "echo two", ""),
			`{"id":"s","key":"pick","type":"Switch","params":{"cases":[{"name":"one","condition":"trim(a.stdout) == 'one'"},{"name":"two","condition":"trim(a.stdout) == 'two'"}]}}`,
			step("one", "echo one", ""), step("two", "echo two", `,"disabled":true`),
			`{"id":"s2","key":"pick2","type":"Switch","disabled":true,"params":{"cases":[{"name":"x","condition":"true"}]}}`,
			step("never", "echo never", "")},
			`{"from":"a","to":"s"},{"from":"s","to":"one","output":{"type":"SwitchCase","name":"one"}},{"from":"s","to":"two","output":{"type":"SwitchCase","name":"two"}},{"from":"two","to":"s2"},{"from":"s2","to":"never","output":{"type":"SwitchCase","name":"x"}}`)},
		{name: "pinned", pinned: true, doc: doc("pinned", `,"pinned":{"a":{"stdout":"from a pin\n","exit_code":0,"success":true}}`, []string{
			step("a", "echo live", ""), step("b", "echo {{a.stdout}}", "")}, `{"from":"a","to":"b"}`)},
		{name: "done-when-met", doc: doc("done", `,"done_when":{"condition":"trim(a.stdout) == '42'"}`, []string{step("a", "echo 42", "")}, "")},
		{name: "done-when-not-met-accepted", doc: doc("notmet", `,"done_when":{"condition":"trim(a.stdout) == '7'"}`, []string{step("a", "echo 42", "")}, ""),
			answers: []runner.Response{retry, skip}},
		{name: "done-when-criteria-without-model", doc: doc("criteria", `,"done_when":{"criteria":"the answer is right"}`, []string{step("a", "true", "")}, ""),
			answers: []runner.Response{abort}},
		{name: "step-done-when", doc: doc("stepdone", "", []string{step("a", "echo 1", `,"retry":{"max_attempts":1},"done_when":{"condition":"trim(a.stdout) == '2'"}`)}, ""),
			answers: []runner.Response{skip}},
		{name: "verify", doc: doc("verify", "", []string{step("a", "echo 3", `,"retry":{"max_attempts":2,"backoff":{"initial_ms":5}},"verify":"trim(a.stdout) == '4'"`)}, ""),
			answers: []runner.Response{skip}},
		{name: "condition-cannot-be-evaluated", doc: doc("badcond", "", []string{step("a", "echo x", ""),
			`{"id":"i","key":"check","type":"If","params":{"condition":"a.stdout > 3"}}`, step("b", "echo b", ""), step("c", "echo c", "")},
			`{"from":"a","to":"i"},{"from":"i","to":"b","output":{"type":"IfTrue"}},{"from":"i","to":"c","output":{"type":"IfFalse"}}`)},
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "workflows", "valid", "*.json"))
	if len(files) == 0 {
		t.Fatal("no workflows in testdata/workflows/valid")
	}
	urls := regexp.MustCompile(`https?://[a-z0-9.-]+`)
	waits := regexp.MustCompile(`"ms": *[0-9]+`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := waits.ReplaceAllString(urls.ReplaceAllString(string(b), host), `"ms": 1`)
		cases = append(cases, contractCase{name: "testdata-" + strings.TrimSuffix(filepath.Base(f), ".json"), doc: s, answers: []runner.Response{skip, skip, skip, skip}})
	}
	return cases
}

// engineRun is what one engine did with one case.
type engineRun struct {
	events   []string // normalized, one JSON a line
	finished string   // the normalized end: outcome, error, stop, summary, verdict
	outputs  string
	stats    string
	err      string // a refusal to start
}

func TestEngineContract(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Date", "Thu, 01 Jan 2026 00:00:00 GMT") // the same on both engines' runs
		fmt.Fprint(w, `{"status":"ok","state":"done"}`)
	}))
	defer srv.Close()
	_, st, _ := temporalSetup(t, "weft-contract")
	st.Run.DefaultRetries = 0 // the cases say their retries
	svc := newService(&st)
	for _, tc := range contractCases(t, srv.URL) {
		t.Run(tc.name, func(t *testing.T) {
			local := runOnEngine(t, svc, "local", tc)
			if local.err != "" || len(local.events) == 0 {
				t.Fatalf("the case did not run: %s", local.err)
			}
			remote := runOnEngine(t, svc, "temporal", tc)
			compareRuns(t, local, remote)
		})
	}
	// Invalid workflows are refused the same way.
	invalid, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "workflows", "invalid", "*.json"))
	for _, f := range invalid {
		b, _ := os.ReadFile(f)
		t.Run("invalid-"+filepath.Base(f), func(t *testing.T) {
			tc := contractCase{name: filepath.Base(f), doc: string(b)}
			compareRuns(t, runOnEngine(t, svc, "local", tc), runOnEngine(t, svc, "temporal", tc))
		})
	}
}

func compareRuns(t *testing.T, local, remote engineRun) {
	t.Helper()
	if local.err != remote.err {
		t.Fatalf("refused differently:\n local:    %s\n temporal: %s", local.err, remote.err)
	}
	for i := 0; i < max(len(local.events), len(remote.events)); i++ {
		var l, r string
		if i < len(local.events) {
			l = local.events[i]
		}
		if i < len(remote.events) {
			r = remote.events[i]
		}
		if l != r {
			t.Fatalf("event %d differs:\n local:    %s\n temporal: %s\n(local has %d events, temporal %d)", i+1, l, r, len(local.events), len(remote.events))
		}
	}
	for _, c := range []struct{ what, l, r string }{{"end", local.finished, remote.finished}, {"outputs", local.outputs, remote.outputs}, {"weft stats", local.stats, remote.stats}} {
		if c.l != c.r {
			t.Errorf("%s differs:\n local:    %s\n temporal: %s", c.what, c.l, c.r)
		}
	}
}

// runOnEngine runs the case through the service on one engine, in a
// folder of its own, answering escalations from the case's answers.
func runOnEngine(t *testing.T, svc *service.Service, engine string, tc contractCase) engineRun {
	t.Helper()
	dir := filepath.Join(t.TempDir(), engine)
	trustTestFolders(t, dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out engineRun
	w, _, err := wf.Parse([]byte(tc.doc))
	if err != nil {
		out.err = "does not load: " + err.Error()
		return out
	}
	path := filepath.Join(dir, "flow.weft.json")
	if err := wf.Save(path, w); err != nil {
		t.Fatal(err)
	}
	events := make(chan service.Event, 10000)
	res, err := svc.Start(context.Background(), service.StartRequest{Workflow: w, Path: path, Engine: engine, UsePinned: tc.pinned, Inputs: tc.inputs,
		Sink: service.SinkFunc(func(e service.Event) { events <- e })})
	if err != nil {
		out.err = err.Error()
		return out
	}
	if !res.Started {
		b, _ := json.Marshal(res.Problems)
		out.err = res.Error + " " + string(b)
		return out
	}
	answers := tc.answers
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case e := <-events:
			switch e.Kind {
			case service.KindRun:
				out.events = append(out.events, normalize(t, dir, *e.Run))
			case service.KindEscalation:
				resp := runner.Response{Action: runner.ActAbort}
				if len(answers) > 0 {
					resp, answers = answers[0], answers[1:]
				}
				if err := svc.Respond(e.Escalation.ID, resp); err != nil {
					t.Errorf("%s: answering %v: %v", engine, resp, err)
					svc.Respond(e.Escalation.ID, runner.Response{Action: runner.ActAbort})
				}
			case service.KindFinished:
				f := e.Finished
				if f.Err != nil {
					out.err = f.Err.Error()
					svc.Wait(time.Minute)
					return out
				}
				s := *f.Summary
				s.DurationMs = 0
				out.finished = jsonOf(t, dir, struct {
					Outcome   runner.Outcome
					Error     string
					StoppedAt *runner.NodeRef
					Summary   runner.Summary
					Verdict   *runner.Verdict
					Warnings  []string
				}{f.Outcome, f.Error, f.StoppedAt, s, f.Verdict, f.Warnings})
				if f.Result != nil {
					out.outputs = jsonOf(t, dir, f.Result.Outputs)
					// Both engines' results name the run's folder beside the workflow.
					if f.Result.Dir == "" || f.Result.Dir != f.Dir {
						t.Errorf("%s: the result names the folder %q, the end %q", engine, f.Result.Dir, f.Dir)
					}
				}
				h, err := svc.RunHistory(path, w.ID)
				if err != nil {
					t.Fatal(err)
				}
				out.stats = jsonOf(t, dir, service.SummarizeRuns(h.Runs))
				if !svc.Wait(time.Minute) {
					t.Fatalf("%s: the run did not end after it finished", engine)
				}
				return out
			}
		case <-timeout:
			t.Fatalf("%s: the run did not finish", engine)
		}
	}
}

// normalize leaves out of an event what differs between any two runs:
// times, ids, sequence numbers, durations, waits (jittered), the folder,
// and the known fixes (this machine's learned patterns).
func normalize(t *testing.T, dir string, e runner.Event) string {
	e.Seq, e.Time, e.RunID, e.DurationMs, e.DelayMs = 0, time.Time{}, "", 0, 0
	if e.Failure != nil {
		f := *e.Failure
		f.Time, f.DurationMs = time.Time{}, 0
		e.Failure = &f
	}
	if e.Escalation != nil {
		x := *e.Escalation
		x.RunID, x.KnownFixes = "", nil
		x.Failures = append([]failure.Record(nil), x.Failures...)
		for i := range x.Failures {
			x.Failures[i].Time, x.Failures[i].DurationMs = time.Time{}, 0
		}
		e.Escalation = &x
	}
	if e.Summary != nil {
		s := *e.Summary
		s.DurationMs = 0
		e.Summary = &s
	}
	if e.SubRun != nil { // a sub-workflow's run: its id and folder are its engine's
		l := *e.SubRun
		l.Dir = ""
		e.SubRun = &l
	}
	return jsonOf(t, dir, e)
}

func jsonOf(t *testing.T, dir string, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), dir, "$DIR")
}

// failingReplanner stands for a planner whose model gave no usable plan.
type failingReplanner struct{}

func (failingReplanner) Replan(context.Context, failure.ReplanRequest) (*wf.Workflow, error) {
	return nil, errors.New("the model gave no usable plan")
}

// With a planner where the run is started and followed, a replan answer
// ends the run replanned on both engines (a Temporal worker has none: the
// follower makes the plan and sends it with the answer), and a replan
// that fails is refused and asked again the same way.
func TestEngineContractReplan(t *testing.T) {
	_, st, _ := temporalSetup(t, "weft-contract-replan")
	st.Run.DefaultRetries = 0
	st.LLM.Model = "fake-model"
	doc := `{"format":"weft/v1","id":"rp","name":"rp","nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"exit 2"}},"retry":{"max_attempts":1}}],"edges":[]}`
	w, _, err := wf.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	nw := w.Clone()
	nw.Nodes[0].Params.Arguments["command"] = "true"
	for _, tc := range []struct {
		name string
		rp   runner.Replanner
	}{{"replanned", fixedReplanner{nw}}, {"replan-fails-then-abort", failingReplanner{}}} {
		t.Run(tc.name, func(t *testing.T) {
			svc := service.New(service.Deps{
				Settings: func() (settings.Settings, []string, error) { return st, nil, nil },
				NewLLM: func(s settings.Settings) (llm.Client, error) {
					return llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", Model: s.LLM.Model})
				},
				Replanner: func(settings.Settings, llm.Client, func(context.Context) *tools.Catalog) runner.Replanner {
					return tc.rp
				},
				Getenv: func(string) string { return "" },
			})
			c := contractCase{name: tc.name, doc: doc, answers: []runner.Response{{Action: runner.ActReplan}}}
			local := runOnEngine(t, svc, "local", c)
			if local.err != "" || len(local.events) == 0 {
				t.Fatalf("the case did not run: %s", local.err)
			}
			compareRuns(t, local, runOnEngine(t, svc, "temporal", c))
		})
	}
}
