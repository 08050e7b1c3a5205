package planner

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// corpusDir holds realistic model replies, one per defect class, each with
// a <name>.expect.json (see testdata/llm/README.md).
const corpusDir = "../../testdata/llm"

type corpusExpect struct {
	Outcome         string   `json:"outcome"` // "ok" or "reask"
	FatalStage      string   `json:"fatal_stage"`
	WarningStages   []string `json:"warning_stages"`
	WarningsContain []string `json:"warnings_contain"`
	NoWarningStages []string `json:"no_warning_stages"`
	Nodes           *int     `json:"nodes"`
	Valid           *bool    `json:"valid"`
	Features        *struct {
		AllowAITransforms bool `json:"allow_ai_transforms"`
		AllowAgentSteps   bool `json:"allow_agent_steps"`
	} `json:"features"`
	Note string `json:"note"`
}

// testCatalog is the built-in tools plus a "github" MCP server.
func testCatalog() *tools.Catalog {
	return tools.Builtin().With("github", []tools.Tool{
		{Name: "list_issues", Description: "List issues", InputSchema: json.RawMessage(`{"type":"object"}`)},
		{Name: "create_issue", Description: "Create an issue", InputSchema: json.RawMessage(`{"type":"object"}`), SideEffects: true},
	})
}

func (e corpusExpect) options() ParseOptions {
	opts := ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: testCatalog()}
	if e.Features != nil {
		opts.Features = Features{AllowAITransforms: e.Features.AllowAITransforms, AllowAgentSteps: e.Features.AllowAgentSteps}
	}
	return opts
}

func corpusFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(corpusDir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("corpus has %d files, want at least 40", len(files))
	}
	return files
}

func TestCorpus(t *testing.T) {
	for _, file := range corpusFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txt")
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(strings.TrimSuffix(file, ".txt") + ".expect.json")
			if err != nil {
				t.Fatalf("missing expectations: %v", err)
			}
			var exp corpusExpect
			dec := json.NewDecoder(strings.NewReader(string(raw)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&exp); err != nil {
				t.Fatalf("bad expect file: %v", err)
			}
			opts := exp.options()
			w, ws, err := ParseOutput(string(text), opts)
			dump := func() string {
				var b strings.Builder
				for _, x := range ws {
					b.WriteString("\n  " + x.String())
				}
				return b.String()
			}

			var se *StageError
			switch {
			case exp.FatalStage != "":
				if !errors.As(err, &se) {
					t.Fatalf("want a %s StageError, got err=%v%s", exp.FatalStage, err, dump())
				}
				if se.Stage != exp.FatalStage {
					t.Fatalf("fatal stage %q, want %q (%v)%s", se.Stage, exp.FatalStage, se, dump())
				}
				if exp.Outcome != "reask" {
					t.Errorf("a fatal stage means outcome \"reask\", expect file says %q", exp.Outcome)
				}
			case err != nil:
				t.Fatalf("unexpected error: %v%s", err, dump())
			}

			stages := map[string]bool{}
			for _, x := range ws {
				stages[x.Stage] = true
				if x.Message == "" {
					t.Errorf("empty warning message in stage %s", x.Stage)
				}
			}
			for _, s := range exp.WarningStages {
				if !stages[s] {
					t.Errorf("no %q warning%s", s, dump())
				}
			}
			for _, s := range exp.NoWarningStages {
				if stages[s] {
					t.Errorf("unexpected %q warning%s", s, dump())
				}
			}
			for _, sub := range exp.WarningsContain {
				if !slices.ContainsFunc(ws, func(x Warning) bool { return strings.Contains(x.Message, sub) }) &&
					(se == nil || !strings.Contains(se.Error(), sub)) {
					t.Errorf("no warning contains %q%s", sub, dump())
				}
			}
			if w == nil {
				return
			}
			if exp.Nodes != nil && len(w.Nodes) != *exp.Nodes {
				t.Errorf("%d nodes, want %d%s", len(w.Nodes), *exp.Nodes, dump())
			}
			for _, n := range w.Nodes {
				if n.Position == nil || n.ID == "" || n.Key == "" || n.Name == "" {
					t.Errorf("node %+v lacks id, key, name or position", n)
				}
			}
			res := validate.Validate(w, opts.Catalog)
			// As the planner judges it: a tool the model was not shown is
			// an error (StrictTools).
			res.Problems = StrictTools(res.Problems, w, opts.Catalog, nil)
			res.Valid = !slices.ContainsFunc(res.Problems, func(p validate.Problem) bool { return p.Severity == validate.SeverityError })
			if exp.Valid != nil && res.Valid != *exp.Valid {
				var b strings.Builder
				for _, p := range res.Problems {
					b.WriteString("\n  " + p.Code + ": " + p.Message)
				}
				t.Errorf("valid = %v, want %v; problems:%s%s", res.Valid, *exp.Valid, b.String(), dump())
			}
			if exp.Outcome == "ok" && !res.Valid {
				t.Errorf("outcome ok but validation fails")
			}
			if exp.Outcome == "reask" && exp.FatalStage == "" && res.Valid {
				t.Errorf("outcome reask without a fatal stage, but the workflow is valid")
			}
		})
	}
}

// TestCorpusValidJSONUntouched: for every valid_* reply the repair stage
// changes nothing, byte for byte, and says nothing.
func TestCorpusValidJSONUntouched(t *testing.T) {
	for _, file := range corpusFiles(t) {
		if !strings.HasPrefix(filepath.Base(file), "valid_") {
			continue
		}
		text, _ := os.ReadFile(file)
		js, _, err := ExtractJSON(string(text))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out, ws, err := RepairJSON(js)
		if err != nil || out != js || len(ws) != 0 {
			t.Errorf("%s: repair changed valid JSON (err %v, %d warnings)", file, err, len(ws))
		}
		_, ws, err = ParseOutput(string(text), ParseOptions{Features: Features{true, true}, Catalog: testCatalog()})
		if err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if msgs := WarningsOf(ws, StageRepair); len(msgs) > 0 {
			t.Errorf("%s: repair warnings on valid JSON: %v", file, msgs)
		}
	}
}
