package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testFolder writes a workflow with one command step and, unless cases
// is "", its case file.
func testFolder(t *testing.T, cases string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	os.WriteFile(path, []byte(`{"format":"weft/v1","id":"w","name":"t","nodes":[
	 {"id":"hi","key":"hi","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi > made"}}}],"edges":[]}`), 0o644)
	if cases != "" {
		os.WriteFile(filepath.Join(dir, "flow.tests.json"), []byte(cases), 0o644)
	}
	return path
}

const passing = `{"name":"says hi","mocks":{"commands":[{"command":"echo hi > made","answer":{"exit_code":0,"stdout":""}}]},"expect":{"outcome":"succeeded","path":["hi"]}}`
const failing = `{"name":"expects more","mocks":{"commands":[{"command":"echo hi > made","answer":{"exit_code":0,"stdout":"hi"}}]},"expect":{"outputs":{"hi.stdout":{"equals":"hello"}}}}`

func TestTestExitCodes(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	path := testFolder(t, `{"cases":[`+passing+`]}`)
	code, out, errs := run(t, env, "test", path)
	if code != exitOK || !strings.Contains(out, "PASS  says hi (1 step)") || !strings.Contains(out, "1 of 1 case passed") {
		t.Errorf("passing: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), "made")); !os.IsNotExist(err) {
		t.Errorf("the command ran: %v", err)
	}

	path = testFolder(t, `{"cases":[`+passing+`,`+failing+`]}`)
	code, out, _ = run(t, env, "test", path)
	for _, want := range []string{"FAIL  expects more", `step hi: output: hi.stdout: expected "hello", got "hi"`, `expected: {"equals":"hello"}`, `actual:   "hi"`, "1 of 2 cases passed"} {
		if !strings.Contains(out, want) {
			t.Errorf("failing: output lacks %q:\n%s", want, out)
		}
	}
	if code != exitInvalid {
		t.Errorf("failing: exit %d, want 1", code)
	}

	for name, tc := range map[string]struct{ cases, want string }{
		"no case file": {"", "flow.tests.json does not exist: no test cases: record one from the last run with `weft test FILE --record`"},
		"no cases":     {`{"cases":[]}`, "--record"},
		"unknown":      {`{"cases":[{"name":"a","expect":{"outcom":"failed"}}]}`, `flow.tests.json: cases[0] "a".expect: "expect" has no field "outcom"`},
		"secret":       {`{"cases":[{"name":"a","inputs":{"password":"hunter2hunter2"}}]}`, `cases[0] "a": inputs.password: "password" holds what looks like a credential`},
	} {
		path := testFolder(t, tc.cases)
		code, _, errs := run(t, env, "test", path)
		if code != exitUnusable || !strings.Contains(errs, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", name, code, errs, tc.want)
		}
	}
	if code, _, _ := run(t, env, "test"); code != exitUnusable {
		t.Errorf("no FILE: exit %d, want 2", code)
	}
}

func TestTestJSONAndJUnit(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	path := testFolder(t, `{"cases":[`+passing+`,`+failing+`]}`)
	junit := filepath.Join(t.TempDir(), "report.xml")
	code, out, errs := run(t, env, "test", path, "--json", "--junit", junit)
	if code != exitInvalid {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep struct {
		Workflow string `json:"workflow"`
		File     string `json:"file"`
		Passed   int    `json:"passed"`
		Failed   int    `json:"failed"`
		Cases    []struct {
			Name     string   `json:"name"`
			Passed   bool     `json:"passed"`
			Outcome  string   `json:"outcome"`
			Path     []string `json:"path"`
			Error    string   `json:"error"`
			Duration int64    `json:"duration_ms"`
			Failures []struct {
				Step     string `json:"step"`
				What     string `json:"what"`
				Expected any    `json:"expected"`
				Actual   any    `json:"actual"`
				Message  string `json:"message"`
			} `json:"failures"`
		} `json:"cases"`
		Unapproved []any `json:"unapproved"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	f := rep.Cases[1].Failures
	if rep.Passed != 1 || rep.Failed != 1 || rep.Workflow != path || !strings.HasSuffix(rep.File, "flow.tests.json") ||
		rep.Cases[0].Path[0] != "hi" || rep.Cases[0].Outcome != "succeeded" || len(f) != 1 || f[0].Step != "hi" || f[0].What != "output" || f[0].Actual != "hi" || rep.Unapproved == nil {
		t.Errorf("--json report: %+v", rep)
	}
	b, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var suite struct {
		XMLName  xml.Name `xml:"testsuite"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(b, &suite); err != nil {
		t.Fatalf("--junit: %v\n%s", err, b)
	}
	if suite.Tests != 2 || suite.Failures != 1 || suite.Cases[1].Name != "expects more" || suite.Cases[1].Failure == nil {
		t.Errorf("--junit: %+v", suite)
	}

	code, out, _ = run(t, env, "test", path, "--json", "--case", "nobody")
	var bad struct {
		Error    string `json:"error"`
		Problems []any  `json:"problems"`
	}
	if code != exitUnusable || json.Unmarshal([]byte(out), &bad) != nil || !strings.Contains(bad.Error, `no case is named "nobody"`) || bad.Problems == nil {
		t.Errorf("--case nobody: exit %d, %s", code, out)
	}
}

// weft test --record: a case from the last run, which then passes.
func TestTestRecord(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	os.WriteFile(path, []byte(`{"format":"weft/v1","id":"w","name":"t","nodes":[
	 {"id":"hi","key":"hi","type":"Tool","params":{"tool":"run_command","arguments":{"command":"echo hi && echo there"}}},
	 {"id":"put","key":"put","type":"Tool","params":{"tool":"write_file","arguments":{"path":"out.txt","content":"{{hi.stdout}}"}}}],
	 "edges":[{"from":"hi","to":"put"}]}`), 0o644)
	if code, out, errs := run(t, env, "test", path, "--record"); code != exitUnusable || !strings.Contains(errs, "no finished local run") {
		t.Errorf("before any run: exit %d %s%s", code, out, errs)
	}
	if code, out, errs := run(t, env, "run", path); code != exitOK {
		t.Fatalf("run: exit %d %s%s", code, out, errs)
	}
	os.Remove(filepath.Join(dir, "out.txt")) // the test must not need it
	code, out, errs := run(t, env, "test", path, "--record", "--case", "greets")
	if code != exitOK || !strings.Contains(out, `recorded the case "greets" from run`) {
		t.Fatalf("record: exit %d %s%s", code, out, errs)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "flow.tests.json"))
	if !strings.Contains(string(b), `"command": "echo hi && echo there"`) || !strings.Contains(string(b), `"out.txt": {`) {
		t.Errorf("case file:\n%s", b)
	}
	if code, out, errs := run(t, env, "test", path); code != exitOK || !strings.Contains(out, "PASS  greets (2 steps)") {
		t.Errorf("replay: exit %d %s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.txt")); !os.IsNotExist(err) {
		t.Errorf("the replay wrote out.txt: %v", err)
	}
	if code, _, errs := run(t, env, "test", path, "--record", "--case", "greets"); code != exitUnusable || !strings.Contains(errs, `already has a case named "greets"`) {
		t.Errorf("the same name again: exit %d %s", code, errs)
	}
}

// A case recorded into a file a person wrote goes in after the last case:
// everything already there stays byte for byte (their layout, a number
// past 2^53 that a float64 would round).
func TestTestRecordKeepsTheFile(t *testing.T) {
	env := map[string]string{"XDG_DATA_HOME": t.TempDir()}
	path := testFolder(t, "")
	hand := "{\"cases\": [\n\t{\"name\": \"by hand\",   \"mocks\": {\"mcp\": [{\"tool\": \"db.get\", \"arguments\": {\"id\": 9007199254740993},\n\t\t\"answer\": {\"text\": \"row\"}}]}}\n]}\n"
	casePath := filepath.Join(filepath.Dir(path), "flow.tests.json")
	os.WriteFile(casePath, []byte(hand), 0o644)
	if code, out, errs := run(t, env, "run", path); code != exitOK {
		t.Fatalf("run: exit %d %s%s", code, out, errs)
	}
	if code, out, errs := run(t, env, "test", path, "--record", "--case", "recorded"); code != exitOK {
		t.Fatalf("record: exit %d %s%s", code, out, errs)
	}
	b, _ := os.ReadFile(casePath)
	end := strings.Index(hand, "}}]}}") + len("}}]}}")
	if !strings.HasPrefix(string(b), hand[:end]+",\n\t{\n\t  \"name\": \"recorded\"") || !strings.HasSuffix(string(b), hand[end:]) {
		t.Errorf("the file was not kept:\n%s", b)
	}
	if code, out, _ := run(t, env, "test", path, "--case", "recorded"); code != exitOK {
		t.Errorf("the recorded case does not pass:\n%s", out)
	}
}
