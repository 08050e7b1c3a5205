package planner

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/weft-dev/weft/backend/validate"
	"github.com/weft-dev/weft/backend/workflow"
)

var knownStages = map[string]bool{
	StageTruncation: true, StageExtract: true, StageRepair: true, StageDecode: true, StageAlign: true, StageFeatures: true,
	StageMap: true, StageEdges: true, StageInfer: true, StageLayout: true, StageValidate: true, StageReask: true,
}

// FuzzParseOutput: no input makes the local stages panic, and what comes
// out is well formed: a StageError, or a workflow whose nodes have unique
// ids and keys and a position, and whose edges join existing nodes.
func FuzzParseOutput(f *testing.F) {
	for _, file := range corpusFiles(f) {
		text, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(text))
	}
	for _, s := range []string{"", "{", "[", "{}", "[]", `{"steps": null}`, `{"steps": [{}]}`, `{"nodes": [{"id": 1}], "edges": [[1, 1]]}`,
		"<think>", "</think>", "```json\n```", `{"steps": [{"step_type": "Loop", "body": [{"step_type": "EndLoop"}]}]}`} {
		f.Add(s)
	}
	cat := testCatalog()
	f.Fuzz(func(t *testing.T, text string) {
		for _, feats := range []Features{{true, true}, {}} {
			w, ws, err := ParseOutput(text, ParseOptions{Features: feats, Catalog: cat})
			for _, x := range ws {
				if !knownStages[x.Stage] || x.Message == "" {
					t.Fatalf("bad warning %+v", x)
				}
			}
			if err != nil {
				var se *StageError
				if !errors.As(err, &se) || !knownStages[se.Stage] || w != nil {
					t.Fatalf("error %v (%T) with workflow %v", err, err, w != nil)
				}
				continue
			}
			if w == nil || w.Format != workflow.Format || w.ID == "" || len(w.Nodes) == 0 {
				t.Fatalf("bad workflow %+v", w)
			}
			ids, keys := map[string]bool{}, map[string]bool{}
			for _, n := range w.Nodes {
				if ids[n.ID] || keys[n.Key] || !workflow.ValidKey(n.Key) || n.Name == "" || n.Position == nil || !n.Type.Valid() {
					t.Fatalf("bad node %+v", n)
				}
				ids[n.ID], keys[n.Key] = true, true
			}
			for _, e := range w.Edges {
				if !ids[e.From] || !ids[e.To] {
					t.Fatalf("dangling edge %+v", e)
				}
			}
			if _, err := workflow.Marshal(w); err != nil {
				t.Fatalf("marshal: %v", err)
			}
			validate.Validate(w, cat)
		}
		// The fast validator agrees with encoding/json.
		if validJSON(text) != json.Valid([]byte(text)) {
			t.Fatalf("gjson.Valid %v, encoding/json.Valid %v", validJSON(text), json.Valid([]byte(text)))
		}
		// Valid JSON is never altered by the repair stage.
		if js, _, err := ExtractJSON(text); err == nil {
			if out, ws, err := RepairJSON(js); err == nil && len(ws) == 0 && out != js {
				t.Fatalf("repair changed text without a warning")
			}
		}
	})
}
