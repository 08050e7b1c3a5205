package runner

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/workflow"
)

// chainWF: a (creates a_ran, prints "real") → b (logs a's stdout) → c.
const chainWF = `"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"run_command","arguments":{"command":"touch a_ran && echo real"}}},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"log","arguments":{"message":"a said {{a.stdout}}"}}},
 {"id":"c","key":"c","type":"Tool","params":{"tool":"log","arguments":{"message":"c ran"}}}],
 "edges":[{"from":"a","to":"b"},{"from":"b","to":"c"}]`

func ran(e *env, name string) bool {
	_, err := os.Stat(filepath.Join(e.dir, name))
	return err == nil
}

func TestPinnedData(t *testing.T) {
	pin := func(t *testing.T) *env {
		e := newEnv(t)
		return e
	}
	w := parse(t, chainWF)
	w.Pinned = map[string]any{"a": map[string]any{"stdout": "pinned", "stderr": "", "exit_code": 0.0}}

	t.Run("used", func(t *testing.T) {
		e := pin(t)
		e.opts.UsePinned = true
		res := e.run(w)
		wantOutcome(t, res, OutcomeSucceeded)
		if ran(e, "a_ran") {
			t.Fatal("a pinned step ran")
		}
		if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"a said pinned", "c ran"}) {
			t.Fatalf("logs %q", got)
		}
		if res.Summary.Pinned != 1 || res.Summary.Details[0].Result != SourcePinned {
			t.Errorf("summary %+v", res.Summary)
		}
		if res.Summary.Ran != res.Summary.Nodes { // the pinned step did not run
			t.Errorf("ran %d, nodes %d", res.Summary.Ran, res.Summary.Nodes)
		}
		var fin []Event
		for _, ev := range e.rec.of(EvNodeFinished) {
			if ev.Source == SourcePinned {
				fin = append(fin, ev)
			}
		}
		if len(fin) != 1 || fin[0].NodeID != "a" || fin[0].Outputs["stdout"] != "pinned" {
			t.Errorf("pinned events %+v", fin)
		}
		// The run's copy is its own: the workflow's pin is unchanged.
		if w.Pinned["a"].(map[string]any)["stdout"] != "pinned" {
			t.Error("the pin changed")
		}
	})
	t.Run("not asked for", func(t *testing.T) {
		e := pin(t)
		res := e.run(w)
		wantOutcome(t, res, OutcomeSucceeded)
		if !ran(e, "a_ran") {
			t.Fatal("without UsePinned the step must run")
		}
		if got := e.rec.logs(); got[0] != "a said real\n" {
			t.Fatalf("logs %q", got)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `"a" run for real`) {
			t.Errorf("warnings %q", res.Warnings)
		}
	})
	t.Run("disabled wins", func(t *testing.T) {
		e := pin(t)
		e.opts.UsePinned = true
		d := w.Clone()
		d.Nodes[0].SetEnabled(false)
		res := e.run(d)
		if res.Summary.Pinned != 0 || res.Summary.Disabled != 1 {
			t.Errorf("summary %+v", res.Summary)
		}
		if res.Summary.Ran != res.Summary.Nodes { // a disabled step did not run
			t.Errorf("ran %d, nodes %d", res.Summary.Ran, res.Summary.Nodes)
		}
	})
	t.Run("an invalid pin does not run", func(t *testing.T) {
		e := pin(t)
		e.opts.UsePinned = true
		bad := w.Clone()
		bad.Pinned = map[string]any{"a": "pinned"}
		if _, err := New(e.opts).Run(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "pinned_invalid") {
			t.Fatalf("err %v", err)
		}
		if ran(e, "a_ran") {
			t.Fatal("a step whose pin is invalid ran")
		}
	})
}

func TestRunFrom(t *testing.T) {
	t.Run("reuses the steps before", func(t *testing.T) {
		e := newEnv(t)
		e.opts.From, e.opts.ReusedFrom = "b", "run-1"
		e.opts.Reuse = map[string]any{"a": map[string]any{"stdout": "earlier", "exit_code": 0.0}, "c": map[string]any{"message": "stale"}}
		res := e.run(parse(t, chainWF))
		wantOutcome(t, res, OutcomeSucceeded)
		if ran(e, "a_ran") {
			t.Fatal("a step before the start ran")
		}
		if got := e.rec.logs(); !reflect.DeepEqual(got, []string{"a said earlier", "c ran"}) {
			t.Fatalf("logs %q", got)
		}
		s := res.Summary
		if s.Reused != 1 || s.From == nil || s.From.ID != "b" || s.ReusedFrom != "run-1" || s.Nodes != 2 {
			t.Errorf("summary %+v", s)
		}
		if len(res.Warnings) != 0 {
			t.Errorf("warnings %q", res.Warnings)
		}
		evs := e.rec.of(EvNodeFinished)
		if evs[0].NodeID != "a" || evs[0].Source != SourceReused || !strings.Contains(evs[0].Message, "run run-1") {
			t.Errorf("first finished event %+v", evs[0])
		}
	})
	t.Run("nothing to reuse", func(t *testing.T) {
		e := newEnv(t)
		e.opts.From = "b"
		res := e.run(parse(t, chainWF))
		// As in a whole run, reading a step that has no outputs fails:
		// the warning said so before.
		wantOutcome(t, res, OutcomeFailed)
		if !strings.Contains(res.Error, "a has not run") {
			t.Errorf("error %q", res.Error)
		}
		if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], `no outputs of "a"`) {
			t.Errorf("warnings %q", res.Warnings)
		}
	})
	t.Run("a pin before the start wins", func(t *testing.T) {
		e := newEnv(t)
		e.opts.From, e.opts.UsePinned = "c", true
		e.opts.Reuse = map[string]any{"a": map[string]any{"stdout": "earlier"}, "b": map[string]any{"message": "x"}}
		w := parse(t, chainWF)
		w.Pinned = map[string]any{"a": map[string]any{"stdout": "pinned"}}
		res := e.run(w)
		if res.Summary.Pinned != 1 || res.Summary.Reused != 1 {
			t.Errorf("summary %+v", res.Summary)
		}
		if res.Outputs["a"].(map[string]any)["stdout"] != "pinned" {
			t.Errorf("outputs %v", res.Outputs)
		}
	})
	t.Run("inside a loop starts at the outermost loop", func(t *testing.T) {
		e := newEnv(t)
		e.opts.From = "w"
		res := e.run(parse(t, nestedWF))
		wantOutcome(t, res, OutcomeSucceeded)
		if got := e.read("out.txt"); got != "1.1\n1.2\n2.1\n2.2\n3.1\n3.2\n" {
			t.Fatalf("out.txt %q", got)
		}
		if res.Summary.From == nil || res.Summary.From.ID != "o" {
			t.Errorf("from %+v", res.Summary.From)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], `inside the loop "outer"`) {
			t.Errorf("warnings %q", res.Warnings)
		}
	})
	t.Run("an unknown node", func(t *testing.T) {
		e := newEnv(t)
		e.opts.From = "nope"
		if _, err := New(e.opts).Run(t.Context(), parse(t, chainWF)); err == nil || !strings.Contains(err.Error(), "no such node") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestRunFromRefusesStaleOutputs(t *testing.T) {
	e := newEnv(t)
	old := parse(t, chainWF)
	w := old.Clone()
	w.Nodes[0].Position = &workflow.Position{X: 50, Y: 9}
	e.opts.From, e.opts.ReuseOf, e.opts.ReusedFrom = "c", old, "run-1"
	e.opts.Reuse = map[string]any{"a": map[string]any{"stdout": "x"}, "b": map[string]any{"message": "y"}}
	if _, err := New(e.opts).Run(t.Context(), w); err != nil {
		t.Fatalf("a moved node is not a change: %v", err)
	}
	w.Nodes[0].Params.Arguments["command"] = "echo changed"
	_, err := New(e.opts).Run(t.Context(), w)
	var se *StaleError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `"a" changed since run run-1`) {
		t.Fatalf("err %v", err)
	}
	// Running from the changed step itself is fine.
	e.opts.From = "a"
	if _, err := New(e.opts).Run(t.Context(), w); err != nil {
		t.Fatal(err)
	}
}
