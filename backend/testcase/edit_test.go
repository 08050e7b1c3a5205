package testcase

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// decoded is a case file as plain JSON values (numbers as written).
func decoded(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := decodeJSON(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Every case of the shipped sample given every other case's mocks: the
// file is the old one with that one mocks value replaced, and nothing
// else in it moves.
func TestSetMocksChangesOnlyThoseMocks(t *testing.T) {
	data, err := os.ReadFile(PathFor(filepath.Join("..", "..", "testdata", "workflows", "sample.json")))
	if err != nil {
		t.Fatal(err)
	}
	list, err := MocksOf(data)
	if err != nil || len(list) < 3 {
		t.Fatalf("MocksOf: %d cases, %v", len(list), err)
	}
	sps, err := spans(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, target := range list {
		for _, from := range list {
			out, err := SetMocks(data, target.Name, []byte(from.Mocks))
			if err != nil {
				t.Fatalf("%s ← %s: %v", target.Name, from.Name, err)
			}
			sp := sps[i]
			if !bytes.HasPrefix(out, data[:sp.mStart]) || !bytes.HasSuffix(out, data[sp.mEnd:]) {
				t.Errorf("%s ← %s: bytes outside the mocks changed", target.Name, from.Name)
			}
			want := decoded(t, data).(map[string]any)
			want["cases"].([]any)[i].(map[string]any)["mocks"] = decoded(t, []byte(from.Mocks))
			if got := decoded(t, out); !reflect.DeepEqual(got, want) {
				t.Errorf("%s ← %s: the file is not the old one with those mocks", target.Name, from.Name)
			}
			again, err := MocksOf(out)
			if err != nil || again[i].Mocks != from.Mocks {
				t.Errorf("%s ← %s: read back %q, %v", target.Name, from.Name, again[i].Mocks, err)
			}
		}
	}
}

func TestSetMocksKeepsWhatThePersonWrote(t *testing.T) {
	in := "{\"cases\": [\n  {\"name\": \"big\", \"inputs\": {\"n\": 12345678901234567890123}, \"expect\": {}},\n" +
		"  {\"name\": \"b\",\n   \"expect\": {\"outcome\": \"succeeded\"}}\n]}\n"
	mocks := `{"commands": [{"command": "echo 1", "answer": {"exit_code": 0, "stdout": "<&>"}}]}`
	out, err := SetMocks([]byte(in), "b", []byte(mocks))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `12345678901234567890123`) || !strings.Contains(string(out), `"<&>"`) {
		t.Errorf("a number or a character changed:\n%s", out)
	}
	f, err := Decode(out)
	if err != nil || len(f.Cases[1].Mocks.Commands) != 1 || f.Cases[0].Mocks.Commands != nil {
		t.Fatalf("the new member: %v\n%s", err, out)
	}
	// The edit of a case without mocks is an edit like the others.
	out2, err := SetMocks(out, "big", []byte(mocks))
	if err != nil || !bytes.HasSuffix(out2, out[bytes.Index(out, []byte(`{"name": "b"`)):]) {
		t.Errorf("second edit: %v\n%s", err, out2)
	}
}

func TestSetMocksRefuses(t *testing.T) {
	file := []byte(`{"cases":[{"name":"c","mocks":{}}]}`)
	for _, tc := range []struct{ name, mocks, want string }{
		{"not JSON", "{\n  \"commands\": [}", "mocks: line 2, column 16: not JSON"},
		{"not an object", `[]`, "mocks are a JSON object"},
		{"unknown field", `{"comands":[]}`, `mocks: the mocks has no field "comands"`},
		{"deep unknown field", `{"commands":[{"command":"x","answer":{"stdot":""}}]}`, `mocks.commands[0].answer: "answer" has no field "stdot"`},
		{"wrong type", `{"commands":[{"command":"x","answer":{"exit_code":"0"}}]}`, "exit_code"},
		{"no answer", `{"commands":[{"command":"x"}]}`, "mocks.commands[0]: has no answer"},
		{"text after", `{} {}`, "text after"},
		{"ai two kinds", `{"ai":{"s":{"answer":{"text":"a","label":"b"}}}}`, "exactly one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SetMocks(file, "c", []byte(tc.mocks))
			if err == nil || !strings.Contains(err.Error(), tc.want) || out != nil {
				t.Errorf("err %v, want one saying %q", err, tc.want)
			}
		})
	}
	if _, err := SetMocks(file, "d", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), `no case is named "d"`) {
		t.Errorf("unknown case: %v", err)
	}
	if _, err := SetMocks([]byte(`{"cases":[{"name":"c","mocks":{"commands":[{"command":"x"}]}}]}`), "c", []byte(`{}`)); err == nil ||
		!strings.Contains(err.Error(), "cannot be edited here until it is fixed") {
		t.Errorf("an unusable file: %v", err)
	}
}

// Any text given as mocks: an error, or a file Decode accepts with those
// mocks in it; never a panic.
func FuzzSetMocks(f *testing.F) {
	f.Add(`{"commands":[{"command":"x","answer":{"exit_code":0}}]}`)
	f.Add(`{"ai":{"s":{"answers":[{"text":"a"}]}}}`)
	f.Add(`{`)
	f.Fuzz(func(t *testing.T, mocks string) {
		file := []byte("{\"cases\": [\n  {\"name\": \"a\", \"mocks\": {}},\n  {\"name\": \"b\"}\n]}")
		for _, name := range []string{"a", "b"} {
			out, err := SetMocks(file, name, []byte(mocks))
			if err != nil {
				continue
			}
			list, err := MocksOf(out)
			if err != nil || len(list) != 2 {
				t.Fatalf("%s: wrote a file MocksOf refuses: %v\n%s", name, err, out)
			}
			var a, b any
			if json.Unmarshal([]byte(mocks), &a) != nil || json.Unmarshal([]byte(list[map[string]int{"a": 0, "b": 1}[name]].Mocks), &b) != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: the mocks read back differ\n%s", name, out)
			}
		}
	})
}

// A case added to a file keeps every byte already there: a number past
// 2^53 (in inputs, MCP arguments, AI data), a hand layout, the order a
// person wrote; the new case reads back as it was made.
func TestAddCaseKeepsTheFilesBytes(t *testing.T) {
	const big = "9007199254740993" // 2^53 + 1: a float64 makes it ...992
	hand := `{
	"cases": [
		{ "name": "first",   "inputs": {"id": ` + big + `},
		  "mocks": {"mcp": [{"tool": "db.get", "arguments": {"id": ` + big + `}, "answer": {"text": "ok"}}],
		            "ai": {"x": {"answer": {"data": {"n": ` + big + `}}}}},
		  "expect": {"outcome": "succeeded"} }
	]
}
`
	text := "hello"
	c := Case{Name: "recorded", Inputs: map[string]any{"id": json.Number(big)},
		Mocks:  Mocks{AI: map[string]AIMock{"x": {Answers: Answers[AIAnswer]{Answer: &AIAnswer{Text: &text}}}}},
		Expect: Expect{Outcome: "succeeded", Path: []string{"x"}}}
	for name, data := range map[string]string{
		"hand layout": hand,
		"one line":    `{"cases":[{"name":"first","inputs":{"id":` + big + `}}]}`,
		"empty list":  "{\n  \"cases\": []\n}\n",
		"null list":   `{"cases": null}`,
		"no member":   "{}\n",
		"no file":     "",
	} {
		out, err := AddCase([]byte(data), c)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := Decode(out)
		if err != nil {
			t.Fatalf("%s: the result does not read back: %v\n%s", name, err, out)
		}
		got := f.Cases[len(f.Cases)-1]
		if got.Name != "recorded" || *got.Mocks.AI["x"].Answer.Text != "hello" || !strings.Contains(string(out[bytes.LastIndex(out, []byte(`"recorded"`)):]), `"id": `+big) {
			t.Errorf("%s: the new case reads back as %+v\n%s", name, got, out)
		}
		if sps, _ := spans([]byte(data)); len(sps) > 0 {
			last := sps[len(sps)-1]
			if !bytes.HasPrefix(out, []byte(data[:last.end])) || !bytes.HasSuffix(out, []byte(data[last.end:])) {
				t.Errorf("%s: bytes already there changed:\n%s", name, out)
			}
			if n := strings.Count(string(out), big); n != strings.Count(data, big)+1 {
				t.Errorf("%s: %d copies of %s, want %d:\n%s", name, n, big, strings.Count(data, big)+1, out)
			}
		}
	}
	if _, err := AddCase([]byte(hand), Case{Name: "first"}); err == nil || !strings.Contains(err.Error(), `already has a case named "first"`) {
		t.Errorf("a second case of a name: %v", err)
	}
	if _, err := AddCase([]byte(`{"cases":[{"name":"a","mocks":{"commands":[{"command":"x"}]}}]}`), c); err == nil {
		t.Error("a file Decode refuses took a case")
	}
}
