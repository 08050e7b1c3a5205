package planner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// FuzzAlign: the alignment stage never panics and stays in its budget on
// any text; a reading it returns is a decodable plan whose canonical JSON
// is valid; a refusal is an align StageError naming two readings or more.
func FuzzAlign(f *testing.F) {
	for name, plan := range alignSources(f) {
		for _, rw := range alignRewrites {
			if s := rw(plan.clone()); s != "" {
				f.Add(s)
			}
		}
		_ = name
	}
	for _, s := range []string{
		"steps:\n  - tool: log\n    args: message=hi\n  - tool: read_file\n    args: |\n      path: x\n",
		`{"a": "{\"b\": \"{\\\"steps\\\": [{\\\"tool\\\": \\\"log\\\"}]}\"}"}`,
		`{"draft": {"stps": [{"tool": "log"}]}, "final": {"stps": [{"tool": "log", "x": 1}]}}`,
		`{"tasks": [{"tool": "log"}, {"tool": "wait"}], "flow": ["1 -> 2", "2 -> 9", "a → b"]}`,
		"- - - -\n  - x: 1\n- y:\n", "a: |\n", `{"steps": {"a": {"tool": "log"}, "b": 3}}`,
		strings.Repeat(`{"x": "`, 40), strings.Repeat("[", 200),
	} {
		f.Add(s)
	}
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, text string) {
		b := newAlignBudget(context.Background())
		best, ws, err := alignReply(context.Background(), text, cat)
		for _, w := range ws {
			if w.Stage != StageAlign && w.Stage != StageRepair || w.Message == "" {
				t.Fatalf("bad warning %+v", w)
			}
		}
		if b.nodes != maxAlignNodes {
			t.Fatalf("a fresh budget was spent")
		}
		switch {
		case err != nil:
			var se *StageError
			if !errors.As(err, &se) || se.Stage != StageAlign || best != nil || strings.Count(se.Msg, "step(s), score") < 2 {
				t.Fatalf("bad refusal %v (%T)", err, err)
			}
		case best != nil:
			if !json.Valid([]byte(best.canon)) {
				t.Fatalf("canonical JSON is not valid: %s", best.canon)
			}
			if _, _, err := decodePlan(best.canon); err != nil || len(best.plan.Steps) == 0 || best.steps == 0 {
				t.Fatalf("a reading that does not decode: %v", err)
			}
			if math.IsNaN(best.score) || math.IsInf(best.score, 0) {
				t.Fatalf("score %v", best.score)
			}
		}
		// The readers of text alone.
		parseYAMLish(text, newAlignBudget(context.Background()), 0)
		parseKV(text)
	})
}
