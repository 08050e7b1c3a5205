package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/approval"
	"github.com/weft-dev/weft/backend/flow"
	"github.com/weft-dev/weft/backend/quote"
	"github.com/weft-dev/weft/backend/workflow"
)

// trustChildren is a GateChild for which every sub-workflow file is
// trusted as it is (nothing in it waits).
func trustChildren(context.Context, *workflow.Workflow, string, []byte) (ChildGate, error) {
	return ChildGate{Approvals: approval.Set(nil)}, nil
}

// writeFlow writes a workflow file of nodes and edges in e's folder.
func (e *env) writeFlow(name, body string) string {
	e.t.Helper()
	return e.write(name, `{"format":"weft/v1","name":"`+name+`",`+body+`}`)
}

const echoChild = `"inputs":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},
 "nodes":[{"id":"c1","key":"echo","type":"Tool","params":{"tool":"run_command","arguments":{"command":"printf '%s' {{inputs.name}}"}}}],"edges":[]`

// A Workflow step runs its file with its inputs as data (the child
// quotes them where it inserts them: shell metacharacters act nowhere),
// its outputs are the child's by node key, and the runs are linked both
// ways: the parent's log event and SubRuns name the child's run, the
// child's summary names the parent's.
func TestSubflowRunsChildWithInputsAsData(t *testing.T) {
	if quote.HostShell() != quote.POSIX {
		t.Skip("the commands are sh")
	}
	for i, v := range hostileData {
		t.Run(fmt.Sprintf("%d %.20q", i, v), func(t *testing.T) {
			e := newEnv(t)
			e.opts.GateChild = trustChildren
			e.writeFlow("child.weft.json", echoChild)
			w := parse(t, `"inputs":{"type":"object","properties":{"who":{"type":"string"}}},"nodes":[
 {"id":"1","key":"sub","type":"Workflow","params":{"path":"child.weft.json","inputs":{"name":"{{inputs.who}}"}}},
 {"id":"2","key":"save","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out","content":"{{sub.outputs.echo.stdout}}|{{sub.outcome}}"}}}],
 "edges":[{"from":"1","to":"2"}]`)
			e.opts.Inputs = map[string]any{"who": v}
			res := e.run(w)
			wantOutcome(t, res, OutcomeSucceeded)
			noMarks(t, e.dir, "out", "child.weft.json")
			if got, want := e.read("out"), quote.TrimLineEnd(v)+"|succeeded"; got != want {
				t.Fatalf("out = %q, want %q", got, want)
			}
			if len(res.SubRuns) != 1 || res.SubRuns[0].NodeKey != "sub" {
				t.Fatalf("SubRuns = %+v", res.SubRuns)
			}
			child := res.SubRuns[0]
			var linked bool
			for _, ev := range readEvents(t, res.Dir) {
				if ev.SubRun != nil && ev.SubRun.RunID == child.RunID && ev.NodeKey == "sub" {
					linked = true
				}
			}
			if !linked {
				t.Errorf("no event of the parent's run names the child's run %s", child.RunID)
			}
			b, err := os.ReadFile(filepath.Join(child.Dir, "summary.json"))
			if err != nil {
				t.Fatal(err)
			}
			var sum Result
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Parent == nil || sum.Parent.RunID != res.RunID || sum.Parent.NodeKey != "sub" || sum.Parent.Dir != res.Dir {
				t.Errorf("the child's summary names the parent %+v, want run %s", sum.Parent, res.RunID)
			}
			if sum.Inputs["name"] != v {
				t.Errorf("the child ran with name %q, want %q", sum.Inputs["name"], v)
			}
		})
	}
}

// A child that fails fails the Workflow step as a step fails: on_error
// continue goes on with success false and the child's error; stop ends
// the parent's run (nobody to ask).
func TestSubflowChildFailureFollowsOnError(t *testing.T) {
	for _, mode := range []string{"continue", "stop"} {
		t.Run(mode, func(t *testing.T) {
			e := newEnv(t)
			e.opts.GateChild = trustChildren
			e.writeFlow("child.weft.json", `"nodes":[{"id":"c1","key":"bad","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo broken >&2; exit 3"}}}],"edges":[]`)
			w := parse(t, `"nodes":[
 {"id":"1","key":"sub","type":"Workflow","on_error":"`+mode+`","params":{"path":"child.weft.json"}},
 {"id":"2","key":"after","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out","content":"{{sub.success}} {{sub.outcome}}"}}}],
 "edges":[{"from":"1","to":"2"}]`)
			res := e.run(w)
			if mode == "stop" {
				wantOutcome(t, res, OutcomeFailed)
				if !strings.Contains(res.Error, "child.weft.json ended failed") {
					t.Errorf("error %q does not say the child failed", res.Error)
				}
				return
			}
			wantOutcome(t, res, OutcomePartial)
			if got := e.read("out"); got != "false failed" {
				t.Errorf("out = %q", got)
			}
		})
	}
}

// Workflows calling one another in a cycle, or nesting deeper than the
// bound, fail at the step that would go on, saying the chain; nothing
// past the bound starts.
func TestSubflowRecursionBounded(t *testing.T) {
	e := newEnv(t)
	e.opts.GateChild = trustChildren
	call := func(next string) string {
		return `"nodes":[{"id":"n","key":"next","type":"Workflow","params":{"path":"` + next + `"}}],"edges":[]`
	}
	a := e.writeFlow("a.weft.json", call("b.weft.json"))
	e.writeFlow("b.weft.json", call("a.weft.json"))
	w, _, err := workflow.Load(a)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.WorkflowPath, e.opts.Dir = a, ""
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "a.weft.json → b.weft.json → a.weft.json") {
		t.Errorf("error %q does not say the cycle", res.Error)
	}

	for i := 0; i < 12; i++ {
		e.writeFlow(fmt.Sprintf("d%02d.weft.json", i), call(fmt.Sprintf("d%02d.weft.json", i+1)))
	}
	e.writeFlow("d12.weft.json", `"nodes":[{"id":"n","key":"mark","type":"Tool","params":{"tool":"write_file","arguments":{"path":"deepest","content":"x"}}}],"edges":[]`)
	top := filepath.Join(e.dir, "d00.weft.json")
	if w, _, err = workflow.Load(top); err != nil {
		t.Fatal(err)
	}
	e.opts.WorkflowPath = top
	res = e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "deeper than 8") || !strings.Contains(res.Error, "d00.weft.json → d01.weft.json") {
		t.Errorf("error %q does not say the depth and the chain", res.Error)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "deepest")); err == nil {
		t.Error("a workflow past the depth bound ran")
	}
}

// The child's own approvals apply wherever it is called from: without a
// gate saying its file is trusted, its command waits for review and
// nothing of it runs; the caller's approval does not cover it. A child
// whose inputs do not fit does not start either. Neither is retried.
func TestSubflowChildGated(t *testing.T) {
	e := newEnv(t)
	e.writeFlow("child.weft.json", `"nodes":[{"id":"c1","key":"mark","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch MARK"}}}],"edges":[]`)
	w := parse(t, `"nodes":[{"id":"1","key":"sub","type":"Workflow","retry":{"max_attempts":3},"params":{"path":"child.weft.json"}}],"edges":[]`)
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "did not run") || !strings.Contains(res.Error, "weft approve") {
		t.Errorf("error %q does not say the child waits for approval", res.Error)
	}
	noMarks(t, e.dir, "child.weft.json")
	if n := len(e.rec.of(EvAttempt)); n != 1 {
		t.Errorf("%d attempts, want 1 (a refusal is not retried)", n)
	}

	e.opts.GateChild = trustChildren
	w = parse(t, `"nodes":[{"id":"1","key":"sub","type":"Workflow","params":{"path":"child.weft.json","inputs":{"nope":1}}}],"edges":[]`)
	res = e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if !strings.Contains(res.Error, "declares no input") {
		t.Errorf("error %q does not say the input is not declared", res.Error)
	}
	noMarks(t, e.dir, "child.weft.json")

	w = parse(t, `"nodes":[{"id":"1","key":"sub","type":"Workflow","params":{"path":"child.weft.json"}}],"edges":[]`)
	wantOutcome(t, e.run(w), OutcomeSucceeded)
	if _, err := os.Stat(filepath.Join(e.dir, "MARK")); err != nil {
		t.Error("the trusted child did not run")
	}
}

// Another engine's step (Step) runs a sub-workflow only through the door
// its engine hands in (Options.Children): without one it is refused.
// With one, a Workflow step's attempt is the same as a local run's:
// every case below (no file, a cycle, not approved, inputs that do not
// fit, a child that fails, one that succeeds) ends the step with the same
// outputs and the same failure through Run's door and through Step with
// another door, which only reaches files and runs children differently.
func TestSubflowStepThroughAnotherDoor(t *testing.T) {
	e := newEnv(t)
	e.opts.GateChild = trustChildren
	e.writeFlow("child.weft.json", echoChild)
	w := parse(t, `"nodes":[{"id":"1","key":"sub","type":"Workflow","params":{"path":"child.weft.json","inputs":{"name":"x"}}}],"edges":[]`)
	if _, err := New(e.opts).Step(context.Background(), w, "1", nil, Attempt{Number: 1, Max: 1}); err == nil || !strings.Contains(err.Error(), "Options.Children") {
		t.Fatalf("Step without a door: %v", err)
	}
	acts := `"nodes":[{"id":"c1","key":"mark","type":"Tool","params":{"tool":"write_file","arguments":{"path":"MARK","content":"x"}}}],"edges":[]`
	for _, tc := range []struct {
		name, files, params string
		gate                func(context.Context, *workflow.Workflow, string, []byte) (ChildGate, error)
		ok                  bool
	}{
		{name: "succeeds", params: `"path":"child.weft.json","inputs":{"name":"a; touch MARK"}`, ok: true},
		{name: "no file", params: `"path":"none.weft.json"`},
		{name: "cycle", params: `"path":"self.weft.json"`, files: "self"},
		{name: "inputs do not fit", params: `"path":"child.weft.json","inputs":{"nme":"x"}`},
		{name: "not approved", params: `"path":"acts.weft.json"`, files: "acts", gate: func(context.Context, *workflow.Workflow, string, []byte) (ChildGate, error) {
			return ChildGate{Approvals: approval.Set(nil), ReviewFile: true}, nil
		}},
		{name: "child fails", params: `"path":"fails.weft.json"`, files: "fails"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.opts.GateChild = trustChildren
			if tc.gate != nil {
				e.opts.GateChild = tc.gate
			}
			e.writeFlow("child.weft.json", echoChild)
			e.writeFlow("acts.weft.json", acts)
			e.writeFlow("fails.weft.json", `"nodes":[{"id":"c1","key":"bad","type":"Tool","retry":{"max_attempts":1},"params":{"tool":"run_command","arguments":{"command":"exit 3"}}}],"edges":[]`)
			body := `"nodes":[{"id":"1","key":"sub","type":"Workflow","params":{` + tc.params + `}}],"edges":[]`
			parent := e.writeFlow("self.weft.json", body)
			w := parse(t, body)
			e.opts.WorkflowPath, e.opts.Dir = parent, ""

			local := e.run(w)
			var localFail string
			for _, ev := range e.rec.all() {
				if ev.NodeKey == "sub" && ev.Failure != nil && localFail == "" {
					localFail = ev.Failure.Error
				}
			}
			door := &recordingDoor{local: localChildren{&e.opts}}
			o := e.opts
			o.Children = door
			step, err := New(o).Step(context.Background(), w, "1", nil, Attempt{Number: 1, Max: 1})
			if err != nil {
				t.Fatalf("Step: %v", err)
			}
			if tc.ok != (local.Outcome == OutcomeSucceeded) || tc.ok != (step.Failure == nil) {
				t.Fatalf("local %s (%s), step failure %+v", local.Outcome, localFail, step.Failure)
			}
			if !tc.ok {
				ids := regexp.MustCompile(`run [0-9A-Za-z_.-]+\)`)
				if got, want := ids.ReplaceAllString(step.Failure.Error, "run ID)"), ids.ReplaceAllString(localFail, "run ID)"); got != want {
					t.Errorf("the doors fail the step differently:\n step: %s\nlocal: %s", got, want)
				}
				if strings.Contains(tc.name, "fails") != (door.ran == 1) {
					t.Errorf("the other door ran %d children", door.ran)
				}
				return
			}
			got, _ := json.Marshal(step.Outputs["outputs"])
			want, _ := json.Marshal(local.Outputs["sub"].(map[string]any)["outputs"])
			if string(got) != string(want) || door.ran != 1 || len(door.links) != 1 {
				t.Errorf("outputs %s, want %s; the door ran %d, linked %v", got, want, door.ran, door.links)
			}
			noMarks(t, e.dir, "child.weft.json", "acts.weft.json", "fails.weft.json", "self.weft.json")
		})
	}
}

// recordingDoor is another engine's door that reaches files as the local
// one does and counts the children it is asked to run.
type recordingDoor struct {
	local localChildren
	ran   int
	links []string
}

func (d *recordingDoor) Path(dir string, n *workflow.Node) (string, error) {
	return d.local.Path(dir, n)
}
func (d *recordingDoor) Open(ctx context.Context, path string) (*workflow.Workflow, ChildGate, error) {
	return d.local.Open(ctx, path)
}
func (d *recordingDoor) Run(ctx context.Context, c ChildRun) (*Result, error) {
	d.ran++
	c.Started = func(l flow.RunLink) { d.links = append(d.links, l.RunID) }
	return d.local.Run(ctx, c)
}

// A run whose effects a stand-in answers (a workflow test) hands its
// sub-workflow the same stand-in: the child's command reaches it, not the
// shell, and the child needs no approval (nothing acts).
func TestSubflowChildEffectsAnsweredByTheStandIn(t *testing.T) {
	e := newEnv(t)
	fx := &refuser{}
	e.opts.Effects = fx
	e.writeFlow("child.weft.json", `"nodes":[{"id":"c1","key":"mark","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch MARK"}}}],"edges":[]`)
	w := parse(t, `"nodes":[{"id":"1","key":"sub","type":"Workflow","params":{"path":"child.weft.json"}}],"edges":[]`)
	res := e.run(w)
	wantOutcome(t, res, OutcomeFailed)
	if len(fx.tools) != 1 || fx.tools[0] != "run_command" {
		t.Errorf("the stand-in answered %v, want the child's run_command", fx.tools)
	}
	noMarks(t, e.dir, "child.weft.json")
}
