package runner

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/validate"
)

const ifWF = `"nodes":[
 {"id":"a","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"test -f notes.txt","ok_exit_codes":[0,1]}}},
 {"id":"i","key":"exists","type":"If","params":{"condition":"check.exit_code == 0"}},
 {"id":"y","key":"yes","type":"Tool","params":{"tool":"log","arguments":{"message":"found, exit {{check.exit_code}}"}}},
 {"id":"n","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"missing, exit {{check.exit_code}}"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"y","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`

func TestIf(t *testing.T) {
	for _, tc := range []struct {
		name   string
		create bool
		branch string
		log    string
	}{
		{"true branch", true, "IfTrue", "found, exit 0"},
		{"false branch", false, "IfFalse", "missing, exit 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			if tc.create {
				e.write("notes.txt", "hi")
			}
			res := e.run(parse(t, ifWF))
			wantOutcome(t, res, OutcomeSucceeded)
			br := e.rec.of(EvBranchEvaluated)
			if len(br) != 1 || br[0].Branch != tc.branch || br[0].Condition != "check.exit_code == 0" {
				t.Fatalf("branch events %+v", br)
			}
			if got := e.rec.logs(); !reflect.DeepEqual(got, []string{tc.log}) {
				t.Fatalf("logs %q", got)
			}
			if res.Summary.Nodes != 2 || res.Summary.FirstAttemptSuccesses != 2 {
				t.Errorf("summary %+v", res.Summary)
			}
			// Three nodes ran (the check, the If, one branch): a person is
			// told 3, as the canvas shows, not the 2 step executions.
			if res.Summary.Ran != 3 {
				t.Errorf("ran %d, want 3", res.Summary.Ran)
			}
		})
	}
}

const switchWF = `"nodes":[
 {"id":"a","key":"n","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo %s"}}},
 {"id":"s","key":"size","type":"Switch","params":{"cases":[
   {"name":"small","condition":"int(trim(n.stdout)) < 10"},
   {"name":"also_small","condition":"int(trim(n.stdout)) < 5"},
   {"name":"medium","condition":"int(trim(n.stdout)) < 100"}]}},
 {"id":"c1","key":"l1","type":"Tool","params":{"tool":"log","arguments":{"message":"small"}}},
 {"id":"c2","key":"l2","type":"Tool","params":{"tool":"log","arguments":{"message":"also small"}}},
 {"id":"c3","key":"l3","type":"Tool","params":{"tool":"log","arguments":{"message":"medium"}}}%s],
 "edges":[{"from":"a","to":"s"},
  {"from":"s","to":"c1","output":{"type":"SwitchCase","name":"small"}},
  {"from":"s","to":"c2","output":{"type":"SwitchCase","name":"also_small"}},
  {"from":"s","to":"c3","output":{"type":"SwitchCase","name":"medium"}}%s]`

func TestSwitch(t *testing.T) {
	const def = `,{"id":"d","key":"ld","type":"Tool","params":{"tool":"log","arguments":{"message":"large"}}}`
	const defEdge = `,{"from":"s","to":"d","output":"SwitchDefault"}`
	for _, tc := range []struct {
		name, value, node, edge string
		branch, log             string
	}{
		{"first match wins", "3", "", "", "small", "small"},
		{"later case", "50", "", "", "medium", "medium"},
		{"default", "500", def, defEdge, "SwitchDefault", "large"},
		{"no match, no default", "500", "", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			res := e.run(parse(t, sprintf(switchWF, tc.value, tc.node, tc.edge)))
			wantOutcome(t, res, OutcomeSucceeded)
			br := e.rec.of(EvBranchEvaluated)
			logs := e.rec.logs()
			if tc.branch == "" {
				if len(br) != 0 || len(logs) != 0 {
					t.Fatalf("branches %+v logs %q", br, logs)
				}
				if w := e.rec.of(EvWarning); len(w) != 1 || !strings.Contains(w[0].Message, "no case of Switch") {
					t.Fatalf("want a warning that the path ends, got %+v", w)
				}
				return
			}
			if len(br) != 1 || br[0].Branch != tc.branch {
				t.Fatalf("branches %+v", br)
			}
			if !reflect.DeepEqual(logs, []string{tc.log}) {
				t.Fatalf("logs %q", logs)
			}
		})
	}
}

// Nested loops: the outer runs 3 times (exit condition from its second
// iteration), the inner twice per outer pass (max_iterations, no exit
// condition), each inner pass appending a line.
const nestedWF = `"nodes":[
 {"id":"o","key":"outer","type":"Loop","params":{"exit_condition":"outer.iteration >= 3","max_iterations":10}},
 {"id":"i","key":"inner","type":"Loop","params":{"max_iterations":2}},
 {"id":"w","key":"line","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{outer.iteration}}.{{inner.iteration}}\n","append":true}}},
 {"id":"ie","key":"inner_end","type":"EndLoop","params":{"loop_id":"i"}},
 {"id":"oe","key":"outer_end","type":"EndLoop","params":{"loop_id":"o"}},
 {"id":"d","key":"done","type":"Tool","params":{"tool":"log","arguments":{"message":"done after {{outer.iteration}}"}}}],
 "edges":[{"from":"o","to":"i","output":"LoopBody"},{"from":"i","to":"w","output":"LoopBody"},{"from":"w","to":"ie"},{"from":"ie","to":"i"},
  {"from":"i","to":"oe","output":"LoopDone"},{"from":"oe","to":"o"},{"from":"o","to":"d","output":"LoopDone"}]`

func TestNestedLoops(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, nestedWF))
	wantOutcome(t, res, OutcomeSucceeded)
	if got, want := e.read("out.txt"), "1.1\n1.2\n2.1\n2.2\n3.1\n3.2\n"; got != want {
		t.Fatalf("out.txt = %q, want %q", got, want)
	}
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"done after 3"}) {
		t.Fatalf("logs %q", got)
	}
	var iters []string
	for _, ev := range e.rec.of(EvLoopIteration) {
		iters = append(iters, sprintf("%s%d", ev.NodeKey, ev.Iteration))
	}
	want := []string{"outer1", "inner1", "inner2", "outer2", "inner1", "inner2", "outer3", "inner1", "inner2"}
	if !reflect.DeepEqual(iters, want) {
		t.Fatalf("iterations %v, want %v", iters, want)
	}
	if len(e.rec.of(EvWarning)) != 0 {
		t.Errorf("a loop without exit condition reaching max_iterations is not a warning: %+v", e.rec.of(EvWarning))
	}
	if res.Summary.Nodes != 7 || res.Summary.Details[0].Executions != 6 {
		t.Errorf("summary %+v", res.Summary)
	}
	// The 7 step executions, the outer loop once and the inner loop at
	// each of its 3 starts.
	if res.Summary.Ran != 11 {
		t.Errorf("ran %d, want 11", res.Summary.Ran)
	}
}

func TestLoopMaxIterationsHit(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"l","key":"poll","type":"Loop","params":{"exit_condition":"probe.exit_code == 0","max_iterations":4}},
 {"id":"p","key":"probe","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo x >> tries; test -f never","ok_exit_codes":[0,1]}}},
 {"id":"le","key":"poll_end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"l","to":"p","output":"LoopBody"},{"from":"p","to":"le"},{"from":"le","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.read("tries"); got != "x\nx\nx\nx\n" {
		t.Fatalf("body ran %d times, want 4", strings.Count(got, "x"))
	}
	w := e.rec.of(EvWarning)
	if len(w) != 1 || !strings.Contains(w[0].Message, "max_iterations (4)") {
		t.Fatalf("warnings %+v", w)
	}
}

func TestLoopExitConditionCheckedFromSecondIteration(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"l","key":"once","type":"Loop","params":{"exit_condition":"true"}},
 {"id":"p","key":"body","type":"Tool","params":{"tool":"log","arguments":{"message":"body {{once.iteration}}"}}},
 {"id":"le","key":"once_end","type":"EndLoop","params":{"loop_id":"l"}}],
 "edges":[{"from":"l","to":"p","output":"LoopBody"},{"from":"p","to":"le"},{"from":"le","to":"l"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"body 1"}) {
		t.Fatalf("a do-while loop runs its body once before checking: logs %q", got)
	}
}

func TestTemplatesAndDisabled(t *testing.T) {
	e := newEnv(t)
	e.write("a.txt", "1")
	e.write("b.txt", "2")
	res := e.run(parse(t, `"nodes":[
 {"id":"l","key":"list","type":"Tool","params":{"tool":"list_files","arguments":{"path":".","pattern":"*.txt"}}},
 {"id":"x","key":"off","type":"Tool","enabled":false,"params":{"tool":"run_command","arguments":{"command":"touch should-not-exist"}}},
 {"id":"m","key":"msg","type":"Tool","params":{"tool":"log","arguments":{"message":"{{list.count}} files: {{list.files}}, {{list.count * 10}}; docker {{.Names}}; off={{off.skipped}}"}}},
 {"id":"w","key":"wait","type":"Tool","params":{"tool":"wait","arguments":{"ms":"{{list.count}}"}}}],
 "edges":[{"from":"l","to":"x"},{"from":"x","to":"m"},{"from":"m","to":"w"}]`))
	wantOutcome(t, res, OutcomeSucceeded)
	want := `2 files: ["a.txt","b.txt"], 20; docker {{.Names}}; off=true`
	if got := e.rec.logs(); len(got) != 1 || got[0] != want {
		t.Fatalf("log %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "should-not-exist")); err == nil {
		t.Fatal("a disabled node ran")
	}
	if sk := e.rec.of(EvNodeSkipped); len(sk) != 1 || sk[0].NodeKey != "off" {
		t.Fatalf("skipped events %+v", sk)
	}
	if res.Summary.Disabled != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
}

func TestRefusesInvalidWorkflow(t *testing.T) {
	e := newEnv(t)
	_, err := New(e.opts).Run(t.Context(), parse(t, `"nodes":[
 {"id":"i","key":"ok","type":"If","params":{"condition":"x =="}}],"edges":[]`))
	var ie *InvalidError
	if !errors.As(err, &ie) || len(ie.Problems) == 0 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "not valid") || !strings.Contains(err.Error(), validate.CodeBadCondition) {
		t.Errorf("message: %v", err)
	}
	if ents, _ := os.ReadDir(e.opts.RunsDir); len(ents) != 0 {
		t.Error("a refused run left a run folder")
	}
}

func TestConditionRuntimeErrorStopsRun(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi"}}},
 {"id":"i","key":"cmp","type":"If","params":{"condition":"check.stdout > 3"}},
 {"id":"y","key":"yes","type":"Tool","params":{"tool":"log","arguments":{"message":"y"}}},
 {"id":"n","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"n"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"y","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`))
	wantOutcome(t, res, OutcomeFailed)
	if res.StoppedAt == nil || res.StoppedAt.Key != "cmp" || !strings.Contains(res.Error, "could not be evaluated") {
		t.Fatalf("result %+v", res)
	}
}

func TestExpressionTimeBound(t *testing.T) {
	ev := newEvaluator(nil, time.Millisecond)
	vars := map[string]any{"big": map[string]any{"n": 900000}}
	_, err := ev.evalBool(`reduce(1..big.n, #acc + # % 7, 0) > 0`, vars, "", nil)
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("err = %v", err)
	}
	// Shadowed builtins: a node keyed "count" is read as a variable.
	ev = newEvaluator([]string{"count"}, 0)
	ok, err := ev.evalBool(`count.files > 1`, map[string]any{"count": map[string]any{"files": 2}}, "", nil)
	if err != nil || !ok {
		t.Fatalf("shadowed builtin: %v %v", ok, err)
	}
}

func TestRunFoldersArePruned(t *testing.T) {
	e := newEnv(t)
	e.opts.Settings.Run.RetentionRuns = 3
	runs := e.opts.RunsDir
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	var finished []string
	for i := 0; i < 5; i++ {
		id := NewRunID(old.Add(time.Duration(i) * time.Hour))
		finished = append(finished, id)
		os.MkdirAll(filepath.Join(runs, id), 0o755)
		os.WriteFile(filepath.Join(runs, id, summaryFile), []byte("{}"), 0o644)
	}
	going := NewRunID(old.Add(10 * time.Hour)) // no summary yet, touched just now: maybe still running
	os.MkdirAll(filepath.Join(runs, going), 0o755)
	os.MkdirAll(filepath.Join(runs, "notes"), 0o755)

	res := e.run(parse(t, `"nodes":[{"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"x"}}}],"edges":[]`))
	wantOutcome(t, res, OutcomeSucceeded)
	ents, _ := os.ReadDir(runs)
	var left []string
	for _, ent := range ents {
		left = append(left, ent.Name())
	}
	want := []string{finished[4], going, res.RunID, "notes"}
	if !reflect.DeepEqual(left, want) {
		t.Fatalf("left %v, want %v", left, want)
	}
}

func TestDefaultRunsDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", filepath.Join(t.TempDir(), "data"))
	got, err := DefaultRunsDir("")
	if err != nil || got != filepath.Join(os.Getenv("XDG_DATA_HOME"), "weft", "runs") {
		t.Fatalf("unsaved: %q %v", got, err)
	}
	wf := filepath.Join(t.TempDir(), "flows", "backup.weft.json")
	if got, _ := DefaultRunsDir(wf); got != filepath.Join(filepath.Dir(wf), ".weft", "runs") {
		t.Fatalf("saved: %q", got)
	}
	p, err := failure.DefaultPatternStore()
	if err != nil || p.Path != filepath.Join(os.Getenv("XDG_DATA_HOME"), "weft", "patterns.jsonl") {
		t.Fatalf("patterns: %+v %v", p, err)
	}
}

// A condition that would build an enormous string from a step's output
// (validate cannot know its size) fails the run with a clear error instead
// of taking the process down.
func TestConditionBombFailsTheRun(t *testing.T) {
	e := newEnv(t)
	res := e.run(parse(t, `"nodes":[
 {"id":"a","key":"check","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi"}}},
 {"id":"i","key":"cmp","type":"If","params":{"condition":"repeat(repeat(check.stdout, 999999), 1000000) == \"\""}},
 {"id":"y","key":"yes","type":"Tool","params":{"tool":"log","arguments":{"message":"y"}}},
 {"id":"n","key":"no","type":"Tool","params":{"tool":"log","arguments":{"message":"n"}}}],
 "edges":[{"from":"a","to":"i"},{"from":"i","to":"y","output":"IfTrue"},{"from":"i","to":"n","output":"IfFalse"}]`))
	wantOutcome(t, res, OutcomeFailed)
	if res.StoppedAt == nil || res.StoppedAt.Key != "cmp" || !strings.Contains(res.Error, "an expression may build at most") {
		t.Fatalf("result %+v", res)
	}
}
