package planner

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/weft-dev/weft/backend/tools"
	"github.com/weft-dev/weft/backend/validate"
)

// The -update flag may also be defined by another test file of the
// package (package-level vars initialise before init functions run).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata/golden")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/golden/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./backend/planner -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got ---\n%s", path, got)
	}
}

func catalogWithMCP() *tools.Catalog {
	return tools.Builtin().With("github", []tools.Tool{{
		Name:        "create_issue",
		Description: "Create an issue in a GitHub repository.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"repo":{"type":"string","description":"owner/name"},"title":{"type":"string"},"body":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["repo","title"]}`),
		Outputs:     []tools.Field{{Name: "number", Type: "integer"}, {Name: "url", Type: "string"}},
		SideEffects: true,
	}})
}

func TestSystemPromptGolden(t *testing.T) {
	cases := []struct {
		file     string
		cat      *tools.Catalog
		features Features
		mistakes []Mistake
	}{
		{"system_default.txt", tools.Builtin(), Features{AllowAITransforms: true}, nil},
		{"system_no_ai.txt", tools.Builtin(), Features{}, nil},
		{"system_all_mcp_mistakes.txt", catalogWithMCP(), Features{AllowAITransforms: true, AllowAgentSteps: true},
			MistakesFrom([]Record{
				{Model: "m", Failures: []string{"problem:" + validate.CodeIfMissingBranch, "stage:" + StageDecode}},
				{Model: "m", Failures: []string{"problem:" + validate.CodeIfMissingBranch}},
			}, "m", maxMistakes)},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			checkGolden(t, c.file, SystemPrompt(c.cat, c.features, c.mistakes))
		})
	}
}

func TestGoalPromptGolden(t *testing.T) {
	checkGolden(t, "goal.txt", GoalPrompt("  back up notes.txt every morning \n"))
}

func TestSystemPromptFollowsFeatures(t *testing.T) {
	off := SystemPrompt(tools.Builtin(), Features{}, nil)
	on := SystemPrompt(tools.Builtin(), Features{AllowAITransforms: true, AllowAgentSteps: true}, nil)
	if strings.Contains(off, "- AiTransform:") || strings.Contains(off, "- AiStep:") || !strings.Contains(off, "switched off") {
		t.Error("disabled step types must not be taught")
	}
	if !strings.Contains(on, "- AiTransform:") || !strings.Contains(on, "- AiStep:") || strings.Contains(on, "switched off") {
		t.Error("enabled step types must be taught")
	}
	for _, name := range tools.Builtin().Names() {
		if !strings.Contains(off, "- "+name+"(") {
			t.Errorf("tool %s missing from the prompt", name)
		}
	}
}

// The built-ins' one-line forms name every argument and output of their
// schemas, so nothing a plan needs is left out.
func TestBuiltinLines(t *testing.T) {
	for _, tl := range tools.Builtin().List() {
		line, ok := builtinLines[tl.Name]
		if !ok {
			t.Errorf("%s has no line", tl.Name)
			continue
		}
		var sch struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tl.InputSchema, &sch); err != nil {
			t.Fatal(err)
		}
		for arg := range sch.Properties {
			if !strings.Contains(line, arg+":") && !strings.Contains(line, arg+"?:") {
				t.Errorf("%s: argument %s missing from %q", tl.Name, arg, line)
			}
		}
		for _, o := range tl.Outputs {
			if !strings.Contains(line, o.Name) {
				t.Errorf("%s: output %s missing from %q", tl.Name, o.Name, line)
			}
		}
	}
}

func TestDescribeSchema(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{``, ""},
		{`{"type":"object","properties":{}}`, ""},
		{`{"properties":{"b":{"type":"integer","default":3},"a":{"type":["string","null"]},"z":{"type":"string","enum":["x","y"],"description":"  the   zed "}},"required":["z"]}`,
			"z (string, required, one of x|y): the zed\na (string or null)\nb (integer, default 3)"},
		{`not json`, "arguments schema: not json"},
	} {
		if got := strings.Join(describeSchema(json.RawMessage(c.in)), "\n"); got != c.want {
			t.Errorf("describeSchema(%s) = %q, want %q", c.in, got, c.want)
		}
	}
}

// The examples the prompts teach must themselves be valid plans: parsed
// without any local repair and valid as they stand.
func TestExamplesAreValidPlans(t *testing.T) {
	all := map[string]string{"flat": exampleFlat, "if": exampleIf}
	for k, ex := range examples {
		all["example "+k] = ex.text
	}
	for name, text := range all {
		t.Run(name, func(t *testing.T) {
			w, warnings, err := ParseOutput(text, ParseOptions{Features: Features{AllowAITransforms: true, AllowAgentSteps: true}, Catalog: tools.Builtin()})
			if err != nil {
				t.Fatal(err)
			}
			for _, wn := range warnings {
				if wn.Stage != StageLayout {
					t.Errorf("example needed a local fix: %s", wn)
				}
			}
			res := validate.Validate(w, tools.Builtin())
			for _, p := range res.Problems {
				t.Errorf("%s: %s [%s]", p.Severity, p.Message, p.Code)
			}
			var raw map[string]any
			if err := json.Unmarshal([]byte(text), &raw); err != nil {
				t.Errorf("not strict JSON: %v", err)
			}
		})
	}
}

func TestReaskGolden(t *testing.T) {
	w, warnings, err := ParseOutput(replyIfOneBranch, ParseOptions{Catalog: tools.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	vr := validate.Validate(w, tools.Builtin())
	o := &outcome{attempt: 2, text: replyIfOneBranch, wf: w, warnings: warnings, problems: vr.Problems, errors: vr.Errors()}
	checkGolden(t, "reask_if_second_final.txt", reaskFeedback(o, 2, true).Text(2, 3))

	o = &outcome{attempt: 1, text: "{", stageErr: &StageError{Stage: StageDecode, Msg: "unexpected end of input", Line: 3, Column: 7, Path: "steps[1]"},
		warnings: []Warning{{Stage: StageExtract, Message: "ignored 12 characters of text before and 0 after the JSON"}}}
	checkGolden(t, "reask_decode_first.txt", reaskFeedback(o, 1, false).Text(1, 3))

	o = &outcome{attempt: 1, text: "{", truncated: true}
	checkGolden(t, "reask_truncated.txt", reaskFeedback(o, 1, false).Text(1, 3))
}
