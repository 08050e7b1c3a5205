package flow

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/weft-dev/weft/backend/failure"
)

func TestEventJSONMatchesEncodingJSON(t *testing.T) {
	type plain Event // same fields, without the MarshalJSON method
	when := time.Date(2026, 1, 26, 14, 30, 0, 123456789, time.FixedZone("X", 3600))
	events := []Event{
		{Seq: 1, Time: when, Type: EvRunStarted, RunID: "r"},
		{Seq: 2, Time: when, Type: EvVariableSet, RunID: "r", NodeID: "n", NodeKey: "k", NodeName: "Name <&> \"q\"",
			Outputs: map[string]any{"s": "line\nbreak\ttab\x01\x7f <b>&amp; \u2028\u2029 é \xff end", "i": 42, "i64": int64(-7), "f": 1.5,
				"big": 1e21, "tiny": 1e-7, "whole": 3.0, "neg": -0.25, "nil": nil, "b": true,
				"list": []any{"a", 1.0, map[string]any{"z": 1, "a": []any{}}}, "raw": json.RawMessage(`{ "x" : [1, 2] }`),
				"strs": []string{"x"}, "m": map[string]any{}}},
		{Seq: 3, Time: when, Type: EvFailure, RunID: "r", Status: StatusFailed, Attempt: 2, MaxAttempts: 3, DelayMs: 5, DurationMs: 9, Iteration: 4,
			Failure: &failure.Record{Attempt: 2, Time: when, FailureType: failure.FailVerification, Error: "verify `a < b` is false",
				Classification: failure.Classification{Severity: failure.SevMedium, Category: failure.CatLogic, Retryable: true}}},
		{Seq: 4, Time: when, Type: EvEscalated, RunID: "r", Escalation: &Escalation{NodeKey: "k", Choices: []Action{ActRetry}, Failures: []failure.Record{}}},
		{Seq: 5, Time: when, Type: EvUserResponse, RunID: "r", Response: &Response{Action: ActFix, Arguments: map[string]any{"p": "<x>"}}},
		{Seq: 8, Time: when, Type: EvAttempt, RunID: "r", Attempt: 1, Arguments: map[string]any{"command": "echo <a> & b", "n": 2.0}, Reads: []string{"list", "<b>"}, Outputs: map[string]any{"x": 1}},
		{Seq: 6, Time: when, Type: EvBranchEvaluated, RunID: "r", Branch: "IfTrue", Condition: "a && b", Message: "m", Tool: "t"},
		{Seq: 7, Time: when, Type: EvRunFinished, RunID: "r", Outcome: OutcomeSucceeded, Summary: &Summary{Nodes: 1, FailureTypes: map[failure.Type]int{failure.FailTimeout: 1}, From: &NodeRef{ID: "n"}, Pinned: 1},
			Verdict: &Verdict{Approved: true, CheckedBy: "condition"}},
		{Seq: 9, Time: when, Type: EvNodeFinished, RunID: "r", NodeID: "n", Status: StatusOK, Source: SourcePinned, Message: "pinned"},
		{Seq: 10, Time: when, Type: EvLog, RunID: "r", NodeKey: "sub", SubRun: &RunLink{RunID: "c", File: "/w/<b>.weft.json", Dir: "/w/.weft/runs/c", NodeKey: "sub"}},
	}
	// Every field of Event is set in some event above: a field added to
	// Event but not to appendJSON fails here.
	set := map[string]bool{}
	for _, e := range events {
		v := reflect.ValueOf(e)
		for i := 0; i < v.NumField(); i++ {
			if !v.Field(i).IsZero() {
				set[v.Type().Field(i).Name] = true
			}
		}
	}
	for i := 0; i < reflect.TypeOf(Event{}).NumField(); i++ {
		if name := reflect.TypeOf(Event{}).Field(i).Name; !set[name] {
			t.Errorf("no event in the table sets Event.%s", name)
		}
	}
	for _, e := range events {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(plain(e)); err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(e) // through MarshalJSON
		if err != nil {
			t.Fatal(err)
		}
		// json.Marshal re-compacts a Marshaler's output and escapes HTML;
		// compare the method's own bytes too.
		own, _ := e.AppendJSON(nil)
		if string(own)+"\n" != want.String() {
			t.Errorf("event %d:\n got %s\nwant %s", e.Seq, own, want.String())
		}
		var a, b any
		json.Unmarshal(got, &a)
		json.Unmarshal(want.Bytes(), &b)
		if !jsonEqual(a, b) {
			t.Errorf("event %d: json.Marshal differs in value", e.Seq)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
