package flow

import (
	"encoding/json"

	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
	"github.com/weft-dev/weft/backend/workflow"
)

// walkWorkflows are the valid workflows in testdata plus one with every
// run semantic the fuzzer can steer (retries, on_error, done_when).
func walkWorkflows(t testing.TB) []*workflow.Workflow {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "workflows", "valid", "*.json"))
	var out []*workflow.Workflow
	for _, f := range files {
		w, _, err := workflow.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, w)
	}
	w, _, err := workflow.Parse([]byte(`{"format":"weft/v1","id":"f","name":"f","done_when":{"condition":"true"},"pinned":{"p":{"x":1}},"nodes":[
 {"id":"a","key":"a","type":"Tool","params":{"tool":"log","arguments":{"message":"a"}},"retry":{"max_attempts":3},"on_error":"branch"},
 {"id":"b","key":"b","type":"Tool","params":{"tool":"log","arguments":{"message":"b"}},"on_error":"continue"},
 {"id":"p","key":"p","type":"Tool","params":{"tool":"log","arguments":{"message":"p"}}},
 {"id":"s","key":"s","type":"Workflow","params":{"path":"child.weft.json","inputs":{"v":"{{p.success}}"}},"retry":{"max_attempts":2}},
 {"id":"x","key":"x","type":"Tool","disabled":true,"params":{"tool":"log","arguments":{"message":"x"}}},
 {"id":"h","key":"h","type":"AiStep","params":{"prompt":"fix it"},"done_when":{"condition":"true"}}],
 "edges":[{"from":"a","to":"b"},{"from":"a","to":"h","output":{"type":"Error"}},{"from":"b","to":"p"},{"from":"p","to":"s"},{"from":"s","to":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return append(out, w)
}

// byteSource hands out the fuzzer's choices; past its end every choice
// is 0, which leads every walk to its end (success, false, abort).
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() byte {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return s.b[s.i-1]
}

// drive walks w answering each command from src; it returns the events
// and the end. Commands are bounded: a walk that does not end is a bug.
func drive(t testing.TB, w *workflow.Workflow, src *byteSource, pinned bool) ([]Event, *Result) {
	var evs []Event
	m, err := New(w.Clone(), Config{Seed: 7, CanAsk: true, CanReplan: true, UsePinned: pinned, DefaultRetries: 1,
		AutoReplan: AutoReplan{Enabled: src.next()%2 == 1, Max: 1, Min: failure.SevHigh}, Emit: func(e Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := m.Start(now)
	for n := 0; c.Kind != KindDone; n++ {
		if n > 200000 {
			t.Fatalf("the walk did not end after %d commands (last %s)", n, c.Kind)
		}
		now = now.Add(time.Millisecond)
		in := Input{Now: now}
		b := src.next()
		switch c.Kind {
		case KindAttempt:
			in.Outputs = map[string]any{"n": float64(b)}
			if b%3 == 1 {
				in.Failure = &failure.Record{Attempt: c.Attempt, Error: "boom", FailureType: failure.FailExecution,
					Classification: failure.Classification{Severity: []failure.Severity{failure.SevLow, failure.SevHigh, failure.SevCritical}[int(b/3)%3], Retryable: b%2 == 1}}
			}
			if b == 254 {
				in.Refused = "not approved"
			}
		case KindCondition:
			in.Value = b%2 == 1
			if b == 255 {
				in.Error = "type mismatch"
			}
		case KindAsk:
			acts := []Action{ActAbort, ActRetry, ActSkip, ActFix, ActReplan, "nonsense"}
			in.Response = Response{Action: acts[int(b)%len(acts)], Instruction: "do better"}
			if b%7 == 3 {
				in.Response.Arguments = map[string]any{"message": "fixed"}
			}
		case KindReplan:
			if b%2 == 1 {
				in.Workflow = w.Clone()
			} else {
				in.Error = "no plan"
			}
		case KindGoal:
			in.Verdict = &Verdict{Approved: b%2 == 1, CheckedBy: "condition"}
		}
		in.Canceled = b == 253
		c = m.Next(in)
	}
	return evs, c.Result
}

func FuzzWalk(f *testing.F) {
	ws := walkWorkflows(f)
	f.Add(uint8(0), false, []byte{})
	f.Add(uint8(5), true, []byte{1, 1, 1, 4, 1, 2, 3, 0, 0, 1})
	f.Add(uint8(3), false, []byte{255})
	f.Add(uint8(5), false, []byte{1, 7, 1, 1, 1, 1, 1, 1, 4, 5, 253})
	f.Fuzz(func(t *testing.T, which uint8, pinned bool, choices []byte) {
		w := ws[int(which)%len(ws)]
		evs, res := drive(t, w, &byteSource{b: choices}, pinned)
		// The run starts and ends once, and says how.
		if len(evs) < 2 || evs[0].Type != EvRunStarted || evs[len(evs)-1].Type != EvRunFinished || evs[len(evs)-1].Outcome != res.Outcome {
			t.Fatalf("events: first %v last %v, result %s", evs[0].Type, evs[len(evs)-1].Type, res.Outcome)
		}
		known := false
		for _, o := range Outcomes {
			known = known || o == res.Outcome
		}
		if !known {
			t.Fatalf("unknown outcome %q", res.Outcome)
		}
		// Every event names a node of the workflow (or the goal check).
		for i, e := range evs {
			if e.NodeID != "" && w.NodeByID(e.NodeID) == nil {
				t.Fatalf("event %s names no node: %q", e.Type, e.NodeID)
			}
			if e.Type == EvRunFinished && i != len(evs)-1 {
				t.Fatal("run_finished before the end")
			}
		}
		// Statistics agree with the events: one row per step that ran.
		finished := map[string]bool{}
		for _, e := range evs {
			if e.Type == EvNodeFinished || e.Type == EvNodeSkipped {
				finished[e.NodeID] = true
			}
		}
		for _, d := range res.Summary.Details {
			if !finished[d.ID] {
				t.Fatalf("summary row for %s, which never finished", d.ID)
			}
		}
		checkEdgeCounts(t, w, evs, res.Summary)
		// The same choices walk the same way: deterministic, as a
		// Temporal replay needs.
		again, res2 := drive(t, w, &byteSource{b: choices}, pinned)
		if !reflect.DeepEqual(jsonLines(t, evs), jsonLines(t, again)) || res.Outcome != res2.Outcome {
			t.Fatal("the same answers gave another walk")
		}
	})
}

func jsonLines(t *testing.T, evs []Event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	return out
}
