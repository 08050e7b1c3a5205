package failure

import (
	"encoding/json"
	"testing"
	"time"
)

// The JSON of these types is read by run logs (events.jsonl), escalation
// events, patterns.jsonl and the frontend (its types are generated from these,
// frontend/src/gen/bindings.ts): the field names and the inlined classification
// must not change.
func TestJSONShapes(t *testing.T) {
	at := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"record", Record{Attempt: 2, Time: at, FailureType: FailVerification, Error: "exit 126", OutputSummary: "stderr: x",
			Classification: Classification{Severity: SevHigh, Category: CatPermission, SuggestedFix: "chmod +x"}, DurationMs: 12},
			`{"attempt":2,"time":"2024-05-06T07:08:09Z","failure_type":"verification_failed","error":"exit 126","output_summary":"stderr: x","severity":"HIGH","category":"permission","retryable":false,"suggested_fix":"chmod +x","duration_ms":12}`},
		{"record, empty optional fields", Record{FailureType: FailTimeout, Classification: Classification{Severity: SevMedium, Category: CatTimeout, Retryable: true}},
			`{"attempt":0,"time":"0001-01-01T00:00:00Z","failure_type":"timeout","error":"","severity":"MEDIUM","category":"timeout","retryable":true,"duration_ms":0}`},
		{"pattern", Pattern{Time: at, Tool: "run_command", Category: CatDependency, FailureType: FailExecution, Signature: "sh: s not found",
			Error: "sh: 'x' not found", Resolution: "fix", Fix: "install x", Attempts: 3, Count: 2},
			`{"time":"2024-05-06T07:08:09Z","tool":"run_command","category":"dependency","failure_type":"execution_error","signature":"sh: s not found","error":"sh: 'x' not found","resolution":"fix","fix":"install x","attempts":3,"count":2}`},
		{"replan info", ReplanInfo{Time: at, RunID: "r1", FailedNode: "fetch", Auto: true, Replans: 2, AutoReplans: 1},
			`{"time":"2024-05-06T07:08:09Z","run_id":"r1","failed_node":"fetch","auto":true,"replans":2,"auto_replans":1}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Fatalf("got  %s\nwant %s", b, c.want)
			}
		})
	}
}

func TestTypeNames(t *testing.T) {
	// The frontend and settings (run.auto_replan.min_severity) spell these.
	for got, want := range map[string]string{
		string(FailExecution): "execution_error", string(FailRejected): "rejected",
		string(SevCritical): "CRITICAL", string(SevLow): "LOW",
		string(CatNotFound): "not_found", string(CatUnknown): "unknown", ReplanExtraKey: "weft_replan",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// The replan request's own keys (the node and workflow inside are
// package workflow's format).
func TestReplanRequestKeys(t *testing.T) {
	b, err := json.Marshal(ReplanRequest{Failures: []Record{}, Patterns: []Pattern{{}}, Auto: true})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"workflow", "failed_node", "failures", "outputs", "completed", "patterns", "auto"}
	if len(m) != len(want) {
		t.Fatalf("keys of %s, want %v", b, want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Fatalf("no %q in %s", k, b)
		}
	}
}
